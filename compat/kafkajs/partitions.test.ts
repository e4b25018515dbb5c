// Compatibility: kafkajs 2.2.4 admin.createPartitions, listPartitionReassignments and
// alterPartitionReassignments against krill (the cases of kafkajs's own admin tests that need a broker,
// for a single broker with node id 1), and what clients do with the new partitions: the default
// partitioner spreads keys over them after a metadata refresh, and a group consumer rebalances onto them.
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PartitionMetadata } from 'kafkajs';
import { startBroker, type RunningBroker } from '../../src/index.js';

const require = createRequire(import.meta.url);
/* eslint-disable @typescript-eslint/no-explicit-any */
const { Kafka, logLevel, Partitioners } = require('kafkajs');

process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';

function client(bootstrap: string): any {
  return new Kafka({
    clientId: 'krill-compat-partitions',
    brokers: [bootstrap],
    logLevel: logLevel.NOTHING,
    connectionTimeout: 3000,
    requestTimeout: 10_000,
    retry: { retries: 2, initialRetryTime: 100, maxRetryTime: 500 },
  });
}

let seq = 0;
const unique = (label: string) => `kjs-${label}-${process.pid}-${++seq}`;

async function waitFor(cond: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('kafkajs admin: partitions', { timeout: 60_000 }, () => {
  let broker: RunningBroker;
  let kafka: any;
  let admin: any;

  beforeAll(async () => {
    broker = await startBroker({ port: 0, host: '127.0.0.1' });
    kafka = client(broker.bootstrap);
    admin = kafka.admin({ retry: { retries: 1 } });
    await admin.connect();
  }, 30_000);

  afterAll(async () => {
    await admin?.disconnect();
    await broker?.close();
  }, 30_000);

  const partitionsOf = async (topic: string) => (await admin.fetchTopicMetadata({ topics: [topic] })).topics[0].partitions.length;

  describe('createPartitions (kafkajs src/admin/__tests__/createPartitions.spec.js)', () => {
    it('throws an error trying to create partition if topic does not exists', async () => {
      await expect(admin.createPartitions({ topicPartitions: [{ topic: unique('missing') + 'x', count: 2 }] })).rejects.toHaveProperty(
        'message',
        'This server does not host this topic-partition',
      );
    });

    it('throws an error trying to assign invalid broker', async () => {
      const topic = unique('invalid-broker');
      await expect(admin.createTopics({ waitForLeaders: false, topics: [{ topic }] })).resolves.toEqual(true);
      await expect(admin.createPartitions({ topicPartitions: [{ topic, count: 2, assignments: [[10]] }] })).rejects.toHaveProperty(
        'message',
        'Replica assignment is invalid',
      );
    });

    it('throws an error trying when total partition is less then current', async () => {
      const topic = unique('less');
      await expect(admin.createTopics({ waitForLeaders: false, topics: [{ topic, numPartitions: 3 }] })).resolves.toEqual(true);
      await expect(admin.createPartitions({ topicPartitions: [{ topic, count: 2 }] })).rejects.toHaveProperty('message', 'Number of partitions is invalid');
    });

    it('create new partition', async () => {
      const topic = unique('grow');
      await expect(admin.createTopics({ waitForLeaders: false, topics: [{ topic }] })).resolves.toEqual(true);
      await expect(admin.createPartitions({ topicPartitions: [{ topic, count: 2 }] })).resolves.toBeUndefined(); // kafkajs returns nothing
      const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
      expect(topics[0].partitions.map((p: PartitionMetadata) => [p.partitionId, p.leader, p.replicas, p.partitionErrorCode]).sort()).toEqual([
        [0, 1, [1], 0],
        [1, 1, [1], 0],
      ]);
      await expect(admin.fetchTopicOffsets(topic)).resolves.toEqual(expect.arrayContaining([expect.objectContaining({ partition: 1, high: '0', low: '0' })]));
    });

    it('with an assignment naming this broker, and validateOnly', async () => {
      const topic = unique('assigned');
      await admin.createTopics({ topics: [{ topic }] });
      await admin.createPartitions({ validateOnly: true, topicPartitions: [{ topic, count: 5 }] });
      expect(await partitionsOf(topic)).toBe(1);
      await admin.createPartitions({ topicPartitions: [{ topic, count: 3, assignments: [[1], [1]] }] });
      expect(await partitionsOf(topic)).toBe(3);
    });
  });

  describe('partition reassignments (kafkajs list/alterPartitionReassignments specs, one broker)', () => {
    it('reassign partitions to this broker; a broker that does not exist is invalid; the list stays empty', async () => {
      const topic = unique('reassign');
      await expect(
        admin.createTopics({
          topics: [
            {
              topic,
              replicaAssignment: [
                { partition: 0, replicas: [1] },
                { partition: 1, replicas: [1] },
              ],
            },
          ],
        }),
      ).resolves.toEqual(true);
      await expect(admin.alterPartitionReassignments({ topics: [{ topic, partitionAssignment: [{ partition: 0, replicas: [1] }] }] })).resolves.toBeUndefined(); // kafkajs returns nothing
      // Nothing to move on one broker: the partitions stay where they were, led by this broker.
      const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
      expect(topics[0].partitions.map((p: PartitionMetadata) => [p.partitionId, p.leader, p.replicas, p.isr]).sort()).toEqual([
        [0, 1, [1], [1]],
        [1, 1, [1], [1]],
      ]);
      // kafkajs gathers partition-level errors (Kafka's controller answers per partition) into one aggregate.
      const invalid = await admin
        .alterPartitionReassignments({ topics: [{ topic, partitionAssignment: [{ partition: 0, replicas: [5, 1] }] }] })
        .catch((e: any) => e);
      expect(invalid.errors.map((e: any) => [e.type, e.message])).toEqual([['INVALID_REPLICA_ASSIGNMENT', 'Replica assignment is invalid']]);
      await expect(admin.listPartitionReassignments({ topics: [{ topic, partitions: [0, 1, 2] }] })).resolves.toEqual({ topics: [] });
      await expect(admin.listPartitionReassignments({})).resolves.toEqual({ topics: [] });
    });

    it('throws for a topic that does not exist', async () => {
      const unknown = await admin
        .alterPartitionReassignments({ topics: [{ topic: unique('gone') + 'x', partitionAssignment: [{ partition: 0, replicas: [1] }] }] })
        .catch((e: any) => e);
      expect(unknown.errors.map((e: any) => e.message)).toEqual(['This server does not host this topic-partition']);
    });
  });

  it('the default partitioner spreads keys over the new partitions once the producer refreshes its metadata', async () => {
    const topic = unique('spread');
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] });
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, metadataMaxAge: 200 });
    await producer.connect();
    try {
      const first = await producer.send({ topic, messages: [{ key: 'a', value: '1' }] });
      expect(first.map((r: any) => r.partition)).toEqual([0]);
      await admin.createPartitions({ topicPartitions: [{ topic, count: 4 }] });
      await new Promise((r) => setTimeout(r, 400)); // past metadataMaxAge: the next send refreshes
      const keys = Array.from({ length: 40 }, (_, i) => `key-${i}`);
      const sent = await producer.send({ topic, messages: keys.map((key) => ({ key, value: key })) });
      const used = new Set(sent.map((r: any) => r.partition));
      expect([...used].sort()).toEqual([0, 1, 2, 3]);
      const offsets = await admin.fetchTopicOffsets(topic);
      const total = offsets.reduce((n: number, o: any) => n + Number(o.high), 0);
      expect(total).toBe(41);
    } finally {
      await producer.disconnect();
    }
  });

  it('a group consumer rebalances onto the new partitions and reads what is produced there', async () => {
    const topic = unique('rebalance');
    const groupId = unique('group');
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] });
    // kafkajs drops records for partitions missing from its metadata: refresh it often.
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, metadataMaxAge: 200 });
    await producer.connect();
    const consumer = kafka.consumer({
      groupId,
      sessionTimeout: 6000,
      heartbeatInterval: 300,
      rebalanceTimeout: 6000,
      maxWaitTimeInMs: 100,
      metadataMaxAge: 300,
    });
    const seen: { partition: number; value: string }[] = [];
    const assigned: number[][] = [];
    consumer.on(consumer.events.GROUP_JOIN, (e: any) => assigned.push([...(e.payload.memberAssignment[topic] ?? [])].sort()));
    try {
      await consumer.connect();
      await consumer.subscribe({ topics: [topic], fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ partition, message }: any) => {
          seen.push({ partition, value: message.value.toString() });
        },
      });
      await producer.send({ topic, messages: [{ value: 'p0', partition: 0 }] });
      await waitFor(() => seen.length === 1, 20_000, 'the first record');
      await admin.createPartitions({ topicPartitions: [{ topic, count: 3 }] });
      await waitFor(() => assigned.some((a) => a.length === 3), 20_000, 'a rebalance onto 3 partitions');
      await new Promise((r) => setTimeout(r, 300));
      const sent = await producer.send({
        topic,
        messages: [
          { value: 'p1', partition: 1 },
          { value: 'p2', partition: 2 },
        ],
      });
      expect(sent.map((r: any) => r.partition).sort()).toEqual([1, 2]);
      await waitFor(() => seen.some((s) => s.value === 'p1') && seen.some((s) => s.value === 'p2'), 20_000, 'records of the new partitions');
      expect(
        seen
          .filter((s) => s.value !== 'p0')
          .map((s) => [s.partition, s.value])
          .sort(),
      ).toEqual([
        [1, 'p1'],
        [2, 'p2'],
      ]);
    } finally {
      await consumer.disconnect();
      await producer.disconnect();
    }
  });
});
