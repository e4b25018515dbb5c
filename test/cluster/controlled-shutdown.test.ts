// ControlledShutdown moving a leadership away: a new partition's ISR is both its replicas. Broker 1's
// ControlledShutdown (sent as a stopping broker sends it, while it still runs, so that only the controller's
// handling of it can explain what follows) must hand the leadership to broker 2: the state znode names 2
// with the next leader epoch and an ISR without 1, broker 2's Metadata says so, and broker 1 is still
// registered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type RunningCluster } from '../../src/index.js';
import { ZkClient } from '../../src/cluster/zk/zk-client.js';
import { KafkaZk } from '../../src/cluster/zk/kafka-zk.js';
import { zookeeperInstalled } from '../../src/cluster/zookeeper-server.js';
import { partitionsFrom } from '../../compat/cluster/cluster-util.js';
import { BrokerClient, INTER_BROKER_VERSIONS } from '../../src/cluster/broker-client.js';
import { quietLog, waitFor } from './zk-helpers.js';

const skip = !zookeeperInstalled() && process.env.CI !== 'true';

describe.skipIf(skip)('controlled shutdown', () => {
  let cluster: RunningCluster;
  let zk: KafkaZk;
  beforeAll(async () => {
    cluster = await startCluster({ brokers: 2, logLevel: 'silent' });
    zk = new KafkaZk(await ZkClient.connect({ connect: cluster.zookeeperConnect, sessionTimeoutMs: 10_000, connectionTimeoutMs: 10_000, log: quietLog }));
  }, 90_000);
  afterAll(async () => {
    await zk?.zk.close();
    await cluster?.close();
  }, 60_000);

  it("moves the stopping broker's leadership to another live in-sync replica first", async () => {
    const { Kafka, logLevel } = await import('kafkajs');
    const kafka = new Kafka({ brokers: cluster.bootstrap.split(','), logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'moving', replicaAssignment: [{ partition: 0, replicas: [1, 2] }] }], waitForLeaders: true });
    await admin.disconnect();

    const before = (await zk.getPartitionStates('moving')).get(0)!;
    expect([before.leader, before.isr]).toEqual([1, [1, 2]]);

    const controllerId = (await zk.getControllerId())!;
    const brokers = await zk.getBrokers();
    const controller = brokers.find((b) => b.id === controllerId)!;
    const client = new BrokerClient({ host: controller.host, port: controller.port, clientId: 'test', requestTimeoutMs: 10_000 });
    try {
      const response = await client.send(7, INTER_BROKER_VERSIONS.ControlledShutdown, { brokerId: 1, brokerEpoch: brokers.find((b) => b.id === 1)!.epoch });
      expect(response).toMatchObject({ errorCode: 0, remainingPartitions: [] });
    } finally {
      client.close();
    }
    const after = (await zk.getPartitionStates('moving')).get(0)!;
    expect(after.leader).toBe(2);
    expect(after.isr).toEqual([2]);
    expect(after.leaderEpoch).toBeGreaterThan(before.leaderEpoch);
    await waitFor(async () => (await partitionsFrom(cluster.brokers[1].port, 'moving'))?.[0]?.leaderId === 2, 'broker 2 to lead in its own metadata');
    expect((await zk.getBrokers()).map((b) => b.id)).toEqual([1, 2]);
  }, 90_000);
});
