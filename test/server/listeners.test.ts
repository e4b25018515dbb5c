// Several client listeners, as Kafka configures them: one server each, and every client is told the
// endpoints of the listener it came in on (Metadata, FindCoordinator, DescribeCluster); in a cluster each
// broker registers all its listeners in ZooKeeper and the brokers talk to each other on the inter-broker one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kafka, logLevel } from 'kafkajs';
import { startBroker, startCluster, type RunningBroker, type RunningCluster } from '../../src/index.js';
import { ZkClient } from '../../src/cluster/zk/zk-client.js';
import { KafkaZk } from '../../src/cluster/zk/kafka-zk.js';
import { zookeeperInstalled } from '../../src/cluster/zookeeper-server.js';
import { quietLog } from '../cluster/zk-helpers.js';
import { QUICK_REPLICATION } from '../cluster/cluster-probe.js';

const TWO_LISTENERS = {
  listeners: 'PLAINTEXT://127.0.0.1:0,EXTERNAL://127.0.0.1:0',
  'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,EXTERNAL:PLAINTEXT',
};

const kafkaAt = (bootstrap: string) => new Kafka({ brokers: bootstrap.split(','), logLevel: logLevel.NOTHING, clientId: 'listeners-test' });

describe('a broker with two listeners', () => {
  let broker: RunningBroker;
  beforeAll(async () => {
    // EXTERNAL advertises "localhost": what its clients are told differs from what PLAINTEXT's are.
    broker = await startBroker({
      port: 0,
      host: '127.0.0.1',
      logLevel: 'silent',
      config: { ...TWO_LISTENERS, 'advertised.listeners': 'EXTERNAL://localhost:0' },
    });
  });
  afterAll(() => broker?.close());

  it('serves each, and answers Metadata, DescribeCluster and FindCoordinator with the endpoint of the listener asked', async () => {
    const [plain, external] = broker.listeners;
    expect([plain.listener, external.listener]).toEqual(['PLAINTEXT', 'EXTERNAL']);
    expect(plain.port).toBe(broker.port);
    expect(external.port).not.toBe(plain.port);
    expect(external.host).toBe('localhost');
    for (const [l, bootstrap] of [
      [plain, `127.0.0.1:${plain.port}`],
      [external, `127.0.0.1:${external.port}`],
    ] as const) {
      const admin = kafkaAt(bootstrap).admin();
      await admin.connect();
      try {
        // kafkajs' describeCluster reads Metadata.
        expect((await admin.describeCluster()).brokers).toEqual([{ nodeId: 1, host: l.host, port: l.port }]);
      } finally {
        await admin.disconnect();
      }
    }
    // A consumer group on EXTERNAL finds its coordinator at EXTERNAL's advertised endpoint (kafkajs connects
    // to "localhost", which resolves to this broker's 127.0.0.1).
    const kafka = kafkaAt(`127.0.0.1:${external.port}`);
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: 'on-external', messages: [{ value: 'hello' }] });
    await producer.disconnect();
    const consumer = kafka.consumer({ groupId: 'external-group' });
    await consumer.connect();
    await consumer.subscribe({ topic: 'on-external', fromBeginning: true });
    const got = new Promise<string>((resolve) => void consumer.run({ eachMessage: async ({ message }) => resolve(message.value!.toString()) }));
    expect(await got).toBe('hello');
    await consumer.disconnect();
  }, 30_000);
});

describe.skipIf(!zookeeperInstalled() && process.env.CI !== 'true')('a cluster whose brokers talk on their own listener', () => {
  let cluster: RunningCluster;
  let zk: KafkaZk;
  beforeAll(async () => {
    cluster = await startCluster({
      brokers: 3,
      logLevel: 'silent',
      config: {
        ...QUICK_REPLICATION,
        listeners: 'PLAINTEXT://127.0.0.1:0,INTERNAL://127.0.0.1:0',
        'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,INTERNAL:PLAINTEXT',
        'inter.broker.listener.name': 'INTERNAL',
      },
    });
    zk = new KafkaZk(
      await ZkClient.connect({ connect: cluster.zookeeperConnect, sessionTimeoutMs: 10_000, connectionTimeoutMs: 10_000, log: quietLog }),
      quietLog,
      'INTERNAL',
    );
  }, 90_000);
  afterAll(async () => {
    await zk?.zk.close();
    await cluster?.close();
  });

  it('registers every listener in ZooKeeper, replicates over INTERNAL, and answers each listener with its own endpoints', async () => {
    const registered = await zk.getBrokers();
    expect(registered.map((b) => b.endpoints.map((e) => e.listener))).toEqual([
      ['PLAINTEXT', 'INTERNAL'],
      ['PLAINTEXT', 'INTERNAL'],
      ['PLAINTEXT', 'INTERNAL'],
    ]);
    const endpointsOn = (listener: string) =>
      registered.map((b) => {
        const e = b.endpoints.find((x) => x.listener === listener)!;
        return { nodeId: b.id, host: e.host, port: e.port };
      });
    expect(endpointsOn('PLAINTEXT').map((e) => e.port)).toEqual(cluster.brokers.map((b) => b.port));
    // The inter-broker address KafkaZk reads is INTERNAL's.
    expect(registered.map((b) => b.port)).toEqual(endpointsOn('INTERNAL').map((e) => e.port));

    const kafka = kafkaAt(cluster.bootstrap);
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'replicated', numPartitions: 1, replicationFactor: 3 }], waitForLeaders: true });
    const producer = kafka.producer();
    await producer.connect();
    // acks=all: answered once both followers copied the record from the leader, over INTERNAL.
    await producer.send({ topic: 'replicated', acks: -1, messages: [{ value: 'all' }] });
    await producer.disconnect();
    await admin.disconnect();

    for (const listener of ['PLAINTEXT', 'INTERNAL']) {
      const [first] = endpointsOn(listener);
      const a = kafkaAt(`${first.host}:${first.port}`).admin();
      await a.connect();
      try {
        expect((await a.describeCluster()).brokers.sort((x, y) => x.nodeId - y.nodeId)).toEqual(endpointsOn(listener));
      } finally {
        await a.disconnect();
      }
    }
  }, 60_000);
});
