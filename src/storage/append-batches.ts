// What the partition log's two appends write, checked before anything is: a leader's batches (from a
// producer or a coordinator, offsets assigned by the log) must lie back to back in their buffer; a
// follower's (a Fetch response's records, offsets set by the leader) are the whole batches of the buffer (a
// fetch may end in a partial one, ignored), each header checked, those wholly below the log end offset
// skipped (already here). The first batch a follower keeps must start at or after the log end offset
// (offsets may jump: a compacted leader log has gaps) and offsets must increase, else nothing is appended.
// Either way the batches become one write to the active segment (segment.ts's SegmentAppendBatch list).

import { KafkaError } from '../../protocol/errors.js';
import { LOG_OVERHEAD, RECORD_BATCH_OVERHEAD as HEADER_SIZE, scanBatches, type BatchInfo } from '../../protocol/record-batch.js';
import { headerProblem } from './batch-header.js';
import type { SegmentAppendBatch } from './segment.js';

const INT32_MAX = 0x7fffffff;

/** A batch inside the buffer given to PartitionLog.append() (the shape log-validator's BatchInfo has). */
export interface AppendBatchInfo {
  position: number;
  size: number;
  lastOffsetDelta: number;
  recordCount: number;
  maxTimestamp: number;
  /** Set (>= 0) for an idempotent or transactional producer's batch; absent or -1 otherwise. */
  producerId?: number;
  producerEpoch?: number;
  baseSequence?: number;
  isTransactional?: boolean;
  /** A control batch: a transaction marker, written by the broker only. */
  isControl?: boolean;
}

/** One write to the active segment: its bytes (a view of the buffer given, not a copy) and their batches. */
export interface SegmentWrite {
  bytes: Buffer;
  batches: SegmentAppendBatch[];
  /** The last offset written. */
  lastOffset: number;
}

/** A leader's batches as one write, their offsets counted from `baseOffset`; CORRUPT_MESSAGE when misplaced. */
export function leaderWrite(buf: Buffer, batches: readonly AppendBatchInfo[], baseOffset: number): SegmentWrite {
  const start = batches[0].position;
  let expected = start;
  let next = baseOffset;
  const segBatches: SegmentAppendBatch[] = [];
  for (const b of batches) {
    if (b.position !== expected) throw new KafkaError('CORRUPT_MESSAGE', 'batches to append are not contiguous');
    if (b.size < HEADER_SIZE || b.position + b.size > buf.length) throw new KafkaError('CORRUPT_MESSAGE', 'batch extends past the buffer');
    if (b.lastOffsetDelta < 0) throw new KafkaError('CORRUPT_MESSAGE', `negative lastOffsetDelta ${b.lastOffsetDelta}`);
    const last = next + b.lastOffsetDelta;
    segBatches.push({ position: b.position - start, size: b.size, lastOffset: last, maxTimestamp: b.maxTimestamp });
    next = last + 1;
    expected += b.size;
  }
  return { bytes: buf.subarray(start, expected), batches: segBatches, lastOffset: next - 1 };
}

/** The batches to append, in `data` (the whole batches of the buffer fetched), or where to start over. */
export type FetchedBatches = { data: Buffer; kept: BatchInfo[] } | { restartAt: number };

/**
 * Null when there is nothing to append. When the first new batch starts below `logEnd` and `mayRestart`
 * (the log is empty), the log should start over at that batch's base offset: `restartAt`. Otherwise such
 * overlaps throw UNKNOWN_SERVER_ERROR ("unexpected append offset"), a header that makes no sense or batches
 * out of order CORRUPT_MESSAGE.
 */
export function fetchedBatchesToAppend(buf: Buffer, logEnd: number, mayRestart: boolean, partition: string): FetchedBatches | null {
  let end = 0;
  while (end + LOG_OVERHEAD <= buf.length) {
    const size = LOG_OVERHEAD + buf.readInt32BE(end + 8);
    if (size < HEADER_SIZE) throw new KafkaError('CORRUPT_MESSAGE', `batch at ${end} of a fetched buffer declares size ${size}`);
    if (end + size > buf.length) break;
    end += size;
  }
  if (end === 0) return null;
  const data = buf.subarray(0, end);
  const kept: BatchInfo[] = [];
  let next = logEnd;
  for (const b of scanBatches(data, { fromClient: false })) {
    const problem = headerProblem(b);
    if (problem) throw new KafkaError('CORRUPT_MESSAGE', `fetched batch at ${b.position}: ${problem}`);
    const last = b.baseOffset + b.lastOffsetDelta;
    if (kept.length === 0 && last < logEnd) continue;
    if (b.baseOffset < next) {
      if (kept.length === 0 && mayRestart) return { restartAt: b.baseOffset };
      if (kept.length === 0) {
        throw new KafkaError(
          'UNKNOWN_SERVER_ERROR',
          `unexpected append offset: fetched batch [${b.baseOffset}, ${last}] overlaps the log end offset ${logEnd} of ${partition}`,
        );
      }
      throw new KafkaError('CORRUPT_MESSAGE', `fetched batches out of order: ${b.baseOffset} follows ${next - 1}`);
    }
    kept.push(b);
    next = last + 1;
  }
  return kept.length === 0 ? null : { data, kept };
}

/**
 * The follower's kept batches (consecutive in `data`) as `kept.slice(from, to)` writes: one, unless their
 * offsets are too far apart for one segment (a compacted log's gaps), then one per batch.
 */
export function followerWrites(data: Buffer, kept: readonly BatchInfo[]): (SegmentWrite & { from: number; to: number })[] {
  const span = kept[kept.length - 1].baseOffset + kept[kept.length - 1].lastOffsetDelta - kept[0].baseOffset;
  const runs = span > INT32_MAX ? kept.map((_, i) => [i, i + 1]) : [[0, kept.length]];
  return runs.map(([from, to]) => {
    const run = kept.slice(from, to);
    const start = run[0].position;
    const last = run[run.length - 1];
    const batches = run.map((b) => ({
      position: b.position - start,
      size: b.size,
      lastOffset: b.baseOffset + b.lastOffsetDelta,
      maxTimestamp: b.maxTimestamp,
    }));
    return { from, to, bytes: data.subarray(start, last.position + last.size), batches, lastOffset: last.baseOffset + last.lastOffsetDelta };
  });
}
