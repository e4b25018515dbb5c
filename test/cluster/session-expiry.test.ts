// A broker cut off from ZooKeeper for longer than its session: ZooKeeper ends the session (its registration
// and, if it was the controller, /controller go), another broker takes over as controller, and when the
// network comes back the broker re-registers under a new broker epoch; meanwhile its partitions failed over
// to their other in-sync replica, it comes back as a follower that rejoins their ISR, and every record it
// acknowledged is still there.
import { afterAll, describe, expect, it } from 'vitest';
import { Kafka, logLevel } from 'kafkajs';
import { startBroker, type RunningBroker } from '../../src/index.js';
import { KafkaZk } from '../../src/cluster/zk/kafka-zk.js';
import { zookeeperInstalled } from '../../src/cluster/zookeeper-server.js';
import { startCuttableProxy, useZooKeeper, waitFor } from './zk-helpers.js';
import { metadata } from './cluster-probe.js';
import { TestClient } from '../server/client.js';

const skip = !zookeeperInstalled() && process.env.CI !== 'true';

describe.skipIf(skip)('ZooKeeper session expiry', () => {
  // Short ticks: sessions of 1 s.
  const zk = useZooKeeper({ tickTimeMs: 250 });
  const started: RunningBroker[] = [];
  afterAll(async () => {
    await Promise.all(started.map((b) => b.close()));
  }, 30_000);

  it('the broker rejoins under a new epoch, the controller role moved meanwhile, no acknowledged record lost', async () => {
    const server = zk.server();
    const proxy = await startCuttableProxy(server.port);
    try {
      const chroot = '/expiry';
      const session = { 'zookeeper.session.timeout.ms': 1000, 'offsets.topic.replication.factor': 2 };
      // Broker 1 first, through the proxy: it becomes the controller.
      const cut = await startBroker({
        port: 0,
        logLevel: 'silent',
        config: { ...session, 'broker.id': 1, 'zookeeper.connect': `127.0.0.1:${proxy.port}${chroot}` },
      });
      started.push(cut);
      // A longer session for the broker that stays connected, so that a busy machine does not expire it too.
      const other = await startBroker({
        port: 0,
        logLevel: 'silent',
        config: { ...session, 'zookeeper.session.timeout.ms': 6000, 'broker.id': 2, 'zookeeper.connect': `${server.connect}${chroot}` },
      });
      started.push(other);
      const watcher = new KafkaZk(await zk.connect(chroot));
      expect(await watcher.getControllerId()).toBe(1);
      const epochBefore = (await watcher.getBrokers()).find((b) => b.id === 1)!.epoch;

      // The topic's manual assignment names both brokers, and whichever broker kafkajs asks checks it against
      // the brokers it knows: wait until each has seen the other register (its ZooKeeper watch can lag).
      for (const b of [cut, other]) {
        const probe = await TestClient.connect(b.port);
        try {
          await waitFor(async () => (await metadata(probe, null)).brokers.length === 2, `broker at ${b.port} to know both brokers`);
        } finally {
          probe.close();
        }
      }

      const kafka = new Kafka({ brokers: [cut.bootstrap, other.bootstrap], logLevel: logLevel.NOTHING });
      const admin = kafka.admin();
      await admin.connect();
      await admin.createTopics({
        topics: [
          {
            topic: 'expiry',
            replicaAssignment: [
              { partition: 0, replicas: [1, 2] },
              { partition: 1, replicas: [2, 1] },
            ],
          },
        ],
        waitForLeaders: true,
      });
      const producer = kafka.producer();
      await producer.connect();
      await producer.send({
        topic: 'expiry',
        messages: [
          { partition: 0, value: 'before' },
          { partition: 1, value: 'before' },
        ],
      });

      await proxy.cut();
      // ZooKeeper ends broker 1's session: broker 2 becomes the controller, broker 1's registration goes.
      await waitFor(async () => (await watcher.getControllerId()) === 2, 'broker 2 to become controller');
      await waitFor(async () => !(await watcher.getBrokers()).some((b) => b.id === 1), 'broker 1 to be deregistered');
      await proxy.restore();
      await waitFor(async () => (await watcher.getBrokers()).some((b) => b.id === 1), 'broker 1 to register again');
      const epochAfter = (await watcher.getBrokers()).find((b) => b.id === 1)!.epoch;
      expect(epochAfter).toBeGreaterThan(epochBefore);
      // Partition 0 failed over to broker 2, its other in-sync replica; broker 1 follows it and rejoins the ISR.
      expect((await watcher.getPartitionStates('expiry')).get(0)?.leader).toBe(2);
      await waitFor(async () => (await watcher.getPartitionStates('expiry')).get(0)?.isr.includes(1) === true, 'broker 1 back in the ISR of partition 0');
      await waitFor(async () => {
        const md = await admin.fetchTopicMetadata({ topics: ['expiry'] }).catch(() => null);
        return md?.topics[0].partitions.find((p) => p.partitionId === 0)?.leader === 2;
      }, 'the metadata to name broker 2 leader');
      await producer.send({ topic: 'expiry', messages: [{ partition: 0, value: 'after' }] });

      const consumer = kafka.consumer({ groupId: 'expiry-group' });
      const seen: string[] = [];
      await consumer.connect();
      await consumer.subscribe({ topic: 'expiry', fromBeginning: true });
      await consumer.run({ eachMessage: async ({ partition, message }) => void seen.push(`${partition}:${message.value}`) });
      await waitFor(() => seen.length >= 3, 'the three records');
      expect(seen.sort()).toEqual(['0:after', '0:before', '1:before']);
      await consumer.disconnect();
      await producer.disconnect();
      await admin.disconnect();
    } finally {
      // Brokers first: a broker stopping while cut off from ZooKeeper is another test.
      await Promise.all(started.splice(0).map((b) => b.close()));
      await proxy.close();
    }
  }, 90_000);

  it('a broker cut off from ZooKeeper still stops, releasing its data dir', async () => {
    const server = zk.server();
    const proxy = await startCuttableProxy(server.port);
    try {
      const config = { 'zookeeper.session.timeout.ms': 1000, 'broker.id': 5, 'zookeeper.connect': `127.0.0.1:${proxy.port}/cut-off` };
      const broker = await startBroker({ port: 0, logLevel: 'silent', config });
      await proxy.cut();
      await broker.close();
      // The same data dir opens again (the lock was released) once ZooKeeper is reachable, and has expired the
      // cut-off session's registration (until then a start is refused with NODE_EXISTS, as Kafka's is).
      await proxy.restore();
      const watcher = new KafkaZk(await zk.connect('/cut-off'));
      await waitFor(async () => !(await watcher.getBrokers()).some((b) => b.id === 5), 'the old registration to expire');
      const again = await startBroker({ port: 0, logLevel: 'silent', dataDir: broker.dataDir, config });
      started.push(again);
      expect(again.clusterId).toBe(broker.clusterId);
    } finally {
      await Promise.all(started.splice(0).map((b) => b.close()));
      await proxy.close();
    }
  }, 60_000);
});
