// A 3-broker cluster whose brokers log in to each other with SCRAM-SHA-512 (sasl.mechanism.inter.broker.protocol,
// the username and password of the listener's ScramLoginModule), checked against the credentials in ZooKeeper:
// made there before the brokers start, as Kafka's kafka-configs --zookeeper does for an inter-broker user.
// kafkajs, logged in with SCRAM-SHA-256 as another user, produces with acks=all (answered once both followers
// fetched, over SCRAM-authenticated connections) and reads the records back.
import { afterAll, beforeAll, it } from 'vitest';
import { Kafka, logLevel } from 'kafkajs';
import { startCluster, startZooKeeper, type RunningCluster, type ZooKeeperServer } from '../../src/index.js';
import { ZkClient } from '../../src/cluster/zk/zk-client.js';
import { credentialFromPassword, formatCredential } from '../../src/security/scram.js';
import { quietLog } from '../../test/cluster/zk-helpers.js';
import { describeCluster } from './cluster-util.js';
import { replicatedRoundTrip } from './replicated-round-trip.js';

const CHROOT = '/scram-cluster';

describeCluster('a cluster whose brokers log in to each other with SCRAM-SHA-512 (kafkajs)', { timeout: 120_000 }, () => {
  let zookeeper: ZooKeeperServer;
  let cluster: RunningCluster;
  let kafka: Kafka;

  beforeAll(async () => {
    zookeeper = await startZooKeeper();
    const zk = await ZkClient.connect({ connect: zookeeper.connect, sessionTimeoutMs: 10_000, connectionTimeoutMs: 20_000, log: quietLog });
    const user = (config: Record<string, string>) => Buffer.from(JSON.stringify({ version: 1, config }));
    await zk.createIfMissing(
      `${CHROOT}/config/users/broker`,
      user({ 'SCRAM-SHA-512': formatCredential(credentialFromPassword('SCRAM-SHA-512', 'broker-secret')) }),
    );
    await zk.createIfMissing(`${CHROOT}/config/users/app`, user({ 'SCRAM-SHA-256': formatCredential(credentialFromPassword('SCRAM-SHA-256', 'app-secret')) }));
    await zk.close();
    cluster = await startCluster({
      brokers: 3,
      logLevel: 'silent',
      zookeeperConnect: `${zookeeper.connect}${CHROOT}`,
      config: {
        listeners: 'SASL_PLAINTEXT://127.0.0.1:0',
        'security.inter.broker.protocol': 'SASL_PLAINTEXT',
        'sasl.enabled.mechanisms': 'SCRAM-SHA-256,SCRAM-SHA-512',
        'sasl.mechanism.inter.broker.protocol': 'SCRAM-SHA-512',
        'listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config':
          'org.apache.kafka.common.security.scram.ScramLoginModule required username="broker" password="broker-secret";',
        'zookeeper.session.timeout.ms': '6000',
        'replica.fetch.wait.max.ms': '100',
      },
    });
    kafka = new Kafka({
      brokers: cluster.bootstrap.split(','),
      logLevel: logLevel.NOTHING,
      sasl: { mechanism: 'scram-sha-256', username: 'app', password: 'app-secret' },
    });
  }, 120_000);
  afterAll(async () => {
    await cluster?.close();
    await zookeeper?.stop();
  }, 60_000);

  it('replicates with SCRAM logins between brokers: acks=all is answered, every replica is in sync, the records read back', async () => {
    await replicatedRoundTrip(kafka, 'over-scram');
  });
});
