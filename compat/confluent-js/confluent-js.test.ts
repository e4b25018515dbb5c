// Compatibility: @confluentinc/kafka-javascript (librdkafka underneath), unmodified, against a real krill.
//
// The package is not in package.json (a native addon; CI installs it separately). Without it this
// suite is skipped, unless CI=true, where a missing module is a failure.
//
// Admin and producer go through its KafkaJS-compatible API (`.KafkaJS`). Reading back uses the
// node-rdkafka style KafkaConsumer with assign() and explicit offsets: librdkafka insists on a
// group.id, but with manual assignment, explicit start offsets and no commits it never needs the group
// coordinator. So the records come back through librdkafka's own fetcher (groups.test.ts covers groups).
// To check that batches travel in the codec librdkafka chose, they are also read through kafkajs's
// decoder with counting codecs (../kafkajs-codecs.ts).

import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type RunningBroker } from '../../src/index.js';
import { tempDir } from '../../test/helpers.js';
import { describeWithClient, rdkafka } from './client.js';
import { KafkajsReader, simplify } from '../kafkajs-reader.js';
import { codecCalls, registerKafkajsCodecs } from '../kafkajs-codecs.js';

/* eslint-disable @typescript-eslint/no-explicit-any */

registerKafkajsCodecs();

let seq = 0;
const topicName = (label: string) => `confluent-${label}-${process.pid}-${++seq}`;

interface Consumed {
  offset: number;
  timestamp: number;
  key: string | null;
  value: string | null;
  headers: Record<string, string>[];
}

/** Reads a partition with librdkafka's KafkaConsumer: assign() at an explicit offset, no group coordinator. */
async function consumePartition(
  bootstrap: string,
  topic: string,
  partition: number,
  count: number,
  opts: { fromOffset?: number; timeoutMs?: number; isolation?: 'read_committed' | 'read_uncommitted' } = {},
): Promise<{ messages: Consumed[]; low: number; high: number }> {
  const consumer = new rdkafka.KafkaConsumer(
    {
      'metadata.broker.list': bootstrap,
      'client.id': 'krill-compat-confluent-reader',
      'group.id': 'krill-compat-assign-only',
      'enable.auto.commit': false,
      'enable.auto.offset.store': false,
      'enable.partition.eof': false,
      'fetch.wait.max.ms': 100,
      'socket.timeout.ms': 10_000,
      log_level: 0,
      'isolation.level': opts.isolation ?? 'read_committed', // librdkafka's default
    },
    { 'auto.offset.reset': 'error' },
  );
  consumer.setDefaultConsumeTimeout(100);
  await new Promise<void>((resolve, reject) => consumer.connect({ timeout: 10_000 }, (err: unknown) => (err ? reject(err) : resolve())));
  try {
    consumer.assign([{ topic, partition, offset: opts.fromOffset ?? 0 }]);
    const deadline = Date.now() + (opts.timeoutMs ?? 15_000);
    const messages: Consumed[] = [];
    while (messages.length < count) {
      if (Date.now() > deadline) throw new Error(`timed out consuming ${topic}-${partition}: ${messages.length}/${count}`);
      const batch: any[] = await new Promise((resolve, reject) =>
        consumer.consume(count - messages.length, (err: unknown, ms: any[]) => (err ? reject(err) : resolve(ms))),
      );
      for (const m of batch) {
        messages.push({
          offset: m.offset,
          timestamp: m.timestamp,
          key: m.key == null ? null : Buffer.from(m.key).toString('utf8'),
          value: m.value == null ? null : m.value.toString('utf8'),
          headers: (m.headers ?? []).map((h: Record<string, Buffer>) =>
            Object.fromEntries(Object.entries(h).map(([k, v]) => [k, Buffer.from(v).toString('utf8')])),
          ),
        });
      }
    }
    const { lowOffset, highOffset } = await new Promise<any>((resolve, reject) =>
      consumer.queryWatermarkOffsets(topic, partition, 5000, (err: unknown, o: any) => (err ? reject(err) : resolve(o))),
    );
    return { messages, low: lowOffset, high: highOffset };
  } finally {
    await new Promise<void>((resolve) => consumer.disconnect(() => resolve()));
  }
}

describeWithClient('against krill', { timeout: 45_000 }, suite);

function suite(): void {
  let broker: RunningBroker;
  let kafka: any;
  let admin: any;
  const producers = new Map<string, any>();
  let reader: KafkajsReader;

  beforeAll(async () => {
    broker = await startBroker({ port: 0, host: '127.0.0.1' });
    kafka = new rdkafka.KafkaJS.Kafka({
      kafkaJS: {
        brokers: [broker.bootstrap],
        clientId: 'krill-compat-confluent',
        logLevel: rdkafka.KafkaJS.logLevel.NOTHING,
        connectionTimeout: 3000,
        requestTimeout: 10_000,
      },
    });
    admin = kafka.admin();
    await admin.connect();
    reader = new KafkajsReader(broker.bootstrap);
  }, 30_000);

  afterAll(async () => {
    await Promise.allSettled([admin?.disconnect(), ...[...producers.values()].map((p) => p.disconnect()), reader?.close()]);
    await broker?.close();
  }, 30_000);

  /** One connected producer per (acks, compression): librdkafka takes both as producer configuration. */
  async function producerFor(acks: number, compression: string): Promise<any> {
    const id = `${acks}/${compression}`;
    let p = producers.get(id);
    if (!p) {
      p = kafka.producer({ kafkaJS: { acks, compression, allowAutoTopicCreation: false }, 'linger.ms': 5, 'message.timeout.ms': 15_000 });
      await p.connect();
      producers.set(id, p);
    }
    return p;
  }

  // ---- admin -------------------------------------------------------------------------------------------

  describe('admin (KafkaJS API)', () => {
    it('createTopics with numPartitions and configEntries; listTopics; fetchTopicMetadata', async () => {
      const topic = topicName('created');
      expect(
        await admin.createTopics({
          topics: [
            {
              topic,
              numPartitions: 3,
              replicationFactor: 1,
              configEntries: [
                { name: 'cleanup.policy', value: 'delete' },
                { name: 'max.message.bytes', value: '300000' },
              ],
            },
          ],
        }),
      ).toBe(true);
      expect(await admin.listTopics()).toContain(topic);
      const [meta] = await admin.fetchTopicMetadata({ topics: [topic] });
      expect(meta.name).toBe(topic);
      expect(meta.partitions.map((p: any) => [p.partitionId, p.leader, p.replicas, p.isr])).toEqual([
        [0, 1, [1], [1]],
        [1, 1, [1], [1]],
        [2, 1, [1], [1]],
      ]);
    });

    it('createTopics errors: already exists → false; INVALID_PARTITIONS; INVALID_REPLICATION_FACTOR; invalid name', async () => {
      const topic = topicName('errs');
      expect(await admin.createTopics({ topics: [{ topic }] })).toBe(true);
      expect(await admin.createTopics({ topics: [{ topic }] })).toBe(false);

      const errorOf = async (spec: any) => {
        const err: any = await admin.createTopics({ topics: [spec] }).then(
          () => null,
          (e: any) => e,
        );
        expect(err?.name, JSON.stringify(spec)).toBe('KafkaJSAggregateError');
        return err.errors.map((e: any) => [e.type, e.code]);
      };
      // librdkafka's names for Kafka's error codes 37, 38 and 17
      expect(await errorOf({ topic: topicName('p0'), numPartitions: 0 })).toEqual([['ERR_INVALID_PARTITIONS', 37]]);
      expect(await errorOf({ topic: topicName('rf3'), replicationFactor: 3 })).toEqual([['ERR_INVALID_REPLICATION_FACTOR', 38]]);
      expect(await errorOf({ topic: 'bad name' })).toEqual([['ERR_TOPIC_EXCEPTION', 17]]);
      const topics = await admin.listTopics();
      expect(topics.filter((t: string) => t.includes('-p0-') || t.includes('-rf3-') || t === 'bad name')).toEqual([]);
    });

    it('deleteTopics removes topics; deleting an unknown topic is UNKNOWN_TOPIC_OR_PARTITION', async () => {
      const a = topicName('del-a');
      const b = topicName('del-b');
      await admin.createTopics({ topics: [{ topic: a }, { topic: b, numPartitions: 2 }] });
      await admin.deleteTopics({ topics: [a, b] });
      const after = await admin.listTopics();
      expect(after).not.toContain(a);
      expect(after).not.toContain(b);
      const err: any = await admin.deleteTopics({ topics: [topicName('never')] }).then(
        () => null,
        (e: any) => e,
      );
      expect([err?.type, err?.code]).toEqual(['ERR_UNKNOWN_TOPIC_OR_PART', 3]); // Kafka's UNKNOWN_TOPIC_OR_PARTITION
    });

    it('fetchTopicOffsets and fetchTopicOffsetsByTimestamp', async () => {
      const topic = topicName('offsets');
      await admin.createTopics({ topics: [{ topic, numPartitions: 2 }] });
      const p = await producerFor(-1, 'none');
      const base = 1_700_000_000_000;
      await p.send({ topic, messages: [0, 1, 2, 3, 4].map((i) => ({ partition: 0, value: `v${i}`, timestamp: String(base + i * 1000) })) });
      const sortP = (xs: any[]) => [...xs].sort((x, y) => x.partition - y.partition);
      expect(sortP(await admin.fetchTopicOffsets(topic)).map(({ partition, low, high, offset }: any) => ({ partition, low, high, offset }))).toEqual([
        { partition: 0, low: '0', high: '5', offset: '5' },
        { partition: 1, low: '0', high: '0', offset: '0' },
      ]);
      expect(sortP(await admin.fetchTopicOffsetsByTimestamp(topic, base + 1500)).map(({ partition, offset }: any) => ({ partition, offset }))).toEqual([
        { partition: 0, offset: '2' },
        { partition: 1, offset: '0' }, // no record that late: the latest offset (an empty partition's 0)
      ]);
      expect(sortP(await admin.fetchTopicOffsetsByTimestamp(topic, base - 1)).map(({ partition, offset }: any) => ({ partition, offset }))).toEqual([
        { partition: 0, offset: '0' },
        { partition: 1, offset: '0' },
      ]);
    });
  });

  // ---- produce and read back ---------------------------------------------------------------------------

  describe('produce (KafkaJS API), read back with KafkaConsumer.assign()', () => {
    it('keys, headers, null values and explicit timestamps come back exactly', async () => {
      const topic = topicName('records');
      await admin.createTopics({ topics: [{ topic }] });
      const p = await producerFor(-1, 'none');
      const ts = 1_650_000_000_123;
      const res = await p.send({
        topic,
        messages: [
          { partition: 0, key: 'k1', value: 'v1', timestamp: String(ts), headers: { h1: 'a', h2: Buffer.from('b') } },
          { partition: 0, key: 'k2', value: null, timestamp: String(ts + 1) },
          { partition: 0, value: 'no key', timestamp: String(ts + 2) },
          { partition: 0, key: 'ü', value: '日本語', timestamp: String(ts - 5000), headers: { empty: '' } },
        ],
      });
      expect(res).toEqual([expect.objectContaining({ topicName: topic, partition: 0, errorCode: 0, baseOffset: '0' })]);
      const { messages, high } = await consumePartition(broker.bootstrap, topic, 0, 4);
      expect(high).toBe(4);
      expect(messages).toEqual([
        { offset: 0, timestamp: ts, key: 'k1', value: 'v1', headers: [{ h1: 'a' }, { h2: 'b' }] },
        { offset: 1, timestamp: ts + 1, key: 'k2', value: null, headers: [] },
        { offset: 2, timestamp: ts + 2, key: null, value: 'no key', headers: [] },
        { offset: 3, timestamp: ts - 5000, key: 'ü', value: '日本語', headers: [{ empty: '' }] },
      ]);
      // and the same through a second, independent decoder
      const viaKafkajs = (await reader.readPartition(topic, 0, { minCount: 4 })).records.map(simplify);
      expect(viaKafkajs.map((r) => [r.offset, r.timestamp, r.key, r.value])).toEqual(messages.map((m) => [m.offset, String(m.timestamp), m.key, m.value]));
    });

    it('reading from the middle of a partition', async () => {
      const topic = topicName('middle');
      await admin.createTopics({ topics: [{ topic }] });
      const p = await producerFor(1, 'none');
      for (let i = 0; i < 4; i++) await p.send({ topic, messages: [{ value: `m${i * 2}` }, { value: `m${i * 2 + 1}` }] });
      const { messages } = await consumePartition(broker.bootstrap, topic, 0, 5, { fromOffset: 3 });
      expect(messages.map((m) => [m.offset, m.value])).toEqual([
        [3, 'm3'],
        [4, 'm4'],
        [5, 'm5'],
        [6, 'm6'],
        [7, 'm7'],
      ]);
    });

    for (const acks of [0, 1, -1]) {
      it(`acks ${acks}: records are stored`, async () => {
        const topic = topicName(`acks${acks < 0 ? 'all' : acks}`);
        await admin.createTopics({ topics: [{ topic }] });
        const p = await producerFor(acks, 'none');
        const values = Array.from({ length: 5 }, (_, i) => `acks${acks}-${i}`);
        for (const v of values) await p.send({ topic, messages: [{ key: v, value: v }] });
        const { messages } = await consumePartition(broker.bootstrap, topic, 0, values.length);
        expect(messages.map((m) => [m.key, m.value])).toEqual(values.map((v) => [v, v]));
      });
    }

    it('the same key always lands on the same partition of a multi-partition topic', async () => {
      const topic = topicName('keyed');
      await admin.createTopics({ topics: [{ topic, numPartitions: 4 }] });
      const p = await producerFor(-1, 'none');
      const keys = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta'];
      const partitionOf = new Map<string, number>();
      for (let round = 0; round < 3; round++) {
        for (const key of keys) {
          const [m] = await p.send({ topic, messages: [{ key, value: `${key}-${round}` }] });
          if (partitionOf.has(key)) expect(m.partition, key).toBe(partitionOf.get(key));
          else partitionOf.set(key, m.partition);
        }
      }
      expect(new Set(partitionOf.values()).size).toBeGreaterThan(1);
      let total = 0;
      for (let part = 0; part < 4; part++) {
        const expectedKeys = keys.filter((k) => partitionOf.get(k) === part);
        if (expectedKeys.length === 0) continue;
        const { messages, high } = await consumePartition(broker.bootstrap, topic, part, expectedKeys.length * 3);
        expect(high).toBe(expectedKeys.length * 3);
        total += messages.length;
        for (const key of expectedKeys) {
          expect(messages.filter((m) => m.key === key).map((m) => m.value)).toEqual([`${key}-0`, `${key}-1`, `${key}-2`]);
        }
      }
      expect(total).toBe(keys.length * 3);
    });

    const codecs: [string, number][] = [
      ['none', 0],
      ['gzip', 1],
      ['snappy', 2],
      ['lz4', 3],
      ['zstd', 4],
    ];
    for (const [codec, id] of codecs) {
      it(`compression ${codec}: librdkafka's batches are stored in its codec and read back`, async () => {
        const topic = topicName(`codec-${codec}`);
        await admin.createTopics({ topics: [{ topic }] });
        const p = await producerFor(-1, codec);
        const ts = 1_700_000_000_000;
        const makeMessages = () =>
          Array.from({ length: 40 }, (_, i) => ({
            partition: 0,
            key: `key-${i}`,
            value: i === 5 ? null : `value ${i} `.repeat(25),
            timestamp: String(ts + i),
            headers: { n: String(i) },
          }));
        const messages = makeMessages();
        await p.send({ topic, messages: makeMessages() }); // send() converts the messages it is given in place
        const { messages: got } = await consumePartition(broker.bootstrap, topic, 0, 40);
        expect(got).toEqual(messages.map((m, i) => ({ offset: i, timestamp: ts + i, key: m.key, value: m.value, headers: [{ n: String(i) }] })));
        // The stored batches are in librdkafka's codec: kafkajs's decoder needs that codec to read them.
        const before = codecCalls.decompress.get(id) ?? 0;
        const viaKafkajs = (await reader.readPartition(topic, 0, { minCount: 40 })).records.map(simplify);
        expect(viaKafkajs.map((r) => [r.offset, r.key, r.value])).toEqual(messages.map((m, i) => [i, m.key, m.value]));
        const decompressed = (codecCalls.decompress.get(id) ?? 0) - before;
        // librdkafka enables LZ4 only for brokers that advertise FindCoordinator (rdkafka_feature.c uses it
        // as the proxy for ">= 0.8.2"); otherwise it silently sends LZ4-configured batches uncompressed.
        // krill does not advertise FindCoordinator until consumer groups land, so for now the batch is
        // stored uncompressed; once FindCoordinator is advertised this demands a real LZ4 batch.
        const lz4Gated = id === 3 && !(await reader.advertisedApiKeys()).has(10 /* FindCoordinator */);
        if (lz4Gated) expect(decompressed).toBe(0);
        else if (id !== 0) expect(decompressed).toBeGreaterThanOrEqual(1);
      });
    }

    for (const codec of ['gzip', 'snappy', 'lz4', 'zstd']) {
      it(`topic compression.type=${codec}: librdkafka decodes the broker's recompressed batches`, async () => {
        const topic = topicName(`recompress-${codec}`);
        await admin.createTopics({ topics: [{ topic, configEntries: [{ name: 'compression.type', value: codec }] }] });
        const p = await producerFor(-1, 'none');
        const values = Array.from({ length: 10 }, (_, i) => `recompressed ${i} `.repeat(10));
        await p.send({ topic, messages: values.map((value, i) => ({ partition: 0, key: String(i), value })) });
        const { messages } = await consumePartition(broker.bootstrap, topic, 0, values.length);
        expect(messages.map((m) => [m.offset, m.key, m.value])).toEqual(values.map((v, i) => [i, String(i), v]));
      });
    }
  });

  // ---- idempotent producer -------------------------------------------------------------------------------

  describe('idempotent producer (enable.idempotence)', () => {
    for (const [label, config] of [
      ['librdkafka property enable.idempotence', { 'enable.idempotence': true }],
      ['KafkaJS option idempotent', { kafkaJS: { idempotent: true } }],
    ] as [string, any][]) {
      it(`${label}: 1,500 messages over 3 partitions, each stored exactly once and in order, with producer id and sequences`, async () => {
        const topic = topicName('idempotent');
        await admin.createTopics({ topics: [{ topic, numPartitions: 3 }] });
        const p = kafka.producer({
          ...config,
          kafkaJS: { acks: -1, allowAutoTopicCreation: false, ...config.kafkaJS },
          'linger.ms': 5,
          'batch.num.messages': 100,
          'message.timeout.ms': 15_000,
        });
        await p.connect();
        const sent: string[][] = [[], [], []];
        try {
          for (let round = 0; round < 5; round++) {
            const messages = Array.from({ length: 300 }, (_, i) => {
              const n = round * 300 + i;
              return { partition: n % 3, key: `k${n % 29}`, value: `idempotent-${n}` };
            });
            for (const m of messages) sent[m.partition].push(m.value);
            const res = await p.send({ topic, messages });
            for (const r of res) expect(r.errorCode).toBe(0);
          }
        } finally {
          await p.disconnect();
        }
        for (let partition = 0; partition < 3; partition++) {
          const { messages, high } = await consumePartition(broker.bootstrap, topic, partition, sent[partition].length);
          expect(high).toBe(sent[partition].length);
          expect(messages.map((m) => [m.offset, m.value])).toEqual(sent[partition].map((v, i) => [i, v]));
          // kafkajs's decoder shows the batch headers: one producer id, epoch 0, sequences that follow the offsets
          const raw = await reader.fetchOnce(topic, partition, 0n, 4 * 1024 * 1024);
          const batches = new Map<string, any>();
          for (const m of raw.messages) batches.set(m.batchContext.firstOffset, m.batchContext);
          const contexts = [...batches.values()];
          expect(contexts.length).toBeGreaterThan(0);
          expect(new Set(contexts.map((c) => c.producerId)).size).toBe(1);
          expect(Number(contexts[0].producerId)).toBeGreaterThanOrEqual(0);
          for (const c of contexts) {
            expect(c.producerEpoch).toBe(0);
            expect(c.firstSequence).toBe(Number(c.firstOffset));
          }
        }
      });
    }
  });

  describe('transactions (transactionalId)', () => {
    it('commit, abort, commit over 2 partitions: read_committed sees only the committed records, read_uncommitted all', async () => {
      const topic = topicName('txn');
      await admin.createTopics({ topics: [{ topic, numPartitions: 2 }] });
      const p = kafka.producer({
        kafkaJS: { transactionalId: topicName('txn-id'), idempotent: true, maxInFlightRequests: 1, acks: -1, allowAutoTopicCreation: false },
        'linger.ms': 5,
      });
      await p.connect();
      const batch = (tag: string, n: number) => Array.from({ length: n }, (_, i) => ({ partition: i % 2, value: `${tag}-${i}` }));
      try {
        for (const [tag, end] of [
          ['c1', 'commit'],
          ['ab', 'abort'],
          ['c2', 'commit'],
        ] as const) {
          const txn = await p.transaction();
          await txn.send({ topic, messages: batch(tag, 4) });
          await (end === 'commit' ? txn.commit() : txn.abort());
        }
      } finally {
        await p.disconnect();
      }
      for (const partition of [0, 1]) {
        const committed = await consumePartition(broker.bootstrap, topic, partition, 4);
        expect(committed.messages.map((m) => m.value)).toEqual([`c1-${partition}`, `c1-${partition + 2}`, `c2-${partition}`, `c2-${partition + 2}`]);
        // data 6 + 3 markers; the read_committed high watermark is the last stable offset, here the end
        expect(committed.high).toBe(9);
        const all = await consumePartition(broker.bootstrap, topic, partition, 6, { isolation: 'read_uncommitted' });
        expect(all.messages.map((m) => m.value)).toEqual(['c1', 'ab', 'c2'].flatMap((t) => [`${t}-${partition}`, `${t}-${partition + 2}`]));
      }
    });
  });

  it('records survive close() and a restart on the same data dir', async () => {
    const dataDir = tempDir('krill-confluent-restart-');
    let first: RunningBroker | null = await startBroker({ port: 0, host: '127.0.0.1', dataDir });
    let second: RunningBroker | null = null;
    const clients: any[] = [];
    try {
      const k1 = new rdkafka.KafkaJS.Kafka({ kafkaJS: { brokers: [first.bootstrap], logLevel: rdkafka.KafkaJS.logLevel.NOTHING } });
      const a1 = k1.admin();
      const p1 = k1.producer({ kafkaJS: { acks: -1, compression: 'lz4' }, 'linger.ms': 5 });
      clients.push(a1, p1);
      await a1.connect();
      await p1.connect();
      await a1.createTopics({ topics: [{ topic: 'durable', numPartitions: 2 }] });
      const ts = 1_700_000_000_000;
      const sent: Consumed[][] = [[], []];
      for (let i = 0; i < 20; i++) {
        const partition = i % 2;
        const value = i % 7 === 6 ? null : `v${i}`;
        await p1.send({ topic: 'durable', messages: [{ partition, key: `k${i}`, value, timestamp: String(ts + i), headers: { i: String(i) } }] });
        sent[partition].push({ offset: sent[partition].length, timestamp: ts + i, key: `k${i}`, value, headers: [{ i: String(i) }] });
      }
      await p1.disconnect();
      await a1.disconnect();
      clients.length = 0;
      await first.close();
      first = null;

      second = await startBroker({ port: 0, host: '127.0.0.1', dataDir });
      for (const partition of [0, 1]) {
        const { messages, high } = await consumePartition(second.bootstrap, 'durable', partition, sent[partition].length);
        expect(high).toBe(sent[partition].length);
        expect(messages).toEqual(sent[partition]);
      }
    } finally {
      await Promise.allSettled(clients.map((c) => c.disconnect()));
      await first?.close();
      await second?.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
}
