import { afterEach, describe, expect, it } from 'vitest';
import { buildBatch, readBatchHeader, scanBatches, PARTITION_LEADER_EPOCH_OFFSET } from '../../protocol/record-batch.js';
import { LogManager } from '../../src/storage/log-manager.js';
import { ReplicaManager } from '../../src/partition/replica-manager.js';
import { topicAppendConfig } from '../../src/log-validator.js';
import { DEFAULT_LOG_CONFIG } from '../../src/log-config.js';
import { useTempDirs } from '../helpers.js';

const newDir = useTempDirs('krill-replicas-');
const opened: LogManager[] = [];
afterEach(() => {
  for (const l of opened.splice(0)) l.close();
});

function setup() {
  const logs = LogManager.open({ dataDir: newDir() });
  opened.push(logs);
  logs.createTopic('t', 2);
  return { logs, replicas: new ReplicaManager(logs, 7) };
}

const batch = (n: number) => buildBatch(Array.from({ length: n }, (_, i) => ({ key: Buffer.from(`k${i}`), value: Buffer.from(`v${i}`) })));

describe('ReplicaManager', () => {
  it('hands out one Partition per log, led by this broker alone in epoch 0', () => {
    const { replicas } = setup();
    const p = replicas.partition('t', 1)!;
    expect(replicas.partition('t', 1)).toBe(p);
    expect([p.topic, p.index, p.leaderId, p.leaderEpoch, p.replicas, p.isr]).toEqual(['t', 1, 7, 0, [7], [7]]);
    expect(replicas.partition('t', 2)).toBeUndefined();
    expect(replicas.partition('missing', 0)).toBeUndefined();
  });

  it('appends validated records, stamps the leader epoch, and moves the high watermark and last stable offset', () => {
    const { replicas } = setup();
    const p = replicas.partition('t', 0)!;
    const records = batch(3);
    records.writeInt32BE(-1, PARTITION_LEADER_EPOCH_OFFSET);
    const r = replicas.appendRecords(p, records, topicAppendConfig(DEFAULT_LOG_CONFIG), Date.now());
    expect([r.baseOffset, r.lastOffset, r.logStartOffset]).toEqual([0, 2, 0]);
    expect([p.highWatermark, p.lastStableOffset, p.logEndOffset]).toEqual([3, 3, 3]);
    const read = p.read(0, 1 << 20, true);
    const stored = Buffer.concat(read.records);
    expect(readBatchHeader(stored, 0).partitionLeaderEpoch).toBe(0);
    expect([read.highWatermark, read.lastStableOffset]).toEqual([3, 3]);
  });

  it('wakes a waiting fetch when a watched partition grows, and only then', async () => {
    const { replicas } = setup();
    const p0 = replicas.partition('t', 0)!;
    const p1 = replicas.partition('t', 1)!;
    const ac = new AbortController();
    let woken: boolean | null = null;
    const waiting = replicas.awaitChange([p0], 60_000, ac.signal).then((w) => {
      woken = w;
    });
    const b = batch(1);
    replicas.appendValidated(p1, b, scanBatches(b)); // another partition
    await Promise.resolve();
    expect(woken).toBeNull();
    expect(replicas.fetchPurgatory.watched(p0)).toBe(1);
    const c = batch(1);
    replicas.appendValidated(p0, c, scanBatches(c));
    await waiting;
    expect(woken).toBe(true);
    expect(replicas.fetchPurgatory.watched(p0)).toBe(0);
  });

  it('answers waiting fetches when their partitions are removed, and when the client goes away', async () => {
    const { replicas } = setup();
    const p0 = replicas.partition('t', 0)!;
    const ac = new AbortController();
    const removed = replicas.awaitChange([p0], 60_000, ac.signal);
    replicas.partitionsRemoved([p0]);
    await expect(removed).resolves.toBe(true);
    const aborted = replicas.awaitChange([p0], 60_000, ac.signal);
    ac.abort();
    await expect(aborted).resolves.toBe(false);
  });
});
