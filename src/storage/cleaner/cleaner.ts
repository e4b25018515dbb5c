// One cleaning pass over one log (Kafka's Cleaner.doClean):
//   1. the key map: for every key of the dirty range [first dirty offset, first uncleanable offset), the
//      offset of its latest record, skipping markers and aborted transactions' batches; when the map is
//      full, the pass cleans only up to the end of the last batch it took in whole (the next pass goes on);
//   2. the log is rewritten from its first segment up to the end of what the map covers, in groups of
//      consecutive segments that together stay within segment.bytes (Kafka's groupSegmentsBySize), each
//      group into one cleaned segment, each batch kept, rebuilt or removed as batch-filter.ts says;
//   3. each cleaned segment is swapped in for its group (swap.ts, replace-segments.ts), with the
//      modification time of the group's last segment (time retention may go by it).
// A group is rewritten whole, so past the pass's end offset when that falls inside its last segment: the
// aborted transactions the batch filter is told of are those of the group's whole offset range, up to the
// next segment's base (Kafka's cleanSegments), else an aborted transaction beginning past the end offset
// would have its batches kept as committed and its marker dropped from the .txnindex. Records past the key
// map's end are kept (batch-filter.ts), whatever their key.
// The active segment is never read or written. Work is done a chunk (64 KiB of log) at a time, with a turn
// of the event loop between chunks, so that produce and fetch wait for one chunk at most.
// Stopping (broker shutdown), the log closing, or its segments changing under the pass (retention) give the
// pass up: its .cleaned files are removed, and the log is as it was.

import fs from '../storage-fs.js';
import { readMarker } from '../../../protocol/control-record.js';
import { MAX_TIMESTAMP_OFFSET, decodeBatch } from '../../../protocol/record-batch.js';
import { readInt64At } from '../../../protocol/primitives.js';
import type { LogConfig } from '../../log-config.js';
import type { PartitionLog } from '../partition-log.js';
import type { Segment } from '../segment.js';
import { filterBatch, placeholderBatch, type FilterContext } from './batch-filter.js';
import { CleanedSegment } from './cleaned-segment.js';
import type { CleanableRange } from './cleanable.js';
import { OffsetMap } from './offset-map.js';
import { readBatchChunk } from './segment-batches.js';
import { cleanedToSwap, discardSwap } from './swap.js';
import { CleanedTransactionMetadata } from './transactions.js';

const CHUNK_BYTES = 1 << 16;
const INT32_MAX = 0x7fffffff;

export interface CleanOptions {
  now: () => number;
  /** This pass's share of log.cleaner.dedupe.buffer.size. */
  dedupeBufferBytes: number;
  /** Checked between chunks: true gives the pass up. */
  shouldStop: () => boolean;
  chunkBytes?: number;
}

export interface CleanResult {
  /** The first offset not cleaned: the next pass's first dirty offset. */
  endOffset: number;
  /** The earliest delete horizon of a batch left with tombstones or a removable marker, or null. */
  deleteHorizon: number | null;
  recordsRead: number;
  recordsRemoved: number;
  bytesRead: number;
  bytesWritten: number;
  segmentsCleaned: number;
}

/** Thrown when a pass is given up (not a failure). */
export class CleaningAborted extends Error {}

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function cleanLog(log: PartitionLog, config: LogConfig, range: CleanableRange, options: CleanOptions): Promise<CleanResult> {
  const firstBase = log.segmentList()[0].baseOffset;
  try {
    return await cleanLogSegments(log, config, range, options);
  } catch (err) {
    // A segment read after retention or DeleteRecords removed it (closed under the pass): not the log's fault.
    if (!(err instanceof CleaningAborted) && (log.isClosed || log.segmentList()[0].baseOffset !== firstBase)) {
      throw new CleaningAborted(`the segments of ${log.dir} changed during cleaning`);
    }
    throw err;
  }
}

async function cleanLogSegments(log: PartitionLog, config: LogConfig, range: CleanableRange, options: CleanOptions): Promise<CleanResult> {
  const truncations = log.truncationCount;
  const check = () => {
    if (options.shouldStop() || log.isClosed) throw new CleaningAborted(`cleaning of ${log.dir} given up`);
    // A follower's log cut back under the pass: the segments read may hold other batches now.
    if (log.truncationCount !== truncations) throw new CleaningAborted(`the log ${log.dir} was truncated during cleaning`);
  };
  const chunkBytes = options.chunkBytes ?? CHUNK_BYTES;
  const map = OffsetMap.forBufferSize(options.dedupeBufferBytes);
  const full = await buildOffsetMap(log, range, map, chunkBytes, check);
  map.latestOffset = Math.max(map.latestOffset, range.firstDirtyOffset - 1);
  const endOffset = full ? map.latestOffset + 1 : range.firstUncleanableOffset;
  if (full && endOffset <= range.firstDirtyOffset) {
    throw new Error(`log.cleaner.dedupe.buffer.size holds ${map.maxEntries} keys, too few for the batch at offset ${range.firstDirtyOffset} of ${log.dir}`);
  }
  if (!full) map.latestOffset = Math.max(map.latestOffset, endOffset - 1);

  const segments = log.segmentList();
  const toClean = segments.slice(0, -1).filter((s) => s.baseOffset < endOffset);
  const result: CleanResult = {
    endOffset,
    deleteHorizon: null,
    recordsRead: 0,
    recordsRemoved: 0,
    bytesRead: 0,
    bytesWritten: 0,
    segmentsCleaned: toClean.length,
  };
  if (toClean.length === 0) return result;
  const ctx: FilterContext = {
    map,
    now: options.now(),
    deleteRetentionMs: config.deleteRetentionMs,
    txns: new CleanedTransactionMetadata(),
    lastDataOffsets: log.lastDataOffsets(),
  };
  for (const group of groupSegmentsBySize(toClean, segments, config.segmentBytes)) {
    const upperBound = segments[segments.indexOf(group[group.length - 1]) + 1].baseOffset;
    ctx.txns.addAborted(log.abortedTransactions(group[0].baseOffset, upperBound));
    await cleanGroup(log, group, ctx, result, chunkBytes, check);
  }
  return result;
}

/** Fills `map` from the dirty range; returns whether it filled up before the range's end. */
async function buildOffsetMap(log: PartitionLog, range: CleanableRange, map: OffsetMap, chunkBytes: number, check: () => void): Promise<boolean> {
  const { firstDirtyOffset: from, firstUncleanableOffset: to } = range;
  const txns = new CleanedTransactionMetadata(log.abortedTransactions(from, to));
  const segments = log.segmentList().slice(0, -1);
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i];
    const next = i + 1 < segments.length ? segments[i + 1].baseOffset : Infinity;
    if (next <= from) continue;
    if (seg.baseOffset >= to) break;
    seg.ensureIndexes();
    let position = seg.baseOffset < from ? seg.index.lookup(from).position : 0;
    for (;;) {
      check();
      const chunk = readBatchChunk(seg, position, chunkBytes);
      if (!chunk) break;
      for (const b of chunk.batches) {
        const lastOffset = b.baseOffset + b.lastOffsetDelta;
        if (b.baseOffset >= to) return false;
        if (b.isControl) {
          txns.onControlBatchRead(b, readMarker(chunk.buf, b));
        } else if (!txns.onBatchRead(b) && lastOffset >= from) {
          for (const r of decodeBatch(chunk.buf, b.position).records) {
            const offset = b.baseOffset + r.offsetDelta;
            if (r.key !== null && offset >= from && !map.put(r.key, offset)) return true;
          }
        }
        if (lastOffset >= from) map.latestOffset = lastOffset;
      }
      position = chunk.next;
      await yieldToEventLoop();
    }
  }
  return false;
}

/**
 * Consecutive segments whose sizes add up to at most segment.bytes and whose offsets fit one segment
 * (Kafka's groupSegmentsBySize); `all` gives each segment's successor, whose base bounds its offsets.
 */
export function groupSegmentsBySize(toClean: Segment[], all: readonly Segment[], maxBytes: number): Segment[][] {
  const groups: Segment[][] = [];
  const lastOffsetOf = (s: Segment) => all[all.indexOf(s) + 1].baseOffset - 1;
  let i = 0;
  while (i < toClean.length) {
    const group = [toClean[i]];
    let bytes = toClean[i].size;
    i++;
    while (i < toClean.length && bytes + toClean[i].size <= maxBytes && lastOffsetOf(toClean[i]) - group[0].baseOffset <= INT32_MAX) {
      bytes += toClean[i].size;
      group.push(toClean[i]);
      i++;
    }
    groups.push(group);
  }
  return groups;
}

async function cleanGroup(log: PartitionLog, group: Segment[], ctx: FilterContext, result: CleanResult, chunkBytes: number, check: () => void): Promise<void> {
  const cleaned = new CleanedSegment(log.dir, group[0].baseOffset, log.indexIntervalBytes);
  try {
    let lastRead = -1;
    let lastWritten = -1;
    for (const seg of group) {
      let position = 0;
      for (;;) {
        check();
        const chunk = readBatchChunk(seg, position, chunkBytes);
        if (!chunk) break;
        const out: { bytes: Buffer; lastOffset: number; maxTimestamp: number }[] = [];
        for (const b of chunk.batches) {
          const lastOffset = b.baseOffset + b.lastOffsetDelta;
          lastRead = lastOffset;
          result.recordsRead += b.recordCount;
          const kept = filterBatch(chunk.buf, b, ctx);
          result.recordsRemoved += kept.recordsRemoved;
          if (kept.abortedTxn) cleaned.addAbortedTxn(kept.abortedTxn);
          if (kept.deleteHorizon !== null) result.deleteHorizon = Math.min(result.deleteHorizon ?? Infinity, kept.deleteHorizon);
          if (!kept.bytes) continue;
          out.push({ bytes: kept.bytes, lastOffset, maxTimestamp: readInt64At(kept.bytes, MAX_TIMESTAMP_OFFSET) });
          lastWritten = lastOffset;
        }
        result.bytesRead += chunk.buf.length;
        cleaned.append(out);
        position = chunk.next;
        await yieldToEventLoop();
      }
    }
    if (lastRead > lastWritten) cleaned.append([{ bytes: placeholderBatch(lastRead), lastOffset: lastRead, maxTimestamp: -1 }]);
    await cleaned.finish();
    check();
    cleaned.keepModificationTime(fs.statSync(group[group.length - 1].logPath).mtime);
  } catch (err) {
    cleaned.discard();
    throw err;
  }
  result.bytesWritten += cleaned.size;
  // From the rename to .swap to the new list of segments, in one turn of the event loop.
  cleanedToSwap(log.dir, group[0].baseOffset);
  if (!log.replaceSegments(group, group[0].baseOffset)) {
    discardSwap(log.dir, group[0].baseOffset);
    throw new CleaningAborted(`the segments of ${log.dir} changed during cleaning`);
  }
}
