// Compatibility: @confluentinc/kafka-javascript (librdkafka 2.x, which implements KIP-320 offset validation)
// and CreatePartitions: AdminClient.createPartitions with Kafka's error codes, a group consumer
// rebalanced onto the new partitions at its next metadata refresh, and a restarted member resuming from
// offsets committed with their leader epoch.
//
// Like ./confluent-js.test.ts: skipped when the package is missing, unless CI=true.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startBroker, type RunningBroker } from '../../src/index.js';
import { tempDir } from '../../test/helpers.js';
import { describeWithClient, rdkafka } from './client.js';

/* eslint-disable @typescript-eslint/no-explicit-any */

let seq = 0;
const unique = (label: string) => `cjs-${label}-${process.pid}-${++seq}`;

async function waitFor(cond: () => boolean, ms: number, what: () => string): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describeWithClient('CreatePartitions against krill', { timeout: 90_000 }, () => {
  let broker: RunningBroker;
  let kafka: any;
  let admin: any;
  let legacyAdmin: any;

  beforeAll(async () => {
    broker = await startBroker({ port: 0, host: '127.0.0.1', dataDir: tempDir('krill-cjs-partitions-') });
    kafka = new rdkafka.KafkaJS.Kafka({
      kafkaJS: {
        brokers: [broker.bootstrap],
        clientId: 'krill-cjs-partitions',
        logLevel: rdkafka.KafkaJS.logLevel.NOTHING,
        connectionTimeout: 3000,
        requestTimeout: 10_000,
      },
    });
    admin = kafka.admin();
    await admin.connect();
    legacyAdmin = rdkafka.AdminClient.create({ 'metadata.broker.list': broker.bootstrap, 'client.id': 'krill-cjs-partitions-admin', log_level: 0 });
  }, 30_000);

  afterAll(async () => {
    legacyAdmin?.disconnect();
    await admin?.disconnect();
    await broker?.close();
  }, 60_000);

  const createPartitions = (topic: string, count: number) =>
    new Promise<any>((resolve) => legacyAdmin.createPartitions(topic, count, 10_000, (err: any) => resolve(err ?? null)));

  async function send(topic: string, messages: { partition: number; value: string }[]): Promise<void> {
    const producer = kafka.producer({ kafkaJS: { acks: -1 }, 'linger.ms': 5, 'message.timeout.ms': 15_000 });
    await producer.connect();
    await producer.send({ topic, messages });
    await producer.disconnect();
  }

  it('AdminClient.createPartitions grows a topic and refuses a shrink with INVALID_PARTITIONS', async () => {
    const topic = unique('grow');
    await admin.createTopics({ topics: [{ topic, numPartitions: 2 }] });
    expect(await createPartitions(topic, 4)).toBeNull();
    const md = await admin.fetchTopicMetadata({ topics: [topic] });
    expect(md[0].partitions.map((p: any) => p.partitionId).sort()).toEqual([0, 1, 2, 3]);
    const err = await createPartitions(topic, 3);
    expect(err?.code).toBe(37);
    expect(err?.message).toContain('would not be an increase');
  });

  it('a group member is rebalanced onto new partitions; a restarted member resumes from its committed offsets', async () => {
    const topic = unique('rebalance');
    const groupId = unique('group');
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] });
    await send(topic, [{ partition: 0, value: 'a0' }]);

    const seen: { partition: number; offset: number; value: string }[] = [];
    const assigned = new Set<number>();
    const member = () => {
      const consumer = kafka.consumer({
        kafkaJS: {
          groupId,
          fromBeginning: true,
          sessionTimeout: 6000,
          heartbeatInterval: 500,
          maxWaitTimeInMs: 100,
          autoCommit: true,
          autoCommitInterval: 200,
        },
        'topic.metadata.refresh.interval.ms': 500,
        rebalance_cb: (err: any, assignment: { partition: number }[]) => {
          if (err.code === rdkafka.CODES.ERRORS.ERR__ASSIGN_PARTITIONS) for (const a of assignment) assigned.add(a.partition);
          else for (const a of assignment) assigned.delete(a.partition);
        },
      });
      return consumer;
    };
    let consumer = member();
    await consumer.connect();
    await consumer.subscribe({ topics: [topic] });
    consumer.run({
      eachMessage: async ({ partition, message }: any) => {
        seen.push({ partition, offset: Number(message.offset), value: message.value.toString() });
      },
    });
    await waitFor(
      () => seen.length === 1,
      30_000,
      () => 'the first record',
    );

    expect(await createPartitions(topic, 3)).toBeNull();
    await waitFor(
      () => assigned.size === 3,
      30_000,
      () => `an assignment of 3 partitions (have ${[...assigned]})`,
    );
    await send(topic, [
      { partition: 1, value: 'b0' },
      { partition: 2, value: 'c0' },
    ]);
    await waitFor(
      () => seen.length === 3,
      30_000,
      () => `records of the new partitions (have ${JSON.stringify(seen)})`,
    );
    expect(seen.map((s) => [s.partition, s.offset, s.value]).sort()).toEqual([
      [0, 0, 'a0'],
      [1, 0, 'b0'],
      [2, 0, 'c0'],
    ]);
    await new Promise((r) => setTimeout(r, 500)); // an auto-commit interval
    await consumer.disconnect();

    await send(topic, [
      { partition: 0, value: 'a1' },
      { partition: 1, value: 'b1' },
      { partition: 2, value: 'c1' },
    ]);
    consumer = member();
    await consumer.connect();
    await consumer.subscribe({ topics: [topic] });
    consumer.run({
      eachMessage: async ({ partition, message }: any) => {
        seen.push({ partition, offset: Number(message.offset), value: message.value.toString() });
      },
    });
    try {
      await waitFor(
        () => seen.length >= 6,
        30_000,
        () => `the records after the restart (have ${JSON.stringify(seen)})`,
      );
      expect(
        seen
          .slice(3)
          .map((s) => [s.partition, s.offset, s.value])
          .sort(),
      ).toEqual([
        [0, 1, 'a1'],
        [1, 1, 'b1'],
        [2, 1, 'c1'],
      ]);
    } finally {
      await consumer.disconnect();
    }
  });
});
