// Client quotas in a cluster: AlterClientQuotas through one broker writes ZooKeeper's /config/users and
// /config/clients znodes with a change notification, as Kafka's AdminZkClient does, keeping the other keys
// of a user's znode (SCRAM credentials); every broker then describes and enforces them: one running (the
// notification) and one started later (read at registration).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type RunningCluster } from '../../src/index.js';
import { ZkClient } from '../../src/cluster/zk/zk-client.js';
import { zookeeperInstalled } from '../../src/cluster/zookeeper-server.js';
import { TestClient } from '../server/client.js';
import { API, produceBody } from '../server/kafka.js';
import { buildBatch } from '../../protocol/record-batch.js';
import { quietLog, waitFor } from './zk-helpers.js';
import type { Message } from '../../protocol/codec.js';

const skip = !zookeeperInstalled() && process.env.CI !== 'true';
const SCRAM = 'salt=c2FsdA==,stored_key=c3RvcmVk,server_key=c2VydmVy,iterations=4096';

async function on<T>(port: number, f: (c: TestClient) => Promise<T>): Promise<T> {
  const c = await TestClient.connect(port);
  try {
    return await f(c);
  } finally {
    c.close();
  }
}

/** What DescribeClientQuotas answers on `port` for every entity, as `user=…,client-id=…` → values. */
const describeAll = (port: number) =>
  on(port, async (c) => {
    const res = await c.request(API.DescribeClientQuotas, 1, { components: [], strict: false });
    return Object.fromEntries(
      (res.entries as Message[]).map((e) => [
        (e.entity as Message[]).map((x) => `${x.entityType}=${x.entityName ?? '<default>'}`).join(','),
        Object.fromEntries((e.values as Message[]).map((v) => [v.key, v.value])),
      ]),
    );
  });

/** The throttle time of a 120 kB produce (to a topic that need not exist: its bytes count all the same). */
const produceThrottle = (port: number) =>
  on(port, async (c) => {
    const res = await c.request(API.Produce, 9, produceBody('no-such-topic', 0, buildBatch([{ key: 'k', value: Buffer.alloc(120_000) }])));
    return res.throttleTimeMs as number;
  });

describe.skipIf(skip)('client quotas in a cluster', () => {
  let cluster: RunningCluster;
  let zk: ZkClient;
  beforeAll(async () => {
    cluster = await startCluster({ brokers: 3, logLevel: 'silent' });
    await cluster.brokers[2].stop(); // started again below, after the change
    zk = await ZkClient.connect({ connect: cluster.zookeeperConnect, sessionTimeoutMs: 10_000, connectionTimeoutMs: 10_000, log: quietLog });
  }, 90_000);
  afterAll(async () => {
    await zk?.close();
    await cluster?.close();
  }, 60_000);

  it('a change through one broker is in ZooKeeper, beside the SCRAM credentials, and every broker applies it', async () => {
    // As the SASL part (or Kafka's kafka-configs) leaves a user's credentials
    await zk.create('/config/users/alice', Buffer.from(JSON.stringify({ version: 1, config: { 'SCRAM-SHA-256': SCRAM } })), 'persistent');
    const res = await on(cluster.brokers[0].port, (c) =>
      c.request(API.AlterClientQuotas, 1, {
        entries: [
          { entity: [{ entityType: 'user', entityName: 'alice' }], ops: [{ key: 'producer_byte_rate', value: 1024, remove: false }] },
          {
            entity: [
              { entityType: 'user', entityName: 'ANONYMOUS' },
              { entityType: 'client-id', entityName: 'krill-test' },
            ],
            ops: [{ key: 'producer_byte_rate', value: 10_000, remove: false }],
          },
          { entity: [{ entityType: 'client-id', entityName: null }], ops: [{ key: 'request_percentage', value: 50, remove: false }] },
        ],
        validateOnly: false,
      }),
    );
    expect((res.entries as Message[]).map((e) => e.errorCode)).toEqual([0, 0, 0]);

    const znode = async (path: string) => JSON.parse((await zk.getData(path))!.data!.toString());
    expect(await znode('/config/users/alice')).toEqual({ version: 1, config: { 'SCRAM-SHA-256': SCRAM, producer_byte_rate: '1024' } });
    expect(await znode('/config/users/ANONYMOUS/clients/krill-test')).toEqual({ version: 1, config: { producer_byte_rate: '10000' } });
    expect(await znode('/config/clients/<default>')).toEqual({ version: 1, config: { request_percentage: '50.0' } });
    const changes = await Promise.all((await zk.getChildren('/config/changes')).map((n) => znode(`/config/changes/${n}`)));
    expect(changes.map((c) => c.entity_path)).toEqual(expect.arrayContaining(['users/alice', 'users/ANONYMOUS/clients/krill-test', 'clients/<default>']));

    const expected = {
      'user=alice': { producer_byte_rate: 1024 },
      'user=ANONYMOUS,client-id=krill-test': { producer_byte_rate: 10_000 },
      'client-id=<default>': { request_percentage: 50 },
    };
    expect(await describeAll(cluster.brokers[0].port)).toEqual(expected);
    await waitFor(async () => Object.keys(await describeAll(cluster.brokers[1].port)).length === 3, 'broker 2 to apply the change');
    expect(await describeAll(cluster.brokers[1].port)).toEqual(expected);
    expect(await produceThrottle(cluster.brokers[1].port)).toBeGreaterThan(0);
    await cluster.brokers[2].start();
    expect(await describeAll(cluster.brokers[2].port)).toEqual(expected);
    expect(await produceThrottle(cluster.brokers[2].port)).toBeGreaterThan(0);

    // Removing the quota keeps the credentials
    await on(cluster.brokers[2].port, (c) =>
      c.request(API.AlterClientQuotas, 1, {
        entries: [{ entity: [{ entityType: 'user', entityName: 'alice' }], ops: [{ key: 'producer_byte_rate', value: 0, remove: true }] }],
        validateOnly: false,
      }),
    );
    expect(await znode('/config/users/alice')).toEqual({ version: 1, config: { 'SCRAM-SHA-256': SCRAM } });
    await waitFor(async () => !('user=alice' in (await describeAll(cluster.brokers[0].port))), 'broker 1 to apply the removal');
  }, 90_000);
});
