// The embedded broker's test fixtures against kafkajs, unmodified: reset() between tests, createTopics(), and
// waitForGroupStable(), whose wait ends on the group's own state change.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type RunningBroker } from '../../src/index.js';
import { TestClient } from '../../test/server/client.js';
import { API, commitOffset } from '../../test/server/kafka.js';

const require = createRequire(import.meta.url);
/* eslint-disable @typescript-eslint/no-explicit-any */
const { Kafka, logLevel, Partitioners } = require('kafkajs');

process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';

describe('test fixtures with kafkajs', { timeout: 60_000 }, () => {
  let broker: RunningBroker;
  const kafka = (clientId = 'krill-fixtures') =>
    new Kafka({ clientId, brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 8, initialRetryTime: 50, maxRetryTime: 500 } });
  const partitionsOf = (summary: { members: { assignment: Record<string, number[]> }[] }, topic: string) =>
    summary.members.flatMap((m) => m.assignment[topic] ?? []).sort((a, b) => a - b);

  beforeAll(async () => {
    broker = await startBroker({ port: 0, host: '127.0.0.1', config: { 'group.initial.rebalance.delay.ms': 0 } });
  });
  afterAll(async () => {
    await broker?.close();
  });

  it('createTopics makes topics with their partitions and configs, and refuses one that exists', async () => {
    await broker.createTopics(['plain', { name: 'compacted', partitions: 3, configs: { 'cleanup.policy': 'compact' } }]);
    const admin = kafka().admin();
    await admin.connect();
    const { topics } = await admin.fetchTopicMetadata({ topics: ['plain', 'compacted'] });
    expect(topics.map((t: any) => [t.name, t.partitions.length]).sort()).toEqual([
      ['compacted', 3],
      ['plain', 1],
    ]);
    const configs = await admin.describeConfigs({ resources: [{ type: 2, name: 'compacted', configNames: ['cleanup.policy'] }] });
    expect(configs.resources[0].configEntries[0]).toMatchObject({ configName: 'cleanup.policy', configValue: 'compact' });
    await admin.disconnect();
    await expect(broker.createTopics(['plain'])).rejects.toThrow("Topic 'plain' already exists.");
  });

  it('waitForGroupStable resolves on the rebalance that gives every member its partitions', async () => {
    await broker.createTopics([{ name: 'grouped', partitions: 4 }]);
    const consumers = [
      kafka('first').consumer({ groupId: 'fixtures-g', heartbeatInterval: 200, maxWaitTimeInMs: 100 }),
      kafka('second').consumer({ groupId: 'fixtures-g', heartbeatInterval: 200, maxWaitTimeInMs: 100 }),
    ];
    await consumers[0].connect();
    await consumers[0].subscribe({ topic: 'grouped' });
    await consumers[0].run({ eachMessage: async () => {} });
    const one = await broker.waitForGroupStable('fixtures-g', { members: 1 });
    expect(one.members.map((m) => m.clientId)).toEqual(['first']);
    expect(partitionsOf(one, 'grouped')).toEqual([0, 1, 2, 3]);
    await consumers[1].connect();
    await consumers[1].subscribe({ topic: 'grouped' });
    await consumers[1].run({ eachMessage: async () => {} });
    const two = await broker.waitForGroupStable('fixtures-g', { members: 2 });
    expect(two.generationId).toBeGreaterThan(one.generationId);
    expect(two.members.map((m) => m.clientId).sort()).toEqual(['first', 'second']);
    expect(two.members.every((m) => (m.assignment.grouped ?? []).length === 2)).toBe(true);
    expect(partitionsOf(two, 'grouped')).toEqual([0, 1, 2, 3]);
    expect(broker.describeGroup('fixtures-g')).toMatchObject({ state: 'Stable', protocolType: 'consumer' });
    await Promise.all(consumers.map((c) => c.disconnect()));
    await expect(broker.waitForGroupStable('no-such-group', { timeoutMs: 100 })).rejects.toThrow(
      'group no-such-group was not Stable within 100 ms: it is unknown to the coordinator',
    );
  });

  it('reset removes every topic, group, offset and transactional id, and keeps the port and the cluster id', async () => {
    const { port, clusterId } = broker;
    await broker.createTopics(['before-reset']);
    const producer = kafka().producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    await producer.send({ topic: 'before-reset', messages: [{ value: 'old' }] });
    const txProducer = kafka().producer({ transactionalId: 'fixtures-tx', maxInFlightRequests: 1, idempotent: true });
    await txProducer.connect();
    const txn = await txProducer.transaction();
    await txn.send({ topic: 'before-reset', messages: [{ value: 'in-txn' }] });
    const admin = kafka().admin();
    await admin.connect();
    await commitOffset(broker.port, 'committed-g', 'before-reset', 1);
    expect((await admin.listGroups()).groups.map((g: any) => g.groupId)).toContain('committed-g');

    await broker.reset();

    expect([broker.port, broker.clusterId]).toEqual([port, clusterId]);
    // A fresh client sees a fresh broker (the old admin would still ask after the topics it knew).
    const freshAdmin = kafka().admin();
    await freshAdmin.connect();
    expect(await freshAdmin.listTopics()).toEqual([]);
    expect((await freshAdmin.listGroups()).groups).toEqual([]);
    await freshAdmin.disconnect();
    expect(broker.describeGroup('fixtures-g')).toBeNull();
    const raw = await TestClient.connect(port);
    const transactions = await raw.request(API.ListTransactions, 0, { stateFilters: [], producerIdFilters: [] });
    raw.close();
    expect(transactions.transactionStates).toEqual([]);
    expect(fs.readdirSync(broker.dataDir).filter((f) => f.startsWith('before-reset'))).toEqual([]);

    // The clients from before reconnect on their own, and the broker serves them as a fresh one.
    await broker.createTopics(['before-reset']);
    await producer.send({ topic: 'before-reset', messages: [{ value: 'new' }] });
    const consumer = kafka('after').consumer({ groupId: 'committed-g', maxWaitTimeInMs: 100 });
    await consumer.connect();
    await consumer.subscribe({ topic: 'before-reset', fromBeginning: true });
    const seen: string[] = [];
    const first = new Promise<void>((resolve) =>
      consumer.run({
        eachMessage: async ({ message }: any) => {
          seen.push(`${message.offset}:${message.value}`);
          resolve();
        },
      }),
    );
    await first;
    expect(seen).toEqual(['0:new']);
    await Promise.allSettled([consumer.disconnect(), producer.disconnect(), txProducer.disconnect(), admin.disconnect()]);
  });

  it('reset empties an in-memory broker too', async () => {
    const memory = await startBroker({ port: 0, host: '127.0.0.1', storage: 'memory' });
    try {
      await memory.createTopics(['kept-in-memory']);
      const producer = new Kafka({ brokers: [memory.bootstrap], logLevel: logLevel.NOTHING }).producer({ createPartitioner: Partitioners.DefaultPartitioner });
      await producer.connect();
      await producer.send({ topic: 'kept-in-memory', messages: [{ value: 'x' }] });
      await producer.disconnect();
      await memory.reset();
      const admin = new Kafka({ brokers: [memory.bootstrap], logLevel: logLevel.NOTHING }).admin();
      await admin.connect();
      expect(await admin.listTopics()).toEqual([]);
      await admin.disconnect();
    } finally {
      await memory.close();
    }
  });
});
