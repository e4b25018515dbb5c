// A 3-broker cluster whose only listener is SSL with mutual TLS: the brokers talk to each other over it
// (security.inter.broker.protocol=SSL: the controller's requests, replica fetches, AlterPartition), each
// presenting its own keystore as Kafka's brokers do, and kafkajs produces with acks=all (answered only once
// both followers copied the records, over TLS) and consumes the records back.
import fs from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Kafka, logLevel } from 'kafkajs';
import type { RunningCluster } from '../../src/index.js';
import { makePki, type Pki } from '../../test/security/certs.js';
import { describeCluster } from './cluster-util.js';
import { replicatedRoundTrip, startSecuredCluster } from './replicated-round-trip.js';

describeCluster('a cluster talking over TLS (kafkajs)', { timeout: 120_000 }, () => {
  let pki: Pki;
  let cluster: RunningCluster;
  let kafka: Kafka;

  beforeAll(async () => {
    pki = makePki();
    cluster = await startSecuredCluster(pki, 'SSL', {
      'ssl.client.auth': 'required',
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
    await replicatedRoundTrip(kafka, 'over-tls');
    const admin = kafka.admin();
    await admin.connect();
    expect((await admin.describeCluster()).brokers.map((b) => b.port).sort()).toEqual(cluster.brokers.map((b) => b.port).sort());
    await admin.disconnect();
  });
});
