// Compatibility: kafkajs 2.2.4, unmodified, against a real krill on a real port.
//
// Admin, producer (every codec kafkajs can use) and reading back. Records are read back exactly with
// kafkajs's own protocol layer (Cluster → Broker.fetch → its Fetch v11 and record-batch decoders, see
// ../kafkajs-reader.ts), which reaches every offset directly; groups.test.ts drives kafkajs's group consumer.
//
// Snappy, LZ4 and ZSTD are not built into kafkajs: applications register codecs in CompressionCodecs.
// ../kafkajs-codecs.ts registers adapters that do what the usual companion packages (kafkajs-snappy,
// kafkajs-lz4, @kafkajs/zstd) do, and counts calls so a test can tell a batch really travelled compressed.

import { createRequire } from 'node:module';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type RunningBroker } from '../../src/index.js';
import { tempDir } from '../../test/helpers.js';
import { KafkajsReader, simplify } from '../kafkajs-reader.js';
import { codecCalls as calls, registerKafkajsCodecs } from '../kafkajs-codecs.js';

const require = createRequire(import.meta.url);
/* eslint-disable @typescript-eslint/no-explicit-any */
const { Kafka, logLevel, CompressionTypes, Partitioners } = require('kafkajs');

process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';

registerKafkajsCodecs();

// ---- fixtures ------------------------------------------------------------------------------------

function client(bootstrap: string): any {
  return new Kafka({
    clientId: 'krill-compat-kafkajs',
    brokers: [bootstrap],
    logLevel: logLevel.NOTHING,
    connectionTimeout: 3000,
    requestTimeout: 10_000,
    retry: { retries: 3, initialRetryTime: 100, maxRetryTime: 1000 },
  });
}

let seq = 0;
const topicName = (label: string) => `kafkajs-${label}-${process.pid}-${++seq}`;

describe(`kafkajs ${require('kafkajs/package.json').version} against krill`, { timeout: 30_000 }, () => {
  let broker: RunningBroker;
  let kafka: any;
  let admin: any;
  let producer: any;
  let reader: KafkajsReader;

  beforeAll(async () => {
    broker = await startBroker({ port: 0, host: '127.0.0.1' });
    kafka = client(broker.bootstrap);
    admin = kafka.admin({ retry: { retries: 2 } });
    producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, allowAutoTopicCreation: false, retry: { retries: 2 } });
    reader = new KafkajsReader(broker.bootstrap);
    await admin.connect();
    await producer.connect();
    await reader.connect();
  }, 30_000);

  afterAll(async () => {
    await Promise.allSettled([admin?.disconnect(), producer?.disconnect(), reader?.close()]);
    await broker?.close();
  }, 30_000);

  async function createTopic(topic: string, numPartitions = 1, configEntries?: { name: string; value: string }[]) {
    const created = await admin.createTopics({ topics: [{ topic, numPartitions, configEntries }], timeout: 5000 });
    expect(created).toBe(true);
  }

  // ---- admin -----------------------------------------------------------------------------------

  describe('admin', () => {
    it('createTopics with numPartitions and configEntries, visible in listTopics and fetchTopicMetadata', async () => {
      const topic = topicName('created');
      await createTopic(topic, 3, [
        { name: 'cleanup.policy', value: 'delete' },
        { name: 'max.message.bytes', value: '200000' },
        { name: 'segment.bytes', value: '1048576' },
      ]);
      expect(await admin.listTopics()).toContain(topic);
      const meta = await admin.fetchTopicMetadata({ topics: [topic] });
      expect(meta.topics).toHaveLength(1);
      expect(meta.topics[0].name).toBe(topic);
      const partitions = [...meta.topics[0].partitions].sort((a: any, b: any) => a.partitionId - b.partitionId);
      expect(partitions.map((p: any) => p.partitionId)).toEqual([0, 1, 2]);
      for (const p of partitions) {
        expect(p.partitionErrorCode).toBe(0);
        expect(p.leader).toBe(1);
        expect(p.replicas).toEqual([1]);
        expect(p.isr).toEqual([1]);
      }
    });

    it('createTopics returns false for an existing topic (TOPIC_ALREADY_EXISTS)', async () => {
      const topic = topicName('dup');
      await createTopic(topic);
      expect(await admin.createTopics({ topics: [{ topic }], timeout: 5000 })).toBe(false);
      // With one existing and one new topic the broker creates the new one and reports
      // TOPIC_ALREADY_EXISTS for the other; kafkajs folds that (every *failed* topic already exists) to false.
      const fresh = topicName('dup-fresh');
      expect(await admin.createTopics({ topics: [{ topic }, { topic: fresh }], timeout: 5000 })).toBe(false);
      // The per-topic error itself, straight from kafkajs's CreateTopics decoder (Broker.createTopics).
      const controller = await reader.controllerBroker();
      const err: any = await controller.createTopics({ topics: [{ topic }], timeout: 5000 }).catch((e: any) => e);
      expect(err.name).toBe('KafkaJSAggregateError');
      expect(err.errors.map((e: any) => [e.type, e.topic])).toEqual([['TOPIC_ALREADY_EXISTS', topic]]);
      expect(await admin.listTopics()).toContain(fresh);
    });

    it('validateOnly checks but does not create', async () => {
      const topic = topicName('validate');
      expect(await admin.createTopics({ topics: [{ topic, numPartitions: 2 }], validateOnly: true, waitForLeaders: false, timeout: 5000 })).toBe(true);
      expect(await admin.listTopics()).not.toContain(topic);
      // validateOnly still reports errors
      const err: any = await admin
        .createTopics({ topics: [{ topic, numPartitions: 0 }], validateOnly: true, waitForLeaders: false, timeout: 5000 })
        .catch((e: any) => e);
      expect(err.errors?.map((e: any) => e.type)).toEqual(['INVALID_PARTITIONS']);
      expect(await admin.listTopics()).not.toContain(topic);
    });

    it('rejects numPartitions 0 (INVALID_PARTITIONS) and replicationFactor 3 (INVALID_REPLICATION_FACTOR)', async () => {
      const t1 = topicName('zero-parts');
      const e1: any = await admin.createTopics({ topics: [{ topic: t1, numPartitions: 0 }], timeout: 5000 }).catch((e: any) => e);
      expect(e1.name).toBe('KafkaJSAggregateError');
      expect(e1.errors.map((e: any) => e.type)).toEqual(['INVALID_PARTITIONS']);

      const t2 = topicName('rf3');
      const e2: any = await admin.createTopics({ topics: [{ topic: t2, replicationFactor: 3 }], timeout: 5000 }).catch((e: any) => e);
      expect(e2.name).toBe('KafkaJSAggregateError');
      expect(e2.errors.map((e: any) => e.type)).toEqual(['INVALID_REPLICATION_FACTOR']);

      const topics = await admin.listTopics();
      expect(topics).not.toContain(t1);
      expect(topics).not.toContain(t2);
    });

    it('rejects invalid topic names (INVALID_TOPIC_EXCEPTION)', async () => {
      for (const bad of ['has space', 'slash/name', '..', '.', 'x'.repeat(250), 'ümlaut']) {
        const err: any = await admin.createTopics({ topics: [{ topic: bad }], timeout: 5000 }).catch((e: any) => e);
        expect(err?.name, `topic name ${JSON.stringify(bad)}`).toBe('KafkaJSAggregateError');
        expect(
          err.errors.map((e: any) => e.type),
          `topic name ${JSON.stringify(bad)}`,
        ).toEqual(['INVALID_TOPIC_EXCEPTION']);
      }
      const topics = await admin.listTopics();
      expect(topics.filter((t: string) => t.includes(' ') || t.includes('/') || t === '..' || t === '.')).toEqual([]);
    });

    it('rejects an unknown topic config (INVALID_CONFIG)', async () => {
      const topic = topicName('bad-config');
      const err: any = await admin
        .createTopics({ topics: [{ topic, configEntries: [{ name: 'no.such.config', value: '1' }] }], timeout: 5000 })
        .catch((e: any) => e);
      expect(err.errors?.map((e: any) => e.type)).toEqual(['INVALID_CONFIG']);
      expect(await admin.listTopics()).not.toContain(topic);
    });

    it('deleteTopics removes topics; deleting an unknown topic is UNKNOWN_TOPIC_OR_PARTITION', async () => {
      const a = topicName('del-a');
      const b = topicName('del-b');
      await admin.createTopics({ topics: [{ topic: a }, { topic: b, numPartitions: 2 }], timeout: 5000 });
      expect(await admin.listTopics()).toEqual(expect.arrayContaining([a, b]));
      await admin.deleteTopics({ topics: [a, b], timeout: 5000 });
      const after = await admin.listTopics();
      expect(after).not.toContain(a);
      expect(after).not.toContain(b);

      const err: any = await admin.deleteTopics({ topics: [topicName('never-was')], timeout: 5000 }).catch((e: any) => e);
      // UNKNOWN_TOPIC_OR_PARTITION is retriable for kafkajs, so it surfaces after the retries
      expect(err?.name).toBe('KafkaJSNumberOfRetriesExceeded');
      expect(err.cause?.type).toBe('UNKNOWN_TOPIC_OR_PARTITION');
    });

    it('a deleted topic can be created again, empty', async () => {
      const topic = topicName('recreate');
      await createTopic(topic);
      await producer.send({ topic, messages: [{ value: 'before delete' }] });
      await admin.deleteTopics({ topics: [topic], timeout: 5000 });
      await createTopic(topic, 2);
      const offsets = await admin.fetchTopicOffsets(topic);
      expect(offsets.map((o: any) => [o.partition, o.low, o.high]).sort()).toEqual([
        [0, '0', '0'],
        [1, '0', '0'],
      ]);
    });

    it('describeCluster names this broker and the cluster id', async () => {
      const d = await admin.describeCluster();
      expect(d.clusterId).toBe(broker.clusterId);
      expect(d.controller).toBe(1);
      expect(d.brokers).toEqual([{ nodeId: 1, host: '127.0.0.1', port: broker.port }]);
    });

    it('fetchTopicOffsets and fetchTopicOffsetsByTimestamp', async () => {
      const topic = topicName('offsets');
      await createTopic(topic, 2);
      expect((await admin.fetchTopicOffsets(topic)).sort((a: any, b: any) => a.partition - b.partition)).toEqual([
        { partition: 0, offset: '0', high: '0', low: '0' },
        { partition: 1, offset: '0', high: '0', low: '0' },
      ]);
      const base = 1_700_000_000_000;
      await producer.send({
        topic,
        messages: [0, 1, 2, 3, 4].map((i) => ({ partition: 0, value: `v${i}`, timestamp: String(base + i * 1000) })),
      });
      await producer.send({ topic, messages: [{ partition: 1, value: 'only', timestamp: String(base) }] });
      expect((await admin.fetchTopicOffsets(topic)).sort((a: any, b: any) => a.partition - b.partition)).toEqual([
        { partition: 0, offset: '5', high: '5', low: '0' },
        { partition: 1, offset: '1', high: '1', low: '0' },
      ]);
      const sortP = (xs: any[]) => [...xs].sort((a, b) => a.partition - b.partition);
      // first offset whose timestamp is >= the one asked for
      expect(sortP(await admin.fetchTopicOffsetsByTimestamp(topic, base + 2000))).toEqual([
        { partition: 0, offset: '2' },
        { partition: 1, offset: '1' }, // none that late: kafkajs substitutes the high watermark
      ]);
      expect(sortP(await admin.fetchTopicOffsetsByTimestamp(topic, base + 1500))).toEqual([
        { partition: 0, offset: '2' },
        { partition: 1, offset: '1' },
      ]);
      expect(sortP(await admin.fetchTopicOffsetsByTimestamp(topic, base - 1))).toEqual([
        { partition: 0, offset: '0' },
        { partition: 1, offset: '0' },
      ]);
      expect(sortP(await admin.fetchTopicOffsetsByTimestamp(topic, base + 10_000))).toEqual([
        { partition: 0, offset: '5' },
        { partition: 1, offset: '1' },
      ]);
    });

    it('auto-creates a topic on producer metadata when allowed', async () => {
      const topic = topicName('auto');
      const p = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, allowAutoTopicCreation: true, retry: { retries: 5 } });
      await p.connect();
      try {
        const [meta] = await p.send({ topic, messages: [{ value: 'auto' }] });
        expect(meta).toMatchObject({ topicName: topic, partition: 0, errorCode: 0, baseOffset: '0' });
      } finally {
        await p.disconnect();
      }
      expect(await admin.listTopics()).toContain(topic);
      const { records } = await reader.readPartition(topic, 0, { minCount: 1 });
      expect(records.map((r) => r.value?.toString())).toEqual(['auto']);
    });
  });

  // ---- producing and reading back ------------------------------------------------------------------

  describe('produce and read back', () => {
    it('keys, headers, null values, null keys and explicit timestamps come back exactly', async () => {
      const topic = topicName('records');
      await createTopic(topic);
      const ts = 1_650_000_000_123;
      const result = await producer.send({
        topic,
        acks: -1,
        messages: [
          { partition: 0, key: 'k1', value: 'v1', timestamp: String(ts), headers: { h1: 'a', h2: Buffer.from('b') } },
          { partition: 0, key: 'k2', value: null, timestamp: String(ts + 1) },
          { partition: 0, key: null, value: 'no key', timestamp: String(ts + 2), headers: { dup: ['x', 'y'] } },
          { partition: 0, key: 'ü-ñ', value: '日本語', timestamp: String(ts - 5000), headers: { empty: '' } },
        ],
      });
      expect(result).toEqual([expect.objectContaining({ topicName: topic, partition: 0, errorCode: 0, baseOffset: '0' })]);
      const { records, highWatermark } = await reader.readPartition(topic, 0, { minCount: 4 });
      expect(highWatermark).toBe(4n);
      expect(records.map(simplify)).toEqual([
        { offset: 0, timestamp: String(ts), key: 'k1', value: 'v1', headers: { h1: 'a', h2: 'b' } },
        { offset: 1, timestamp: String(ts + 1), key: 'k2', value: null, headers: {} },
        { offset: 2, timestamp: String(ts + 2), key: null, value: 'no key', headers: { dup: ['x', 'y'] } },
        { offset: 3, timestamp: String(ts - 5000), key: 'ü-ñ', value: '日本語', headers: { empty: '' } },
      ]);
    });

    it('binary keys and values survive byte for byte, including a large value', async () => {
      const topic = topicName('binary');
      await createTopic(topic);
      const key = Buffer.from([0, 1, 2, 255, 254, 0]);
      const small = Buffer.from([0xde, 0xad, 0xbe, 0xef, 0, 0, 0x80]);
      const large = Buffer.alloc(300_000);
      for (let i = 0; i < large.length; i++) large[i] = (i * 7919) & 0xff;
      await producer.send({
        topic,
        messages: [
          { key, value: small },
          { key: null, value: large },
        ],
      });
      const { records } = await reader.readPartition(topic, 0, { minCount: 2 });
      expect(records).toHaveLength(2);
      expect(records[0].key!.equals(key)).toBe(true);
      expect(records[0].value!.equals(small)).toBe(true);
      expect(records[1].key).toBeNull();
      expect(records[1].value!.equals(large)).toBe(true);
    });

    it('offsets continue across sends and sendBatch spans topics', async () => {
      const t1 = topicName('batch-a');
      const t2 = topicName('batch-b');
      await createTopic(t1);
      await createTopic(t2);
      for (let i = 0; i < 3; i++) {
        const [m] = await producer.send({ topic: t1, messages: [{ value: `a${i}` }, { value: `a${i}'` }] });
        expect(m.baseOffset).toBe(String(i * 2));
      }
      const res = await producer.sendBatch({
        topicMessages: [
          { topic: t1, messages: [{ value: 'a-batch' }] },
          { topic: t2, messages: [{ value: 'b0' }, { value: 'b1' }] },
        ],
      });
      expect(res.map((r: any) => [r.topicName, r.baseOffset]).sort()).toEqual([
        [t1, '6'],
        [t2, '0'],
      ]);
      expect((await reader.readPartition(t1, 0, { minCount: 7 })).records.map((r) => r.value!.toString())).toEqual([
        'a0',
        "a0'",
        'a1',
        "a1'",
        'a2',
        "a2'",
        'a-batch',
      ]);
      expect((await reader.readPartition(t2, 0, { minCount: 2 })).records.map((r) => r.value!.toString())).toEqual(['b0', 'b1']);
      // reading from the middle
      expect((await reader.readPartition(t1, 0, { fromOffset: 3n, minCount: 4 })).records.map((r) => [Number(r.offset), r.value!.toString()])).toEqual([
        [3, "a1'"],
        [4, 'a2'],
        [5, "a2'"],
        [6, 'a-batch'],
      ]);
    });

    for (const acks of [0, 1, -1]) {
      it(`acks ${acks}: records are stored`, async () => {
        const topic = topicName(`acks${acks === -1 ? 'all' : acks}`);
        await createTopic(topic);
        const values = Array.from({ length: 5 }, (_, i) => `acks${acks}-${i}`);
        for (const v of values) await producer.send({ topic, acks, messages: [{ key: v, value: v }] });
        // acks 0 gets no response, so wait for the records to show up
        const { records } = await reader.readPartition(topic, 0, { minCount: values.length, timeoutMs: 10_000 });
        expect(records.map((r) => [r.key!.toString(), r.value!.toString()])).toEqual(values.map((v) => [v, v]));
      });
    }

    it('the same key always lands on the same partition of a multi-partition topic', async () => {
      const topic = topicName('keyed');
      await createTopic(topic, 4);
      const keys = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta'];
      const partitionOf = new Map<string, number>();
      for (let round = 0; round < 3; round++) {
        for (const key of keys) {
          const [m] = await producer.send({ topic, messages: [{ key, value: `${key}-${round}` }] });
          expect(m.errorCode).toBe(0);
          if (partitionOf.has(key)) expect(m.partition, key).toBe(partitionOf.get(key));
          else partitionOf.set(key, m.partition);
        }
      }
      // eight keys over four partitions: the default partitioner (murmur2) spreads them
      expect(new Set(partitionOf.values()).size).toBeGreaterThan(1);
      const offsets = await admin.fetchTopicOffsets(topic);
      let total = 0;
      for (let p = 0; p < 4; p++) {
        const expectedKeys = keys.filter((k) => partitionOf.get(k) === p);
        const { records } = await reader.readPartition(topic, p, { minCount: expectedKeys.length * 3 });
        total += records.length;
        expect(records.every((r) => partitionOf.get(r.key!.toString()) === p)).toBe(true);
        for (const key of expectedKeys) {
          expect(records.filter((r) => r.key!.toString() === key).map((r) => r.value!.toString())).toEqual([`${key}-0`, `${key}-1`, `${key}-2`]);
        }
        expect(offsets.find((o: any) => o.partition === p).high).toBe(String(records.length));
      }
      expect(total).toBe(keys.length * 3);
    });

    const codecs: [string, number][] = [
      ['None', CompressionTypes.None],
      ['GZIP', CompressionTypes.GZIP],
      ['Snappy', CompressionTypes.Snappy],
      ['LZ4', CompressionTypes.LZ4],
      ['ZSTD', CompressionTypes.ZSTD],
    ];
    for (const [name, type] of codecs) {
      it(`compression ${name}: produced compressed, stored and fetched back compressed`, async () => {
        const topic = topicName(`codec-${name.toLowerCase()}`);
        await createTopic(topic);
        const compressBefore = calls.compress.get(type) ?? 0;
        const decompressBefore = calls.decompress.get(type) ?? 0;
        const ts = 1_700_000_000_000;
        const messages = Array.from({ length: 50 }, (_, i) => ({
          key: `key-${i}`,
          value: i === 7 ? null : `value ${i} `.repeat(20),
          timestamp: String(ts + i),
          headers: { n: String(i), codec: name },
        }));
        await producer.send({ topic, compression: type, messages });
        // a second batch, so reads cross batch boundaries inside one response
        await producer.send({ topic, compression: type, messages: [{ key: 'last', value: 'tail', timestamp: String(ts + 100) }] });
        const { records } = await reader.readPartition(topic, 0, { minCount: 51 });
        expect(records.map(simplify)).toEqual([
          ...messages.map((m, i) => ({ offset: i, timestamp: m.timestamp, key: m.key, value: m.value, headers: m.headers })),
          { offset: 50, timestamp: String(ts + 100), key: 'last', value: 'tail', headers: {} },
        ]);
        if (type !== CompressionTypes.None) {
          expect((calls.compress.get(type) ?? 0) - compressBefore).toBe(2);
          // the broker kept the producer's codec (compression.type=producer), so kafkajs had to decompress
          expect((calls.decompress.get(type) ?? 0) - decompressBefore).toBeGreaterThanOrEqual(2);
        }
      });
    }

    const topicCodecs: [string, number][] = [
      ['gzip', CompressionTypes.GZIP],
      ['snappy', CompressionTypes.Snappy],
      ['lz4', CompressionTypes.LZ4],
      ['zstd', CompressionTypes.ZSTD],
    ];
    for (const [name, type] of topicCodecs) {
      it(`topic compression.type=${name} makes the broker recompress; kafkajs decodes the broker's ${name}`, async () => {
        const topic = topicName(`recompress-${name}`);
        await createTopic(topic, 1, [{ name: 'compression.type', value: name }]);
        const before = calls.decompress.get(type) ?? 0;
        const values = Array.from({ length: 10 }, (_, i) => `recompressed ${i} `.repeat(10));
        await producer.send({ topic, messages: values.map((value, i) => ({ key: String(i), value, headers: { i: String(i) } })) });
        // a producer batch in another codec is recompressed as well
        await producer.send({ topic, compression: CompressionTypes.GZIP, messages: [{ key: 'g', value: 'was gzip' }] });
        const { records } = await reader.readPartition(topic, 0, { minCount: 11 });
        expect(records.map(simplify).map(({ offset, key, value, headers }) => ({ offset, key, value, headers }))).toEqual([
          ...values.map((value, i) => ({ offset: i, key: String(i), value, headers: { i: String(i) } })),
          { offset: 10, key: 'g', value: 'was gzip', headers: {} },
        ]);
        expect((calls.decompress.get(type) ?? 0) - before).toBeGreaterThanOrEqual(2);
      });
    }

    it('producing to an unknown topic without auto-creation fails with UNKNOWN_TOPIC_OR_PARTITION', async () => {
      const err: any = await producer.send({ topic: topicName('unknown'), messages: [{ value: 'x' }] }).catch((e: any) => e);
      expect(err).toBeInstanceOf(Error);
      expect(String(err.type ?? err.originalError?.type ?? err.message)).toMatch(/UNKNOWN_TOPIC_OR_PARTITION|does not host this topic-partition/);
    });

    it('a batch over the topic max.message.bytes is rejected with MESSAGE_TOO_LARGE', async () => {
      const topic = topicName('too-large');
      await createTopic(topic, 1, [{ name: 'max.message.bytes', value: '2000' }]);
      const err: any = await producer.send({ topic, messages: [{ value: 'x'.repeat(5000) }] }).catch((e: any) => e);
      expect(err).toBeInstanceOf(Error);
      expect(err.type ?? err.originalError?.type).toBe('MESSAGE_TOO_LARGE');
      await producer.send({ topic, messages: [{ value: 'small' }] });
      const { records } = await reader.readPartition(topic, 0, { minCount: 1 });
      expect(records.map((r) => r.value!.toString())).toEqual(['small']);
    });
  });

  // ---- fetch edge cases ----------------------------------------------------------------------------

  describe('fetch edge cases', () => {
    it('a partition maxBytes smaller than a batch still makes progress, batch by batch', async () => {
      const topic = topicName('small-maxbytes');
      await createTopic(topic);
      const values = Array.from({ length: 12 }, (_, i) => `${i}:` + 'x'.repeat(900));
      for (let i = 0; i < values.length; i += 2) await producer.send({ topic, messages: [{ value: values[i] }, { value: values[i + 1] }] });
      const { records } = await reader.readPartition(topic, 0, { minCount: 12, partitionMaxBytes: 1000 });
      expect(records.map((r) => [Number(r.offset), r.value!.toString()])).toEqual(values.map((v, i) => [i, v]));
    });

    it('fetching past the high watermark is OFFSET_OUT_OF_RANGE; at the high watermark it is empty', async () => {
      const topic = topicName('out-of-range');
      await createTopic(topic);
      await producer.send({ topic, messages: [{ value: 'a' }, { value: 'b' }] });
      const atEnd = await reader.fetchOnce(topic, 0, 2n);
      expect(atEnd.errorCode).toBe(0);
      expect(atEnd.highWatermark).toBe('2');
      expect(atEnd.messages).toEqual([]);
      const err: any = await reader.fetchOnce(topic, 0, 5n).catch((e: any) => e);
      expect(err?.type).toBe('OFFSET_OUT_OF_RANGE');
    });

    it('message.timestamp.type=LogAppendTime: the broker stamps its own time', async () => {
      const topic = topicName('log-append-time');
      await createTopic(topic, 1, [{ name: 'message.timestamp.type', value: 'LogAppendTime' }]);
      const before = Date.now();
      await producer.send({
        topic,
        messages: [
          { value: 'a', timestamp: '1000' },
          { value: 'b', timestamp: '2000' },
        ],
      });
      const after = Date.now();
      const { records } = await reader.readPartition(topic, 0, { minCount: 2 });
      expect(records.map((r) => r.value!.toString())).toEqual(['a', 'b']);
      for (const r of records) {
        expect(Number(r.timestamp)).toBeGreaterThanOrEqual(before);
        expect(Number(r.timestamp)).toBeLessThanOrEqual(after);
      }
      expect(records[0].timestamp).toBe(records[1].timestamp); // one batch, one append time
    });

    it('reads across several segments (segment.bytes=1 MiB), and by timestamp across them', async () => {
      const topic = topicName('segments');
      await createTopic(topic, 1, [{ name: 'segment.bytes', value: '1048576' }]);
      const base = 1_700_000_000_000;
      const payload = (i: number) => `${i}|`.padEnd(300_000, String.fromCharCode(97 + (i % 26)));
      for (let i = 0; i < 8; i++) await producer.send({ topic, messages: [{ key: String(i), value: payload(i), timestamp: String(base + i * 1000) }] });
      const { records } = await reader.readPartition(topic, 0, { minCount: 8 });
      expect(records.map((r) => [Number(r.offset), r.key!.toString(), r.value!.toString() === payload(Number(r.offset)), r.timestamp])).toEqual(
        Array.from({ length: 8 }, (_, i) => [i, String(i), true, String(base + i * 1000)]),
      );
      const segs = fs.readdirSync(`${broker.dataDir}/${topic}-0`).filter((f) => f.endsWith('.log'));
      expect(segs.length).toBeGreaterThan(1);
      expect(await admin.fetchTopicOffsetsByTimestamp(topic, base + 5500)).toEqual([{ partition: 0, offset: '6' }]);
      const mid = await reader.readPartition(topic, 0, { fromOffset: 5n, minCount: 3 });
      expect(mid.records.map((r) => Number(r.offset))).toEqual([5, 6, 7]);
    });
  });

  // ---- idempotent producer ---------------------------------------------------------------------------

  describe('idempotent producer', () => {
    it('idempotent: true gets a producer id and sends 2,000 messages over 3 partitions, each stored exactly once, in order', async () => {
      const topic = topicName('idempotent');
      await createTopic(topic, 3);
      // kafkajs insists on maxInFlightRequests 1 and acks -1 (its default) for an idempotent producer
      const idem = kafka.producer({
        idempotent: true,
        maxInFlightRequests: 1,
        createPartitioner: Partitioners.DefaultPartitioner,
        allowAutoTopicCreation: false,
      });
      await idem.connect();
      try {
        const sent: string[][] = [[], [], []];
        for (let round = 0; round < 10; round++) {
          const messages = Array.from({ length: 200 }, (_, i) => {
            const n = round * 200 + i;
            return { partition: n % 3, key: `k${n}`, value: `idempotent-${n}` };
          });
          const res = await idem.send({ topic, messages });
          for (const r of res) expect(r.errorCode).toBe(0);
          for (const m of messages) sent[m.partition].push(m.value);
        }
        // and one sendBatch across two topics
        const other = topicName('idempotent-other');
        await createTopic(other);
        await idem.sendBatch({
          topicMessages: [
            { topic, messages: [{ partition: 0, value: 'batch-last' }] },
            { topic: other, messages: [{ value: 'other' }] },
          ],
        });
        sent[0].push('batch-last');

        for (let partition = 0; partition < 3; partition++) {
          const { records, highWatermark } = await reader.readPartition(topic, partition, { minCount: sent[partition].length });
          expect(highWatermark).toBe(BigInt(sent[partition].length));
          expect(records.map((r) => r.value!.toString())).toEqual(sent[partition]);
          expect(records.map((r) => Number(r.offset))).toEqual(sent[partition].map((_, i) => i));
          // the batches carry kafkajs's producer id, epoch 0 and sequences that start at 0 and run on per partition
          const raw = await reader.fetchOnce(topic, partition, 0n, 4 * 1024 * 1024);
          const batches = new Map<string, any>();
          for (const m of raw.messages) batches.set(m.batchContext.firstOffset, m.batchContext);
          const contexts = [...batches.values()];
          expect(new Set(contexts.map((c) => c.producerId)).size).toBe(1);
          expect(Number(contexts[0].producerId)).toBeGreaterThanOrEqual(0);
          expect(contexts.map((c) => c.producerEpoch)).toEqual(contexts.map(() => 0));
          expect(contexts.map((c) => c.firstSequence)).toEqual(contexts.map((c) => Number(c.firstOffset)));
        }
        expect((await reader.readPartition(other, 0, { minCount: 1 })).records.map((r) => r.value!.toString())).toEqual(['other']);
      } finally {
        await idem.disconnect();
      }
    });

    it('two idempotent producers get different producer ids and interleave on one partition', async () => {
      const topic = topicName('idempotent-two');
      await createTopic(topic);
      const p1 = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
      const p2 = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
      await Promise.all([p1.connect(), p2.connect()]);
      try {
        const want: string[] = [];
        for (let i = 0; i < 5; i++) {
          await p1.send({ topic, messages: [{ value: `p1-${i}` }] });
          await p2.send({ topic, messages: [{ value: `p2-${i}` }, { value: `p2-${i}'` }] });
          want.push(`p1-${i}`, `p2-${i}`, `p2-${i}'`);
        }
        const { records } = await reader.readPartition(topic, 0, { minCount: want.length });
        expect(records.map((r) => r.value!.toString())).toEqual(want);
        const raw = await reader.fetchOnce(topic, 0, 0n);
        const ids = new Set(raw.messages.map((m: any) => m.batchContext.producerId));
        expect(ids.size).toBe(2);
      } finally {
        await Promise.allSettled([p1.disconnect(), p2.disconnect()]);
      }
    });
  });

  // ---- durability across a restart ------------------------------------------------------------------

  it('everything produced is there after close() and a restart on the same data dir', async () => {
    const dataDir = tempDir('krill-kafkajs-restart-');
    let first: RunningBroker | null = await startBroker({ port: 0, host: '127.0.0.1', dataDir });
    let second: RunningBroker | null = null;
    const clients: { disconnect?: () => Promise<void>; close?: () => Promise<void> }[] = [];
    try {
      const k1 = client(first.bootstrap);
      const a1 = k1.admin();
      const p1 = k1.producer({ createPartitioner: Partitioners.DefaultPartitioner, allowAutoTopicCreation: false });
      clients.push(a1, p1);
      await a1.connect();
      await p1.connect();
      await a1.createTopics({
        topics: [
          { topic: 'durable', numPartitions: 3 },
          { topic: 'durable-zstd', configEntries: [{ name: 'compression.type', value: 'zstd' }] },
        ],
      });
      const ts = 1_700_000_000_000;
      const expected = new Map<number, { key: string; value: string | null; timestamp: string; headers: Record<string, string> }[]>();
      for (let i = 0; i < 30; i++) {
        const partition = i % 3;
        const m = { key: `k${i}`, value: i % 10 === 9 ? null : `v${i}`, timestamp: String(ts + i), headers: { i: String(i) } };
        await p1.send({ topic: 'durable', compression: i % 2 ? CompressionTypes.GZIP : CompressionTypes.None, messages: [{ ...m, partition }] });
        expected.set(partition, [...(expected.get(partition) ?? []), m]);
      }
      await p1.send({ topic: 'durable-zstd', messages: [{ key: 'z', value: 'stored as zstd', timestamp: String(ts) }] });
      await p1.disconnect();
      await a1.disconnect();
      await first.close();
      first = null;

      second = await startBroker({ port: 0, host: '127.0.0.1', dataDir });
      expect(second.dataDir).toBe(dataDir);
      const k2 = client(second.bootstrap);
      const a2 = k2.admin();
      const r2 = new KafkajsReader(second.bootstrap);
      clients.push(a2, r2);
      await a2.connect();
      expect(await a2.listTopics()).toEqual(expect.arrayContaining(['durable', 'durable-zstd']));
      const meta = await a2.fetchTopicMetadata({ topics: ['durable'] });
      expect(meta.topics[0].partitions).toHaveLength(3);
      for (const [partition, msgs] of expected) {
        const { records, highWatermark } = await r2.readPartition('durable', partition, { minCount: msgs.length });
        expect(highWatermark).toBe(BigInt(msgs.length));
        expect(records.map(simplify)).toEqual(msgs.map((m, i) => ({ offset: i, ...m })));
      }
      const z = await r2.readPartition('durable-zstd', 0, { minCount: 1 });
      expect(z.records.map(simplify)).toEqual([{ offset: 0, timestamp: String(ts), key: 'z', value: 'stored as zstd', headers: {} }]);

      // and the log continues where it left off
      const p2 = k2.producer({ createPartitioner: Partitioners.DefaultPartitioner, allowAutoTopicCreation: false });
      clients.push(p2);
      await p2.connect();
      const [res] = await p2.send({ topic: 'durable', messages: [{ partition: 0, value: 'after restart' }] });
      expect(res.baseOffset).toBe(String(expected.get(0)!.length));
    } finally {
      await Promise.allSettled(clients.map((c) => (c.disconnect ? c.disconnect() : c.close!())));
      await first?.close();
      await second?.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
