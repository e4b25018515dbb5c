// Cases of the partition log APIs: Produce, Fetch, ListOffsets, DeleteRecords, OffsetForLeaderEpoch,
// DescribeProducers. Record timestamps are the current time: older ones would make Kafka roll segments
// by time (log.roll.ms counts from the first record's timestamp).
import type { Message } from '../../protocol/codec.js';
import { buildBatch, CRC_OFFSET, MAGIC_OFFSET } from '../../protocol/record-batch.js';
import type { Case, CaseContext } from './case.js';
import { produceBody } from './harness.js';

/** One clock for both brokers' records, so that their timestamps compare equal. */
export const NOW = Date.now();

const records = (n: number, prefix = 'r') => Array.from({ length: n }, (_, i) => ({ key: `k${i}`, value: `${prefix}${i}`, timestamp: NOW }));

function fetchBody(
  ctx: CaseContext,
  topic: string,
  partitions: { partition: number; fetchOffset: number; currentLeaderEpoch?: number }[],
  isolationLevel = 0,
  maxBytes = 1 << 20,
): Message {
  return {
    replicaId: -1,
    replicaState: { replicaId: -1, replicaEpoch: -1n },
    maxWaitMs: 0,
    minBytes: 0,
    maxBytes,
    isolationLevel,
    sessionId: 0,
    sessionEpoch: -1,
    topics: [
      {
        topic,
        topicId: ctx.v >= 13 ? ctx.side.topicId(topic) : null,
        partitions: partitions.map((p) => ({ currentLeaderEpoch: -1, ...p, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes: maxBytes })),
      },
    ],
    forgottenTopicsData: [],
    rackId: '',
  };
}

function listOffsetsBody(topic: string, partitions: { partitionIndex: number; timestamp: bigint }[]): Message {
  return {
    replicaId: -1,
    isolationLevel: 0,
    topics: [{ name: topic, partitions: partitions.map((p) => ({ ...p, currentLeaderEpoch: -1 })) }],
    timeoutMs: 30_000,
  };
}

export { fetchBody, listOffsetsBody, records };

export const LOG_CASES: Case[] = [
  {
    name: 'Produce: ordinary, unknown topic, wrong partition, duplicate partition',
    api: 0,
    async setup({ side, name }) {
      await side.createTopics([{ name: name('t'), partitions: 2 }]);
    },
    async run({ send, v, name }) {
      await send('ordinary', 0, v, produceBody(name('t'), 0, buildBatch(records(3))));
      await send('unknown topic', 0, v, produceBody(name('missing'), 0, buildBatch(records(1))));
      await send('wrong partition', 0, v, produceBody(name('t'), 9, buildBatch(records(1))));
      const batch = buildBatch(records(1));
      await send('duplicate partition', 0, v, {
        ...produceBody(name('t'), 1, batch),
        topicData: [
          {
            name: name('t'),
            partitionData: [
              { index: 1, records: batch },
              { index: 1, records: batch },
            ],
          },
        ],
      });
      await send('acks 2', 0, v, produceBody(name('t'), 0, batch, 2));
    },
  },
  {
    name: 'Produce: corrupt, truncated and oversize batches',
    api: 0,
    async setup({ side, name }) {
      await side.createTopics([{ name: name('t'), configs: { 'max.message.bytes': '2000' } }]);
    },
    async run({ send, v, name }) {
      const corrupt = buildBatch(records(2));
      corrupt[CRC_OFFSET + 4] ^= 0xff; // in the attributes the CRC covers
      await send('bad crc', 0, v, produceBody(name('t'), 0, corrupt));
      const whole = buildBatch(records(2));
      await send('truncated', 0, v, produceBody(name('t'), 0, whole.subarray(0, whole.length - 3)));
      await send('oversize', 0, v, produceBody(name('t'), 0, buildBatch([{ key: 'k', value: Buffer.alloc(4000, 1) }])));
      await send('empty records', 0, v, produceBody(name('t'), 0, Buffer.alloc(0)));
      const magic1 = buildBatch(records(1));
      magic1[MAGIC_OFFSET] = 1;
      await send('magic 1', 0, v, produceBody(name('t'), 0, magic1));
      const zstd = buildBatch(records(1), { compression: 4 });
      await send('zstd', 0, v, produceBody(name('t'), 0, zstd));
    },
  },
  {
    name: 'Produce: record errors',
    api: 0,
    async setup({ side, name }) {
      await side.createTopics([
        { name: name('compacted'), configs: { 'cleanup.policy': 'compact' } },
        { name: name('recent'), configs: { 'message.timestamp.before.max.ms': '60000' } },
      ]);
    },
    async run({ send, v, name }) {
      const keyless = buildBatch([
        { key: 'k', value: 'a', timestamp: NOW },
        { key: null, value: 'b', timestamp: NOW },
        { key: null, value: 'c', timestamp: NOW },
      ]);
      await send('null keys on a compacted topic', 0, v, produceBody(name('compacted'), 0, keyless));
      const old = buildBatch([
        { value: 'a', timestamp: NOW },
        { value: 'b', timestamp: NOW - 3_600_000 },
      ]);
      await send('too old', 0, v, produceBody(name('recent'), 0, old));
    },
  },
  {
    name: 'Produce with acks=0',
    api: 0,
    async setup({ side, name }) {
      await side.createTopics([{ name: name('t') }]);
    },
    async run(ctx) {
      const { side, v, name } = ctx;
      side.fireAndForget(0, v, produceBody(name('t'), 0, buildBatch(records(1)), 0));
      // Answered in order: what the next request sees is what the acks=0 one did.
      await ctx.send('then list offsets', 2, 7, listOffsetsBody(name('t'), [{ partitionIndex: 0, timestamp: -1n }]));
      side.fireAndForget(0, v, produceBody(name('t'), 5, buildBatch(records(1)), 0));
      // Kafka closes the connection of an acks=0 producer whose write failed, so that it refreshes its metadata.
      await ctx.send('after a failed one', 2, 7, listOffsetsBody(name('t'), [{ partitionIndex: 0, timestamp: -1n }]));
    },
  },
  {
    name: 'Produce: idempotent sequences',
    api: 0,
    async setup({ side, name }) {
      await side.createTopics([0, 3, 4, 5, 6, 7, 8, 9, 10, 11].map((v) => ({ name: name(`idem-v${v}`) })));
    },
    async run({ send, v, name, side }) {
      const topic = name(`idem-v${v}`);
      const pid = await side.initProducerId();
      const opts = (baseSequence: number) => ({ producerId: Number(pid.producerId), producerEpoch: pid.producerEpoch, baseSequence });
      const first = buildBatch(records(2), opts(0));
      await send('first', 0, v, produceBody(topic, 0, first));
      await send('duplicate', 0, v, produceBody(topic, 0, first));
      await send('gap', 0, v, produceBody(topic, 0, buildBatch(records(1), opts(5))));
      await send('next', 0, v, produceBody(topic, 0, buildBatch(records(1), opts(2))));
      await send('stale epoch', 0, v, produceBody(topic, 0, buildBatch(records(1), { ...opts(3), producerEpoch: pid.producerEpoch - 1 })));
      await send('unknown producer id', 0, v, produceBody(topic, 0, buildBatch(records(1), { ...opts(0), producerId: 1_000_000_007 })));
    },
  },
  {
    name: 'Fetch: offsets in and out of range, unknown partitions',
    api: 1,
    async setup({ side, name }) {
      await side.createTopics([{ name: name('t'), partitions: 2 }]);
      await side.produce(name('t'), 0, records(3));
      await side.produce(name('t'), 0, records(2, 's'));
      await side.createTopics([{ name: name('deleted') }]);
      await side.produce(name('deleted'), 0, records(4));
      await side.quiet(21, 2, { topics: [{ name: name('deleted'), partitions: [{ partitionIndex: 0, offset: 2n }] }], timeoutMs: 30_000 });
    },
    async run(ctx) {
      // [step, topic, [partition, fetch offset, current leader epoch?][]]
      const steps: [string, string, [number, number, number?][]][] = [
        [
          'in range',
          't',
          [
            [0, 0],
            [1, 0],
          ],
        ],
        [
          'duplicate partition',
          't',
          [
            [0, 0],
            [0, 3],
          ],
        ],
        ['mid batch', 't', [[0, 4]]],
        ['at end', 't', [[0, 5]]],
        ['past end', 't', [[0, 99]]],
        ['negative', 't', [[0, -1]]],
        ['wrong partition', 't', [[9, 0]]],
        ['below log start', 'deleted', [[0, 1]]],
        ['at log start', 'deleted', [[0, 2]]],
        ['future leader epoch', 't', [[0, 0, 5]]],
      ];
      // By topic id (v13+) an unknown topic has no id to name.
      if (ctx.v < 13) steps.push(['unknown topic', 'missing', [[0, 0]]]);
      for (const [step, topic, partitions] of steps) {
        const body = fetchBody(
          ctx,
          ctx.name(topic),
          partitions.map(([partition, fetchOffset, currentLeaderEpoch = -1]) => ({ partition, fetchOffset, currentLeaderEpoch })),
        );
        await ctx.send(step, 1, ctx.v, body);
      }
    },
  },
  {
    name: 'Fetch across segments',
    api: 1,
    async setup({ side, name }) {
      // Kafka's smallest segment.bytes is 1 MiB: four batches of 400 kB make two segments of two.
      await side.createTopics([{ name: name('t'), configs: { 'segment.bytes': '1048576' } }]);
      for (let i = 0; i < 4; i++) await side.produce(name('t'), 0, [{ key: `k${i}`, value: Buffer.alloc(400_000, i), timestamp: NOW }]);
    },
    async run(ctx) {
      for (const fetchOffset of [0, 1, 2, 3]) {
        await ctx.send(`from ${fetchOffset}`, 1, ctx.v, fetchBody(ctx, ctx.name('t'), [{ partition: 0, fetchOffset }], 0, 4 << 20));
      }
      await ctx.send('a small limit', 1, ctx.v, fetchBody(ctx, ctx.name('t'), [{ partition: 0, fetchOffset: 0 }], 0, 1000));
    },
  },
  {
    name: 'ListOffsets: earliest, latest, max timestamp, by time, wrong partition',
    api: 2,
    async setup({ side, name }) {
      await side.createTopics([{ name: name('t') }]);
      const now = NOW;
      await side.produce(name('t'), 0, [
        { value: 'a', timestamp: now - 1000 },
        { value: 'b', timestamp: now - 500 },
      ]);
      await side.produce(name('t'), 0, [{ value: 'c', timestamp: now - 800 }]);
    },
    async run({ send, v, name }) {
      const t = name('t');
      const at = (...timestamps: bigint[]) => timestamps.map((timestamp) => ({ partitionIndex: 0, timestamp }));
      for (const ts of [-2n, -1n, -3n, -4n, -5n, -6n, -7n, 0n, 1n << 50n]) await send(`timestamp ${ts}`, 2, v, listOffsetsBody(t, at(ts)));
      await send('wrong partition', 2, v, listOffsetsBody(t, [{ partitionIndex: 5, timestamp: -1n }]));
      await send('unknown topic', 2, v, listOffsetsBody(name('missing'), at(-1n)));
      await send('duplicate partition', 2, v, listOffsetsBody(t, at(-1n, -2n)));
      if (v >= 4) {
        const epoch = (currentLeaderEpoch: number) => ({
          ...listOffsetsBody(t, at(-1n)),
          topics: [{ name: t, partitions: [{ partitionIndex: 0, timestamp: -1n, currentLeaderEpoch }] }],
        });
        await send('current leader epoch', 2, v, epoch(0));
        await send('future leader epoch', 2, v, epoch(3));
      }
    },
  },
  {
    name: 'DeleteRecords: in range, past the end, wrong partition',
    api: 21,
    async setup({ side, name }) {
      await side.createTopics([0, 1, 2].map((v) => ({ name: name(`v${v}`), partitions: 2 })));
      for (const v of [0, 1, 2]) await side.produce(name(`v${v}`), 0, records(4));
    },
    async run({ send, v, name }) {
      const body = (partitions: { partitionIndex: number; offset: bigint }[], topic = name(`v${v}`)) => ({
        topics: [{ name: topic, partitions }],
        timeoutMs: 30_000,
      });
      await send('to 2', 21, v, body([{ partitionIndex: 0, offset: 2n }]));
      await send('backwards', 21, v, body([{ partitionIndex: 0, offset: 1n }]));
      await send('high watermark', 21, v, body([{ partitionIndex: 0, offset: -1n }]));
      await send(
        'past end',
        21,
        v,
        body([
          { partitionIndex: 0, offset: 99n },
          { partitionIndex: 9, offset: 0n },
        ]),
      );
      await send('unknown topic', 21, v, body([{ partitionIndex: 0, offset: 0n }], name('missing')));
    },
  },
  {
    name: 'OffsetForLeaderEpoch',
    api: 23,
    async setup({ side, name }) {
      await side.createTopics([{ name: name('t') }]);
      await side.produce(name('t'), 0, records(2));
    },
    async run({ send, v, name }) {
      const body = (partitions: { partition: number; currentLeaderEpoch: number; leaderEpoch: number }[], topic = name('t')) => ({
        replicaId: -1,
        topics: [{ topic, partitions }],
      });
      await send('epoch 0', 23, v, body([{ partition: 0, currentLeaderEpoch: -1, leaderEpoch: 0 }]));
      await send('future epoch', 23, v, body([{ partition: 0, currentLeaderEpoch: 5, leaderEpoch: 0 }]));
      await send('fenced', 23, v, body([{ partition: 0, currentLeaderEpoch: 0, leaderEpoch: 7 }]));
      await send('wrong partition', 23, v, body([{ partition: 4, currentLeaderEpoch: -1, leaderEpoch: 0 }]));
      await send('unknown topic', 23, v, body([{ partition: 0, currentLeaderEpoch: -1, leaderEpoch: 0 }], name('missing')));
    },
  },
  {
    name: 'DescribeProducers',
    api: 61,
    async setup({ side, name }) {
      await side.createTopics([{ name: name('t'), partitions: 2 }]);
      const pid = await side.initProducerId();
      await side.produce(name('t'), 0, records(3), { producerId: Number(pid.producerId), producerEpoch: pid.producerEpoch, baseSequence: 0 });
    },
    async run({ send, v, name }) {
      const res = await send('producers', 61, v, {
        topics: [
          { name: name('t'), partitionIndexes: [0, 1, 5] },
          { name: name('missing'), partitionIndexes: [0] },
        ],
      });
      // The last write time is each broker's clock.
      for (const t of res.topics)
        for (const p of t.partitions) for (const s of p.activeProducers) s.lastTimestamp = s.lastTimestamp > 0n ? 'set' : s.lastTimestamp;
    },
  },
];
