// Three brokers with krill.storage=memory, each a krill CLI process (the built bundles: the CLI's and the
// cluster's share the process's memory volume), and a real ZooKeeper: a topic replicated to all
// three takes acks=all produces; its leader stopping moves leadership to a follower without losing an
// acknowledged record; that broker, started again, comes back with nothing (memory), copies the log from
// the leader and rejoins the ISR; and once it is the only broker left it serves every record.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type RunningCluster } from '../../src/index.js';
import { zookeeperInstalled } from '../../src/cluster/zookeeper-server.js';
import { ErrorCode } from '../../protocol/errors.js';
import { buildBatch } from '../../protocol/record-batch.js';
import type { TestClient } from '../server/client.js';
import { API, fetchOne, produceBody, recordsOf, values } from '../server/kafka.js';
import { QUICK_REPLICATION, brokerClients, createTopicOk, leaderOf, metadata } from './cluster-probe.js';
import { waitFor } from './zk-helpers.js';

const skip = !zookeeperInstalled() && process.env.CI !== 'true';
const TOPIC = 'memory-replicated';

describe.skipIf(skip)('a cluster in memory', () => {
  let cluster: RunningCluster;
  const clients = brokerClients(() => cluster.brokers.map((b) => b.port));
  const client = clients.to;

  /** acks=all produce of `n` records to the current leader, as seen from `via`. */
  async function produceToLeader(via: TestClient, n: number, prefix: string): Promise<number> {
    const leader = await client(await leaderOf(via, TOPIC, 0));
    const res = await leader.request(API.Produce, 9, produceBody(TOPIC, 0, buildBatch(values(n, prefix)), -1));
    const p = res.responses[0].partitionResponses[0];
    expect(p.errorCode, p.errorMessage).toBe(ErrorCode.NONE);
    return p.baseOffset;
  }

  async function isr(via: TestClient): Promise<number[]> {
    const res = await metadata(via, [TOPIC]);
    return [...res.topics[0].partitions[0].isrNodes].sort();
  }

  beforeAll(async () => {
    cluster = await startCluster({
      brokers: 3,
      storage: 'memory',
      processes: true,
      logLevel: 'silent',
      config: { ...QUICK_REPLICATION, 'min.insync.replicas': 2 },
    });
  }, 90_000);
  afterAll(async () => {
    clients.closeAll();
    await cluster?.close();
  }, 60_000);

  it('keeps no data dir', () => {
    expect(cluster.brokers.map((b) => b.dataDir)).toEqual(['memory', 'memory', 'memory']);
  });

  it('replicates, fails over, and refills a restarted broker from its leader', async () => {
    const c1 = await client(1);
    await createTopicOk(c1, TOPIC, 1, [{ partitionIndex: 0, brokerIds: [1, 2, 3] }]);
    await waitFor(async () => (await isr(c1)).length === 3, 'all three replicas in the ISR');
    expect(await produceToLeader(c1, 10, 'a')).toBe(0);

    const first = await leaderOf(c1, TOPIC, 0);
    const other = [1, 2, 3].find((id) => id !== first)!;
    const via = await client(other);
    await cluster.brokers[first - 1].stop();
    await waitFor(async () => (await leaderOf(via, TOPIC, 0)) !== first, 'a new leader');
    expect(await produceToLeader(via, 10, 'b')).toBe(10);

    await cluster.brokers[first - 1].start();
    await waitFor(async () => (await isr(via)).length === 3, 'the restarted broker back in the ISR', 30_000);
    // Leave the restarted broker alone: everything it serves now it copied from the others.
    for (const id of [1, 2, 3].filter((i) => i !== first)) await cluster.brokers[id - 1].stop();
    const alone = await client(first);
    await waitFor(async () => (await leaderOf(alone, TOPIC, 0)) === first, 'the restarted broker leading');
    const fetched = recordsOf((await fetchOne(alone, TOPIC, 0, 0)).records);
    expect(fetched.map((r) => [r.offset, r.value])).toEqual([...values(10, 'a'), ...values(10, 'b')].map((r, i) => [i, r.value]));
  }, 90_000);
});
