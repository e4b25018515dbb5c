// Cases of the cluster and topic APIs: ApiVersions, Metadata, CreateTopics, DeleteTopics, CreatePartitions,
// DescribeCluster, DescribeTopicPartitions, DescribeLogDirs.
import type { Message } from '../../protocol/codec.js';
import type { Case } from './case.js';
import { frameAtVersion } from './harness.js';

const NO_TOPIC_ID = Buffer.alloc(16);

export const TOPIC_CASES: Case[] = [
  {
    name: 'ApiVersions at a version newer than any',
    api: 18,
    versions: '0',
    async run({ sendRaw }) {
      // Kafka answers a version it does not know in v0's layout, listing only ApiVersions' own range.
      await sendRaw('ApiVersions v99', frameAtVersion(18, 99, 3, { clientSoftwareName: 'diff', clientSoftwareVersion: '1' }, 999), 18, 0);
    },
  },
  {
    name: 'ApiVersions',
    api: 18,
    async run({ send, v }) {
      await send('ordinary', 18, v, { clientSoftwareName: 'krill-differential', clientSoftwareVersion: '1.0' });
    },
  },
  {
    name: 'Requests at versions a broker does not serve',
    api: 18,
    versions: '0',
    async run({ sendRaw }) {
      // Below KIP-896's baseline and above any version: Kafka closes the connection for both.
      await sendRaw('Fetch v3', frameAtVersion(1, 3, 4, { replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1, isolationLevel: 0, topics: [] }, 998), 1, 4);
      await sendRaw(
        'Metadata v99',
        frameAtVersion(3, 99, 12, { topics: [], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false }, 997),
        3,
        12,
      );
    },
  },
  {
    name: 'ApiVersions with a bad client software name',
    api: 18,
    versions: '3+',
    async run({ send, v }) {
      await send('bad name', 18, v, { clientSoftwareName: '-bad name!', clientSoftwareVersion: '1' });
    },
  },
  {
    name: 'Metadata of an existing and an unknown topic',
    api: 3,
    versions: '4+',
    async setup({ side, name }) {
      await side.createTopics([{ name: name('t'), partitions: 2 }]);
    },
    async run({ send, v, name }) {
      await send('named', 3, v, {
        topics: [
          { topicId: null, name: name('t') },
          { topicId: null, name: name('missing') },
        ],
        allowAutoTopicCreation: false,
        includeClusterAuthorizedOperations: v <= 10,
        includeTopicAuthorizedOperations: true,
      });
    },
  },
  {
    name: 'Metadata of all topics',
    api: 3,
    async setup({ side, name }) {
      await side.createTopics([{ name: name('a'), partitions: 2 }, { name: name('b') }]);
    },
    async run({ send, v, name }) {
      const res = await send('all', 3, v, { topics: v === 0 ? [] : null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
      // Every case's topics are there: only this case's are compared.
      res.topics = res.topics.filter((t: Message) => t.name.startsWith(name('')));
    },
  },
  {
    name: 'Metadata auto-creates an unknown topic',
    api: 3,
    versions: '1+',
    async run({ send, v, name }) {
      // v1-3 have no allowAutoTopicCreation: it is true.
      await send('auto-create', 3, v, {
        topics: [{ topicId: null, name: name(`auto-v${v}`) }],
        allowAutoTopicCreation: true,
        includeTopicAuthorizedOperations: false,
      });
    },
  },
  {
    name: 'Metadata of an unknown topic id',
    api: 3,
    versions: '10+',
    async run({ send, v }) {
      await send('unknown id', 3, v, {
        topics: [{ topicId: Buffer.alloc(16, 7), name: null }],
        allowAutoTopicCreation: false,
        includeTopicAuthorizedOperations: false,
      });
    },
  },
  {
    name: 'CreateTopics: ordinary, duplicate, invalid',
    api: 19,
    async run({ send, v, name }) {
      const topic = (n: string, numPartitions: number, replicationFactor: number, configs: Record<string, string> = {}) => ({
        name: name(`${n}-v${v}`),
        numPartitions,
        replicationFactor,
        assignments: [],
        configs: Object.entries(configs).map(([k, value]) => ({ name: k, value })),
      });
      const body = (topics: unknown[], validateOnly = false) => ({ topics, timeoutMs: 30_000, validateOnly });
      await send('create', 19, v, body([topic('a', 2, 1, { 'retention.ms': '3600000' })]));
      await send('again', 19, v, body([topic('a', 2, 1)]));
      await send('invalid', 19, v, body([topic('zero', 0, 1), topic('rf', 1, 3), topic('bad-config', 1, 1, { 'retention.ms': 'soon' })]));
      await send('unknown config', 19, v, body([topic('unknown-config', 1, 1, { 'no.such.config': '1' })]));
      await send('bad name', 19, v, body([{ ...topic('x', 1, 1), name: 'bad/name' }]));
      await send('duplicate in request', 19, v, body([topic('dup', 1, 1), topic('dup', 1, 1)]));
      await send('validate only', 19, v, body([topic('validated', 3, 1, { 'cleanup.policy': 'compact' })], true));
    },
  },
  {
    name: 'DeleteTopics: existing and unknown',
    api: 20,
    async setup({ side, name }) {
      await side.createTopics([1, 2, 3, 4, 5, 6].map((v) => ({ name: name(`del-v${v}`) })).concat({ name: name('by-id') }));
    },
    async run({ send, v, name, side }) {
      if (v >= 6) {
        await send('by name', 20, v, {
          topics: [
            { name: name(`del-v${v}`), topicId: NO_TOPIC_ID },
            { name: name('missing'), topicId: NO_TOPIC_ID },
          ],
          timeoutMs: 30_000,
        });
        await send('unknown id', 20, v, { topics: [{ name: null, topicId: Buffer.alloc(16, 9) }], timeoutMs: 30_000 });
        await send('by id', 20, v, { topics: [{ name: null, topicId: side.topicId(name('by-id')) }], timeoutMs: 30_000 });
      } else {
        await send('by name', 20, v, { topicNames: [name(`del-v${v}`), name('missing')], timeoutMs: 30_000 });
      }
    },
  },
  {
    name: 'CreatePartitions: grow, shrink, unknown',
    api: 37,
    async setup({ side, name }) {
      await side.createTopics([0, 1, 2, 3].map((v) => ({ name: name(`cp-v${v}`), partitions: 1 })));
    },
    async run({ send, v, name }) {
      const t = (n: string, count: number) => ({ name: n, count, assignments: null });
      await send('validate', 37, v, { topics: [t(name(`cp-v${v}`), 3)], timeoutMs: 30_000, validateOnly: true });
      await send('grow, shrink, unknown', 37, v, {
        topics: [t(name(`cp-v${v}`), 3), t(name('missing'), 2)],
        timeoutMs: 30_000,
        validateOnly: false,
      });
      await send('same count', 37, v, { topics: [t(name(`cp-v${v}`), 3)], timeoutMs: 30_000, validateOnly: false });
      await send('shrink', 37, v, { topics: [t(name(`cp-v${v}`), 2)], timeoutMs: 30_000, validateOnly: false });
      await send('duplicate', 37, v, { topics: [t(name(`cp-v${v}`), 5), t(name(`cp-v${v}`), 5)], timeoutMs: 30_000, validateOnly: false });
    },
  },
  {
    name: 'DescribeCluster',
    api: 60,
    async run({ send, v }) {
      await send('cluster', 60, v, { includeClusterAuthorizedOperations: true, endpointType: 1 });
    },
  },
  {
    name: 'DescribeTopicPartitions: paging, unknown topic',
    api: 75,
    async setup({ side, name }) {
      await side.createTopics([{ name: name('a'), partitions: 3 }]);
    },
    async run({ send, v, name }) {
      await send('limit 2', 75, v, {
        topics: [{ name: name('a') }, { name: name('missing') }],
        responsePartitionLimit: 2,
        cursor: null,
      });
      await send('from cursor', 75, v, {
        topics: [{ name: name('a') }],
        responsePartitionLimit: 2,
        cursor: { topicName: name('a'), partitionIndex: 2 },
      });
    },
  },
  {
    name: 'DescribeLogDirs of a topic, an unknown one, and all',
    api: 35,
    async setup({ side, name }) {
      await side.createTopics([{ name: name('a'), partitions: 2 }]);
    },
    async run({ send, v, name }) {
      const res = await send('named', 35, v, {
        topics: [
          { topic: name('a'), partitions: [0, 1, 7] },
          { topic: name('missing'), partitions: [0] },
        ],
      });
      // Each broker has its own path and disk; the partitions in it are what is compared.
      for (const d of res.results) {
        d.logDir = 'log dir';
        d.totalBytes = d.totalBytes >= 0n ? 'known' : d.totalBytes;
        d.usableBytes = d.usableBytes >= 0n ? 'known' : d.usableBytes;
      }
    },
  },
];
