// A 3-broker cluster whose only listener is SASL_SSL: the brokers log in to each other with PLAIN
// (sasl.mechanism.inter.broker.protocol, the username and password of the listener's PlainLoginModule) over
// TLS for the controller's requests, replica fetches and AlterPartition, and kafkajs, logged in as another
// user, produces with acks=all (answered once both followers have copied the records) and reads them back.
import fs from 'node:fs';
import { afterAll, beforeAll, it } from 'vitest';
import { Kafka, logLevel } from 'kafkajs';
import type { RunningCluster } from '../../src/index.js';
import { makePki, type Pki } from '../../test/security/certs.js';
import { describeCluster } from './cluster-util.js';
import { replicatedRoundTrip, startSecuredCluster } from './replicated-round-trip.js';

describeCluster('a cluster talking over SASL_SSL (kafkajs)', { timeout: 120_000 }, () => {
  let pki: Pki;
  let cluster: RunningCluster;
  let kafka: Kafka;

  beforeAll(async () => {
    pki = makePki();
    cluster = await startSecuredCluster(pki, 'SASL_SSL', {
      'sasl.enabled.mechanisms': 'PLAIN',
      'sasl.mechanism.inter.broker.protocol': 'PLAIN',
      'listener.name.sasl_ssl.plain.sasl.jaas.config':
        'org.apache.kafka.common.security.plain.PlainLoginModule required username="broker" password="broker-secret" user_broker="broker-secret" user_app="app-secret";',
    });
    kafka = new Kafka({
      brokers: cluster.bootstrap.split(','),
      logLevel: logLevel.NOTHING,
      ssl: { ca: [fs.readFileSync(pki.caCert, 'utf8')] },
      sasl: { mechanism: 'plain', username: 'app', password: 'app-secret' },
    });
  }, 120_000);
  afterAll(async () => {
    await cluster?.close();
    pki?.remove();
  });

  it('replicates over SASL_SSL: acks=all is answered, every replica is in sync, the records read back', async () => {
    await replicatedRoundTrip(kafka, 'over-sasl');
  });
});
