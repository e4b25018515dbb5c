// Partition reassignments (AlterPartitionReassignments / ListPartitionReassignments, KIP-455) on a three-broker
// cluster with a real ZooKeeper, driven by kafkajs' admin client where it can (it cannot cancel: it insists on a
// replica list) and by raw requests for the errors. Checked: the assignment znode while a move is in progress
// (RS = targets then originals, with adding_replicas / removing_replicas) and after it, the partition state
// znode, every broker's Metadata, DescribeLogDirs on the brokers a replica came to or left, and the log left
// behind (emptied, its directory kept).
//
// A move completes once every target replica is in the ISR: the new replicas copy the leader's log and its
// AlterPartition puts them in the ISR. That takes moments, so the move in progress is observed on a partition
// whose only replica (and leader) is stopped: no leader, no copying, so that move stays in progress (through
// a controller failover, until cancelled, or until a tool writes an ISR with every target in it: the
// controller watches the state znode of a partition being moved, as Kafka's does). That case uses raw
// requests: kafkajs' admin refuses to work with a cluster whose Metadata has a partition without a leader.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Admin } from 'kafkajs';
import type { RunningCluster } from '../../src/index.js';
import type { KafkaZk } from '../../src/cluster/zk/kafka-zk.js';
import { zookeeperInstalled } from '../../src/cluster/zookeeper-server.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { Message } from '../../protocol/codec.js';
import { adminOf, kafka, partitionsFrom } from '../../compat/cluster/cluster-util.js';
import { controllerOf, newControllerTerm, requestTo, rewriteState, startWithTopics } from './controller-requests.js';
import { waitFor } from './zk-helpers.js';

const skip = !zookeeperInstalled() && process.env.CI !== 'true';
const DESCRIBE_LOG_DIRS = 35;
const ALTER_PARTITION_REASSIGNMENTS = 45;
const LIST_PARTITION_REASSIGNMENTS = 46;

/** The response's results as topic → partition → [error code, message]. */
function results(res: Message): Record<string, Record<number, [number, string | null]>> {
  const out: Record<string, Record<number, [number, string | null]>> = {};
  for (const t of res.responses) out[t.name] = Object.fromEntries(t.partitions.map((p: Message) => [p.partitionIndex, [p.errorCode, p.errorMessage]]));
  return out;
}

/** The partitions of `topic` that the broker on `port` lists in DescribeLogDirs. */
async function logDirPartitions(port: number, topic: string, partitions: number[]): Promise<number[]> {
  const res = await requestTo(port, DESCRIBE_LOG_DIRS, 4, { topics: [{ topic, partitions }] });
  const listed = res.results[0].topics.find((t: Message) => t.name === topic);
  return (listed?.partitions ?? []).map((p: Message) => p.partitionIndex).sort();
}

describe.skipIf(skip)('partition reassignments', () => {
  let cluster: RunningCluster;
  let zk: KafkaZk;
  let admin: Admin;
  beforeAll(async () => {
    ({ cluster, zk } = await startWithTopics(
      { 'auto.leader.rebalance.enable': false },
      {
        moving: [
          [1, 2],
          [3, 1],
        ],
        stranded: [[3], [3]],
      },
    ));
    admin = await adminOf(cluster.bootstrap);
  }, 120_000);
  afterAll(async () => {
    await admin?.disconnect();
    await zk?.zk.close();
    await cluster?.close();
  }, 60_000);

  it('refuses bad targets partition by partition, and is answered by the controller only', async () => {
    const { id, port } = await controllerOf(cluster, zk);
    const first = await requestTo(port, ALTER_PARTITION_REASSIGNMENTS, 0, {
      timeoutMs: 10_000,
      topics: [
        {
          name: 'moving',
          partitions: [
            { partitionIndex: 0, replicas: [2, 9] },
            { partitionIndex: 1, replicas: [] },
          ],
        },
        { name: 'no-such-topic', partitions: [{ partitionIndex: 0, replicas: [1] }] },
      ],
    });
    expect(first.errorCode).toBe(ErrorCode.NONE);
    expect(results(first)).toEqual({
      moving: {
        0: [ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'Replica assignment has brokers that are not alive. Replica list: [9], live broker list: [1, 2, 3]'],
        1: [ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'Empty replica list specified in partition reassignment.'],
      },
      'no-such-topic': { 0: [ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'The partition does not exist.'] },
    });
    const second = await requestTo(port, ALTER_PARTITION_REASSIGNMENTS, 0, {
      timeoutMs: 10_000,
      topics: [
        {
          name: 'moving',
          partitions: [
            { partitionIndex: 0, replicas: [3, 3] },
            { partitionIndex: 1, replicas: null },
          ],
        },
      ],
    });
    expect(results(second)).toEqual({
      moving: {
        0: [ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'Duplicate replica ids in partition reassignment replica list: [3, 3]'],
        1: [ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, 'No partition reassignment is in progress.'],
      },
    });
    const other = cluster.brokers.find((b) => b.id !== id)!;
    const elsewhere = await requestTo(other.port, ALTER_PARTITION_REASSIGNMENTS, 0, {
      timeoutMs: 10_000,
      topics: [{ name: 'moving', partitions: [{ partitionIndex: 0, replicas: [2, 3] }] }],
    });
    expect([elsewhere.errorCode, elsewhere.responses]).toEqual([ErrorCode.NOT_CONTROLLER, []]);
    const assignment = (await zk.getTopicAssignment('moving'))!;
    expect(assignment.partitions).toEqual(
      new Map([
        [0, [1, 2]],
        [1, [3, 1]],
      ]),
    );
    expect(assignment.reassigning).toEqual({ adding: new Map(), removing: new Map() });
  }, 30_000);

  it('moves a partition to new replicas once they have caught up, the leader with them, and empties the log left behind', async () => {
    const producer = kafka(cluster.bootstrap).producer();
    await producer.connect();
    await producer.send({ topic: 'moving', acks: 1, messages: Array.from({ length: 20 }, (_, i) => ({ partition: 0, value: `v${i}` })) });
    await producer.disconnect();
    const before = (await zk.getPartitionStates('moving')).get(0)!;
    expect(await logDirPartitions(cluster.brokers[2].port, 'moving', [0])).toEqual([]);

    await admin.alterPartitionReassignments({ topics: [{ topic: 'moving', partitionAssignment: [{ partition: 0, replicas: [2, 3] }] }] });
    await waitFor(async () => (await zk.getTopicAssignment('moving'))!.reassigning.removing.size === 0, 'the move to complete as broker 3 catches up');

    const raw = JSON.parse((await zk.zk.getData('/brokers/topics/moving'))!.data!.toString('utf8'));
    expect(raw).toMatchObject({ partitions: { 0: [2, 3], 1: [3, 1] }, adding_replicas: {}, removing_replicas: {}, version: 3 });
    const after = (await zk.getPartitionStates('moving')).get(0)!;
    expect(after.leader).toBe(2);
    expect(after.isr).not.toContain(1);
    expect(after.leaderEpoch).toBeGreaterThan(before.leaderEpoch);
    for (const b of cluster.brokers) {
      await waitFor(async () => {
        const p = (await partitionsFrom(b.port, 'moving'))[0];
        return p?.leaderId === 2 && p.replicaNodes.join() === '2,3';
      }, `broker ${b.id} to see moving-0 on brokers 2 and 3, led by 2`);
    }
    expect(await admin.listPartitionReassignments({})).toEqual({ topics: [] });
    expect(await logDirPartitions(cluster.brokers[0].port, 'moving', [0])).toEqual([]);
    expect(await logDirPartitions(cluster.brokers[2].port, 'moving', [0])).toEqual([0]);
    // Broker 2 has the records (it copied them from broker 1); broker 1 keeps its directory of moving-0, with no records left.
    const earliest = await kafka(cluster.bootstrap).admin();
    await earliest.connect();
    try {
      expect(await earliest.fetchTopicOffsets('moving')).toContainEqual(expect.objectContaining({ partition: 0, high: '20' }));
    } finally {
      await earliest.disconnect();
    }
    const dir = path.join(cluster.brokers[0].dataDir, 'moving-0');
    const logBytes = () =>
      fs
        .readdirSync(dir)
        .filter((f) => f.endsWith('.log'))
        .reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0);
    await waitFor(() => logBytes() === 0, 'broker 1 to empty its log of moving-0 (StopReplica is queued behind the metadata)');
    expect(fs.existsSync(dir)).toBe(true);
  }, 60_000);

  it('keeps a move in progress through a controller failover; completes it once the ISR has its targets, or cancels it back to the original replicas', async () => {
    await cluster.brokers[2].stop();
    await waitFor(async () => (await zk.getPartitionStates('stranded')).get(0)?.leader === -1, 'stranded-0 to lose its only replica');

    const { port: first } = await controllerOf(cluster, zk);
    const move = await requestTo(first, ALTER_PARTITION_REASSIGNMENTS, 0, {
      timeoutMs: 10_000,
      topics: [
        {
          name: 'stranded',
          partitions: [
            { partitionIndex: 0, replicas: [1, 2] },
            { partitionIndex: 1, replicas: [2] },
          ],
        },
      ],
    });
    expect(results(move)).toEqual({ stranded: { 0: [ErrorCode.NONE, null], 1: [ErrorCode.NONE, null] } });
    const moving = (await zk.getTopicAssignment('stranded'))!;
    expect(moving.partitions).toEqual(
      new Map([
        [0, [1, 2, 3]],
        [1, [2, 3]],
      ]),
    );
    expect(moving.reassigning).toEqual({
      adding: new Map([
        [0, [1, 2]],
        [1, [2]],
      ]),
      removing: new Map([
        [0, [3]],
        [1, [3]],
      ]),
    });
    const raw = JSON.parse((await zk.zk.getData('/brokers/topics/stranded'))!.data!.toString('utf8'));
    expect(raw).toMatchObject({ partitions: { 0: [1, 2, 3], 1: [2, 3] }, adding_replicas: { 0: [1, 2], 1: [2] }, removing_replicas: { 0: [3], 1: [3] } });
    await waitFor(
      async () => (await partitionsFrom(cluster.brokers[0].port, 'stranded'))[0]?.replicaNodes.join() === '1,2,3',
      'broker 1 to see the replicas being moved',
    );
    expect(await logDirPartitions(cluster.brokers[0].port, 'stranded', [0])).toEqual([0]);

    await newControllerTerm(zk);
    const { port } = await controllerOf(cluster, zk);
    const listed = await requestTo(port, LIST_PARTITION_REASSIGNMENTS, 0, { timeoutMs: 10_000, topics: null });
    expect(listed).toMatchObject({
      errorCode: ErrorCode.NONE,
      topics: [
        {
          name: 'stranded',
          partitions: [
            { partitionIndex: 0, replicas: [1, 2, 3], addingReplicas: [1, 2], removingReplicas: [3] },
            { partitionIndex: 1, replicas: [2, 3], addingReplicas: [2], removingReplicas: [3] },
          ],
        },
      ],
    });
    const named = await requestTo(port, LIST_PARTITION_REASSIGNMENTS, 0, {
      timeoutMs: 10_000,
      topics: [
        { name: 'moving', partitionIndexes: [0] },
        { name: 'stranded', partitionIndexes: [0] },
      ],
    });
    expect(named.topics).toEqual([
      { name: 'stranded', partitions: [{ partitionIndex: 0, replicas: [1, 2, 3], addingReplicas: [1, 2], removingReplicas: [3] }] },
    ]);

    // A tool writes stranded-1's state with its target in the ISR (and leading): the controller, watching it, completes the move.
    await rewriteState(zk, 'stranded', 1, (s) => ({ leader: 2, isr: [3, 2], leaderEpoch: s.leaderEpoch + 1 }));
    await waitFor(
      async () => (await zk.getTopicAssignment('stranded'))!.partitions.get(1)?.join() === '2',
      'the controller to complete the move of stranded-1',
    );
    expect((await zk.getPartitionStates('stranded')).get(1)).toMatchObject({ leader: 2, isr: [2] });

    const cancel = await requestTo(port, ALTER_PARTITION_REASSIGNMENTS, 0, {
      timeoutMs: 10_000,
      topics: [{ name: 'stranded', partitions: [{ partitionIndex: 0, replicas: null }] }],
    });
    expect(results(cancel)).toEqual({ stranded: { 0: [ErrorCode.NONE, null] } });
    const reverted = (await zk.getTopicAssignment('stranded'))!;
    expect(reverted.partitions).toEqual(
      new Map([
        [0, [3]],
        [1, [2]],
      ]),
    );
    expect(reverted.reassigning).toEqual({ adding: new Map(), removing: new Map() });
    expect((await requestTo(port, LIST_PARTITION_REASSIGNMENTS, 0, { timeoutMs: 10_000, topics: null })).topics).toEqual([]);
    await waitFor(
      async () => (await partitionsFrom(cluster.brokers[0].port, 'stranded'))[0]?.replicaNodes.join() === '3',
      'broker 1 to see stranded-0 back on broker 3',
    );
    expect(await logDirPartitions(cluster.brokers[0].port, 'stranded', [0])).toEqual([]);
  }, 90_000);
});
