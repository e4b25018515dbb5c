// Compatibility: kafkajs 2.2.4 consumer groups (consumer.subscribe + consumer.run) against krill's
// classic group coordinator: queue and pub/sub semantics, committed offsets surviving a restart,
// rebalancing on disconnect, and the admin group APIs.
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type RunningBroker } from '../../src/index.js';
import { tempDir } from '../../test/helpers.js';

const require = createRequire(import.meta.url);
/* eslint-disable @typescript-eslint/no-explicit-any */
const { Kafka, logLevel, Partitioners } = require('kafkajs');

process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';

function client(bootstrap: string, clientId = 'krill-groups'): any {
  return new Kafka({
    clientId,
    brokers: [bootstrap],
    logLevel: logLevel.NOTHING,
    connectionTimeout: 3000,
    requestTimeout: 10_000,
    retry: { retries: 5, initialRetryTime: 100, maxRetryTime: 1000 },
  });
}

let seq = 0;
const unique = (label: string) => `kjs-${label}-${process.pid}-${++seq}`;

const consumerOpts = (groupId: string) => ({
  groupId,
  sessionTimeout: 6000,
  heartbeatInterval: 500,
  rebalanceTimeout: 6000,
  maxWaitTimeInMs: 200,
  retry: { retries: 5 },
});

async function waitFor(cond: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function produce(kafka: any, topic: string, count: number, partitions: number, prefix = 'm'): Promise<void> {
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  const messages = Array.from({ length: count }, (_, i) => ({ value: `${prefix}-${i}`, partition: i % partitions }));
  await producer.send({ topic, messages });
  await producer.disconnect();
}

interface Seen {
  consumer: number;
  partition: number;
  offset: string;
  value: string;
}

async function startConsumer(
  kafka: any,
  groupId: string,
  topic: string,
  index: number,
  seen: Seen[],
  opts: { autoCommitInterval?: number } = {},
): Promise<any> {
  const consumer = kafka.consumer(consumerOpts(groupId));
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({
    autoCommitInterval: opts.autoCommitInterval ?? 100,
    eachMessage: async ({ partition, message }: any) => {
      seen.push({ consumer: index, partition, offset: message.offset, value: message.value.toString() });
    },
  });
  return consumer;
}

describe('kafkajs consumer groups against krill', { timeout: 60_000 }, () => {
  let broker: RunningBroker;
  let kafka: any;
  let admin: any;
  const dataDir = tempDir('krill-groups-');

  beforeAll(async () => {
    broker = await startBroker({ port: 0, host: '127.0.0.1', dataDir });
    kafka = client(broker.bootstrap);
    admin = kafka.admin();
    await admin.connect();
  }, 30_000);

  afterAll(async () => {
    await admin?.disconnect().catch(() => {});
    await broker?.close();
  }, 30_000);

  it('queue semantics: three consumers in one group share six partitions, each record once', async () => {
    const topic = unique('queue');
    const groupId = unique('g-queue');
    await admin.createTopics({ topics: [{ topic, numPartitions: 6 }] });
    const seen: Seen[] = [];
    const consumers = [];
    for (let i = 0; i < 3; i++) consumers.push(await startConsumer(kafka, groupId, topic, i, seen));
    await produce(kafka, topic, 120, 6);
    await waitFor(() => seen.length >= 120, 40_000, '120 records');
    await new Promise((r) => setTimeout(r, 500));
    const values = seen.map((s) => s.value);
    expect(new Set(values).size).toBe(120);
    expect(values.length).toBe(120);
    // Each partition was read by one consumer.
    const owners = new Map<number, Set<number>>();
    for (const s of seen) (owners.get(s.partition) ?? owners.set(s.partition, new Set()).get(s.partition)!).add(s.consumer);
    const described = await admin.describeGroups([groupId]);
    expect(described.groups[0].state).toBe('Stable');
    expect(described.groups[0].members).toHaveLength(3);
    await Promise.all(consumers.map((c) => c.disconnect()));
  });

  it('pub/sub: two groups each read everything', async () => {
    const topic = unique('pubsub');
    await admin.createTopics({ topics: [{ topic, numPartitions: 2 }] });
    await produce(kafka, topic, 20, 2);
    const a: Seen[] = [];
    const b: Seen[] = [];
    const ca = await startConsumer(kafka, unique('g-a'), topic, 0, a);
    const cb = await startConsumer(kafka, unique('g-b'), topic, 0, b);
    await waitFor(() => a.length >= 20 && b.length >= 20, 30_000, 'both groups');
    expect(new Set(a.map((s) => s.value)).size).toBe(20);
    expect(new Set(b.map((s) => s.value)).size).toBe(20);
    await Promise.all([ca.disconnect(), cb.disconnect()]);
  });

  it('a disconnecting consumer (LeaveGroup) hands its partitions to the others', async () => {
    const topic = unique('leave');
    const groupId = unique('g-leave');
    await admin.createTopics({ topics: [{ topic, numPartitions: 4 }] });
    const seen: Seen[] = [];
    const c0 = await startConsumer(kafka, groupId, topic, 0, seen);
    const c1 = await startConsumer(kafka, groupId, topic, 1, seen);
    await produce(kafka, topic, 40, 4, 'first');
    await waitFor(() => seen.length >= 40, 30_000, 'first 40');
    await c1.disconnect();
    await produce(kafka, topic, 40, 4, 'second');
    await waitFor(() => seen.filter((s) => s.value.startsWith('second')).length >= 40, 30_000, 'second 40 on the remaining consumer');
    const second = seen.filter((s) => s.value.startsWith('second'));
    expect(new Set(second.map((s) => s.consumer))).toEqual(new Set([0]));
    expect(new Set(second.map((s) => s.partition))).toEqual(new Set([0, 1, 2, 3]));
    const described = await admin.describeGroups([groupId]);
    expect(described.groups[0].members).toHaveLength(1);
    await c0.disconnect();
  });

  it('admin: listGroups, describeGroups, fetchOffsets, resetOffsets, deleteGroups', async () => {
    const topic = unique('admin');
    const groupId = unique('g-admin');
    await admin.createTopics({ topics: [{ topic, numPartitions: 2 }] });
    await produce(kafka, topic, 10, 2);
    const seen: Seen[] = [];
    const c = await startConsumer(kafka, groupId, topic, 0, seen);
    await waitFor(() => seen.length >= 10, 30_000, '10 records');
    const listed = await admin.listGroups();
    expect(listed.groups).toContainEqual({ groupId, protocolType: 'consumer' });
    const d = await admin.describeGroups([groupId]);
    expect(d.groups[0]).toMatchObject({ groupId, state: 'Stable', protocolType: 'consumer', protocol: 'RoundRobinAssigner' });
    expect(d.groups[0].members[0].clientId).toBe('krill-groups');
    expect(await admin.deleteGroups([groupId]).catch((e: any) => e.groups?.[0]?.error?.type ?? e.type)).toBe('NON_EMPTY_GROUP');
    await c.disconnect();
    const offsets = await admin.fetchOffsets({ groupId, topics: [topic] });
    expect(offsets[0].partitions.sort((x: any, y: any) => x.partition - y.partition)).toEqual([
      { partition: 0, offset: '5', metadata: null },
      { partition: 1, offset: '5', metadata: null },
    ]);
    await admin.resetOffsets({ groupId, topic, earliest: true });
    const reset = await admin.fetchOffsets({ groupId, topics: [topic] });
    // kafkajs commits -2 ("earliest"), resolved by the next consumer, as against Kafka.
    expect(reset[0].partitions.map((p: any) => p.offset)).toEqual(['-2', '-2']);
    await admin.setOffsets({ groupId, topic, partitions: [{ partition: 1, offset: '3' }] });
    const set = await admin.fetchOffsets({ groupId, topics: [topic] });
    expect(set[0].partitions.find((p: any) => p.partition === 1).offset).toBe('3');
    expect((await admin.describeGroups([groupId])).groups[0].state).toBe('Empty');
    await admin.deleteGroups([groupId]);
    expect((await admin.listGroups()).groups.map((g: any) => g.groupId)).not.toContain(groupId);
    const gone = await admin.fetchOffsets({ groupId, topics: [topic] });
    expect(gone[0].partitions.map((p: any) => p.offset)).toEqual(['-1', '-1']);
    const err = await admin.deleteGroups([groupId]).catch((e: any) => e.groups?.[0]?.error?.type ?? e.type);
    expect(err).toBe('GROUP_ID_NOT_FOUND');
  });

  it('committed offsets survive a restart: a new consumer resumes without re-delivery', async () => {
    const topic = unique('restart');
    const groupId = unique('g-restart');
    await admin.createTopics({ topics: [{ topic, numPartitions: 3 }] });
    await produce(kafka, topic, 30, 3, 'before');
    const seen: Seen[] = [];
    const c = await startConsumer(kafka, groupId, topic, 0, seen);
    await waitFor(() => seen.length >= 30, 30_000, '30 records');
    await c.disconnect(); // commits what was consumed, then leaves
    await admin.disconnect();
    await broker.close();

    broker = await startBroker({ port: 0, host: '127.0.0.1', dataDir });
    kafka = client(broker.bootstrap);
    admin = kafka.admin();
    await admin.connect();
    const committed = await admin.fetchOffsets({ groupId, topics: [topic] });
    expect(committed[0].partitions.map((p: any) => p.offset).sort()).toEqual(['10', '10', '10']);
    const groups = await admin.listGroups();
    expect(groups.groups.map((g: any) => g.groupId)).toContain(groupId);
    await produce(kafka, topic, 9, 3, 'after');
    const again: Seen[] = [];
    const c2 = await startConsumer(kafka, groupId, topic, 1, again);
    await waitFor(() => again.length >= 9, 30_000, '9 new records');
    await new Promise((r) => setTimeout(r, 500));
    expect(again.every((s) => s.value.startsWith('after'))).toBe(true);
    expect(again).toHaveLength(9);
    await c2.disconnect();
  });
});
