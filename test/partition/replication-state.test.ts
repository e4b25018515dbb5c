// A leader's view of replication, without a network: followers' fetch offsets move the high watermark (the
// smallest log end in the ISR), consumers read up to it, acks=all waits answer when it passes their records
// (or time out, or find the leadership gone, or the ISR too small), and the ISR the leader asks for drops
// followers that fell behind for replica.lag.time.max.ms (not caught-up ones) and takes back those that
// reached the high watermark.
import { afterEach, describe, expect, it } from 'vitest';
import { buildBatch, scanBatches } from '../../protocol/record-batch.js';
import { ErrorCode } from '../../protocol/errors.js';
import { LogManager } from '../../src/storage/log-manager.js';
import { ReplicaManager, clusterStart } from '../../src/partition/replica-manager.js';
import type { Partition } from '../../src/partition/partition.js';
import { useTempDirs } from '../helpers.js';

const newDir = useTempDirs('krill-replication-state-');
const opened: LogManager[] = [];
afterEach(() => {
  for (const l of opened.splice(0)) l.close();
});

const LAG_MS = 10_000;

/** Broker 1 leading t-0 with replicas [1, 2, 3], all in the ISR, at time `now`. */
function leader(now = 1_000_000) {
  const logs = LogManager.open({ dataDir: newDir() });
  opened.push(logs);
  logs.createTopic('t', 1);
  const replicas = new ReplicaManager(logs, 1, clusterStart(logs.dataDir));
  replicas.replicaLagTimeMaxMs = LAG_MS;
  const asked: number[][] = [];
  replicas.useIsrChanger((p, isr) => {
    p.beginIsrChange(isr);
    asked.push(isr);
  });
  const p = replicas.partition('t', 0)!;
  p.setLeaderState({ leaderId: 1, leaderEpoch: 3, replicas: [1, 2, 3], isr: [1, 2, 3], partitionEpoch: 7 }, now);
  return { replicas, p, asked };
}

function append(replicas: ReplicaManager, p: Partition, n: number) {
  const buf = buildBatch(Array.from({ length: n }, (_, i) => ({ value: `v${i}` })));
  return replicas.appendValidated(p, buf, scanBatches(buf, { fromClient: false }));
}

describe('a leader with two followers', () => {
  it('moves the high watermark to the smallest log end in the ISR, and consumers read up to it', () => {
    const { replicas, p } = leader();
    append(replicas, p, 5);
    expect(p.logEndOffset).toBe(5);
    expect(p.highWatermark).toBe(0);
    replicas.recordFollowerFetch(p, 2, 5, 1_000_001);
    expect(p.highWatermark).toBe(0); // follower 3 has not fetched in this leader epoch
    replicas.recordFollowerFetch(p, 3, 3, 1_000_001);
    expect(p.highWatermark).toBe(3);
    // Batches are whole: the 5-record batch is above the high watermark of 3, so consumers get nothing yet.
    expect(p.read(0, 1 << 20, true).records).toEqual([]);
    expect(p.read(0, 1 << 20, true, false, true).records.length).toBe(1);
    replicas.recordFollowerFetch(p, 3, 5, 1_000_002);
    expect(p.highWatermark).toBe(5);
    expect(p.read(0, 1 << 20, true).records.length).toBe(1);
    // Never back: a follower fetching from an older offset (it truncated) does not lower it.
    replicas.recordFollowerFetch(p, 3, 4, 1_000_003);
    expect(p.highWatermark).toBe(5);
  });

  it('answers acks=all waits once the ISR has the records, or with the reason it cannot', async () => {
    const { replicas, p } = leader();
    const { lastOffset } = append(replicas, p, 2);
    const waiting = replicas.awaitReplicated(p, lastOffset + 1, 2, 60_000);
    replicas.recordFollowerFetch(p, 2, 2, 1_000_001);
    replicas.recordFollowerFetch(p, 3, 2, 1_000_001);
    expect(await waiting).toBe(ErrorCode.NONE);

    const second = append(replicas, p, 1);
    expect(await replicas.awaitReplicated(p, second.lastOffset + 1, 2, 20)).toBe(ErrorCode.REQUEST_TIMED_OUT);

    const lost = replicas.awaitReplicated(p, second.lastOffset + 1, 2, 60_000);
    p.setLeaderState({ leaderId: 2, leaderEpoch: 4, replicas: [1, 2, 3], isr: [2, 3] });
    replicas.leadershipChanged(p);
    expect(await lost).toBe(ErrorCode.NOT_LEADER_OR_FOLLOWER);
  });

  it('answers NOT_ENOUGH_REPLICAS_AFTER_APPEND when the ISR shrank below min.insync.replicas meanwhile', async () => {
    const { replicas, p } = leader();
    const { lastOffset } = append(replicas, p, 1);
    const waiting = replicas.awaitReplicated(p, lastOffset + 1, 3, 60_000);
    // The controller's answer to a shrink: the ISR is the leader alone, whose log end is the high watermark.
    p.setLeaderState({ leaderId: 1, leaderEpoch: 3, replicas: [1, 2, 3], isr: [1], partitionEpoch: 8 });
    replicas.highWatermarkMoved(p);
    expect(await waiting).toBe(ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND);
    expect(p.partitionEpoch).toBe(8);
  });

  it('asks to drop a follower that fell behind for replica.lag.time.max.ms, but not a caught-up idle one', () => {
    const now = 1_000_000;
    const { replicas, p, asked } = leader(now);
    append(replicas, p, 4);
    replicas.recordFollowerFetch(p, 2, 4, now + 1); // caught up, then idle
    replicas.recordFollowerFetch(p, 3, 1, now + 1); // behind
    replicas.checkIsrs(now + LAG_MS - 1);
    expect(asked).toEqual([]);
    replicas.checkIsrs(now + LAG_MS + 10);
    expect(asked).toEqual([[1, 2]]);
    expect(p.pendingIsr).toEqual([1, 2]);
    // While the change is in flight the larger set counts for the high watermark, and no other is asked for.
    expect(p.maximalIsr).toEqual([1, 2, 3]);
    replicas.checkIsrs(now + LAG_MS + 20);
    expect(asked).toHaveLength(1);
  });

  it('asks to take back a follower once it reaches the high watermark and the start of the leader epoch', () => {
    const now = 1_000_000;
    const { replicas, p, asked } = leader(now);
    p.setLeaderState({ leaderId: 1, leaderEpoch: 3, replicas: [1, 2, 3], isr: [1, 2], partitionEpoch: 8 }, now);
    append(replicas, p, 6);
    replicas.recordFollowerFetch(p, 2, 6, now + 1);
    expect(p.highWatermark).toBe(6);
    replicas.recordFollowerFetch(p, 3, 2, now + 2);
    expect(asked).toEqual([]);
    replicas.recordFollowerFetch(p, 3, 6, now + 3);
    expect(asked).toEqual([[1, 2, 3]]);
  });
});

describe("a cluster broker before the controller has named the partition's replicas", () => {
  it('keeps its high watermark (what it checkpoints) rather than taking its log end for it', () => {
    const logs = LogManager.open({ dataDir: newDir() });
    opened.push(logs);
    logs.createTopic('t', 1);
    const writer = new ReplicaManager(logs, 1);
    const p0 = writer.partition('t', 0)!;
    append(writer, p0, 4);
    // The same log, as a restarted cluster broker sees it before any LeaderAndIsr: no replicas known yet.
    const replicas = new ReplicaManager(logs, 1, clusterStart(logs.dataDir));
    const p = replicas.partition('t', 0)!;
    expect(p.replicas).toEqual([]);
    expect(p.logEndOffset).toBe(4);
    expect(p.highWatermark).toBe(0);
  });
});

describe('a sole replica given followers (a reassignment adding replicas)', () => {
  it('keeps everything it had committed as committed', () => {
    const logs = LogManager.open({ dataDir: newDir() });
    opened.push(logs);
    logs.createTopic('t', 1);
    const replicas = new ReplicaManager(logs, 1, clusterStart(logs.dataDir));
    const p = replicas.partition('t', 0)!;
    p.setLeaderState({ leaderId: 1, leaderEpoch: 0, replicas: [1], isr: [1] });
    append(replicas, p, 3);
    expect(p.highWatermark).toBe(3);
    p.setLeaderState({ leaderId: 1, leaderEpoch: 1, replicas: [1, 2], isr: [1, 2] });
    expect(p.highWatermark).toBe(3);
  });
});
