// The storage half of replication: a follower's log copies a leader's batches byte for byte
// (appendAsFollower), is cut back where it diverges (truncateTo) or started over (truncateFullyAndStartAt),
// and both keep their leader epochs (leader-epoch-checkpoint) through appends, truncation, deletion and
// restarts. "Leader" and "follower" are two PartitionLogs on real files in one temp dir.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../protocol/errors.js';
import { buildMarkerBatch } from '../../protocol/control-record.js';
import { scanBatches, setBaseOffset, setPartitionLeaderEpoch } from '../../protocol/record-batch.js';
import { PartitionLog, type PartitionLogOptions } from '../../src/storage/partition-log.js';
import { LEADER_EPOCH_CHECKPOINT } from '../../src/storage/leader-epoch-cache.js';
import { buildBatch, parseBatches, rmDir, tempDir, toAppend, type BatchSpec } from './batches.js';
import { expectKafkaError } from './partition-logs.js';

let root: string;
const opened: PartitionLog[] = [];

beforeEach(() => {
  root = tempDir();
});

afterEach(async () => {
  for (const l of opened.splice(0)) {
    if (!l.isClosed) l.close();
    await l.flushed();
  }
  rmDir(root);
});

function openLog(name: string, opts: PartitionLogOptions = {}): PartitionLog {
  const log = PartitionLog.open(path.join(root, name), { fileDeleteDelayMs: 60_000, ...opts });
  opened.push(log);
  return log;
}

const TRANSACTIONAL = 0x10;

/** A leader's append of one batch written in leader epoch `epoch` (as the log validator stamps it). */
function lead(log: PartitionLog, epoch: number, spec: BatchSpec & { transactional?: boolean } = {}) {
  const batch = buildBatch({ ...spec, attributes: spec.transactional ? TRANSACTIONAL : spec.attributes });
  setPartitionLeaderEpoch(batch, 0, epoch);
  const { buf, batches } = toAppend(batch);
  return log.append(
    buf,
    batches.map((b) => ({ ...b, isTransactional: spec.transactional === true })),
  );
}

function leadMarker(log: PartitionLog, epoch: number, producerId: number, commit: boolean) {
  const buf = buildMarkerBatch(producerId, 0, { commit, coordinatorEpoch: 0 }, 1_000);
  setPartitionLeaderEpoch(buf, 0, epoch);
  return log.append(buf, scanBatches(buf, { fromClient: false }));
}

/** What a follower's fetch loop does: read from its log end offset on the leader, append as follower, until level. */
function replicate(leader: PartitionLog, follower: PartitionLog, maxBytes = 1_000): void {
  for (let round = 0; follower.logEndOffset < leader.logEndOffset; round++) {
    if (round > 10_000) throw new Error('replication does not progress');
    const { records } = leader.read(follower.logEndOffset, maxBytes);
    follower.appendAsFollower(Buffer.concat(records));
  }
}

/** Every batch of the log, as stored (the .log files' bytes, in offset order). */
function logBytes(log: PartitionLog): Buffer {
  return Buffer.concat(log.read(log.logStartOffset, 1 << 30).records);
}

function segmentFiles(log: PartitionLog): string[] {
  return fs
    .readdirSync(log.dir)
    .filter((n) => n.endsWith('.log'))
    .sort();
}

const pairs = (log: PartitionLog) => log.leaderEpochs.entries().map((e) => [e.epoch, e.startOffset]);

describe('appendAsFollower', () => {
  it("copies a leader's log byte for byte, with the same offsets, epochs and producers", async () => {
    const leader = openLog('leader-0', { segmentBytes: 400 });
    const epochs = [0, 0, 1, 1, 1, 3, 3, 4, 4, 4, 4, 7];
    let seq = 0;
    epochs.forEach((epoch, i) => {
      lead(leader, epoch, { records: 1 + (i % 3), producerId: 9, producerEpoch: 0, baseSequence: seq });
      seq += 1 + (i % 3);
    });
    const follower = openLog('follower-0', { segmentBytes: 400 });
    replicate(leader, follower, 150);
    expect(follower.logEndOffset).toBe(leader.logEndOffset);
    expect(logBytes(follower).equals(logBytes(leader))).toBe(true);
    // The .log files themselves hold exactly those bytes.
    const files = segmentFiles(follower).map((n) => fs.readFileSync(path.join(follower.dir, n)));
    expect(Buffer.concat(files).equals(logBytes(leader))).toBe(true);
    expect(follower.segmentBaseOffsets().length).toBeGreaterThan(1);
    expect(pairs(follower)).toEqual(pairs(leader));
    expect(pairs(leader)).toEqual([
      [0, 0],
      [1, 3],
      [3, 9],
      [4, 13],
      [7, 21],
    ]);
    expect(follower.activeProducers()).toEqual(leader.activeProducers());
    expect(follower.endOffsetForEpoch(3)).toEqual({ leaderEpoch: 3, endOffset: 13 });
    expect(follower.endOffsetForEpoch(2)).toEqual({ leaderEpoch: 1, endOffset: 9 });
    expect(follower.endOffsetForEpoch(7)).toEqual({ leaderEpoch: 7, endOffset: leader.logEndOffset });
    // The offset index works on the copy: a read from the middle starts at the right batch.
    expect(parseBatches(follower.read(11, 1).records)[0]).toMatchObject({ baseOffset: 9 });
  });

  it('ignores a trailing partial batch and batches it already has; refuses an overlap of its log end', () => {
    const leader = openLog('leader-0');
    for (let i = 0; i < 3; i++) lead(leader, 2, { records: 2 });
    const bytes = logBytes(leader);
    const size = bytes.length / 3;
    const follower = openLog('follower-0');
    expect(follower.appendAsFollower(bytes.subarray(0, size + 20))).toEqual({ firstOffset: 0, lastOffset: 1 });
    expect(follower.appendAsFollower(bytes.subarray(0, 20))).toBeNull();
    expect(follower.appendAsFollower(Buffer.alloc(0))).toBeNull();
    expect(follower.appendAsFollower(bytes)).toEqual({ firstOffset: 2, lastOffset: 5 }); // the first batch is skipped
    expect(follower.appendAsFollower(bytes)).toBeNull();
    expect(logBytes(follower).equals(bytes)).toBe(true);
    // A batch straddling the log end (offsets 5-6 when the log ends at 6) cannot be placed.
    const straddling = buildBatch({ records: 2 });
    setBaseOffset(straddling, 0, 5);
    expectKafkaError(() => follower.appendAsFollower(straddling), ErrorCode.UNKNOWN_SERVER_ERROR);
    expect(follower.logEndOffset).toBe(6);
  });

  it('starts an empty log over at the base offset of a batch its start falls inside', () => {
    const batch = buildBatch({ records: 4 });
    setBaseOffset(batch, 0, 50);
    setPartitionLeaderEpoch(batch, 0, 2);
    const follower = openLog('follower-0');
    follower.truncateFullyAndStartAt(52); // the leader's log start, moved by DeleteRecords inside the batch 50-53
    expect(follower.appendAsFollower(batch)).toEqual({ firstOffset: 50, lastOffset: 53 });
    expect([follower.logStartOffset, follower.logEndOffset]).toEqual([50, 54]);
    expect(pairs(follower)).toEqual([[2, 50]]);
  });

  it('refuses a batch whose CRC does not match, writing nothing of the buffer', () => {
    const leader = openLog('leader-0');
    lead(leader, 0, { records: 2 });
    lead(leader, 0, { records: 2 });
    const bytes = Buffer.from(logBytes(leader));
    bytes[bytes.length - 3] ^= 0xff; // inside the second batch's records
    const follower = openLog('follower-0');
    expectKafkaError(() => follower.appendAsFollower(bytes), ErrorCode.CORRUPT_MESSAGE);
    expect(follower.logEndOffset).toBe(0);
    expect(follower.size).toBe(0);
  });

  it('refuses offsets that do not increase', () => {
    const a = buildBatch({ records: 2 });
    const b = buildBatch({ records: 2 });
    setBaseOffset(a, 0, 10);
    setBaseOffset(b, 0, 11);
    const follower = openLog('follower-0');
    expectKafkaError(() => follower.appendAsFollower(Buffer.concat([a, b])), ErrorCode.CORRUPT_MESSAGE);
    expect(follower.logEndOffset).toBe(0);
  });

  it('keeps the offset gaps of a compacted leader log, even past what one segment can span', () => {
    const at = (offset: number, records = 1, epoch = 1) => {
      const batch = buildBatch({ records });
      setBaseOffset(batch, 0, offset);
      setPartitionLeaderEpoch(batch, 0, epoch);
      return batch;
    };
    const follower = openLog('follower-0');
    expect(follower.appendAsFollower(Buffer.concat([at(0, 2), at(5), at(10, 3)]))).toEqual({ firstOffset: 0, lastOffset: 12 });
    expect(follower.logEndOffset).toBe(13);
    expect(parseBatches(follower.read(3, 1).records)[0].baseOffset).toBe(5); // a fetch in a gap starts at the next batch
    const far = 13 + 3_000_000_000;
    expect(follower.appendAsFollower(Buffer.concat([at(20, 1, 2), at(far, 1, 2)]))).toEqual({ firstOffset: 20, lastOffset: far });
    expect(follower.segmentBaseOffsets()).toEqual([0, far]);
    expect(follower.logEndOffset).toBe(far + 1);
    expect(pairs(follower)).toEqual([
      [1, 0],
      [2, 20],
    ]);
    follower.close();
    const reopened = openLog('follower-0');
    expect(reopened.logEndOffset).toBe(far + 1);
    expect(parseBatches(reopened.read(14, 1).records)[0].baseOffset).toBe(20);
  });

  it("updates the producers' transactions and the aborted-transaction index as the leader did", () => {
    const leader = openLog('leader-0', { segmentBytes: 300 });
    lead(leader, 0, { producerId: 1, producerEpoch: 0, baseSequence: 0, records: 2, transactional: true }); // 0-1
    lead(leader, 0, { producerId: 2, producerEpoch: 0, baseSequence: 0, records: 2, transactional: true }); // 2-3
    leadMarker(leader, 0, 1, false); // 4: producer 1 aborts
    lead(leader, 1, { producerId: 3, producerEpoch: 0, baseSequence: 0, records: 1, transactional: true }); // 5
    leadMarker(leader, 1, 2, true); // 6: producer 2 commits
    leadMarker(leader, 1, 3, false); // 7: producer 3 aborts
    lead(leader, 1, { producerId: 1, producerEpoch: 0, baseSequence: 2, records: 1, transactional: true }); // 8, left open
    const follower = openLog('follower-0', { segmentBytes: 300 });
    replicate(leader, follower, 100);
    const end = leader.logEndOffset;
    expect(follower.abortedTransactions(0, end)).toEqual(leader.abortedTransactions(0, end));
    expect(follower.abortedTransactions(0, end).map((t) => [t.producerId, t.firstOffset, t.lastOffset])).toEqual([
      [1, 0, 4],
      [3, 5, 7],
    ]);
    expect(follower.firstUnstableOffset()).toBe(8);
    expect(follower.activeProducers()).toEqual(leader.activeProducers());
    // Cut before producer 3's abort marker: its abort is forgotten and its transaction open again.
    expect(follower.truncateTo(7)).toBe(true);
    expect(follower.abortedTransactions(0, 7).map((t) => t.producerId)).toEqual([1]);
    expect(follower.firstUnstableOffset()).toBe(5);
    // Copying the rest again gives the leader's state back.
    replicate(leader, follower, 100);
    expect(follower.abortedTransactions(0, end)).toEqual(leader.abortedTransactions(0, end));
    expect(follower.firstUnstableOffset()).toBe(8);
  });
});

describe('truncateTo', () => {
  function leaderWithBatches(n: number, opts: PartitionLogOptions = {}): PartitionLog {
    const log = openLog('leader-0', opts);
    for (let i = 0; i < n; i++) lead(log, i < 3 ? 1 : 2, { records: 2 }); // batches at 0, 2, 4, ...
    return log;
  }

  it('is a no-op at or past the log end', () => {
    const log = leaderWithBatches(3);
    expect(log.truncateTo(6)).toBe(false);
    expect(log.truncateTo(60)).toBe(false);
    expect(log.logEndOffset).toBe(6);
  });

  it('at a batch boundary: the log ends exactly there; a batch holding the offset goes whole', () => {
    const log = leaderWithBatches(5);
    expect(pairs(log)).toEqual([
      [1, 0],
      [2, 6],
    ]);
    expect(log.truncateTo(6)).toBe(true);
    expect(log.logEndOffset).toBe(6);
    expect(pairs(log)).toEqual([[1, 0]]);
    expect(parseBatches(log.read(0, 1 << 20).records).map((b) => b.baseOffset)).toEqual([0, 2, 4]);
    expect(log.truncateTo(3)).toBe(true); // inside the batch 2-3, which goes whole
    expect(log.logEndOffset).toBe(2);
    // Appends continue from there, the leader epochs with them.
    expect(lead(log, 5, { records: 1 })).toEqual({ baseOffset: 2, lastOffset: 2 });
    expect(pairs(log)).toEqual([
      [1, 0],
      [5, 2],
    ]);
    expect(log.endOffsetForEpoch(1)).toEqual({ leaderEpoch: 1, endOffset: 2 });
    log.close();
    const reopened = openLog('leader-0');
    expect(reopened.logEndOffset).toBe(3);
    expect(pairs(reopened)).toEqual([
      [1, 0],
      [5, 2],
    ]);
  });

  it('in an earlier segment: the later segments go, the one holding the offset becomes active', () => {
    const log = leaderWithBatches(12, { segmentBytes: 250 });
    const bases = log.segmentBaseOffsets();
    expect(bases.length).toBeGreaterThan(3);
    const target = bases[1] + 2; // the second batch of the second segment
    const before = logBytes(log);
    const epochsKept = pairs(log).filter(([, start]) => start < target);
    expect(log.truncateTo(target)).toBe(true);
    expect(pairs(log)).toEqual(epochsKept);
    expect(log.logEndOffset).toBe(target);
    expect(log.segmentBaseOffsets()).toEqual(bases.slice(0, 2));
    expect(segmentFiles(log)).toEqual(bases.slice(0, 2).map((b) => `${String(b).padStart(20, '0')}.log`));
    expect(logBytes(log).equals(before.subarray(0, logBytes(log).length))).toBe(true);
    expect(log.recoveryPoint).toBeLessThanOrEqual(target);
    // The cut segment takes appends, and rolls again, as an active segment.
    for (let i = 0; i < 6; i++) lead(log, 4, { records: 2 });
    expect(log.logEndOffset).toBe(target + 12);
    expect(log.segmentBaseOffsets().length).toBeGreaterThan(2);
    const now = logBytes(log);
    log.close();
    const reopened = openLog('leader-0', { segmentBytes: 250 });
    expect(logBytes(reopened).equals(now)).toBe(true);
    expect(pairs(reopened)).toEqual([...epochsKept, [4, target]]);
    expect(reopened.offsetForTimestamp(0)).toEqual({ offset: 0, timestamp: 1_000 });
  });

  it('forgets the timestamps of the batches it removes', () => {
    const log = openLog('leader-0', { segmentBytes: 250 });
    [1_000, 9_000, 2_000, 3_000, 4_000].forEach((timestamp) => lead(log, 0, { records: 1, timestamp }));
    expect(log.maxTimestampOffset()).toEqual({ offset: 1, timestamp: 9_000 });
    log.truncateTo(1);
    expect(log.maxTimestampOffset()).toEqual({ offset: 0, timestamp: 1_000 });
    expect(log.offsetForTimestamp(5_000)).toBeNull();
    lead(log, 0, { records: 1, timestamp: 6_000 });
    expect(log.maxTimestampOffset()).toEqual({ offset: 1, timestamp: 6_000 });
    expect(log.offsetForTimestamp(5_000)).toEqual({ offset: 1, timestamp: 6_000 });
  });

  for (const cleanShutdown of [true, false]) {
    it(`works on segments a reopen has not read yet (${cleanShutdown ? 'clean shutdown' : 'after a crash'})`, () => {
      const log = leaderWithBatches(12, { segmentBytes: 250 });
      const bytes = logBytes(log);
      const bases = log.segmentBaseOffsets();
      log.close();
      const reopened = openLog('leader-0', { segmentBytes: 250, cleanShutdown, recoveryPoint: cleanShutdown ? 24 : bases[2] });
      expect(reopened.truncateTo(bases[1] + 2)).toBe(true);
      expect(reopened.logEndOffset).toBe(bases[1] + 2);
      const kept = logBytes(reopened);
      expect(kept.equals(bytes.subarray(0, kept.length))).toBe(true);
      expect(parseBatches(kept).at(-1)!.lastOffset).toBe(bases[1] + 1);
      expect(lead(reopened, 9, { records: 2 }).baseOffset).toBe(bases[1] + 2);
    });
  }

  it('below the log start offset: the log starts over there', () => {
    const log = leaderWithBatches(5, { segmentBytes: 250 });
    log.deleteRecordsBefore(5);
    expect(log.logStartOffset).toBe(5);
    expect(pairs(log)).toEqual([
      [1, 5],
      [2, 6],
    ]); // the start moved up in the epoch cache too
    expect(log.truncateTo(3)).toBe(true);
    expect(log.logStartOffset).toBe(3);
    expect(log.logEndOffset).toBe(3);
    expect(log.segmentBaseOffsets()).toEqual([3]);
    expect(pairs(log)).toEqual([]);
  });

  it("sets an idempotent producer's last sequence back, so the duplicate check is right afterwards", () => {
    const log = openLog('leader-0', { segmentBytes: 250 });
    const send = (seq: number) => lead(log, 0, { producerId: 7, producerEpoch: 0, baseSequence: seq, records: 1 });
    for (let seq = 0; seq < 8; seq++) send(seq); // offsets 0-7, several segments with snapshots
    const snapshotsBefore = fs.readdirSync(log.dir).filter((n) => n.endsWith('.snapshot'));
    expect(snapshotsBefore.length).toBeGreaterThan(0);
    expect(send(4)).toMatchObject({ baseOffset: 4, duplicate: true }); // before: a retry
    expect(log.truncateTo(4)).toBe(true);
    expect(log.activeProducers()[0].lastSequence).toBe(3);
    for (const name of fs.readdirSync(log.dir).filter((n) => n.endsWith('.snapshot'))) expect(Number(name.slice(0, 20))).toBeLessThanOrEqual(4);
    expect(send(3)).toMatchObject({ baseOffset: 3, duplicate: true }); // still here: still a retry
    expect(send(4)).toEqual({ baseOffset: 4, lastOffset: 4 }); // gone: appended anew
    expectKafkaError(() => send(6), ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
    log.close();
    const reopened = openLog('leader-0', { segmentBytes: 250 });
    expect(reopened.activeProducers()[0].lastSequence).toBe(4);
  });
});

describe('truncateFullyAndStartAt', () => {
  it('empties the log, producers and epochs, and starts it at the offset', () => {
    const log = openLog('follower-0', { segmentBytes: 250 });
    for (let seq = 0; seq < 6; seq++) lead(log, 1, { producerId: 7, producerEpoch: 0, baseSequence: seq, records: 1 });
    log.truncateFullyAndStartAt(100);
    expect([log.logStartOffset, log.logEndOffset, log.recoveryPoint]).toEqual([100, 100, 100]);
    expect(log.segmentBaseOffsets()).toEqual([100]);
    expect(segmentFiles(log)).toEqual(['00000000000000000100.log']);
    expect(fs.readdirSync(log.dir).filter((n) => n.endsWith('.snapshot'))).toEqual([]);
    expect(log.activeProducers()).toEqual([]);
    expect(pairs(log)).toEqual([]);
    const batch = buildBatch({ records: 2 });
    setBaseOffset(batch, 0, 100);
    setPartitionLeaderEpoch(batch, 0, 3);
    expect(log.appendAsFollower(batch)).toEqual({ firstOffset: 100, lastOffset: 101 });
    log.close();
    const reopened = openLog('follower-0');
    expect([reopened.logStartOffset, reopened.logEndOffset]).toEqual([100, 102]);
    expect(pairs(reopened)).toEqual([[3, 100]]);
  });
});

describe('the leader epoch checkpoint of a partition log', () => {
  function withEpochs(): PartitionLog {
    const log = openLog('leader-0', { segmentBytes: 250 });
    [0, 0, 2, 2, 5, 5, 5].forEach((epoch) => lead(log, epoch, { records: 2 }));
    return log;
  }

  it('survives a clean reopen and a crash', () => {
    const log = withEpochs();
    expect(pairs(log)).toEqual([
      [0, 0],
      [2, 4],
      [5, 8],
    ]);
    log.close();
    expect(pairs(openLog('leader-0', { cleanShutdown: true }))).toEqual([
      [0, 0],
      [2, 4],
      [5, 8],
    ]);
    opened.pop()!.close();
    expect(pairs(openLog('leader-0'))).toEqual([
      [0, 0],
      [2, 4],
      [5, 8],
    ]);
  });

  it('is rebuilt from the batch headers when the file is missing or unreadable', () => {
    const log = withEpochs();
    log.close();
    const file = path.join(log.dir, LEADER_EPOCH_CHECKPOINT);
    fs.rmSync(file);
    const rebuilt = openLog('leader-0', { cleanShutdown: true });
    expect(pairs(rebuilt)).toEqual([
      [0, 0],
      [2, 4],
      [5, 8],
    ]);
    expect(fs.readFileSync(file, 'utf8')).toBe('0\n3\n0 0\n2 4\n5 8\n');
    rebuilt.close();
    fs.writeFileSync(file, 'not a checkpoint');
    expect(pairs(openLog('leader-0', { cleanShutdown: true }))).toEqual([
      [0, 0],
      [2, 4],
      [5, 8],
    ]);
  });

  it('follows the log start offset when segments are deleted', () => {
    const log = withEpochs();
    const bases = log.segmentBaseOffsets();
    log.deleteOldestSegments(2);
    expect(log.logStartOffset).toBe(bases[2]);
    expect(pairs(log)[0][1]).toBe(bases[2]);
    log.close();
    expect(pairs(openLog('leader-0'))[0][1]).toBe(bases[2]);
  });
});
