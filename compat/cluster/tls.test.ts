// A 3-broker cluster whose only listener is SSL with mutual TLS: the brokers talk to each other over it
// (security.inter.broker.protocol=SSL: the controller's requests, replica fetches, AlterPartition), each
// presenting its own keystore as Kafka's brokers do, and kafkajs produces with acks=all (answered only once
// both followers copied the records, over TLS) and consumes the records back.
import fs from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Kafka, logLevel } from 'kafkajs';
import { startCluster, type RunningCluster } from '../../src/index.js';
import { makePki, type Pki } from '../../test/security/certs.js';
import { describeCluster } from './cluster-util.js';

describeCluster('a cluster talking over TLS (kafkajs)', { timeout: 120_000 }, () => {
  let pki: Pki;
  let cluster: RunningCluster;
  let kafka: Kafka;

  beforeAll(async () => {
    pki = makePki();
    cluster = await startCluster({
      brokers: 3,
      logLevel: 'silent',
      config: {
        listeners: 'SSL://127.0.0.1:0',
        'security.inter.broker.protocol': 'SSL',
        'ssl.keystore.type': 'PEM',
        'ssl.keystore.location': pki.brokerPem,
        'ssl.truststore.type': 'PEM',
        'ssl.truststore.location': pki.caCert,
        'ssl.client.auth': 'required',
        'zookeeper.session.timeout.ms': 6000,
        'replica.fetch.wait.max.ms': 100,
      },
    });
    const client = pki.client('app', '/O=Krill/OU=Eng/CN=app');
    kafka = new Kafka({
      brokers: cluster.bootstrap.split(','),
      logLevel: logLevel.NOTHING,
      ssl: { ca: [fs.readFileSync(pki.caCert, 'utf8')], cert: fs.readFileSync(client.cert, 'utf8'), key: fs.readFileSync(client.key, 'utf8') },
    });
  }, 120_000);
  afterAll(async () => {
    await cluster?.close();
    pki?.remove();
  });

  it('replicates over TLS: acks=all is answered, every replica is in sync, the records read back', async () => {
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'over-tls', numPartitions: 3, replicationFactor: 3 }], waitForLeaders: true });
    const producer = kafka.producer();
    await producer.connect();
    const values = Array.from({ length: 30 }, (_, i) => `record-${i}`);
    await producer.send({ topic: 'over-tls', acks: -1, messages: values.map((value) => ({ value })) });
    await producer.disconnect();
    const [meta] = (await admin.fetchTopicMetadata({ topics: ['over-tls'] })).topics;
    for (const p of meta.partitions) expect(p.isr.sort()).toEqual([1, 2, 3]);
    expect((await admin.describeCluster()).brokers.map((b) => b.port).sort()).toEqual(cluster.brokers.map((b) => b.port).sort());
    await admin.disconnect();

    const consumer = kafka.consumer({ groupId: 'over-tls-group' });
    await consumer.connect();
    await consumer.subscribe({ topic: 'over-tls', fromBeginning: true });
    const seen: string[] = [];
    const all = new Promise<void>((resolve) => {
      void consumer.run({
        eachMessage: async ({ message }) => {
          seen.push(message.value!.toString());
          if (seen.length === values.length) resolve();
        },
      });
    });
    await all;
    await consumer.disconnect();
    expect(seen.sort()).toEqual([...values].sort());
  });
});
