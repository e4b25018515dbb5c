// Idempotent producers' state in a partition log: retries recognised, gaps and stale epochs refused, and
// the state kept across a clean close and a crash (snapshot files plus a replay of the log).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import { PartitionLog, type PartitionLogOptions } from '../../src/storage/partition-log.js';
import { buildBatch, parseBatches, rmDir, tempDir, toAppend } from './batches.js';
import { marker, produce } from './cleaner-helpers.js';

let root: string;
let dir: string;
const open: PartitionLog[] = [];

beforeEach(() => {
  root = tempDir();
  dir = path.join(root, 'topic-0');
});

afterEach(async () => {
  for (const l of open.splice(0)) {
    if (!l.isClosed) l.close();
    await l.flushed();
  }
  rmDir(root);
});

function openLog(opts: PartitionLogOptions = {}): PartitionLog {
  const log = PartitionLog.open(dir, opts);
  open.push(log);
  return log;
}

const PID = 4000;

function send(log: PartitionLog, baseSequence: number, records = 2, producerEpoch = 0, producerId = PID) {
  const { buf, batches } = toAppend(buildBatch({ records, producerId, producerEpoch, baseSequence }));
  return log.append(buf, batches);
}

function errorCodeOf(fn: () => unknown): number {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(KafkaError);
    return (err as KafkaError).code;
  }
  throw new Error('expected a KafkaError');
}

function recordCount(log: PartitionLog): number {
  return parseBatches(log.read(log.logStartOffset, 1 << 24).records).reduce((n, b) => n + b.lastOffset - b.baseOffset + 1, 0);
}

const snapshots = () =>
  fs
    .readdirSync(dir)
    .filter((n) => n.endsWith('.snapshot'))
    .sort();

describe('producer state of a partition', () => {
  it('answers a retry of any of the last 5 batches with its first offsets and writes nothing', () => {
    const log = openLog();
    const firsts = [0, 2, 4, 6, 8, 10].map((seq) => send(log, seq));
    expect(firsts.map((r) => r.baseOffset)).toEqual([0, 2, 4, 6, 8, 10]);
    expect(send(log, 4)).toEqual({ baseOffset: 4, lastOffset: 5, duplicate: true, duplicateTimestamp: expect.any(Number) });
    expect(send(log, 10)).toEqual({ baseOffset: 10, lastOffset: 11, duplicate: true, duplicateTimestamp: expect.any(Number) });
    expect(log.logEndOffset).toBe(12);
    // The oldest batch is no longer remembered: its retry is out of sequence.
    expect(errorCodeOf(() => send(log, 0))).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
    expect(recordCount(log)).toBe(12);
  });

  it('refuses a gap, a stale epoch, and a new epoch not starting at 0; accepts an unknown producer at any sequence', () => {
    const log = openLog();
    send(log, 0);
    expect(errorCodeOf(() => send(log, 5))).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
    send(log, 0, 1, 1); // epoch 1 from sequence 0
    expect(errorCodeOf(() => send(log, 1, 1, 0))).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
    expect(errorCodeOf(() => send(log, 3, 1, 2))).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
    expect(send(log, 7, 1, 0, PID + 1).duplicate).toBeUndefined();
    expect(send(log, 8, 1, 0, PID + 1).baseOffset).toBe(4);
    expect(log.logEndOffset).toBe(5);
  });

  it('keeps the state across a clean close (a snapshot at the log end) and a crash (a replay of the log)', () => {
    let log = openLog();
    send(log, 0);
    send(log, 2);
    log.close();
    expect(snapshots()).toEqual(['00000000000000000004.snapshot']);
    log = openLog({ cleanShutdown: true });
    expect(send(log, 2)).toEqual({ baseOffset: 2, lastOffset: 3, duplicate: true, duplicateTimestamp: expect.any(Number) });
    send(log, 4);
    // A crash: no close, so no snapshot at the new log end; reopening replays what follows the snapshot.
    log = openLog({ cleanShutdown: false });
    expect(send(log, 4)).toEqual({ baseOffset: 4, lastOffset: 5, duplicate: true, duplicateTimestamp: expect.any(Number) });
    expect(errorCodeOf(() => send(log, 9))).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
    expect(send(log, 6).baseOffset).toBe(6);
  });

  it('rebuilds the state of a partition that crashed before any snapshot, and writes no snapshot where no producer wrote', () => {
    let log = openLog();
    send(log, 0, 3);
    log = openLog({ cleanShutdown: false }); // crashed: the first log was never closed
    expect(send(log, 0, 3)).toEqual({ baseOffset: 0, lastOffset: 2, duplicate: true, duplicateTimestamp: expect.any(Number) });
    const plainDir = dir;
    dir = path.join(root, 'plain-0');
    const plain = openLog();
    const { buf, batches } = toAppend(buildBatch({ records: 2 }));
    plain.append(buf, batches);
    plain.close();
    expect(snapshots()).toEqual([]);
    dir = plainDir;
  });

  it('writes a snapshot at each roll, keeps the newest two, and drops a damaged or too-new one', () => {
    let log = openLog({ segmentBytes: 200 });
    for (let seq = 0; seq < 10; seq += 2) send(log, seq, 2);
    expect(log.segmentBaseOffsets().length).toBeGreaterThan(2);
    expect(snapshots().length).toBe(2);
    log.close();
    const newest = snapshots().at(-1)!;
    expect(newest).toBe('00000000000000000010.snapshot');
    fs.writeFileSync(path.join(dir, newest), Buffer.from('garbage'));
    fs.writeFileSync(path.join(dir, '00000000000000000099.snapshot'), Buffer.alloc(10));
    log = openLog({ cleanShutdown: true, segmentBytes: 200 });
    expect(snapshots()).not.toContain('00000000000000000099.snapshot');
    expect(snapshots()).not.toContain(newest);
    expect(send(log, 8)).toEqual({ baseOffset: 8, lastOffset: 9, duplicate: true, duplicateTimestamp: expect.any(Number) });
    expect(send(log, 10).baseOffset).toBe(10);
  });

  it('forgets producers whose last batch is older than the expiration', () => {
    const log = openLog();
    send(log, 0); // record timestamps are 1000 (test batches)
    expect(log.expireProducers(1000)).toBe(0);
    expect(log.expireProducers(1001)).toBe(1);
    expect(send(log, 9).duplicate).toBeUndefined(); // unknown again: any sequence
  });

  it("reports an open transaction's first offset and the coordinator epoch of the last marker (DescribeProducers)", () => {
    const log = openLog();
    const describe = () =>
      log.activeProducers().map(({ producerId, coordinatorEpoch, currentTxnStartOffset }) => ({ producerId, coordinatorEpoch, currentTxnStartOffset }));
    produce(log, [{ key: 'plain', value: 'x' }]); // 0
    produce(log, [{ key: 'k', value: 'a' }], { producerId: PID, producerEpoch: 0, baseSequence: 0, isTransactional: true }); // 1
    produce(log, [{ key: 'k', value: 'b' }], { producerId: PID, producerEpoch: 0, baseSequence: 1, isTransactional: true }); // 2
    expect(describe()).toEqual([{ producerId: PID, coordinatorEpoch: -1, currentTxnStartOffset: 1 }]);
    marker(log, PID, false); // 3, from coordinator epoch 0
    expect(describe()).toEqual([{ producerId: PID, coordinatorEpoch: 0, currentTxnStartOffset: -1 }]);
  });
});
