// Which part of a compacted log the cleaner may clean, and how dirty it is (Kafka's
// LogCleanerManager.cleanableOffsets and LogToClean):
//   - the first dirty offset is where the last pass ended (cleaner-offset-checkpoint), moved to the log
//     start when the checkpoint is below it or past the log end (a log truncated or recreated);
//   - the cleanable range ends at the first uncleanable offset: the active segment's base offset, the
//     last stable offset (the first offset of a transaction still open), and, with min.compaction.lag.ms,
//     the base offset of the first dirty segment holding a record younger than the lag;
//   - dirty ratio = cleanable bytes / (clean bytes + cleanable bytes), counted in whole segments (clean:
//     the segments below the first dirty offset; cleanable: those overlapping the cleanable range, none when
//     it is empty);
//   - the log needs cleaning at once, whatever its ratio, when the first batch of a dirty segment is older
//     than max.compaction.lag.ms.

import type { LogConfig } from '../../log-config.js';
import type { PartitionLog } from '../partition-log.js';
import { firstBatchTimestamp } from './segment-batches.js';

export interface CleanableRange {
  firstDirtyOffset: number;
  firstUncleanableOffset: number;
  cleanBytes: number;
  cleanableBytes: number;
  dirtyRatio: number;
  /** A dirty record is older than max.compaction.lag.ms. */
  needCompactionNow: boolean;
  /** The checkpointed first dirty offset was not usable and was moved to the log start. */
  checkpointReset: boolean;
}

/** Java's Long.MAX_VALUE read as a number: a lag this large is no lag. */
const NO_LAG = 2 ** 62;

export function cleanableRange(log: PartitionLog, config: LogConfig, checkpoint: number | undefined, now: number): CleanableRange {
  const logStart = log.logStartOffset;
  let firstDirty = checkpoint ?? logStart;
  const checkpointReset = checkpoint !== undefined && (checkpoint < logStart || checkpoint > log.logEndOffset);
  if (firstDirty < logStart || firstDirty > log.logEndOffset) firstDirty = logStart;
  const segments = log.segmentList();
  const active = segments[segments.length - 1];
  const nextBase = (i: number) => (i + 1 < segments.length ? segments[i + 1].baseOffset : log.logEndOffset);
  const dirty = segments.slice(0, -1).filter((_s, i) => nextBase(i) > firstDirty);

  let uncleanable = active.baseOffset;
  const unstable = log.firstUnstableOffset();
  if (unstable !== null) uncleanable = Math.min(uncleanable, unstable);
  if (config.minCompactionLagMs > 0) {
    const young = dirty.find((s) => s.maxTimestamp > now - config.minCompactionLagMs);
    if (young) uncleanable = Math.min(uncleanable, young.baseOffset);
  }
  uncleanable = Math.max(uncleanable, firstDirty);

  let cleanBytes = 0;
  let cleanableBytes = 0;
  segments.forEach((s, i) => {
    if (s.baseOffset < firstDirty) cleanBytes += s.size;
    if (uncleanable > firstDirty && s.baseOffset < uncleanable && nextBase(i) > firstDirty) cleanableBytes += s.size;
  });
  const total = cleanBytes + cleanableBytes;

  let needCompactionNow = false;
  if (config.maxCompactionLagMs < NO_LAG && cleanableBytes > 0) {
    const stamps = dirty.map(firstBatchTimestamp).filter((t) => t >= 0);
    if (stamps.length > 0) needCompactionNow = now - config.maxCompactionLagMs > Math.min(...stamps);
  }
  return {
    firstDirtyOffset: firstDirty,
    firstUncleanableOffset: uncleanable,
    cleanBytes,
    cleanableBytes,
    dirtyRatio: total === 0 ? 0 : cleanableBytes / total,
    needCompactionNow,
    checkpointReset,
  };
}

/**
 * Whether the range is worth a pass: something to clean, and a dirty ratio above min.cleanable.dirty.ratio
 * (strictly, as Kafka compares it: at 1 only max.compaction.lag.ms makes a log cleanable) or a record past
 * max.compaction.lag.ms.
 */
export function shouldClean(range: CleanableRange, config: LogConfig): boolean {
  return range.cleanableBytes > 0 && (range.needCompactionNow || range.dirtyRatio > config.minCleanableDirtyRatio);
}
