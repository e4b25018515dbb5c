// ControlledShutdown moving a leadership away: a new partition's ISR is both its replicas. Broker 1's
// ControlledShutdown (sent as a stopping broker sends it, while it still runs, so that only the controller's
// handling of it can explain what follows) must hand the leadership to broker 2: the state znode names 2
// with the next leader epoch and an ISR without 1, both brokers' Metadata say so, and broker 1 is still
// registered. Broker 1 keeps running and follows broker 2, so broker 2 asks (AlterPartition) to take it back
// into the ISR; the controller refuses, as Kafka's does for a broker in controlled shutdown, whichever
// version asks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type RunningCluster } from '../../src/index.js';
import { ZkClient } from '../../src/cluster/zk/zk-client.js';
import { KafkaZk } from '../../src/cluster/zk/kafka-zk.js';
import { zookeeperInstalled } from '../../src/cluster/zookeeper-server.js';
import { ErrorCode } from '../../protocol/errors.js';
import { API_KEYS } from '../../protocol/messages/index.js';
import { partitionsFrom } from '../../compat/cluster/cluster-util.js';
import { BrokerClient, INTER_BROKER_VERSIONS } from '../../src/cluster/broker-client.js';
import { controllerOf, requestTo } from './controller-requests.js';
import { quietLog, waitFor } from './zk-helpers.js';

const skip = !zookeeperInstalled() && process.env.CI !== 'true';

describe.skipIf(skip)('controlled shutdown', () => {
  let cluster: RunningCluster;
  let zk: KafkaZk;
  beforeAll(async () => {
    cluster = await startCluster({ brokers: 2, logLevel: 'silent' });
    zk = new KafkaZk(await ZkClient.connect({ connect: cluster.zookeeperConnect, sessionTimeoutMs: 10_000, connectionTimeoutMs: 10_000, log: quietLog }));
    const { Kafka, logLevel } = await import('kafkajs');
    const admin = new Kafka({ brokers: cluster.bootstrap.split(','), logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      await admin.createTopics({
        topics: ['moving', 'rejoining'].map((topic) => ({ topic, replicaAssignment: [{ partition: 0, replicas: [1, 2] }] })),
        waitForLeaders: true,
      });
    } finally {
      await admin.disconnect();
    }
  }, 90_000);
  afterAll(async () => {
    await zk?.zk.close();
    await cluster?.close();
  }, 60_000);

  /** Broker 1's ControlledShutdown, sent to the controller; answered once the controller has moved everything it can. */
  async function shutDownBroker1(): Promise<unknown> {
    const controller = await controllerOf(cluster, zk);
    const client = new BrokerClient({ host: '127.0.0.1', port: controller.port, clientId: 'test', requestTimeoutMs: 10_000 });
    try {
      const epoch = (await zk.getBrokers()).find((b) => b.id === 1)!.epoch;
      return await client.send(API_KEYS.ControlledShutdown, INTER_BROKER_VERSIONS.ControlledShutdown, { brokerId: 1, brokerEpoch: epoch });
    } finally {
      client.close();
    }
  }

  it("moves the stopping broker's leadership to another live in-sync replica first", async () => {
    const before = (await zk.getPartitionStates('moving')).get(0)!;
    expect([before.leader, before.isr]).toEqual([1, [1, 2]]);

    expect(await shutDownBroker1()).toMatchObject({ errorCode: 0, remainingPartitions: [] });
    const after = (await zk.getPartitionStates('moving')).get(0)!;
    expect(after.leader).toBe(2);
    expect(after.isr).toEqual([2]);
    expect(after.leaderEpoch).toBeGreaterThan(before.leaderEpoch);
    // Each broker has had its LeaderAndIsr (sent before the UpdateMetadata, on the same channel) once its
    // Metadata names leader 2: broker 1 now follows broker 2, which may ask to take it back into the ISR. The
    // state checked after that is the one those requests met.
    for (const broker of cluster.brokers) {
      await waitFor(async () => (await partitionsFrom(broker.port, 'moving'))?.[0]?.leaderId === 2, `broker ${broker.id} to see broker 2 lead`);
    }
    expect((await zk.getPartitionStates('moving')).get(0)).toMatchObject({ leader: 2, isr: [2] });
    expect((await zk.getBrokers()).map((b) => b.id)).toEqual([1, 2]);
  }, 90_000);

  it('refuses to take a broker in controlled shutdown back into the ISR', async () => {
    await shutDownBroker1();
    const state = (await zk.getPartitionStates('rejoining')).get(0)!;
    expect([state.leader, state.isr]).toEqual([2, [2]]);
    const brokers = await zk.getBrokers();
    const epochOf = (id: number) => brokers.find((b) => b.id === id)!.epoch;
    const topicId = (await zk.getTopicAssignment('rejoining'))!.topicId;
    const controller = await controllerOf(cluster, zk);
    const partition = { partitionIndex: 0, leaderEpoch: state.leaderEpoch, partitionEpoch: state.zkVersion, leaderRecoveryState: 0 };
    const asks = [
      { version: 1, expected: ErrorCode.OPERATION_NOT_ATTEMPTED, topic: { topicName: 'rejoining' }, isr: { newIsr: [2, 1] } },
      { version: 2, expected: ErrorCode.INELIGIBLE_REPLICA, topic: { topicId }, isr: { newIsr: [2, 1] } },
      {
        version: 3,
        expected: ErrorCode.INELIGIBLE_REPLICA,
        topic: { topicId },
        isr: { newIsrWithEpochs: [2, 1].map((brokerId) => ({ brokerId, brokerEpoch: epochOf(brokerId) })) },
      },
    ];
    for (const ask of asks) {
      const response = await requestTo(controller.port, API_KEYS.AlterPartition, ask.version, {
        brokerId: 2,
        brokerEpoch: epochOf(2),
        topics: [{ ...ask.topic, partitions: [{ ...partition, ...ask.isr }] }],
      });
      expect(response, `AlterPartition v${ask.version}`).toMatchObject({
        errorCode: 0,
        topics: [{ partitions: [{ partitionIndex: 0, errorCode: ask.expected }] }],
      });
    }
    // Nothing was written: not these requests, nor broker 2's own.
    expect((await zk.getPartitionStates('rejoining')).get(0)).toMatchObject({ leader: 2, isr: [2], zkVersion: state.zkVersion });
  }, 90_000);
});
