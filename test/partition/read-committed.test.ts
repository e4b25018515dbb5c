// read_committed reads of a partition: they stop at the last stable offset and name the aborted transactions
// whose records they return; read_uncommitted reads see everything and get no list.
import { afterEach, describe, expect, it } from 'vitest';
import { buildBatch, scanBatches } from '../../protocol/record-batch.js';
import { buildMarkerBatch } from '../../protocol/control-record.js';
import { LogManager } from '../../src/storage/log-manager.js';
import { ReplicaManager } from '../../src/partition/replica-manager.js';
import type { Partition } from '../../src/partition/partition.js';
import { useTempDirs } from '../helpers.js';

const newDir = useTempDirs('krill-read-committed-');
const opened: LogManager[] = [];
afterEach(() => {
  for (const l of opened.splice(0)) l.close();
});

function setup() {
  const logs = LogManager.open({ dataDir: newDir() });
  opened.push(logs);
  logs.createTopic('t', 1);
  const replicas = new ReplicaManager(logs, 1);
  return { replicas, p: replicas.partition('t', 0)! };
}

function append(replicas: ReplicaManager, p: Partition, buf: Buffer) {
  return replicas.appendValidated(p, buf, scanBatches(buf, { fromClient: false }));
}

const txn = (producerId: number, baseSequence: number, n = 2) =>
  buildBatch(
    Array.from({ length: n }, (_, i) => ({ value: `p${producerId}-${baseSequence + i}`, timestamp: 1_000 })),
    { producerId, producerEpoch: 0, baseSequence, isTransactional: true },
  );

const offsetsOf = (records: Buffer[]) => records.flatMap((c) => scanBatches(c, { fromClient: false }).map((b) => b.baseOffset));

describe('read_committed', () => {
  it('stops at the first open transaction, then reads on once it ends, listing aborted transactions', () => {
    const { replicas, p } = setup();
    append(replicas, p, buildBatch([{ value: 'plain' }])); // 0
    append(replicas, p, txn(7, 0)); // 1-2, open
    append(replicas, p, txn(8, 0)); // 3-4, open
    expect([p.highWatermark, p.lastStableOffset]).toEqual([5, 1]);
    const early = p.read(0, 1 << 20, true, true);
    expect(offsetsOf(early.records)).toEqual([0]);
    expect(early.abortedTransactions).toEqual([]);
    const uncommitted = p.read(0, 1 << 20, true, false);
    expect(offsetsOf(uncommitted.records)).toEqual([0, 1, 3]);
    expect(uncommitted.abortedTransactions).toBeNull();

    append(replicas, p, buildMarkerBatch(7, 0, { commit: false, coordinatorEpoch: 0 })); // 5: abort 7
    expect(p.lastStableOffset).toBe(3); // producer 8's transaction is still open
    append(replicas, p, buildMarkerBatch(8, 0, { commit: true, coordinatorEpoch: 0 })); // 6: commit 8
    expect(p.lastStableOffset).toBe(7);
    const all = p.read(0, 1 << 20, true, true);
    expect(offsetsOf(all.records)).toEqual([0, 1, 3, 5, 6]);
    expect(all.abortedTransactions).toEqual([{ producerId: 7, firstOffset: 1 }]);
    expect(p.read(6, 1 << 20, true, true).abortedTransactions).toEqual([]);
  });
});
