// Replication between three in-process brokers and a real ZooKeeper: a topic with three replicas starts with
// every replica in the ISR; followers copy the leader's record batches byte for byte (their segment files are
// identical), with the leader's offsets and leader epochs (leader-epoch-checkpoint); acks=all is answered
// once every ISR member has the records; a broker that stops leaves the ISR, and with fewer in-sync replicas
// than min.insync.replicas acks=all is refused while acks=1 still works; a broker back copies what it
// missed and joins the ISR again; a graceful stop of the leader hands the leadership to an in-sync follower
// without losing an acknowledged record, and leaves its high watermarks in replication-offset-checkpoint.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type RunningCluster } from '../../src/index.js';
import { ZkClient } from '../../src/cluster/zk/zk-client.js';
import { KafkaZk } from '../../src/cluster/zk/kafka-zk.js';
import { zookeeperInstalled } from '../../src/cluster/zookeeper-server.js';
import { ErrorCode } from '../../protocol/errors.js';
import { buildBatch } from '../../protocol/record-batch.js';
import { TestClient } from '../server/client.js';
import { API, fetchOne, produceBody, recordsOf, values } from '../server/kafka.js';
import { QUICK_REPLICATION, brokerClients, leaderOf } from './cluster-probe.js';
import { quietLog, waitFor } from './zk-helpers.js';

const skip = !zookeeperInstalled() && process.env.CI !== 'true';

/** The .log files of a partition on one broker, concatenated in offset order. */
function logBytes(dataDir: string, topic: string, partition: number): Buffer {
  const dir = path.join(dataDir, `${topic}-${partition}`);
  if (!fs.existsSync(dir)) return Buffer.alloc(0);
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.log'))
    .sort();
  return Buffer.concat(files.map((f) => fs.readFileSync(path.join(dir, f))));
}

function epochCheckpoint(dataDir: string, topic: string, partition: number): string {
  const file = path.join(dataDir, `${topic}-${partition}`, 'leader-epoch-checkpoint');
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
}

describe.skipIf(skip)('replication', () => {
  let cluster: RunningCluster;
  let zk: KafkaZk;
  const clients = brokerClients(() => cluster.brokers.map((b) => b.port));
  const client = clients.to;

  async function produce(
    c: TestClient,
    topic: string,
    partition: number,
    n: number,
    prefix: string,
    acks: number,
  ): Promise<{ errorCode: number; baseOffset: number }> {
    const res = await c.request(API.Produce, 9, produceBody(topic, partition, buildBatch(values(n, prefix)), acks));
    return res.responses[0].partitionResponses[0];
  }

  async function isr(topic: string, partition = 0): Promise<number[]> {
    return [...(await zk.getPartitionStates(topic)).get(partition)!.isr].sort();
  }

  beforeAll(async () => {
    cluster = await startCluster({
      brokers: 3,
      logLevel: 'silent',
      config: QUICK_REPLICATION,
    });
    zk = new KafkaZk(await ZkClient.connect({ connect: cluster.zookeeperConnect, sessionTimeoutMs: 10_000, connectionTimeoutMs: 10_000, log: quietLog }));
  }, 90_000);
  afterAll(async () => {
    clients.closeAll();
    await zk?.zk.close();
    await cluster?.close();
  }, 60_000);

  it("followers copy the leader's batches byte for byte, and acks=all is answered once the ISR has them", async () => {
    const c1 = await client(1);
    const created = await c1.request(API.CreateTopics, 7, {
      topics: [{ name: 'copied', numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 0, brokerIds: [1, 2, 3] }], configs: [] }],
      timeoutMs: 30_000,
      validateOnly: false,
    });
    expect(created.topics[0].errorCode).toBe(0);
    expect(await isr('copied')).toEqual([1, 2, 3]);
    const leader = await client(await leaderOf(c1, 'copied', 0));
    for (let i = 0; i < 5; i++) {
      const r = await produce(leader, 'copied', 0, 10, `b${i}-`, -1);
      expect(r.errorCode).toBe(ErrorCode.NONE);
      expect(r.baseOffset).toBe(i * 10);
    }
    // acks=all answered: the ISR has everything, so every replica's log is the leader's, byte for byte.
    const leaderLog = logBytes(cluster.brokers[0].dataDir, 'copied', 0);
    expect(leaderLog.length).toBeGreaterThan(0);
    for (const b of cluster.brokers) expect(logBytes(b.dataDir, 'copied', 0).equals(leaderLog)).toBe(true);
    for (const b of cluster.brokers) expect(epochCheckpoint(b.dataDir, 'copied', 0)).toBe('0\n1\n0 0\n');
    const fetched = await fetchOne(leader, 'copied', 0, 0);
    expect(fetched.highWatermark).toBe(50);
    expect(recordsOf(fetched.records)).toHaveLength(50);
  }, 60_000);

  it('a follower fetching directly from a non-leader is refused, and consumers are fenced by the leader epoch', async () => {
    const c2 = await client(2);
    const notLeader = await fetchOne(c2, 'copied', 0, 0);
    expect(notLeader.errorCode).toBe(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    const c1 = await client(1);
    const res = await c1.request(API.Fetch, 12, {
      replicaId: -1,
      maxWaitMs: 0,
      minBytes: 0,
      maxBytes: 1 << 20,
      isolationLevel: 0,
      sessionId: 0,
      sessionEpoch: -1,
      topics: [
        {
          topic: 'copied',
          partitions: [{ partition: 0, currentLeaderEpoch: 7, fetchOffset: 0, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes: 1 << 20 }],
        },
      ],
      forgottenTopicsData: [],
      rackId: '',
    });
    expect(res.responses[0].partitions[0].errorCode).toBe(ErrorCode.UNKNOWN_LEADER_EPOCH);
  }, 30_000);

  it('with fewer in-sync replicas than min.insync.replicas acks=all is refused and acks=1 works; the ISR grows back', async () => {
    const c1 = await client(1);
    const created = await c1.request(API.CreateTopics, 7, {
      topics: [
        {
          name: 'guarded',
          numPartitions: -1,
          replicationFactor: -1,
          assignments: [{ partitionIndex: 0, brokerIds: [1, 2, 3] }],
          configs: [{ name: 'min.insync.replicas', value: '3' }],
        },
      ],
      timeoutMs: 30_000,
      validateOnly: false,
    });
    expect(created.topics[0].errorCode).toBe(0);
    expect((await produce(c1, 'guarded', 0, 3, 'a', -1)).errorCode).toBe(ErrorCode.NONE);

    await cluster.brokers[2].stop();
    await waitFor(async () => (await isr('guarded')).join() === '1,2', 'broker 3 out of the ISR');
    await waitFor(async () => (await produce(c1, 'guarded', 0, 1, 'x', -1)).errorCode === ErrorCode.NOT_ENOUGH_REPLICAS, 'acks=all refused');
    const acks1 = await produce(c1, 'guarded', 0, 2, 'b', 1);
    expect(acks1.errorCode).toBe(ErrorCode.NONE);

    await cluster.brokers[2].start();
    await waitFor(async () => (await isr('guarded')).join() === '1,2,3', 'broker 3 back in the ISR', 30_000);
    // The leader learns the new ISR from the controller's answer, a moment after ZooKeeper has it.
    await waitFor(async () => (await produce(c1, 'guarded', 0, 2, 'c', -1)).errorCode === ErrorCode.NONE, 'acks=all accepted again');
    const leaderLog = logBytes(cluster.brokers[0].dataDir, 'guarded', 0);
    expect(logBytes(cluster.brokers[2].dataDir, 'guarded', 0).equals(leaderLog)).toBe(true);
  }, 90_000);

  it('a graceful stop of the leader hands the leadership to an in-sync follower with every acknowledged record', async () => {
    const c2 = await client(2);
    const created = await c2.request(API.CreateTopics, 7, {
      topics: [{ name: 'handover', numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 0, brokerIds: [1, 2, 3] }], configs: [] }],
      timeoutMs: 30_000,
      validateOnly: false,
    });
    expect(created.topics[0].errorCode).toBe(0);
    const c1 = await client(1);
    for (let i = 0; i < 4; i++) expect((await produce(c1, 'handover', 0, 5, `h${i}-`, -1)).errorCode).toBe(ErrorCode.NONE);
    const epochBefore = (await zk.getPartitionStates('handover')).get(0)!.leaderEpoch;

    await cluster.brokers[0].stop();
    // A stopping broker checkpoints its high watermarks (replication-offset-checkpoint), Kafka's format.
    const checkpoint = fs.readFileSync(path.join(cluster.brokers[0].dataDir, 'replication-offset-checkpoint'), 'utf8').split('\n');
    expect(checkpoint[0]).toBe('0');
    expect(checkpoint).toContain('handover 0 20');
    const state = (await zk.getPartitionStates('handover')).get(0)!;
    expect([2, 3]).toContain(state.leader);
    expect(state.leaderEpoch).toBeGreaterThan(epochBefore);
    const next = await client(state.leader);
    // The new leader's high watermark reaches its log end once the remaining follower has fetched from it.
    await waitFor(async () => (await fetchOne(next, 'handover', 0, 0)).highWatermark === 20, 'the new leader serving every record');
    const records = recordsOf((await fetchOne(next, 'handover', 0, 0)).records);
    expect(records.map((r) => r.value)).toEqual(Array.from({ length: 20 }, (_, i) => `h${Math.floor(i / 5)}-${i % 5}`));
    expect((await produce(next, 'handover', 0, 5, 'after', -1)).errorCode).toBe(ErrorCode.NONE);

    await cluster.brokers[0].start();
    await waitFor(async () => (await isr('handover')).includes(1), 'broker 1 back in the ISR', 30_000);
    const leaderDir = cluster.brokers[state.leader - 1].dataDir;
    await waitFor(() => logBytes(cluster.brokers[0].dataDir, 'handover', 0).equals(logBytes(leaderDir, 'handover', 0)), 'broker 1 caught up');
    expect(epochCheckpoint(cluster.brokers[0].dataDir, 'handover', 0)).toBe(epochCheckpoint(leaderDir, 'handover', 0));
  }, 90_000);
});
