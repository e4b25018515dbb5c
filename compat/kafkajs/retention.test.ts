// Compatibility: kafkajs 2.2.4 admin and consumer against krill's retention and DeleteRecords.
//
// A broker with a fast retention check (log.retention.check.interval.ms) and short deletion delays
// (log.segment.delete.delay.ms, and file.delete.delay.ms per topic), topics with tiny segments (one
// kafkajs batch each), so that retention by time and by size and deleteTopicRecords act at once. Checked:
// what fetchTopicOffsets reports (low watermark moved, high unchanged), the segment files on disk, the
// errors of deleteTopicRecords, and a group consumer whose committed offset fell below the log start
// offset resetting per fromBeginning (kafkajs's auto.offset.reset).
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type RunningBroker } from '../../src/index.js';
import { eventually } from '../util.js';

const require = createRequire(import.meta.url);
/* eslint-disable @typescript-eslint/no-explicit-any */
const { Kafka, logLevel, Partitioners } = require('kafkajs');

process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';

let seq = 0;
const topicName = (label: string) => `kafkajs-retention-${label}-${process.pid}-${++seq}`;

describe(`kafkajs ${require('kafkajs/package.json').version}: retention and DeleteRecords`, { timeout: 60_000 }, () => {
  let broker: RunningBroker;
  let kafka: any;
  let admin: any;
  let producer: any;

  beforeAll(async () => {
    broker = await startBroker({
      port: 0,
      host: '127.0.0.1',
      config: { 'log.retention.check.interval.ms': '100', 'log.segment.delete.delay.ms': '100', 'group.initial.rebalance.delay.ms': '0' },
    });
    kafka = new Kafka({
      clientId: 'krill-compat-retention',
      brokers: [broker.bootstrap],
      logLevel: logLevel.NOTHING,
      connectionTimeout: 3000,
      requestTimeout: 10_000,
      retry: { retries: 3, initialRetryTime: 100, maxRetryTime: 1000 },
    });
    admin = kafka.admin({ retry: { retries: 2 } });
    producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, allowAutoTopicCreation: false, retry: { retries: 2 } });
    await admin.connect();
    await producer.connect();
  }, 30_000);

  afterAll(async () => {
    await Promise.allSettled([admin?.disconnect(), producer?.disconnect()]);
    await broker?.close();
  }, 30_000);

  /** A topic whose segments hold one kafkajs batch each. */
  async function createTopic(topic: string, configs: Record<string, string> = {}) {
    const configEntries = Object.entries({ 'segment.bytes': '100', 'file.delete.delay.ms': '100', ...configs }).map(([name, value]) => ({ name, value }));
    expect(await admin.createTopics({ topics: [{ topic, numPartitions: 1, configEntries }], timeout: 5000 })).toBe(true);
  }

  /** One send, so one batch, per value; then the topic's metadata, which deleteTopicRecords needs to find the leader. */
  async function produce(topic: string, values: string[], timestamp?: number) {
    for (const value of values) {
      await producer.send({ topic, messages: [{ value, ...(timestamp === undefined ? {} : { timestamp: String(timestamp) }) }] });
    }
    await admin.fetchTopicMetadata({ topics: [topic] });
  }

  async function watermarks(topic: string): Promise<{ low: number; high: number }> {
    const [p] = await admin.fetchTopicOffsets(topic);
    return { low: Number(p.low), high: Number(p.high) };
  }

  const dirOf = (topic: string) => path.join(broker.dataDir, `${topic}-0`);
  /** Base offsets of the segments on disk (.log files), and whether any .deleted file is left. */
  function onDisk(topic: string): { bases: number[]; deletedFiles: number } {
    const names = fs.readdirSync(dirOf(topic));
    return {
      bases: names
        .filter((n) => n.endsWith('.log'))
        .map((n) => Number(n.slice(0, 20)))
        .sort((a, b) => a - b),
      deletedFiles: names.filter((n) => n.endsWith('.deleted')).length,
    };
  }

  it('retention.ms: segments whose records are older leave the disk; low watermark moves, high does not', async () => {
    const topic = topicName('time');
    await createTopic(topic, { 'retention.ms': '600000' });
    const hourAgo = Date.now() - 3_600_000;
    await produce(topic, ['old-0', 'old-1', 'old-2', 'old-3'], hourAgo);
    await produce(topic, ['new-4', 'new-5']);
    const marks = await eventually('the low watermark to reach 4', async () => {
      const w = await watermarks(topic);
      return w.low === 4 ? w : undefined;
    });
    expect(marks).toEqual({ low: 4, high: 6 });
    const disk = await eventually('the .deleted files to go', () => {
      const d = onDisk(topic);
      return d.deletedFiles === 0 ? d : undefined;
    });
    expect(disk.bases[0]).toBe(4);
    expect(disk.bases).not.toContain(0);
    // ListOffsets earliest says the same, and offsets go on from the high watermark.
    await produce(topic, ['new-6']);
    expect(await watermarks(topic)).toEqual({ low: 4, high: 7 });
  });

  it('retention.bytes: the oldest segments go while the log stays at least that large', async () => {
    const topic = topicName('size');
    await createTopic(topic, { 'retention.bytes': '250' });
    await produce(
      topic,
      Array.from({ length: 10 }, (_, i) => `value-${i}`),
    );
    // Kafka's rule: segments go, oldest first, while the log without them stays at least retention.bytes;
    // so once retention is done, deleting one more (the oldest left) would take it below.
    const { low, sizes } = await eventually('retention to bring the log down to retention.bytes', async () => {
      const w = await watermarks(topic);
      const d = onDisk(topic);
      if (w.high !== 10 || d.deletedFiles > 0 || d.bases[0] !== w.low) return undefined;
      const segmentSizes = d.bases.map((b) => fs.statSync(path.join(dirOf(topic), `${String(b).padStart(20, '0')}.log`)).size);
      const total = segmentSizes.reduce((x, y) => x + y, 0);
      return total - segmentSizes[0] < 250 ? { low: w.low, sizes: segmentSizes } : undefined;
    });
    expect(low).toBeGreaterThan(0);
    expect(sizes.reduce((x, y) => x + y, 0)).toBeGreaterThanOrEqual(250);
    expect(await watermarks(topic)).toEqual({ low, high: 10 });
  });

  it('deleteTopicRecords moves the low watermark at once; the segments below it leave the disk', async () => {
    const topic = topicName('delete-records');
    await createTopic(topic);
    await produce(
      topic,
      Array.from({ length: 10 }, (_, i) => `value-${i}`),
    );
    await admin.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: '5' }] });
    expect(await watermarks(topic)).toEqual({ low: 5, high: 10 });
    expect(onDisk(topic).bases.filter((b) => b < 5)).toEqual([]);
    await eventually('the .deleted files to go', () => (onDisk(topic).deletedFiles === 0 ? true : undefined));
    // An offset below the low watermark changes nothing; -1 means the high watermark.
    await admin.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: '3' }] });
    expect(await watermarks(topic)).toEqual({ low: 5, high: 10 });
    await admin.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: '-1' }] });
    expect(await watermarks(topic)).toEqual({ low: 10, high: 10 });
    // The log goes on from the same offsets.
    await produce(topic, ['after']);
    expect(await watermarks(topic)).toEqual({ low: 10, high: 11 });
  });

  it('deleteTopicRecords past the high watermark is OFFSET_OUT_OF_RANGE; nothing changes', async () => {
    const topic = topicName('out-of-range');
    await createTopic(topic);
    await produce(topic, ['a', 'b']);
    const err: any = await admin.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: '7' }] }).catch((e: any) => e);
    // Not retriable: kafkajs's retrier wraps the per-partition error.
    expect(err?.name).toBe('KafkaJSNonRetriableError');
    expect(err.cause?.name).toBe('KafkaJSDeleteTopicRecordsError');
    expect(err.cause.partitions.map((p: any) => [p.partition, p.error?.type])).toEqual([[0, 'OFFSET_OUT_OF_RANGE']]);
    expect(await watermarks(topic)).toEqual({ low: 0, high: 2 });
  });

  it('deleteTopicRecords inside a batch: a consumer from the beginning starts at the new low watermark', async () => {
    const topic = topicName('mid-batch');
    expect(await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], timeout: 5000 })).toBe(true);
    // One send, one batch of 13 records: the log start offset lands inside it; Fetch returns the whole
    // batch (as Kafka's does) and the client skips the records below the offset it asked for.
    await producer.send({ topic, messages: Array.from({ length: 13 }, (_, i) => ({ key: `k${i}`, value: `v${i}` })) });
    await admin.fetchTopicMetadata({ topics: [topic] });
    await admin.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: '7' }] });
    expect(await watermarks(topic)).toEqual({ low: 7, high: 13 });
    const consumer = kafka.consumer({ groupId: `${topic}-group`, maxWaitTimeInMs: 100, retry: { retries: 5 } });
    const seen: number[] = [];
    try {
      await consumer.connect();
      await consumer.subscribe({ topics: [topic], fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ message }: any) => {
          seen.push(Number(message.offset));
        },
      });
      await eventually('records 7 to 12', () => (seen.length >= 6 ? true : undefined), 30_000);
    } finally {
      await consumer.disconnect();
    }
    expect(seen).toEqual([7, 8, 9, 10, 11, 12]);
  });

  it('a consumer whose committed offset fell below the log start offset resets to the earliest offset (fromBeginning)', async () => {
    const topic = topicName('reset');
    const groupId = `${topic}-group`;
    await createTopic(topic);
    await produce(
      topic,
      Array.from({ length: 10 }, (_, i) => `value-${i}`),
    );
    await admin.setOffsets({ groupId, topic, partitions: [{ partition: 0, offset: '2' }] });
    await admin.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: '6' }] });
    const consumer = kafka.consumer({ groupId, sessionTimeout: 6000, heartbeatInterval: 500, maxWaitTimeInMs: 200, retry: { retries: 5 } });
    const seen: number[] = [];
    try {
      await consumer.connect();
      await consumer.subscribe({ topics: [topic], fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ message }: any) => {
          seen.push(Number(message.offset));
        },
      });
      await eventually('records 6 to 9', () => (seen.length >= 4 ? true : undefined), 30_000);
    } finally {
      await consumer.disconnect();
    }
    expect(seen).toEqual([6, 7, 8, 9]);
  });
});
