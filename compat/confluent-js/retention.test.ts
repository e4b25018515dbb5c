// Compatibility: DeleteRecords through librdkafka's admin (rd_kafka_DeleteRecords, via
// @confluentinc/kafka-javascript's KafkaJS-compatible deleteTopicRecords), against a real krill: the low
// watermark each partition answers, the watermarks afterwards (ListOffsets), the segment files on disk,
// and Kafka's per-partition errors. (confluent-kafka-python 1.7.0, Debian's, has no delete_records: it
// came in 2.4; this is the same librdkafka request.)
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startBroker, type RunningBroker } from '../../src/index.js';
import { describeWithClient, rdkafka } from './client.js';

/* eslint-disable @typescript-eslint/no-explicit-any */

let seq = 0;
const topicName = (label: string) => `confluent-retention-${label}-${process.pid}-${++seq}`;

describeWithClient('DeleteRecords', { timeout: 60_000 }, () => {
  let broker: RunningBroker;
  let kafka: any;
  let admin: any;
  let producer: any;

  beforeAll(async () => {
    broker = await startBroker({ port: 0, host: '127.0.0.1', config: { 'log.segment.delete.delay.ms': '100' } });
    kafka = new rdkafka.KafkaJS.Kafka({
      kafkaJS: {
        brokers: [broker.bootstrap],
        clientId: 'krill-compat-confluent-retention',
        logLevel: rdkafka.KafkaJS.logLevel.NOTHING,
        connectionTimeout: 3000,
        requestTimeout: 10_000,
      },
    });
    admin = kafka.admin();
    await admin.connect();
    producer = kafka.producer({ kafkaJS: { acks: -1, allowAutoTopicCreation: false }, 'linger.ms': 0, 'message.timeout.ms': 15_000 });
    await producer.connect();
  }, 30_000);

  afterAll(async () => {
    await Promise.allSettled([admin?.disconnect(), producer?.disconnect()]);
    await broker?.close();
  }, 30_000);

  /** `count` records in `count` batches, one per segment (segment.bytes 100). */
  async function topicWith(label: string, count: number, partitions = 1, configs: Record<string, string> = {}): Promise<string> {
    const topic = topicName(label);
    const configEntries = Object.entries({ 'segment.bytes': '100', 'file.delete.delay.ms': '100', ...configs }).map(([name, value]) => ({ name, value }));
    await admin.createTopics({ topics: [{ topic, numPartitions: partitions, configEntries }] });
    for (let p = 0; p < partitions; p++) {
      for (let i = 0; i < count; i++) await producer.send({ topic, messages: [{ value: `v${i}`, partition: p }] });
    }
    return topic;
  }

  async function watermarks(topic: string): Promise<Record<number, [number, number]>> {
    const out: Record<number, [number, number]> = {};
    for (const p of await admin.fetchTopicOffsets(topic)) out[p.partition] = [Number(p.low), Number(p.high)];
    return out;
  }

  const logBases = (topic: string, p: number) =>
    fs
      .readdirSync(path.join(broker.dataDir, `${topic}-${p}`))
      .filter((n) => n.endsWith('.log'))
      .map((n) => Number(n.slice(0, 20)))
      .sort((a, b) => a - b);

  it("answers each partition's new low watermark; ListOffsets agrees; segments below it leave the disk", async () => {
    const topic = await topicWith('ok', 6, 2);
    const results = await admin.deleteTopicRecords({
      topic,
      partitions: [
        { partition: 0, offset: 4 },
        { partition: 1, offset: -1 },
      ],
    });
    expect(results.map((r: any) => [r.partition, Number(r.lowWatermark), r.error ?? null]).sort()).toEqual([
      [0, 4, null],
      [1, 6, null],
    ]);
    expect(await watermarks(topic)).toEqual({ 0: [4, 6], 1: [6, 6] });
    expect(logBases(topic, 0)[0]).toBe(4);
    expect(logBases(topic, 1)).toEqual([6]);
  });

  // (librdkafka refuses an unknown partition itself; test/handlers/delete-records.test.ts sends one.)
  it('per-partition errors: past the high watermark, a compact-only topic', async () => {
    const topic = await topicWith('errors', 2);
    const compact = await topicWith('compact', 0, 1, { 'cleanup.policy': 'compact' });
    const codeOf = async (t: string, partition: number, offset: number) => {
      const err: any = await admin.deleteTopicRecords({ topic: t, partitions: [{ partition, offset }] }).then(
        () => null,
        (e: any) => e,
      );
      expect(err?.name, `${t}/${partition}@${offset}`).toBe('KafkaJSDeleteTopicRecordsError');
      return err.partitions.map((p: any) => p.error?.code);
    };
    expect(await codeOf(topic, 0, 3)).toEqual([1]); // OFFSET_OUT_OF_RANGE
    expect(await codeOf(compact, 0, 0)).toEqual([44]); // POLICY_VIOLATION
    expect(await watermarks(topic)).toEqual({ 0: [0, 2] });
  });
});
