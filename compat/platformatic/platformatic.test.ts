// Compatibility: @platformatic/kafka (1.35.x), unmodified, against a real krill on a real port.
//
// @platformatic/kafka speaks only the newest, flexible API versions (Metadata 12, Produce 11, Fetch 17
// with topic ids, CreateTopics 7, DeleteTopics 6, ListOffsets 9...), so this exercises krill's flexible
// encodings and topic ids.
//
// Reading back: `Consumer.fetch({ node, topics })` is its public low-level Fetch, which needs no group and
// reaches any offset directly: it sends Fetch v17 and decodes the record batches with the client's own
// code. Its group consumer (`consumer.consume()`) runs in compat/testing-recipes.
//
// zstd: the client uses node:zlib's zstdCompressSync, which Node 20 lacks (the client marks the codec
// unavailable); the zstd cases run only where the client reports it available.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { Admin, Consumer, Producer, ProduceAcks, compressionsAlgorithms, stringSerializers, type CompressionAlgorithmValue } from '@platformatic/kafka';
import { startBroker, type RunningBroker } from '../../src/index.js';
import { tempDir } from '../../test/helpers.js';

// the package exports only '.', so find its package.json from the resolved entry point (dist/index.js)
const PLATFORMATIC_VERSION: string = JSON.parse(
  fs.readFileSync(path.join(path.dirname(createRequire(import.meta.url).resolve('@platformatic/kafka')), '..', 'package.json'), 'utf8'),
).version;

const BASE = { clientId: 'krill-compat-platformatic', retries: 2, retryDelay: 100, timeout: 10_000, connectTimeout: 3000 };

interface Rec {
  offset: bigint;
  timestamp: bigint;
  key: string | null;
  value: string | null;
  headers: [string, string][];
}

interface BatchInfo {
  codec: number;
  firstOffset: bigint;
  count: number;
}

let seq = 0;
const topicName = (label: string) => `platformatic-${label}-${process.pid}-${++seq}`;

/** Reads a whole partition through Consumer.fetch (Fetch v17, topic ids), with the client's own decoder. */
async function readPartition(
  admin: Admin,
  consumer: Consumer,
  topic: string,
  partition: number,
  opts: { minCount?: number; fromOffset?: bigint; timeoutMs?: number } = {},
): Promise<{ records: Rec[]; batches: BatchInfo[]; highWatermark: bigint }> {
  const meta = await admin.metadata({ topics: [topic], forceUpdate: true });
  const t = meta.topics.get(topic);
  if (!t) throw new Error(`no metadata for ${topic}`);
  const leader = t.partitions[partition].leader;
  const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
  const records: Rec[] = [];
  const batches: BatchInfo[] = [];
  let offset = opts.fromOffset ?? 0n;
  let highWatermark = -1n;
  for (;;) {
    const res = await consumer.fetch({
      node: leader,
      maxWaitTime: 100,
      minBytes: 1,
      maxBytes: 10 * 1024 * 1024,
      isolationLevel: 0,
      topics: [
        {
          topicId: t.id,
          partitions: [{ partition, currentLeaderEpoch: -1, fetchOffset: offset, lastFetchedEpoch: -1, partitionMaxBytes: 4 * 1024 * 1024 }],
        },
      ],
    });
    const topicRes = res.responses.find((r) => r.topicId === t.id);
    const p = topicRes?.partitions.find((x) => x.partitionIndex === partition);
    if (!p) throw new Error(`fetch response lacks ${topic}-${partition}: ${JSON.stringify(res, (_, v) => (typeof v === 'bigint' ? String(v) : v))}`);
    if (p.errorCode !== 0) throw new Error(`fetch ${topic}-${partition} error code ${p.errorCode}`);
    highWatermark = p.highWatermark;
    for (const batch of p.records ?? []) {
      batches.push({ codec: batch.attributes & 7, firstOffset: batch.firstOffset, count: batch.records.length });
      for (const r of batch.records) {
        const o = batch.firstOffset + BigInt(r.offsetDelta);
        if (o < offset) continue;
        records.push({
          offset: o,
          timestamp: batch.firstTimestamp + r.timestampDelta,
          key: r.key === null ? null : r.key.toString('utf8'),
          value: r.value === null ? null : r.value.toString('utf8'),
          headers: r.headers.map(([k, v]) => [k?.toString('utf8') ?? '', v?.toString('utf8') ?? '']),
        });
        offset = o + 1n;
      }
    }
    if (offset >= highWatermark && records.length >= (opts.minCount ?? 0)) break;
    if (Date.now() > deadline) throw new Error(`timed out reading ${topic}-${partition}: ${records.length} records, next ${offset}, hwm ${highWatermark}`);
    if (offset >= highWatermark) await new Promise((r) => setTimeout(r, 50));
  }
  return { records, batches, highWatermark };
}

function apiIds(err: unknown): string[] {
  const e = err as { errors?: { apiId?: string }[]; apiId?: string } | null;
  if (!e) return [];
  if (Array.isArray(e.errors)) return e.errors.map((x) => x.apiId ?? String(x));
  return e.apiId ? [e.apiId] : [];
}

describe(`@platformatic/kafka ${PLATFORMATIC_VERSION} against krill`, { timeout: 30_000 }, () => {
  let broker: RunningBroker;
  let admin: Admin;
  let producer: Producer<string, string, string, string>;
  let rawProducer: Producer;
  let consumer: Consumer;

  beforeAll(async () => {
    broker = await startBroker({ port: 0, host: '127.0.0.1' });
    const opts = { ...BASE, bootstrapBrokers: [broker.bootstrap] };
    admin = new Admin(opts);
    producer = new Producer({ ...opts, serializers: stringSerializers });
    rawProducer = new Producer(opts);
    // groupId is required by the constructor; no group API is used (only fetch/listOffsets).
    consumer = new Consumer({ ...opts, groupId: 'unused-no-group-api-called' });
  }, 30_000);

  afterAll(async () => {
    await Promise.allSettled([admin?.close(), producer?.close(), rawProducer?.close(), consumer?.close()]);
    await broker?.close();
  }, 30_000);

  const read = (topic: string, partition: number, opts?: Parameters<typeof readPartition>[4]) => readPartition(admin, consumer, topic, partition, opts);

  // ---- admin -----------------------------------------------------------------------------------

  describe('admin', () => {
    it('createTopics (partitions, configs) returns the topic with its id and effective configuration', async () => {
      const topic = topicName('created');
      const [created] = await admin.createTopics({
        topics: [topic],
        partitions: 3,
        replicas: 1,
        configs: [
          { name: 'cleanup.policy', value: 'delete' },
          { name: 'max.message.bytes', value: '300000' },
        ],
      });
      expect(created.name).toBe(topic);
      expect(created.partitions).toBe(3);
      expect(created.replicas).toBe(1);
      expect(created.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(created.id).not.toBe('00000000-0000-0000-0000-000000000000');
      expect(created.configuration).toMatchObject({ 'cleanup.policy': 'delete', 'max.message.bytes': '300000' });

      expect(await admin.listTopics()).toContain(topic);
      const meta = await admin.metadata({ topics: [topic], forceUpdate: true });
      expect(meta.id).toBe(broker.clusterId);
      expect(meta.controllerId).toBe(1);
      expect([...meta.brokers.entries()].map(([id, b]) => [id, b.host, b.port])).toEqual([[1, '127.0.0.1', broker.port]]);
      const t = meta.topics.get(topic)!;
      expect(t.id).toBe(created.id);
      expect(t.partitionsCount).toBe(3);
      expect(t.partitions.map((p) => [p.leader, p.replicas, p.isr])).toEqual([
        [1, [1], [1]],
        [1, [1], [1]],
        [1, [1], [1]],
      ]);
    });

    it('createTopics errors: TOPIC_ALREADY_EXISTS, INVALID_PARTITIONS, INVALID_REPLICATION_FACTOR, INVALID_TOPIC_EXCEPTION', async () => {
      const topic = topicName('errs');
      await admin.createTopics({ topics: [topic] });
      expect(apiIds(await admin.createTopics({ topics: [topic] }).catch((e) => e))).toEqual(['TOPIC_ALREADY_EXISTS']);
      expect(apiIds(await admin.createTopics({ topics: [topicName('p0')], partitions: 0 }).catch((e) => e))).toEqual(['INVALID_PARTITIONS']);
      expect(apiIds(await admin.createTopics({ topics: [topicName('rf3')], replicas: 3 }).catch((e) => e))).toEqual(['INVALID_REPLICATION_FACTOR']);
      expect(apiIds(await admin.createTopics({ topics: ['bad name'] }).catch((e) => e))).toEqual(['INVALID_TOPIC_EXCEPTION']);
      const topics = await admin.listTopics();
      expect(topics.filter((t) => t.includes('-p0-') || t.includes('-rf3-') || t === 'bad name')).toEqual([]);
    });

    it('deleteTopics removes topics; deleting an unknown one is UNKNOWN_TOPIC_OR_PARTITION', async () => {
      const a = topicName('del-a');
      const b = topicName('del-b');
      await admin.createTopics({ topics: [a, b], partitions: 2 });
      await admin.deleteTopics({ topics: [a, b] });
      const after = await admin.listTopics();
      expect(after).not.toContain(a);
      expect(after).not.toContain(b);
      // UNKNOWN_TOPIC_OR_PARTITION is retriable for the client: it arrives wrapped once per attempt
      const err = await admin.deleteTopics({ topics: [topicName('never')] }).catch((e) => e);
      expect(err).toBeInstanceOf(Error);
      const ids = apiIdsDeep(err);
      expect(ids.length).toBeGreaterThan(0);
      expect(new Set(ids)).toEqual(new Set(['UNKNOWN_TOPIC_OR_PARTITION']));
    });

    it('listOffsets: earliest, latest and by timestamp (Admin and Consumer)', async () => {
      const topic = topicName('offsets');
      await admin.createTopics({ topics: [topic], partitions: 2 });
      const base = 1_700_000_000_000n;
      await producer.send({
        messages: [0, 1, 2, 3].map((i) => ({ topic, partition: 0, value: `v${i}`, timestamp: base + BigInt(i) * 1000n })),
      });
      const listed = await admin.listOffsets({
        topics: [
          {
            name: topic,
            partitions: [
              { partitionIndex: 0, timestamp: -2n },
              { partitionIndex: 1, timestamp: -1n },
            ],
          },
        ],
      } as never);
      expect(listed.map((t) => [t.name, t.partitions.map((p) => [p.partitionIndex, p.offset])])).toEqual([
        [
          topic,
          [
            [0, 0n],
            [1, 0n],
          ],
        ],
      ]);
      const latest = await consumer.listOffsets({ topics: [topic] });
      expect(latest.get(topic)).toEqual([4n, 0n]);
      const byTime = await consumer.listOffsetsWithTimestamps({ topics: [topic], partitions: { [topic]: [0] }, timestamp: base + 1500n });
      expect(byTime.get(topic)?.get(0)).toEqual({ offset: 2n, timestamp: base + 2000n });
      const earliest = await consumer.listOffsets({ topics: [topic], timestamp: -2n });
      expect(earliest.get(topic)).toEqual([0n, 0n]);
    });

    it('metadata with autocreateTopics creates the topic', async () => {
      const topic = topicName('auto');
      const meta = await admin.metadata({ topics: [topic], autocreateTopics: true, forceUpdate: true });
      expect(meta.topics.get(topic)?.partitionsCount).toBe(1);
      expect(await admin.listTopics()).toContain(topic);
    });
  });

  // ---- produce and read back -------------------------------------------------------------------------

  describe('produce and read back', () => {
    it('keys, headers, null values and explicit timestamps come back exactly', async () => {
      const topic = topicName('records');
      await admin.createTopics({ topics: [topic] });
      const ts = 1_650_000_000_123n;
      const result = await rawProducer.send({
        messages: [
          {
            topic,
            partition: 0,
            key: Buffer.from('k1'),
            value: Buffer.from('v1'),
            timestamp: ts,
            headers: new Map([
              [Buffer.from('h1'), Buffer.from('a')],
              [Buffer.from('h2'), Buffer.from('b')],
            ]),
          },
          { topic, partition: 0, key: Buffer.from('k2'), value: undefined, timestamp: ts + 1n },
          { topic, partition: 0, value: Buffer.from('no key'), timestamp: ts + 2n },
          {
            topic,
            partition: 0,
            key: Buffer.from('ü'),
            value: Buffer.from('日本語'),
            timestamp: ts - 5000n,
            headers: new Map([[Buffer.from('empty'), Buffer.alloc(0)]]),
          },
        ],
      });
      expect(result.offsets).toEqual([{ topic, partition: 0, offset: 0n }]);
      const { records, highWatermark } = await read(topic, 0, { minCount: 4 });
      expect(highWatermark).toBe(4n);
      expect(records).toEqual([
        {
          offset: 0n,
          timestamp: ts,
          key: 'k1',
          value: 'v1',
          headers: [
            ['h1', 'a'],
            ['h2', 'b'],
          ],
        },
        { offset: 1n, timestamp: ts + 1n, key: 'k2', value: null, headers: [] },
        { offset: 2n, timestamp: ts + 2n, key: null, value: 'no key', headers: [] },
        { offset: 3n, timestamp: ts - 5000n, key: 'ü', value: '日本語', headers: [['empty', '']] },
      ]);
    });

    it('string serializers, headers given as an object, several topics in one send', async () => {
      const t1 = topicName('multi-a');
      const t2 = topicName('multi-b');
      await admin.createTopics({ topics: [t1, t2] });
      const ts = 1_700_000_000_000n;
      const res = await producer.send({
        messages: [
          { topic: t1, key: 'a', value: 'A', headers: { source: 'test', n: '1' }, timestamp: ts },
          { topic: t2, key: 'b', value: 'B', timestamp: ts },
          { topic: t1, key: 'c', value: 'C', timestamp: ts + 1n },
        ],
      });
      expect([...(res.offsets ?? [])].sort((x, y) => x.topic.localeCompare(y.topic))).toEqual([
        { topic: t1, partition: 0, offset: 0n },
        { topic: t2, partition: 0, offset: 0n },
      ]);
      expect((await read(t1, 0, { minCount: 2 })).records).toEqual([
        {
          offset: 0n,
          timestamp: ts,
          key: 'a',
          value: 'A',
          headers: [
            ['source', 'test'],
            ['n', '1'],
          ],
        },
        { offset: 1n, timestamp: ts + 1n, key: 'c', value: 'C', headers: [] },
      ]);
      expect((await read(t2, 0, { minCount: 1 })).records).toEqual([{ offset: 0n, timestamp: ts, key: 'b', value: 'B', headers: [] }]);
    });

    for (const acks of [ProduceAcks.NO_RESPONSE, ProduceAcks.LEADER, ProduceAcks.ALL]) {
      it(`acks ${acks}: records are stored`, async () => {
        const topic = topicName(`acks${acks < 0 ? 'all' : acks}`);
        await admin.createTopics({ topics: [topic] });
        const values = Array.from({ length: 5 }, (_, i) => `acks${acks}-${i}`);
        for (const v of values) await producer.send({ acks, messages: [{ topic, key: v, value: v }] });
        const { records } = await read(topic, 0, { minCount: values.length });
        expect(records.map((r) => [r.key, r.value])).toEqual(values.map((v) => [v, v]));
      });
    }

    it('the same key always lands on the same partition of a multi-partition topic', async () => {
      const topic = topicName('keyed');
      await admin.createTopics({ topics: [topic], partitions: 4 });
      const keys = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta'];
      const partitionOf = new Map<string, number>();
      for (let round = 0; round < 3; round++) {
        for (const key of keys) {
          const res = await producer.send({ messages: [{ topic, key, value: `${key}-${round}` }] });
          const p = res.offsets![0].partition;
          if (partitionOf.has(key)) expect(p, key).toBe(partitionOf.get(key));
          else partitionOf.set(key, p);
        }
      }
      expect(new Set(partitionOf.values()).size).toBeGreaterThan(1);
      let total = 0;
      for (let p = 0; p < 4; p++) {
        const expectedKeys = keys.filter((k) => partitionOf.get(k) === p);
        const { records } = await read(topic, p, { minCount: expectedKeys.length * 3 });
        total += records.length;
        expect(records.every((r) => partitionOf.get(r.key!) === p)).toBe(true);
        for (const key of expectedKeys) {
          expect(records.filter((r) => r.key === key).map((r) => r.value)).toEqual([`${key}-0`, `${key}-1`, `${key}-2`]);
        }
      }
      expect(total).toBe(keys.length * 3);
    });

    const codecIds: Record<CompressionAlgorithmValue, number> = { none: 0, gzip: 1, snappy: 2, lz4: 3, zstd: 4 };
    for (const codec of Object.keys(codecIds) as CompressionAlgorithmValue[]) {
      const available = compressionsAlgorithms[codec].available;
      it.skipIf(!available)(`compression ${codec}: produced, stored and fetched back in the producer's codec`, async () => {
        const topic = topicName(`codec-${codec}`);
        await admin.createTopics({ topics: [topic] });
        const ts = 1_700_000_000_000n;
        const messages = Array.from({ length: 40 }, (_, i) => ({
          topic,
          key: `key-${i}`,
          value: i === 5 ? undefined : `value ${i} `.repeat(25),
          timestamp: ts + BigInt(i),
          headers: { n: String(i), codec },
        }));
        await producer.send({ compression: codec, messages });
        await producer.send({ compression: codec, messages: [{ topic, key: 'last', value: 'tail', timestamp: ts + 100n }] });
        const { records, batches } = await read(topic, 0, { minCount: 41 });
        expect(records).toEqual([
          ...messages.map((m, i) => ({
            offset: BigInt(i),
            timestamp: m.timestamp,
            key: m.key,
            value: m.value ?? null,
            headers: [
              ['n', String(i)],
              ['codec', codec],
            ],
          })),
          { offset: 40n, timestamp: ts + 100n, key: 'last', value: 'tail', headers: [] },
        ]);
        // compression.type=producer: the batches are stored and served in the producer's codec
        expect(batches).toEqual([
          { codec: codecIds[codec], firstOffset: 0n, count: 40 },
          { codec: codecIds[codec], firstOffset: 40n, count: 1 },
        ]);
      });
    }

    for (const codec of ['gzip', 'snappy', 'lz4', 'zstd'] as const) {
      const available = compressionsAlgorithms[codec].available;
      it.skipIf(!available)(`topic compression.type=${codec}: the broker recompresses, the client decodes it`, async () => {
        const topic = topicName(`recompress-${codec}`);
        await admin.createTopics({ topics: [topic], configs: [{ name: 'compression.type', value: codec }] });
        const values = Array.from({ length: 10 }, (_, i) => `recompressed ${i} `.repeat(10));
        await producer.send({ messages: values.map((value, i) => ({ topic, key: String(i), value, headers: { i: String(i) } })) });
        const { records, batches } = await read(topic, 0, { minCount: values.length });
        expect(records.map((r) => [r.key, r.value, r.headers])).toEqual(values.map((v, i) => [String(i), v, [['i', String(i)]]]));
        expect(batches.map((b) => b.codec)).toEqual([codecIds[codec]]);
      });
    }

    it('producing to an unknown topic (no auto-creation) fails with UNKNOWN_TOPIC_OR_PARTITION', async () => {
      const topic = topicName('unknown');
      const err = await producer.send({ autocreateTopics: false, messages: [{ topic, value: 'x' }] }).catch((e) => e);
      // the client turns Metadata's UNKNOWN_TOPIC_OR_PARTITION for the topic into a UserError
      expect(err).toBeInstanceOf(Error);
      expect(err.message).toBe(`Unknown topic ${topic}.`);
      expect(await admin.listTopics()).not.toContain(topic);
    });

    it('a record over max.message.bytes is rejected with MESSAGE_TOO_LARGE', async () => {
      const topic = topicName('too-large');
      await admin.createTopics({ topics: [topic], configs: [{ name: 'max.message.bytes', value: '2000' }] });
      const err = await producer.send({ messages: [{ topic, value: 'x'.repeat(5000) }] }).catch((e) => e);
      expect(err).toBeInstanceOf(Error);
      expect(apiIdsDeep(err)).toContain('MESSAGE_TOO_LARGE');
      await producer.send({ messages: [{ topic, value: 'small' }] });
      expect((await read(topic, 0, { minCount: 1 })).records.map((r) => r.value)).toEqual(['small']);
    });
  });

  it('records survive close() and a restart on the same data dir; topic ids are stable', async () => {
    const dataDir = tempDir('krill-platformatic-restart-');
    let first: RunningBroker | null = await startBroker({ port: 0, host: '127.0.0.1', dataDir });
    let second: RunningBroker | null = null;
    const closers: (() => Promise<void>)[] = [];
    try {
      const o1 = { ...BASE, bootstrapBrokers: [first.bootstrap] };
      const a1 = new Admin(o1);
      const p1 = new Producer({ ...o1, serializers: stringSerializers });
      closers.push(
        () => a1.close(),
        () => p1.close(),
      );
      const [created] = await a1.createTopics({ topics: ['durable'], partitions: 2 });
      const ts = 1_700_000_000_000n;
      const sent: Rec[][] = [[], []];
      for (let i = 0; i < 20; i++) {
        const partition = i % 2;
        const value = i % 7 === 6 ? undefined : `v${i}`;
        await p1.send({
          compression: i % 3 === 0 ? 'gzip' : 'none',
          messages: [{ topic: 'durable', partition, key: `k${i}`, value, timestamp: ts + BigInt(i), headers: { i: String(i) } }],
        });
        sent[partition].push({
          offset: BigInt(sent[partition].length),
          timestamp: ts + BigInt(i),
          key: `k${i}`,
          value: value ?? null,
          headers: [['i', String(i)]],
        });
      }
      await p1.close();
      await a1.close();
      await first.close();
      first = null;

      second = await startBroker({ port: 0, host: '127.0.0.1', dataDir });
      const o2 = { ...BASE, bootstrapBrokers: [second.bootstrap] };
      const a2 = new Admin(o2);
      const c2 = new Consumer({ ...o2, groupId: 'unused-no-group-api-called' });
      closers.push(
        () => a2.close(),
        () => c2.close(),
      );
      const meta = await a2.metadata({ topics: ['durable'], forceUpdate: true });
      expect(meta.topics.get('durable')?.id).toBe(created.id);
      for (const partition of [0, 1]) {
        const { records, highWatermark } = await readPartition(a2, c2, 'durable', partition, { minCount: sent[partition].length });
        expect(highWatermark).toBe(BigInt(sent[partition].length));
        expect(records).toEqual(sent[partition]);
      }
    } finally {
      await Promise.allSettled(closers.map((c) => c()));
      await first?.close();
      await second?.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

/** apiIds of an error and everything it wraps (errors[] and cause), flattened. */
function apiIdsDeep(err: unknown, seen = new Set<unknown>()): string[] {
  if (!err || typeof err !== 'object' || seen.has(err)) return [];
  seen.add(err);
  const e = err as { apiId?: string; errors?: unknown[]; cause?: unknown };
  return [...(e.apiId ? [e.apiId] : []), ...(e.errors ?? []).flatMap((x) => apiIdsDeep(x, seen)), ...apiIdsDeep(e.cause, seen)];
}
