// Compatibility: kafkajs 2.2.4 against the log cleaner. A compacted topic with small segments: after the
// cleaner has run, a consumer from the beginning sees only the latest record of each key, at the offset
// it was produced at; a tombstone is seen, then gone after delete.retention.ms. __consumer_offsets is
// compacted too, and a group's committed offset is still fetched after a restart; so is __transaction_state, and a
// transactional id keeps its producer id across a restart.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { afterAll, describe, expect, it } from 'vitest';
import { startBroker, type RunningBroker } from '../../src/index.js';
import { tempDir } from '../../test/helpers.js';
import { cleanedUpTo, latestPerKey, waitFor, type KeyedRecord } from '../compaction-util.js';
import { readBatchHeaders } from '../util.js';

const require = createRequire(import.meta.url);
/* eslint-disable @typescript-eslint/no-explicit-any */
const { Kafka, logLevel } = require('kafkajs');

const BROKER_CONFIG = { 'log.cleaner.backoff.ms': 50, 'log.cleaner.min.cleanable.ratio': 0.01, 'log.roll.ms': 300 };
const dirs: string[] = [];
const brokers: RunningBroker[] = [];
afterAll(async () => {
  for (const b of brokers) await b.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

async function start(dataDir: string, extra: Record<string, number> = {}): Promise<RunningBroker> {
  const b = await startBroker({ port: 0, dataDir, config: { ...BROKER_CONFIG, ...extra } });
  brokers.push(b);
  return b;
}

const kafkaFor = (b: RunningBroker) =>
  new Kafka({ clientId: 'krill-compaction', brokers: [b.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 5, initialRetryTime: 100 } });

const partitionDirs = (dataDir: string, topic: string) => fs.readdirSync(dataDir).filter((d) => d.startsWith(`${topic}-`));
/** Records in a partition directory's segments, read from the files. */
const records = (dataDir: string, dir: string) =>
  fs
    .readdirSync(path.join(dataDir, dir))
    .filter((f) => f.endsWith('.log'))
    .reduce((n, f) => n + readBatchHeaders(path.join(dataDir, dir, f)).reduce((m, h) => m + h.records, 0), 0);

let groups = 0;
/** Everything from the beginning up to the high watermark, through a fresh consumer group. */
async function consumeAll(kafka: any, topic: string): Promise<KeyedRecord[]> {
  const admin = kafka.admin();
  await admin.connect();
  const [{ high }] = await admin.fetchTopicOffsets(topic);
  await admin.disconnect();
  const consumer = kafka.consumer({ groupId: `compaction-${process.pid}-${++groups}`, maxWaitTimeInMs: 100 });
  const seen: KeyedRecord[] = [];
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }: any) => {
      seen.push({ offset: Number(message.offset), key: message.key?.toString() ?? null, value: message.value === null ? null : message.value.toString() });
    },
  });
  await waitFor(() => seen.some((r) => r.offset >= Number(high) - 1), 20_000, `offset ${Number(high) - 1} of ${topic}`);
  await consumer.disconnect();
  return seen;
}

describe('kafkajs: compaction', () => {
  it('keeps the latest value of each key at its offset, and a tombstone until delete.retention.ms', async () => {
    const dataDir = tempDir('krill-kjs-compaction-');
    dirs.push(dataDir);
    const b = await start(dataDir);
    const kafka = kafkaFor(b);
    const topic = 'kjs-compacted';
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({
      topics: [
        {
          topic,
          numPartitions: 1,
          configEntries: [
            { name: 'cleanup.policy', value: 'compact' },
            { name: 'segment.bytes', value: '1024' },
            { name: 'delete.retention.ms', value: '4000' },
            { name: 'min.cleanable.dirty.ratio', value: '0.01' },
          ],
        },
      ],
    });
    await admin.disconnect();

    const producer = kafka.producer();
    await producer.connect();
    const produced: KeyedRecord[] = [];
    for (let round = 0; round < 20; round++) {
      const messages = Array.from({ length: 10 }, (_, k) => ({ key: `key-${k}`, value: `value-${round}-${k}` }));
      const [res] = await producer.send({ topic, messages });
      messages.forEach((m, k) => produced.push({ offset: Number(res.baseOffset) + k, key: m.key, value: m.value }));
    }
    const [tomb] = await producer.send({ topic, messages: [{ key: 'key-3', value: null }] });
    produced.push({ offset: Number(tomb.baseOffset), key: 'key-3', value: null });
    // Filler so that the tombstone's segment is no longer the active one.
    for (let i = 0; i < 3; i++) await producer.send({ topic, messages: [{ key: 'filler', value: 'x'.repeat(700) }] });
    await producer.disconnect();

    await waitFor(() => cleanedUpTo(dataDir, topic, 0) > Number(tomb.baseOffset), 20_000, 'the cleaner to pass the tombstone');
    const expected = latestPerKey(produced);
    let seen = (await consumeAll(kafka, topic)).filter((r) => r.key !== 'filler');
    expect(seen).toEqual([...expected.values()].sort((x, y) => x.offset - y.offset));
    expect(seen.find((r) => r.key === 'key-3')).toEqual({ offset: Number(tomb.baseOffset), key: 'key-3', value: null });

    // delete.retention.ms after the pass that cleaned past it, the tombstone goes; nothing else does.
    await waitFor(
      async () => {
        seen = (await consumeAll(kafka, topic)).filter((r) => r.key !== 'filler');
        return !seen.some((r) => r.key === 'key-3');
      },
      30_000,
      'the tombstone to go',
    );
    expected.delete('key-3');
    expect(seen).toEqual([...expected.values()].sort((x, y) => x.offset - y.offset));
  }, 90_000);

  it('reads past the emptied last batch the cleaner keeps of an idempotent producer', async () => {
    const dataDir = tempDir('krill-kjs-compaction-idempotent-');
    dirs.push(dataDir);
    const b = await start(dataDir);
    const kafka = kafkaFor(b);
    const topic = 'kjs-compacted-idempotent';
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({
      topics: [
        {
          topic,
          numPartitions: 1,
          configEntries: [
            { name: 'cleanup.policy', value: 'compact' },
            { name: 'segment.bytes', value: '1024' },
            { name: 'min.cleanable.dirty.ratio', value: '0.01' },
          ],
        },
      ],
    });
    await admin.disconnect();
    const idempotent = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await idempotent.connect();
    for (let i = 0; i < 5; i++) await idempotent.send({ topic, messages: [{ key: 'k', value: `idempotent-${i}` }] });
    await idempotent.disconnect();
    const plain = kafka.producer();
    await plain.connect();
    const [last] = await plain.send({ topic, messages: [{ key: 'k', value: 'plain' }] });
    for (let i = 0; i < 3; i++) await plain.send({ topic, messages: [{ key: 'filler', value: 'x'.repeat(700) }] });
    await plain.disconnect();

    await waitFor(() => cleanedUpTo(dataDir, topic, 0) > Number(last.baseOffset), 20_000, 'the cleaner');
    // The producer's last batch is still on disk, without records.
    const batches = fs
      .readdirSync(path.join(dataDir, `${topic}-0`))
      .filter((f) => f.endsWith('.log'))
      .sort()
      .flatMap((f) => readBatchHeaders(path.join(dataDir, `${topic}-0`, f)));
    expect(batches.filter((h) => h.producerId >= 0n).map((h) => [h.baseOffset, h.records, h.baseSequence])).toEqual([[4n, 0, 4]]);
    const seen = (await consumeAll(kafka, topic)).filter((r) => r.key === 'k');
    expect(seen).toEqual([{ offset: Number(last.baseOffset), key: 'k', value: 'plain' }]);
  }, 90_000);

  it('compacts __consumer_offsets, and committed offsets are still fetched after a restart', async () => {
    const dataDir = tempDir('krill-kjs-offsets-compaction-');
    dirs.push(dataDir);
    let b = await start(dataDir);
    let kafka = kafkaFor(b);
    const topic = 'kjs-committed';
    const groupId = 'kjs-compaction-group';
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] });
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic, messages: Array.from({ length: 100 }, (_, i) => ({ value: `m${i}` })) });
    await producer.disconnect();
    await admin.disconnect();
    const COMMITS = 60;
    const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 100 });
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    let consumed = 0;
    await consumer.run({ autoCommit: false, eachMessage: async () => void consumed++ });
    await waitFor(() => consumed > 0, 20_000, 'the consumer to join');
    for (let i = 1; i <= COMMITS; i++) {
      await consumer.commitOffsets([{ topic, partition: 0, offset: String(i) }]);
      await new Promise((r) => setTimeout(r, 20));
    }
    await consumer.disconnect();

    const groupDir = partitionDirs(dataDir, '__consumer_offsets').find((d) => records(dataDir, d) > 0)!;
    const partition = Number(groupDir.split('-').pop());
    await waitFor(() => cleanedUpTo(dataDir, '__consumer_offsets', partition) > 0, 20_000, 'the cleaner to clean __consumer_offsets');
    // Each commit appended a record: fewer left means the cleaner removed superseded ones.
    expect(records(dataDir, groupDir)).toBeLessThan(COMMITS);

    await b.close();
    b = await start(dataDir);
    kafka = kafkaFor(b);
    const again = kafka.admin();
    await again.connect();
    const fetched = await again.fetchOffsets({ groupId, topics: [topic] });
    await again.disconnect();
    expect(fetched).toEqual([{ topic, partitions: [{ partition: 0, offset: String(COMMITS), metadata: null }] }]);
  }, 90_000);

  it('compacts __transaction_state, and a transactional id keeps its producer id across a restart', async () => {
    const dataDir = tempDir('krill-kjs-txn-compaction-');
    dirs.push(dataDir);
    const extra = { 'transaction.state.log.segment.bytes': 1024 };
    let b = await start(dataDir, extra);
    const topic = 'kjs-txn-output';
    const transactionalId = 'kjs-compaction-txn';
    const admin = kafkaFor(b).admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] });
    await admin.disconnect();
    const runTransactions = async (broker: RunningBroker, count: number) => {
      const producer = kafkaFor(broker).producer({ transactionalId, idempotent: true, maxInFlightRequests: 1 });
      await producer.connect();
      for (let i = 0; i < count; i++) {
        const txn = await producer.transaction();
        await txn.send({ topic, messages: [{ value: `m${i}` }] });
        await txn.commit();
      }
      await producer.disconnect();
    };
    const TRANSACTIONS = 30;
    await runTransactions(b, TRANSACTIONS);
    // Each transaction wrote its state several times (ongoing, prepare, complete) under the one key.
    const stateDir = partitionDirs(dataDir, '__transaction_state').find((d) => records(dataDir, d) > 0)!;
    const partition = Number(stateDir.split('-').pop());
    await waitFor(
      () => cleanedUpTo(dataDir, '__transaction_state', partition) > 0 && records(dataDir, stateDir) < TRANSACTIONS,
      20_000,
      'the cleaner to clean __transaction_state (the active segment is left as it is)',
    );

    await b.close();
    b = await start(dataDir, extra);
    await runTransactions(b, 1);
    // The coordinator replayed the compacted state: the same producer id, a later epoch.
    const batches = fs
      .readdirSync(path.join(dataDir, `${topic}-0`))
      .filter((f) => f.endsWith('.log'))
      .sort()
      .flatMap((f) => readBatchHeaders(path.join(dataDir, `${topic}-0`, f)))
      .filter((h) => h.records > 0 && h.producerId >= 0n);
    const first = batches[0];
    const last = batches.at(-1)!;
    expect(last.producerId).toBe(first.producerId);
    expect(last.producerEpoch).toBeGreaterThan(first.producerEpoch);
  }, 90_000);
});
