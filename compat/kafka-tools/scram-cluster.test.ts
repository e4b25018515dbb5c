// Kafka's kafka-configs tool makes a SCRAM user through broker 1 of a 3-broker cluster (AlterUserScramCredentials,
// authenticated with PLAIN); the credentials go to ZooKeeper, and kafkajs logs in with both mechanisms on
// brokers 2 and 3, which follow the change notification.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Kafka, logLevel, type SASLOptions } from 'kafkajs';
import { startCluster, zookeeperInstalled, type RunningCluster } from '../../src/index.js';
import { tempDir } from '../../test/helpers.js';
import { PLAIN_JAAS, plainClient, saslConfig } from '../../test/security/sasl-client.js';
import { waitFor } from '../../test/cluster/zk-helpers.js';
import type { Message } from '../../protocol/codec.js';
import { describeWithToolchain } from '../toolchain.js';
import { tool, toolsMissing } from './tools.js';

const TIMEOUT = 180_000;
const dir = tempDir('krill-tools-scram-cluster-');
const missing = () => toolsMissing() ?? (zookeeperInstalled() ? null : "Debian's ZooKeeper is missing");

/** Whether DescribeUserScramCredentials on `port` shows both of dave's mechanisms. */
async function hasDave(port: number): Promise<boolean> {
  const c = await plainClient(port);
  try {
    const res = await c.request(50, 0, { users: [{ name: 'dave' }] });
    return ((res.results as Message[])[0].credentialInfos as Message[]).length === 2;
  } finally {
    c.close();
  }
}

/** Logs in on one broker only; resolves with the number of brokers its metadata names. */
async function login(bootstrap: string, sasl: SASLOptions): Promise<number> {
  const admin = new Kafka({ brokers: [bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 0 }, sasl }).admin();
  await admin.connect();
  try {
    return (await admin.describeCluster()).brokers.length;
  } finally {
    await admin.disconnect();
  }
}

describeWithToolchain('kafka-configs makes SCRAM users for a whole cluster', missing, { timeout: TIMEOUT }, () => {
  let cluster: RunningCluster;
  beforeAll(async () => {
    cluster = await startCluster({
      brokers: 3,
      logLevel: 'silent',
      config: saslConfig({ 'security.inter.broker.protocol': 'SASL_PLAINTEXT', 'sasl.mechanism.inter.broker.protocol': 'PLAIN' }),
    });
  }, TIMEOUT);
  afterAll(async () => {
    await cluster?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('a user made through broker 1 logs in on brokers 2 and 3 with SCRAM-SHA-256 and -512', async () => {
    const commandConfig = path.join(dir, 'admin.properties');
    fs.writeFileSync(
      commandConfig,
      `security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config=${PLAIN_JAAS.replace(' user_admin="admin-secret" user_alice="alice-secret"', '')}\n`,
    );
    const [b1, b2, b3] = cluster.brokers;
    const alter = '--alter --entity-type users --entity-name dave --add-config'.split(' ');
    const credentials = 'SCRAM-SHA-256=[iterations=8192,password=dave-secret],SCRAM-SHA-512=[password=dave-secret]';
    await tool('kafka-configs', ['--bootstrap-server', b1.bootstrap, '--command-config', commandConfig, ...alter, credentials]);
    // kafka-configs has answered once broker 1 wrote ZooKeeper; the others see it through the notification.
    const described = await tool('kafka-configs', [
      '--bootstrap-server',
      b3.bootstrap,
      '--command-config',
      commandConfig,
      '--describe',
      '--entity-type',
      'users',
      '--entity-name',
      'dave',
    ]);
    expect(described.stdout).toMatch(/SCRAM-SHA-256=iterations=8192/);
    for (const b of [b2, b3]) {
      await waitFor(() => hasDave(b.port), `broker ${b.id} to have dave`);
      expect(await login(b.bootstrap, { mechanism: 'scram-sha-256', username: 'dave', password: 'dave-secret' })).toBe(3);
      expect(await login(b.bootstrap, { mechanism: 'scram-sha-512', username: 'dave', password: 'dave-secret' })).toBe(3);
    }
  });
});
