// What the secured-cluster suites check once their brokers talk over TLS or SASL: a topic of 3 partitions
// × 3 replicas, 30 records produced with acks=all (answered only once both followers copied them), every
// replica in sync, and a group consumer reading every record back.
import { expect } from 'vitest';
import type { Kafka } from 'kafkajs';
import { startCluster, type RunningCluster } from '../../src/index.js';
import type { Pki } from '../../test/security/certs.js';

export async function replicatedRoundTrip(kafka: Kafka, topic: string): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 3, replicationFactor: 3 }], waitForLeaders: true });
  const producer = kafka.producer();
  await producer.connect();
  const values = Array.from({ length: 30 }, (_, i) => `record-${i}`);
  await producer.send({ topic, acks: -1, messages: values.map((value) => ({ value })) });
  await producer.disconnect();
  const [meta] = (await admin.fetchTopicMetadata({ topics: [topic] })).topics;
  for (const p of meta.partitions) expect(p.isr.sort()).toEqual([1, 2, 3]);
  await admin.disconnect();

  const consumer = kafka.consumer({ groupId: `${topic}-group` });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const seen: string[] = [];
  await new Promise<void>((resolve) => {
    void consumer.run({
      eachMessage: async ({ message }) => {
        seen.push(message.value!.toString());
        if (seen.length === values.length) resolve();
      },
    });
  });
  await consumer.disconnect();
  expect(seen.sort()).toEqual([...values].sort());
}

/** Three brokers whose only listener is `protocol`, each presenting `pki`'s broker certificate and trusting its CA. */
export function startSecuredCluster(pki: Pki, protocol: 'SSL' | 'SASL_SSL', config: Record<string, string>): Promise<RunningCluster> {
  return startCluster({
    brokers: 3,
    logLevel: 'silent',
    config: {
      listeners: `${protocol}://127.0.0.1:0`,
      'security.inter.broker.protocol': protocol,
      'ssl.keystore.type': 'PEM',
      'ssl.keystore.location': pki.brokerPem,
      'ssl.truststore.type': 'PEM',
      'ssl.truststore.location': pki.caCert,
      'zookeeper.session.timeout.ms': '6000',
      'replica.fetch.wait.max.ms': '100',
      ...config,
    },
  });
}
