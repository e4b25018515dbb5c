// The coordinators move with the leadership of their partitions: a kafkajs consumer group commits its
// offsets (a transactional producer commits a transaction), the coordinator's broker goes away without a
// controlled shutdown, another broker is elected leader of the __consumer_offsets (__transaction_state)
// partition from the replicas that copied it, loads the group (the transactional id) from its own log, and
// the group carries on from its committed offsets there (the producer with its next transaction). The data
// topics live on the two other brokers, so that only the coordinator moves. First, as Kafka, the offsets
// topic is created only once as many brokers are alive as offsets.topic.replication.factor (3) asks. Last,
// offsets sent to a transaction whose coordinator is not the group's (as a failover leaves them) commit with it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kafka, logLevel } from 'kafkajs';
import { startCluster, type RunningCluster } from '../../src/index.js';
import { zookeeperInstalled } from '../../src/cluster/zookeeper-server.js';
import { TestClient } from '../server/client.js';
import { FIND_COORDINATOR, coordinatorOf, metadata } from './cluster-probe.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { Message } from '../../protocol/codec.js';
import { waitFor } from './zk-helpers.js';

const skip = !zookeeperInstalled() && process.env.CI !== 'true';
const GROUP = 'failover-group';
const TOPIC = 'failover-input';
const TRANSACTIONAL_ID = 'failover-txn';
const TXN_TOPIC = 'failover-txn-output';

/** The coordinator FindCoordinator names for a transactional id, once one is named (the first lookup creates __transaction_state). */
async function transactionCoordinatorOf(client: TestClient, transactionalId: string): Promise<number> {
  let nodeId = -1;
  await waitFor(
    async () => {
      const c = (await client.request(FIND_COORDINATOR, 4, { keyType: 1, coordinatorKeys: [transactionalId] })).coordinators[0];
      nodeId = c.errorCode === 0 ? c.nodeId : -1;
      return nodeId >= 0;
    },
    `a coordinator for ${transactionalId}`,
    60_000,
  );
  return nodeId;
}

describe.skipIf(skip)('group coordinator failover', () => {
  let cluster: RunningCluster;
  beforeAll(async () => {
    // No controlled shutdown: a stopped broker's leaderships move only once the controller sees it gone.
    cluster = await startCluster({ brokers: 3, logLevel: 'silent', config: { 'controlled.shutdown.enable': false } });
  }, 90_000);
  afterAll(async () => {
    await cluster?.close();
  }, 60_000);

  it('__consumer_offsets is created once offsets.topic.replication.factor brokers are alive, with that many replicas, all in sync', async () => {
    await cluster.brokers[2].stop();
    const probe = await TestClient.connect(cluster.brokers[0].port);
    try {
      await waitFor(async () => (await metadata(probe, null)).brokers.length === 2, 'two live brokers');
      const lookup = async () => (await probe.request(FIND_COORDINATOR, 4, { keyType: 0, coordinatorKeys: [GROUP] })).coordinators[0];
      expect((await lookup()).errorCode).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE); // 3 replicas wanted, 2 brokers
      expect((await metadata(probe, ['__consumer_offsets'])).topics[0].errorCode).not.toBe(ErrorCode.NONE);
      await cluster.brokers[2].start();
      await coordinatorOf(probe, GROUP);
      await waitFor(
        async () => {
          const partitions: Message[] = (await metadata(probe, ['__consumer_offsets'])).topics[0].partitions;
          return partitions.length === 50 && partitions.every((p) => p.replicaNodes.length === 3 && p.isrNodes.length === 3);
        },
        'every __consumer_offsets partition with its 3 replicas in sync',
        60_000,
      );
    } finally {
      probe.close();
    }
  }, 120_000);

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
    const send = (from: number, count: number) =>
      producer.send({
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
    await waitFor(
      async () => {
        try {
          return (await committedTotal()) === 10;
        } catch {
          return false; // the coordinator still loading, or being looked up again
        }
      },
      'the committed offsets on the new coordinator',
      60_000,
    );

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

  it("a running consumer follows its group's coordinator to another broker and goes on from where it was", async () => {
    for (const b of cluster.brokers) if (!b.running) await b.start();
    const groupId = 'failover-live-group';
    const topic = 'failover-live-input';
    const probe = await TestClient.connect(cluster.brokers[0].port);
    let before: number;
    try {
      before = await coordinatorOf(probe, groupId);
    } finally {
      probe.close();
    }
    const others = cluster.brokers.filter((b) => b.id !== before);
    const kafka = new Kafka({ brokers: others.map((b) => b.bootstrap), logLevel: logLevel.NOTHING, retry: { retries: 10 } });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, replicaAssignment: others.map((b, p) => ({ partition: p, replicas: [b.id] })) }], waitForLeaders: true });
    const producer = kafka.producer();
    await producer.connect();
    const send = (from: number, count: number) =>
      producer.send({
        topic,
        messages: Array.from({ length: count }, (_, i) => ({ partition: (from + i) % 2, value: `m${from + i}` })),
      });
    const committedTotal = async () => {
      try {
        const offsets = await admin.fetchOffsets({ groupId, topics: [topic] });
        return offsets[0].partitions.reduce((n, p) => n + Math.max(0, Number(p.offset)), 0);
      } catch {
        return -1; // the coordinator moving, or loading
      }
    };
    const seen: string[] = [];
    const consumer = kafka.consumer({ groupId, sessionTimeout: 10_000, heartbeatInterval: 500 });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => void seen.push(String(message.value)) });
    await send(0, 6);
    await waitFor(async () => seen.length >= 6 && (await committedTotal()) === 6, 'the first records consumed and committed', 60_000);

    // Its heartbeats and commits now go to a broker that is gone: it looks the coordinator up again, and the
    // new one knows the group's offsets.
    await cluster.brokers.find((b) => b.id === before)!.stop();
    await send(6, 6);
    await waitFor(async () => seen.length >= 12 && (await committedTotal()) === 12, 'the next records consumed and committed on the new coordinator', 150_000);
    // Every record read; those committed before the move never again (the new coordinator had their offsets).
    // Records read while the commits had no coordinator to go to may come twice: at least once, as in Kafka.
    expect(new Set(seen)).toEqual(new Set(Array.from({ length: 12 }, (_, i) => `m${i}`)));
    for (let i = 0; i < 6; i++) expect(seen.filter((v) => v === `m${i}`)).toHaveLength(1);
    await consumer.disconnect();
    await producer.disconnect();
    await admin.disconnect();
  }, 240_000);

  it('a transactional producer carries on with its next transaction on the new coordinator', async () => {
    for (const b of cluster.brokers) if (!b.running) await b.start(); // __transaction_state needs its 3 replicas
    const probe = await TestClient.connect(cluster.brokers[0].port);
    let before: number;
    try {
      before = await transactionCoordinatorOf(probe, TRANSACTIONAL_ID);
      await coordinatorOf(probe, 'failover-txn-reader'); // __consumer_offsets too, while its 3 replicas are alive
    } finally {
      probe.close();
    }
    const others = cluster.brokers.filter((b) => b.id !== before);
    const kafka = new Kafka({ brokers: others.map((b) => b.bootstrap), logLevel: logLevel.NOTHING, retry: { retries: 10 } });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({
      topics: [{ topic: TXN_TOPIC, replicaAssignment: others.map((b, p) => ({ partition: p, replicas: [b.id] })) }],
      waitForLeaders: true,
    });
    const producer = kafka.producer({ transactionalId: TRANSACTIONAL_ID, idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    const transaction = async (value: string, commit: boolean) => {
      const txn = await producer.transaction();
      await txn.send({ topic: TXN_TOPIC, messages: [0, 1].map((partition) => ({ partition, value: `${value}-${partition}` })) });
      if (commit) await txn.commit();
      else await txn.abort();
    };
    await transaction('before', true);

    await cluster.brokers.find((b) => b.id === before)!.stop();
    const probe2 = await TestClient.connect(others[0].port);
    try {
      await waitFor(async () => (await transactionCoordinatorOf(probe2, TRANSACTIONAL_ID)) !== before, 'another transaction coordinator', 60_000);
    } finally {
      probe2.close();
    }
    // The new coordinator knows the producer (its id and epoch, from its copy of the partition): no new
    // InitProducerId, no fencing, the same producer goes on.
    await transaction('dropped', false);
    await transaction('after', true);

    const consumer = kafka.consumer({ groupId: 'failover-txn-reader', readUncommitted: false });
    const seen: string[] = [];
    await consumer.connect();
    await consumer.subscribe({ topic: TXN_TOPIC, fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => void seen.push(String(message.value)) });
    await waitFor(() => seen.length >= 4, 'the committed records', 60_000);
    // Per partition three records and their three markers; one more when the new coordinator completed the
    // first commit again (its markers went to other brokers, and the stopped coordinator's complete record,
    // written once they were, may not have reached the replicas): a marker repeated, as Kafka repeats it.
    const ends = (await admin.fetchTopicOffsets(TXN_TOPIC)).map((o) => Number(o.high));
    for (const end of ends) expect([6, 7]).toContain(end);
    // Past the last markers (nothing left open on either partition), nothing aborted read.
    expect([...seen].sort()).toEqual(['after-0', 'after-1', 'before-0', 'before-1']);
    await consumer.disconnect();
    await producer.disconnect();
    await admin.disconnect();
  }, 180_000);

  it("offsets sent to a transaction whose coordinator is another broker than the group's are committed with it", async () => {
    for (const b of cluster.brokers) if (!b.running) await b.start(); // the earlier tests' topics led again
    const live = cluster.brokers;
    const probe = await TestClient.connect(live[0].port);
    let transactionalId = '';
    let groupId = '';
    try {
      // A failover leaves the two coordinators of a consume-transform-produce loop on different brokers.
      for (let i = 0; !transactionalId; i++) {
        const txnCoordinator = await transactionCoordinatorOf(probe, `split-txn-${i}`);
        if (txnCoordinator !== (await coordinatorOf(probe, `split-group-${i}`))) [transactionalId, groupId] = [`split-txn-${i}`, `split-group-${i}`];
      }
    } finally {
      probe.close();
    }
    const kafka = new Kafka({ brokers: live.map((b) => b.bootstrap), logLevel: logLevel.NOTHING, retry: { retries: 10 } });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'split-output', replicaAssignment: [{ partition: 0, replicas: [live[0].id] }] }], waitForLeaders: true });
    const producer = kafka.producer({ transactionalId, idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    const txn = await producer.transaction();
    await txn.send({ topic: 'split-output', messages: [{ value: 'out' }] });
    await txn.sendOffsets({ consumerGroupId: groupId, topics: [{ topic: 'split-output', partitions: [{ partition: 0, offset: '5' }] }] });
    await txn.commit();
    await waitFor(
      async () => (await admin.fetchOffsets({ groupId, topics: ['split-output'] }))[0].partitions[0].offset === '5',
      'the offsets committed by the marker',
      30_000,
    );
    await producer.disconnect();
    await admin.disconnect();
  }, 120_000);
});
