// The group coordinator moves with the leadership of its __consumer_offsets partition: a kafkajs consumer
// group commits its offsets, the coordinator's broker goes away without a controlled shutdown, another
// broker is elected leader of that partition from the replicas that copied it, loads the group from its
// own log, and the group carries on from its committed offsets there. The data topic lives on the two
// other brokers, so that only the coordinator moves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kafka, logLevel } from 'kafkajs';
import { startCluster, type RunningCluster } from '../../src/index.js';
import { zookeeperInstalled } from '../../src/cluster/zookeeper-server.js';
import { TestClient } from '../server/client.js';
import { coordinatorOf } from './cluster-probe.js';
import { waitFor } from './zk-helpers.js';

const skip = !zookeeperInstalled() && process.env.CI !== 'true';
const GROUP = 'failover-group';
const TOPIC = 'failover-input';

describe.skipIf(skip)('group coordinator failover', () => {
  let cluster: RunningCluster;
  beforeAll(async () => {
    // No controlled shutdown: a stopped broker's leaderships move only once the controller sees it gone.
    cluster = await startCluster({ brokers: 3, logLevel: 'silent', config: { 'controlled.shutdown.enable': false } });
  }, 90_000);
  afterAll(async () => {
    await cluster?.close();
  }, 60_000);

  it('a consumer group resumes at its committed offsets on the new coordinator', async () => {
    const probe = await TestClient.connect(cluster.brokers[0].port);
    let before: number;
    try {
      before = await coordinatorOf(probe, GROUP); // creates __consumer_offsets (3 replicas)
    } finally {
      probe.close();
    }
    const others = cluster.brokers.filter((b) => b.id !== before);
    const kafka = new Kafka({ brokers: others.map((b) => b.bootstrap), logLevel: logLevel.NOTHING, retry: { retries: 10 } });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({
      topics: [{ topic: TOPIC, replicaAssignment: others.map((b, p) => ({ partition: p, replicas: [b.id] })) }],
      waitForLeaders: true,
    });
    const producer = kafka.producer();
    await producer.connect();
    const send = (from: number, count: number) => producer.send({
      topic: TOPIC,
      messages: Array.from({ length: count }, (_, i) => ({ partition: (from + i) % 2, value: `m${from + i}` })),
    });

    const seen: string[] = [];
    const consume = async () => {
      const consumer = kafka.consumer({ groupId: GROUP, sessionTimeout: 10_000, heartbeatInterval: 500 });
      await consumer.connect();
      await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
      await consumer.run({ eachMessage: async ({ message }) => void seen.push(String(message.value)) });
      return consumer;
    };
    const committedTotal = async () => {
      const offsets = await admin.fetchOffsets({ groupId: GROUP, topics: [TOPIC] });
      return offsets[0].partitions.reduce((n, p) => n + Math.max(0, Number(p.offset)), 0);
    };

    await send(0, 10);
    const first = await consume();
    await waitFor(async () => seen.length >= 10 && (await committedTotal()) === 10, 'the first ten records consumed and committed', 60_000);
    await first.disconnect();

    await cluster.brokers.find((b) => b.id === before)!.stop();
    const probe2 = await TestClient.connect(others[0].port);
    try {
      await waitFor(async () => (await coordinatorOf(probe2, GROUP)) !== before, 'another coordinator', 60_000);
    } finally {
      probe2.close();
    }
    // The new coordinator has the committed offsets, read from its copy of the partition.
    await waitFor(async () => {
      try {
        return (await committedTotal()) === 10;
      } catch {
        return false; // the coordinator still loading, or being looked up again
      }
    }, 'the committed offsets on the new coordinator', 60_000);

    await send(10, 4);
    const second = await consume();
    await waitFor(() => seen.length >= 14, 'the four new records', 60_000);
    // Nothing consumed twice: the group started at its committed offsets, not from the beginning.
    await waitFor(async () => (await committedTotal()) === 14, 'the new records committed', 60_000);
    expect([...seen].sort()).toEqual(Array.from({ length: 14 }, (_, i) => `m${i}`).sort());
    await second.disconnect();
    await producer.disconnect();
    await admin.disconnect();
  }, 180_000);
});
