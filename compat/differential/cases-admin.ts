// Cases of the admin APIs: DescribeConfigs, AlterConfigs, IncrementalAlterConfigs, the ACL APIs (no
// authorizer on either broker), client quotas, SCRAM credentials, ElectLeaders, partition reassignments,
// SaslHandshake on a PLAINTEXT listener.
import type { Message } from '../../protocol/codec.js';
import type { Case } from './case.js';
import { eventually } from '../util.js';

const TOPIC = 2;
const BROKER = 4;

export const ADMIN_CASES: Case[] = [
  {
    name: 'DescribeConfigs of a topic, an unknown topic and the broker',
    api: 32,
    async setup({ side, name }) {
      await side.createTopics([{ name: name('t'), configs: { 'retention.ms': '7200000' } }]);
    },
    async run({ send, v, name }) {
      const keys = ['retention.ms', 'cleanup.policy', 'max.message.bytes', 'no.such.config'];
      await send('topic', 32, v, {
        resources: [
          { resourceType: TOPIC, resourceName: name('t'), configurationKeys: keys },
          { resourceType: TOPIC, resourceName: name('missing'), configurationKeys: keys },
        ],
        includeSynonyms: true,
        includeDocumentation: false,
      });
      await send('broker', 32, v, {
        resources: [{ resourceType: BROKER, resourceName: '1', configurationKeys: ['num.partitions', 'log.retention.hours', 'no.such.config'] }],
        includeSynonyms: true,
        includeDocumentation: false,
      });
      await send('other broker', 32, v, {
        resources: [{ resourceType: BROKER, resourceName: '7', configurationKeys: ['num.partitions'] }],
        includeSynonyms: false,
        includeDocumentation: false,
      });
    },
  },
  {
    name: 'AlterConfigs and IncrementalAlterConfigs: valid, invalid, unknown',
    api: 44,
    async setup({ side, name }) {
      await side.createTopics([{ name: name('t') }]);
    },
    async run({ send, v, name }) {
      const alter = (resourceName: string, configs: { name: string; configOperation: number; value: string | null }[], validateOnly = false) => ({
        resources: [{ resourceType: TOPIC, resourceName, configs }],
        validateOnly,
      });
      await send('set', 44, v, alter(name('t'), [{ name: 'retention.ms', configOperation: 0, value: '3600000' }]));
      await send('append', 44, v, alter(name('t'), [{ name: 'cleanup.policy', configOperation: 2, value: 'compact' }]));
      await send('subtract', 44, v, alter(name('t'), [{ name: 'cleanup.policy', configOperation: 3, value: 'delete' }]));
      await send('delete', 44, v, alter(name('t'), [{ name: 'retention.ms', configOperation: 1, value: null }]));
      await send('bad value', 44, v, alter(name('t'), [{ name: 'retention.ms', configOperation: 0, value: 'soon' }]));
      await send('unknown config', 44, v, alter(name('t'), [{ name: 'no.such.config', configOperation: 0, value: '1' }]));
      await send('bad operation', 44, v, alter(name('t'), [{ name: 'retention.ms', configOperation: 9, value: '1' }]));
      // Kafka takes over a second to refuse this one: once is enough.
      if (v === 1) await send('append to a non-list', 44, v, alter(name('t'), [{ name: 'retention.ms', configOperation: 2, value: '1' }]));
      await send('unknown topic', 44, v, alter(name('missing'), [{ name: 'retention.ms', configOperation: 0, value: '1' }]));
      await send('validate only', 44, v, alter(name('t'), [{ name: 'retention.ms', configOperation: 0, value: '1' }], true));
      const legacy = (resourceName: string, configs: { name: string; value: string }[]) => ({
        resources: [{ resourceType: TOPIC, resourceName, configs }],
        validateOnly: false,
      });
      for (const av of [0, 1, 2]) {
        await send(`AlterConfigs v${av}`, 33, av, legacy(name('t'), [{ name: 'retention.ms', value: '5000000' }]));
        await send(`AlterConfigs v${av} bad value`, 33, av, legacy(name('t'), [{ name: 'segment.bytes', value: '1' }]));
        await send(`AlterConfigs v${av} unknown topic`, 33, av, legacy(name('missing'), [{ name: 'retention.ms', value: '1' }]));
      }
    },
  },
  {
    name: 'ACLs without an authorizer',
    api: 29,
    async run({ send, v }) {
      const binding = { resourceType: TOPIC, resourceName: 't', resourcePatternType: 3, principal: 'User:a', host: '*', operation: 3, permissionType: 3 };
      const filter = {
        resourceTypeFilter: 1,
        resourceNameFilter: null,
        patternTypeFilter: 1,
        principalFilter: null,
        hostFilter: null,
        operation: 1,
        permissionType: 1,
      };
      await send('describe', 29, v, filter);
      await send('create', 30, v, { creations: [binding] });
      await send('delete', 31, v, { filters: [filter] });
    },
  },
  {
    name: 'Client quotas: set, describe, remove, invalid',
    api: 49,
    async run({ send, v, name, side }) {
      const entity = [{ entityType: 'client-id', entityName: name(`client-v${v}`) }];
      const alter = (ops: { key: string; value: number; remove: boolean }[], validateOnly = false, e: Message[] = entity) => ({
        entries: [{ entity: e, ops }],
        validateOnly,
      });
      const describe = (strict: boolean) => ({ components: [{ entityType: 'client-id', matchType: 0, match: name(`client-v${v}`) }], strict });
      // Kafka's broker learns of a quota from its metadata log after the controller took it: wait for that, as
      // for a topic's creation.
      const described = (present: boolean) =>
        eventually(`${side.name}: quota ${present ? 'set' : 'removed'}`, async () =>
          (await side.quiet(48, v, describe(true))).entries.length > 0 === present ? true : undefined,
        );
      await send('set', 49, v, alter([{ key: 'producer_byte_rate', value: 1_000_000, remove: false }]));
      await described(true);
      await send('describe', 48, v, describe(true));
      await send('unknown key', 49, v, alter([{ key: 'no_such_rate', value: 1, remove: false }]));
      await send('bad entity type', 49, v, alter([{ key: 'producer_byte_rate', value: 1, remove: false }], false, [{ entityType: 'nobody', entityName: 'x' }]));
      await send('remove', 49, v, alter([{ key: 'producer_byte_rate', value: 0, remove: true }]));
      await described(false);
      await send('describe after remove', 48, v, describe(false));
    },
  },
  {
    name: 'SCRAM credentials: upsert, describe, delete, invalid',
    api: 51,
    async run({ send, v, name, side }) {
      const user = name(`user-v${v}`);
      const upsert = (mechanism: number, iterations: number) => ({
        name: user,
        mechanism,
        iterations,
        salt: Buffer.alloc(16, 1),
        saltedPassword: Buffer.alloc(32, 2),
      });
      await send('upsert', 51, v, { deletions: [], upsertions: [upsert(1, 8192)] });
      await send('too few iterations', 51, v, { deletions: [], upsertions: [upsert(2, 10)] });
      await send('unknown mechanism', 51, v, { deletions: [], upsertions: [upsert(9, 8192)] });
      // As with quotas, Kafka's broker learns of a credential from its metadata log.
      const described = (present: boolean) =>
        eventually(`${side.name}: credential of ${user} ${present ? 'set' : 'removed'}`, async () =>
          ((await side.quiet(50, 0, { users: [{ name: user }] })).results[0].errorCode === 0) === present ? true : undefined,
        );
      await described(true);
      await send('describe', 50, 0, { users: [{ name: user }, { name: name('nobody') }] });
      await send('delete', 51, v, { deletions: [{ name: user, mechanism: 1 }], upsertions: [] });
      await described(false);
      await send('delete again', 51, v, { deletions: [{ name: user, mechanism: 1 }], upsertions: [] });
    },
  },
  {
    name: 'ElectLeaders and partition reassignments on one broker',
    api: 43,
    async setup({ side, name }) {
      await side.createTopics([{ name: name('t'), partitions: 2 }]);
    },
    async run({ send, v, name }) {
      const partitions = [
        { topic: name('t'), partitions: [0, 1] },
        { topic: name('missing'), partitions: [0] },
      ];
      await send('preferred', 43, v, { electionType: 0, topicPartitions: partitions, timeoutMs: 30_000 });
      if (v >= 1) await send('unclean', 43, v, { electionType: 1, topicPartitions: partitions, timeoutMs: 30_000 });
      await send('list reassignments', 46, 0, { timeoutMs: 30_000, topics: [{ name: name('t'), partitionIndexes: [0] }] });
      await send('cancel none', 45, 0, { timeoutMs: 30_000, topics: [{ name: name('t'), partitions: [{ partitionIndex: 0, replicas: null }] }] });
      await send('to an unknown broker', 45, 0, { timeoutMs: 30_000, topics: [{ name: name('t'), partitions: [{ partitionIndex: 0, replicas: [5] }] }] });
      await send('unknown topic', 45, 0, { timeoutMs: 30_000, topics: [{ name: name('missing'), partitions: [{ partitionIndex: 0, replicas: [1] }] }] });
    },
  },
  {
    name: 'SaslHandshake and SaslAuthenticate on a PLAINTEXT listener',
    api: 17,
    async run({ send, v }) {
      await send('PLAIN', 17, v, { mechanism: 'PLAIN' });
      await send('authenticate', 36, Math.min(v + 1, 2), { authBytes: Buffer.from('\0user\0secret') });
    },
  },
  {
    name: 'WriteTxnMarkers for a producer without a transaction',
    api: 27,
    async setup({ side, name }) {
      await side.createTopics([{ name: name('t') }]);
    },
    async run({ send, v, name }) {
      const marker = (topic: string, partitionIndexes: number[]) => ({
        producerId: 1_000_000_009,
        producerEpoch: 0,
        transactionResult: false,
        topics: [{ name: topic, partitionIndexes }],
        coordinatorEpoch: 0,
      });
      await send('abort marker', 27, v, { markers: [marker(name('t'), [0])] });
      await send('unknown partitions', 27, v, { markers: [marker(name('t'), [4]), marker(name('missing'), [0])] });
    },
  },
];
