// krill.storage=memory end to end: startBroker({ storage: 'memory' }) under kafkajs 2.2.4 and krill's own
// test client. The broker keeps Kafka's semantics (offsets, consumer groups and committed offsets,
// idempotent and transactional producers, retention, compaction), writes no file anywhere (the test runs
// with its working directory and TMPDIR in empty folders, checked at the end), and refuses a produce past
// krill.storage.memory.max.bytes with KAFKA_STORAGE_ERROR and a message saying so, until retention has
// freed space.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type RunningBroker } from '../../src/index.js';
import { eventually } from '../../compat/util.js';
import { latestPerKey, type KeyedRecord } from '../../compat/compaction-util.js';
import { TestClient } from '../server/client.js';
import { API, createTopic, produce, uniqueTopic } from '../server/kafka.js';
import { buildBatch } from '../../protocol/record-batch.js';
import { ErrorCode } from '../../protocol/errors.js';

const require = createRequire(import.meta.url);
/* eslint-disable @typescript-eslint/no-explicit-any */
const { Kafka, logLevel } = require('kafkajs');

const startedIn = process.cwd();
const tmpdirBefore = process.env.TMPDIR;
const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'krill-memory-cwd-'));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'krill-memory-tmp-'));
const brokers: RunningBroker[] = [];

beforeAll(() => {
  // Anything written relative to the working directory or into a fresh temporary folder lands here.
  process.chdir(cwd);
  process.env.TMPDIR = tmp;
}, 60_000);

afterAll(async () => {
  for (const b of brokers) await b.close();
  process.chdir(startedIn);
  if (tmpdirBefore === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = tmpdirBefore;
  fs.rmSync(cwd, { recursive: true, force: true });
  fs.rmSync(tmp, { recursive: true, force: true });
}, 60_000);

async function start(config: Record<string, string | number> = {}): Promise<RunningBroker> {
  const b = await startBroker({ port: 0, host: '127.0.0.1', storage: 'memory', config: { 'log.retention.check.interval.ms': 50, ...config } });
  brokers.push(b);
  return b;
}

const kafkaFor = (b: RunningBroker) =>
  new Kafka({ clientId: 'krill-memory', brokers: [b.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 3, initialRetryTime: 50 } });

/** Every record of `topic` from the beginning to its high watermarks, through `groupId` (committing as it goes). */
async function consumeAll(kafka: any, topic: string, groupId: string, opts: object = {}): Promise<(KeyedRecord & { partition: number })[]> {
  const admin = kafka.admin();
  await admin.connect();
  const ends = await admin.fetchTopicOffsets(topic);
  await admin.disconnect();
  const want = new Map<number, number>(ends.map((e: any) => [e.partition, Number(e.high)]));
  const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 100, ...opts });
  const seen: (KeyedRecord & { partition: number })[] = [];
  const reached = new Map<number, number>();
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ partition, message }: any) => {
      seen.push({ partition, offset: Number(message.offset), key: message.key?.toString() ?? null, value: message.value?.toString() ?? null });
      reached.set(partition, Number(message.offset) + 1);
    },
  });
  await eventually(`${topic} read to its end`, () => ([...want].every(([p, high]) => (reached.get(p) ?? 0) >= high) ? true : undefined));
  await consumer.disconnect();
  return seen;
}

describe('krill.storage=memory', () => {
  let broker: RunningBroker;
  let kafka: any;
  let client: TestClient;

  beforeAll(async () => {
    broker = await start({ 'log.cleaner.backoff.ms': 50, 'log.cleaner.min.cleanable.ratio': 0.01 });
    kafka = kafkaFor(broker);
    client = await TestClient.connect(broker.port);
  });
  afterAll(() => client?.close());

  it('names no directory on disk', () => {
    expect(broker.dataDir).toMatch(/^memory:\d+$/);
    expect(fs.existsSync(broker.dataDir)).toBe(false);
  });

  it('produces and fetches at offsets, and a group commits and fetches its offsets', async () => {
    const topic = uniqueTopic('mem-basic');
    const admin = kafka.admin();
    await admin.connect();
    await createTopic(client, topic, 3);
    const producer = kafka.producer();
    await producer.connect();
    for (let i = 0; i < 30; i++) await producer.send({ topic, messages: [{ partition: i % 3, key: `k${i}`, value: `v${i}` }] });
    await producer.disconnect();
    const seen = await consumeAll(kafka, topic, 'mem-group');
    expect(seen).toHaveLength(30);
    for (const r of seen)
      expect(r).toMatchObject({ offset: Math.floor(Number(r.key!.slice(1)) / 3), partition: Number(r.key!.slice(1)) % 3, value: `v${r.key!.slice(1)}` });
    const [committed] = await admin.fetchOffsets({ groupId: 'mem-group', topics: [topic] });
    expect(committed.partitions.map((p: any) => [p.partition, p.offset]).sort()).toEqual([
      [0, '10'],
      [1, '10'],
      [2, '10'],
    ]);
    await admin.disconnect();
  });

  it('keeps an idempotent producer exactly once, and shows a read_committed consumer only committed transactions', async () => {
    const topic = uniqueTopic('mem-txn');
    const idempotent = kafka.producer({ idempotent: true });
    await idempotent.connect();
    await idempotent.send({
      topic,
      messages: [
        { key: 'a', value: 'idempotent-1' },
        { key: 'b', value: 'idempotent-2' },
      ],
    });
    await idempotent.disconnect();
    const producer = kafka.producer({ transactionalId: 'mem-tx', idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    const committed = await producer.transaction();
    await committed.send({ topic, messages: [{ key: 'c', value: 'committed' }] });
    await committed.commit();
    const aborted = await producer.transaction();
    await aborted.send({ topic, messages: [{ key: 'd', value: 'aborted' }] });
    await aborted.abort();
    await producer.disconnect();
    // A last record after the markers, for the reader to know it has read everything.
    await idempotent.connect();
    await idempotent.send({ topic, messages: [{ key: 'e', value: 'after' }] });
    await idempotent.disconnect();
    const seen = await consumeAll(kafka, topic, 'mem-txn-reader', { readUncommitted: false });
    expect(seen.map((r) => r.value)).toEqual(['idempotent-1', 'idempotent-2', 'committed', 'after']);
    // Each transaction's marker takes an offset.
    expect(seen.map((r) => r.offset)).toEqual([0, 1, 2, 6]);
  }, 30_000);

  it('deletes old segments by retention.bytes', async () => {
    const topic = uniqueTopic('mem-retention');
    const admin = kafka.admin();
    await admin.connect();
    await createTopic(client, topic, 1, { 'segment.bytes': '1024', 'retention.bytes': '2048', 'file.delete.delay.ms': '0' });
    const producer = kafka.producer();
    await producer.connect();
    for (let i = 0; i < 20; i++) await producer.send({ topic, messages: [{ value: 'x'.repeat(500) }] });
    await producer.disconnect();
    const [{ low, high }] = await eventually('retention deleting segments', async () => {
      const offsets = await admin.fetchTopicOffsets(topic);
      return Number(offsets[0].low) > 0 ? offsets : undefined;
    });
    expect(Number(high)).toBe(20);
    const seen = await consumeAll(kafka, topic, 'mem-retention-reader');
    expect(seen[0].offset).toBeGreaterThanOrEqual(Number(low));
    expect(seen.at(-1)!.offset).toBe(19);
    await admin.disconnect();
  });

  it('compacts a topic to the latest value of each key, at the offsets they were produced at', async () => {
    const topic = uniqueTopic('mem-compact');
    await createTopic(client, topic, 1, { 'cleanup.policy': 'compact', 'segment.bytes': '200', 'file.delete.delay.ms': '0' });
    const producer = kafka.producer();
    await producer.connect();
    const produced: KeyedRecord[] = [];
    for (let round = 0; round < 3; round++) {
      for (let k = 0; k < 5; k++) {
        const value = `value-${round}-${k}`;
        await producer.send({ topic, messages: [{ key: `key-${k}`, value }] });
        produced.push({ offset: produced.length, key: `key-${k}`, value });
      }
    }
    await producer.disconnect();
    const latest = [...latestPerKey(produced).values()];
    let reads = 0;
    const seen = await eventually('the cleaner compacting the topic', async () => {
      const records = await consumeAll(kafka, topic, `mem-compact-reader-${++reads}`);
      // The active segment (the last record) is never cleaned: everything before it must be.
      return records.length <= latest.length + 1 ? records : undefined;
    });
    const byKey = latestPerKey(seen.map(({ offset, key, value }) => ({ offset, key, value })));
    expect([...byKey.values()].sort((a, b) => a.offset - b.offset)).toEqual(latest);
  });

  it('wrote nothing in the working directory or the temporary folder', () => {
    expect(fs.readdirSync(cwd)).toEqual([]);
    expect(fs.readdirSync(tmp)).toEqual([]);
  });
}, 60_000);

describe('krill.storage.memory.max.bytes', () => {
  const bound = 256 * 1024;
  const clients: TestClient[] = [];
  afterAll(() => clients.forEach((c) => c.close()));

  /** A broker of its own for each test: what one test stores would fill the other's bound. */
  async function fresh(): Promise<{ broker: RunningBroker; client: TestClient }> {
    const broker = await start({ 'krill.storage.memory.max.bytes': bound });
    const client = await TestClient.connect(broker.port);
    clients.push(client);
    return { broker, client };
  }

  const batchOf = (bytes: number) => buildBatch([{ key: null, value: Buffer.alloc(bytes, 1) }]);

  it('refuses a produce past the bound with KAFKA_STORAGE_ERROR and a message naming it', async () => {
    const { broker, client } = await fresh();
    const topic = uniqueTopic('mem-full');
    await createTopic(client, topic);
    let answer;
    for (let i = 0; i < 10; i++) {
      answer = await produce(client, topic, 0, batchOf(40 * 1024));
      if (answer.errorCode !== 0) break;
    }
    expect(answer!.errorCode).toBe(ErrorCode.KAFKA_STORAGE_ERROR);
    expect(answer!.errorMessage).toMatch(/in-memory storage is full: \d+ bytes held, krill\.storage\.memory\.max\.bytes is 262144/);
    // kafkajs (Produce v3, which has no error message) reports it by Kafka's name.
    const producer = kafkaFor(broker).producer({ retry: { retries: 0 } });
    await producer.connect();
    const err: any = await producer.send({ topic, acks: -1, messages: [{ value: Buffer.alloc(40 * 1024) }] }).then(
      () => null,
      (e: unknown) => e,
    );
    await producer.disconnect();
    expect(err?.cause?.type).toBe('KAFKA_STORAGE_ERROR');
  });

  it('takes produces again once retention has freed space, and DescribeLogDirs shows the bound', async () => {
    const { broker, client } = await fresh();
    const topic = uniqueTopic('mem-rolling');
    const configs = { 'segment.bytes': String(32 * 1024), 'retention.bytes': String(64 * 1024), 'file.delete.delay.ms': '0' };
    await createTopic(client, topic, 1, configs);
    // More than the bound in all, less than the bound left after each retention round.
    for (let i = 0; i < 40; i++) {
      const answer = await eventually(`produce ${i} accepted`, async () => {
        const a = await produce(client, topic, 0, batchOf(20 * 1024));
        return a.errorCode === 0 ? a : undefined;
      });
      expect(answer.baseOffset).toBe(i);
    }
    const dirs = await client.request(API.DescribeLogDirs, 4, { topics: [{ topic, partitions: [0] }] });
    expect(dirs.results).toHaveLength(1);
    expect(dirs.results[0]).toMatchObject({ errorCode: 0, logDir: broker.dataDir, totalBytes: bound });
    const { partitionSize } = dirs.results[0].topics[0].partitions[0];
    expect(partitionSize).toBeGreaterThan(0);
    expect(dirs.results[0].usableBytes).toBeLessThanOrEqual(bound - partitionSize);
  });
}, 60_000);
