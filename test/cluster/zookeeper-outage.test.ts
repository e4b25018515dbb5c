// ZooKeeper away for a while (shorter than the session timeout): the ZooKeeper server is killed and started
// again on the same port and data dir. Meanwhile every broker goes on serving Produce and Fetch for the
// partitions it leads (ZooKeeper is only the cluster's coordination, not on the data path); once ZooKeeper is
// back the sessions resume, the cluster still works (a new topic gets its leaders), and every acknowledged
// record is there.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type RunningCluster } from '../../src/embedded-cluster.js';
import { startZooKeeper, type ZooKeeperServer } from '../../src/cluster/zookeeper-server.js';
import { buildBatch } from '../../protocol/record-batch.js';
import { TestClient } from '../server/client.js';
import { API, fetchOne, produce, recordsOf } from '../server/kafka.js';
import { createTopicOk, leaderOf, zkState } from './cluster-probe.js';
import { waitFor } from './zk-helpers.js';

const PARTITIONS = 3;

let zkDataDir: string;
let zookeeper: ZooKeeperServer | null = null;
let cluster: RunningCluster;
const clients = new Map<number, TestClient>();

beforeAll(async () => {
  // Our own data dir: it must outlive the killed server, so that the restarted one has the sessions.
  zkDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'krill-zk-outage-'));
  zookeeper = await startZooKeeper({ dataDir: zkDataDir });
  cluster = await startCluster({
    brokers: 3,
    zookeeperConnect: zookeeper.connect,
    config: { 'zookeeper.session.timeout.ms': 30_000 },
    logLevel: process.env.KRILL_TEST_LOG ?? 'warn',
  });
  for (const b of cluster.brokers) clients.set(b.id, await TestClient.connect(b.port));
}, 120_000);

afterAll(async () => {
  for (const c of clients.values()) c.close();
  await cluster?.close();
  await zookeeper?.stop();
  if (zkDataDir) fs.rmSync(zkDataDir, { recursive: true, force: true });
}, 60_000);

describe('ZooKeeper unavailable for a while', () => {
  it('brokers keep serving their partitions, and the cluster works again once ZooKeeper returns, losing nothing', async () => {
    // One partition led by each broker.
    await createTopicOk(
      clients.get(1)!,
      'steady',
      -1,
      [1, 2, 3].map((id, p) => ({ partitionIndex: p, brokerIds: [id] })),
    );
    const leaders: number[] = [];
    for (let p = 0; p < PARTITIONS; p++) leaders.push(await leaderOf(clients.get(1)!, 'steady', p));
    expect(leaders).toEqual([1, 2, 3]);
    const acknowledged: string[][] = [[], [], []];
    const produceRound = async (label: string): Promise<void> => {
      for (let p = 0; p < PARTITIONS; p++) {
        const value = `${label}-p${p}`;
        const res = await produce(clients.get(leaders[p])!, 'steady', p, buildBatch([{ key: 'k', value }]));
        expect(res.errorCode, `produce ${value}`).toBe(0);
        acknowledged[p].push(value);
      }
    };
    const fetchAll = async (): Promise<string[][]> => {
      const out: string[][] = [];
      for (let p = 0; p < PARTITIONS; p++) {
        const res = await fetchOne(clients.get(leaders[p])!, 'steady', p, 0);
        expect(res.errorCode).toBe(0);
        out.push(recordsOf(res.records).map((r) => r.value!));
      }
      return out;
    };
    await produceRound('before');
    const before = await zkState(cluster.zookeeperConnect);

    zookeeper!.kill();
    for (let round = 0; round < 5; round++) {
      await produceRound(`during-${round}`);
      expect(await fetchAll()).toEqual(acknowledged);
    }
    zookeeper = await startZooKeeper({ port: zookeeper!.port, dataDir: zkDataDir });

    // The sessions survived: the same registrations and the same controller, and a new topic gets leaders.
    await createTopicOk(clients.get(2)!, 'after-outage', -1, [{ partitionIndex: 0, brokerIds: [3] }]);
    expect(await leaderOf(clients.get(1)!, 'after-outage', 0)).toBe(3);
    const after = await zkState(cluster.zookeeperConnect);
    expect(after.brokerEpochs).toEqual(before.brokerEpochs);
    expect(after.controllerId).toBe(before.controllerId);
    expect(after.controllerEpoch).toBe(before.controllerEpoch);
    // Broker 1's Metadata can name broker 3 before broker 3 has applied its LeaderAndIsr: wait until broker 3
    // itself answers for the partition as its leader (ListOffsets checks leadership as Produce does).
    await waitFor(async () => {
      const lo = await clients.get(3)!.request(API.ListOffsets, 7, {
        replicaId: -1,
        isolationLevel: 0,
        topics: [{ name: 'after-outage', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1 }] }],
      });
      return lo.topics[0].partitions[0].errorCode === 0;
    }, 'broker 3 leading after-outage-0');
    const res = await produce(clients.get(3)!, 'after-outage', 0, buildBatch([{ key: 'k', value: 'new' }]));
    expect(res.errorCode).toBe(0);

    await produceRound('after');
    expect(await fetchAll()).toEqual(acknowledged);
  }, 120_000);
});
