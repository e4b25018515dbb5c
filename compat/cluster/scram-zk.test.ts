// SCRAM credentials in a cluster: AlterUserScramCredentials through broker 1 writes the SCRAM-* keys of
// ZooKeeper's /config/users/<user> in Kafka's format (the user's quota key kept) with a change
// notification; kafkajs then logs in with SCRAM-SHA-256 and -512 on broker 2 (which follows the
// notification) and on broker 3 (started afterwards: it reads them when it registers), and a deletion through
// broker 2 stops the logins on broker 1.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Kafka, logLevel, type SASLOptions } from 'kafkajs';
import { startCluster, type RunningCluster } from '../../src/index.js';
import { ZkClient } from '../../src/cluster/zk/zk-client.js';
import { plainClient, saslConfig, upsertion } from '../../test/security/sasl-client.js';
import { quietLog, waitFor } from '../../test/cluster/zk-helpers.js';
import type { Message } from '../../protocol/codec.js';
import { describeCluster } from './cluster-util.js';

const ALTER = 51;
const DESCRIBE = 50;

async function admin<T>(port: number, f: (c: Awaited<ReturnType<typeof plainClient>>) => Promise<T>): Promise<T> {
  const c = await plainClient(port);
  try {
    return await f(c);
  } finally {
    c.close();
  }
}

/** The mechanisms (by type) DescribeUserScramCredentials shows for `user` on `port`; [] when it has none. */
const mechanismsOn = (port: number, user: string) =>
  admin(port, async (c) => {
    const res = await c.request(DESCRIBE, 0, { users: [{ name: user }] });
    const [result] = res.results as Message[];
    return ((result.credentialInfos as Message[]) ?? []).map((i) => i.mechanism as number).sort();
  });

/** Logs in with kafkajs on one broker only and asks it for the cluster's metadata. */
async function login(port: number, mechanism: 'scram-sha-256' | 'scram-sha-512', username: string, password: string): Promise<number> {
  const kafka = new Kafka({
    brokers: [`127.0.0.1:${port}`],
    logLevel: logLevel.NOTHING,
    retry: { retries: 0 },
    sasl: { mechanism, username, password } as SASLOptions,
  });
  const a = kafka.admin();
  await a.connect();
  try {
    return (await a.describeCluster()).brokers.length;
  } finally {
    await a.disconnect();
  }
}

describeCluster('SCRAM credentials kept in ZooKeeper (kafkajs)', { timeout: 120_000 }, () => {
  let cluster: RunningCluster;
  let zk: ZkClient;
  beforeAll(async () => {
    cluster = await startCluster({
      brokers: 3,
      logLevel: 'silent',
      config: saslConfig({ 'security.inter.broker.protocol': 'SASL_PLAINTEXT', 'sasl.mechanism.inter.broker.protocol': 'PLAIN' }),
    });
    await cluster.brokers[2].stop(); // started again below, after the credentials were made
    zk = await ZkClient.connect({ connect: cluster.zookeeperConnect, sessionTimeoutMs: 10_000, connectionTimeoutMs: 10_000, log: quietLog });
  }, 120_000);
  afterAll(async () => {
    await zk?.close();
    await cluster?.close();
  }, 60_000);

  it('made through broker 1, they are in ZooKeeper in Kafka format and every broker logs users in with them', async () => {
    // The user's quota, as kafka-configs leaves it: kept when its credentials are written.
    await zk.create('/config/users/carol', Buffer.from(JSON.stringify({ version: 1, config: { producer_byte_rate: '1048576' } })), 'persistent');
    const [b1, b2, b3] = cluster.brokers;
    const res = await admin(b1.port, (c) =>
      c.request(ALTER, 0, { deletions: [], upsertions: [upsertion('carol', 'SCRAM-SHA-256', 'carol-256'), upsertion('carol', 'SCRAM-SHA-512', 'carol-512')] }),
    );
    expect((res.results as Message[]).map((r) => [r.user, r.errorCode])).toEqual([['carol', 0]]);

    const znode = JSON.parse((await zk.getData('/config/users/carol'))!.data!.toString()) as { version: number; config: Record<string, string> };
    expect(znode.version).toBe(1);
    expect(Object.keys(znode.config).sort()).toEqual(['SCRAM-SHA-256', 'SCRAM-SHA-512', 'producer_byte_rate']);
    expect(znode.config.producer_byte_rate).toBe('1048576');
    for (const m of ['SCRAM-SHA-256', 'SCRAM-SHA-512']) expect(znode.config[m]).toMatch(/^salt=[^,]+,stored_key=[^,]+,server_key=[^,]+,iterations=4096$/);
    const changes = await zk.getChildren('/config/changes');
    const paths = await Promise.all(changes.map(async (n) => JSON.parse((await zk.getData(`/config/changes/${n}`))!.data!.toString()) as Message));
    expect(paths).toContainEqual({ version: 2, entity_path: 'users/carol' });

    // Broker 2 follows the notification.
    await waitFor(async () => (await mechanismsOn(b2.port, 'carol')).length === 2, 'broker 2 to have carol');
    expect(await mechanismsOn(b2.port, 'carol')).toEqual([1, 2]);
    expect(await login(b2.port, 'scram-sha-256', 'carol', 'carol-256')).toBe(2);
    expect(await login(b2.port, 'scram-sha-512', 'carol', 'carol-512')).toBe(2);
    await expect(login(b2.port, 'scram-sha-512', 'carol', 'wrong')).rejects.toThrow();

    // Broker 3, started now, reads them as it registers.
    await b3.start();
    expect(await mechanismsOn(b3.port, 'carol')).toEqual([1, 2]);
    expect(await login(b3.port, 'scram-sha-256', 'carol', 'carol-256')).toBe(3);
    expect(await login(b3.port, 'scram-sha-512', 'carol', 'carol-512')).toBe(3);

    // A deletion through broker 2 leaves the quota, and broker 1 stops logging carol in with that mechanism.
    const del = await admin(b2.port, (c) => c.request(ALTER, 0, { deletions: [{ name: 'carol', mechanism: 1 }], upsertions: [] }));
    expect((del.results as Message[]).map((r) => r.errorCode)).toEqual([0]);
    expect(JSON.parse((await zk.getData('/config/users/carol'))!.data!.toString()).config).toEqual({
      producer_byte_rate: '1048576',
      'SCRAM-SHA-512': znode.config['SCRAM-SHA-512'],
    });
    await waitFor(async () => (await mechanismsOn(b1.port, 'carol')).length === 1, 'broker 1 to drop carol’s SCRAM-SHA-256');
    await expect(login(b1.port, 'scram-sha-256', 'carol', 'carol-256')).rejects.toThrow();
    expect(await login(b1.port, 'scram-sha-512', 'carol', 'carol-512')).toBe(3);
  });
});
