// Retention on real files (storage/retention.ts over partition-log.ts): by time, by size, below the log
// start offset, the segment.ms roll of a quiet log, the cleanup policy, and what reads see afterwards.
// Deletion itself (the .deleted rename, removal after the delay, leftovers at open) is in
// retention-deletion.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../protocol/errors.js';
import type { PartitionLog } from '../../src/storage/partition-log.js';
import { deleteOldSegments, type RetentionConfig } from '../../src/storage/retention.js';
import { buildBatch, parseBatches, toAppend } from './batches.js';
import { expectKafkaError, usePartitionLogs } from './partition-logs.js';

/** One batch of one 150-byte record per segment: an append to a non-empty segment rolls. */
const logs = usePartitionLogs({ segmentBytes: 300, fileDeleteDelayMs: 60_000 });
const openLog = logs.open;
const dir = () => logs.dir();

/** Appends one batch per timestamp (so one segment each). */
function appendAt(log: PartitionLog, timestamps: number[]): void {
  for (const timestamp of timestamps) {
    const { buf, batches } = toAppend(buildBatch({ records: 1, valueSize: 150, timestamp }));
    log.append(buf, batches);
  }
}

const DELETE: RetentionConfig = { cleanupPolicy: ['delete'], retentionMs: -1, retentionBytes: -1 };

function logFiles(): string[] {
  return fs
    .readdirSync(dir())
    .filter((n) => n.endsWith('.log'))
    .sort();
}

const expectOutOfRange = (fn: () => unknown) => expectKafkaError(fn, ErrorCode.OFFSET_OUT_OF_RANGE);

describe('retention by time', () => {
  it('deletes the closed segments whose largest timestamp is older than retention.ms, never renumbering', () => {
    const log = openLog();
    appendAt(log, [1_000, 2_000, 3_000, 9_000, 9_500]);
    expect(log.segmentBaseOffsets()).toEqual([0, 1, 2, 3, 4]);
    // now - 3_000 = 7_000 > 5_000, now - 9_000 = 1_000: segments 0..2 go.
    expect(deleteOldSegments(log, { ...DELETE, retentionMs: 5_000 }, 10_000)).toBe(3);
    expect(log.segmentBaseOffsets()).toEqual([3, 4]);
    expect(log.logStartOffset).toBe(3);
    expect(log.logEndOffset).toBe(5);
    expect(logFiles()).toEqual(['00000000000000000003.log', '00000000000000000004.log']);
    expect(parseBatches(log.read(3, 1 << 20).records).map((b) => b.baseOffset)).toEqual([3, 4]);
    expectOutOfRange(() => log.read(2, 1 << 20));
    // Offsets go on from the log end.
    appendAt(log, [9_900]);
    expect(log.logEndOffset).toBe(6);
  });

  it('stops at the first segment that is not old enough, as Kafka does', () => {
    const log = openLog();
    appendAt(log, [1_000, 9_000, 1_000, 9_600]);
    expect(deleteOldSegments(log, { ...DELETE, retentionMs: 5_000 }, 10_000)).toBe(1);
    expect(log.segmentBaseOffsets()).toEqual([1, 2, 3]);
    expect(log.logStartOffset).toBe(1);
  });

  it('when every segment has expired, rolls the active one and deletes them all: start = end, offsets kept', () => {
    const log = openLog();
    appendAt(log, [1_000, 2_000, 3_000]);
    expect(deleteOldSegments(log, { ...DELETE, retentionMs: 100 }, 10_000)).toBe(3);
    expect(log.segmentBaseOffsets()).toEqual([3]);
    expect(log.logStartOffset).toBe(3);
    expect(log.logEndOffset).toBe(3);
    expect(log.read(3, 1 << 20).records).toEqual([]);
    // An empty active segment is never deleted: a second pass changes nothing.
    expect(deleteOldSegments(log, { ...DELETE, retentionMs: 100 }, 20_000)).toBe(0);
    expect(log.segmentBaseOffsets()).toEqual([3]);
  });

  it('retention.ms -1 keeps everything', () => {
    const log = openLog();
    appendAt(log, [1, 2, 3]);
    expect(deleteOldSegments(log, DELETE, Number.MAX_SAFE_INTEGER)).toBe(0);
    expect(log.logStartOffset).toBe(0);
  });

  it('a segment without record timestamps ages by its file modification time', () => {
    const log = openLog();
    appendAt(log, [-1, -1, Date.now()]);
    const old = new Date(Date.now() - 3_600_000);
    for (const name of ['00000000000000000000.log', '00000000000000000001.log']) fs.utimesSync(path.join(dir(), name), old, old);
    expect(deleteOldSegments(log, { ...DELETE, retentionMs: 60_000 }, Date.now())).toBe(2);
    expect(log.logStartOffset).toBe(2);
  });
});

describe('retention by size', () => {
  it('deletes the oldest segments while the log stays at least retention.bytes without them', () => {
    const log = openLog();
    appendAt(log, [1, 2, 3, 4, 5]);
    const segmentSize = log.size / 5;
    // Room for 2.5 segments: the log keeps 3 (it may stay above the limit, never below it).
    expect(deleteOldSegments(log, { ...DELETE, retentionBytes: Math.floor(segmentSize * 2.5) }, 10)).toBe(2);
    expect(log.segmentBaseOffsets()).toEqual([2, 3, 4]);
    expect(log.logStartOffset).toBe(2);
    expect(log.size).toBe(segmentSize * 3);
    expect(deleteOldSegments(log, { ...DELETE, retentionBytes: Math.floor(segmentSize * 2.5) }, 10)).toBe(0);
  });

  it('retention.bytes 0 empties the log (the active segment is rolled first)', () => {
    const log = openLog();
    appendAt(log, [1, 2]);
    expect(deleteOldSegments(log, { ...DELETE, retentionBytes: 0 }, 10)).toBe(2);
    expect(log.logStartOffset).toBe(2);
    expect(log.logEndOffset).toBe(2);
    expect(log.size).toBe(0);
  });
});

describe('retention below the log start offset', () => {
  it('deletes the segments wholly below a log start offset from the checkpoint, whatever the cleanup policy', () => {
    let log = openLog();
    appendAt(log, [1, 2, 3, 4]);
    log.close();
    // The checkpoint says 2.5 records were deleted (a DeleteRecords the segments were not yet gone for).
    log = openLog({ logStartOffset: 2 });
    expect(log.segmentBaseOffsets()).toEqual([0, 1, 2, 3]);
    expect(deleteOldSegments(log, { cleanupPolicy: ['compact'], retentionMs: 1, retentionBytes: 0 }, 10)).toBe(2);
    expect(log.segmentBaseOffsets()).toEqual([2, 3]);
    expect(log.logStartOffset).toBe(2);
  });

  it('a log start offset inside a segment keeps that segment; reads below it are OFFSET_OUT_OF_RANGE', () => {
    const log = openLog({ segmentBytes: 1 << 20 });
    appendAt(log, [1, 2, 3, 4]);
    expect(log.deleteRecordsBefore(2)).toBe(2);
    expect(log.segmentBaseOffsets()).toEqual([0]);
    expectOutOfRange(() => log.read(1, 1 << 20));
    // The first batch returned may start below the fetch offset, as Kafka's does.
    expect(parseBatches(log.read(2, 1 << 20).records).map((b) => b.baseOffset)).toEqual([2, 3]);
  });
});

describe('cleanup.policy', () => {
  it('compact alone: no time or size retention', () => {
    const log = openLog();
    appendAt(log, [1, 2, 3]);
    expect(deleteOldSegments(log, { cleanupPolicy: ['compact'], retentionMs: 1, retentionBytes: 0 }, 1e12)).toBe(0);
    expect(deleteOldSegments(log, { cleanupPolicy: ['compact', 'delete'], retentionMs: 1, retentionBytes: -1 }, 1e12)).toBe(3);
  });
});

describe('segment.ms and a quiet log', () => {
  it('the retention pass rolls an active segment older than segment.ms, so its records can age out', () => {
    let clock = 1_000_000;
    const log = openLog({ segmentBytes: 1 << 20, segmentMs: 60_000, now: () => clock });
    appendAt(log, [clock, clock, clock]);
    expect(log.segmentBaseOffsets()).toEqual([0]);
    // Young: nothing rolls, nothing goes.
    expect(deleteOldSegments(log, { ...DELETE, retentionMs: 600_000 }, clock + 1_000)).toBe(0);
    expect(log.segmentBaseOffsets()).toEqual([0]);
    // Older than segment.ms: rolled, kept (within retention.ms).
    clock += 120_000;
    expect(deleteOldSegments(log, { ...DELETE, retentionMs: 600_000 }, clock)).toBe(0);
    expect(log.segmentBaseOffsets()).toEqual([0, 3]);
    // Past retention.ms: the closed segment goes.
    clock += 600_000;
    expect(deleteOldSegments(log, { ...DELETE, retentionMs: 600_000 }, clock)).toBe(1);
    expect(log.segmentBaseOffsets()).toEqual([3]);
    expect(log.logStartOffset).toBe(3);
    expect(log.logEndOffset).toBe(3);
  });
});
