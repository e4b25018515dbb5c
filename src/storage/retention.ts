// Log retention, Kafka's UnifiedLog.deleteOldSegments: which whole segments of a partition log leave the
// disk, run for every partition every log.retention.check.interval.ms (the broker's 'log-retention' task).
//
//   - below the log start offset (always, whatever the cleanup policy): segments whose successor starts
//     at or below it (after DeleteRecords);
//   - by size (cleanup.policy has delete, retention.bytes >= 0): the oldest segments, for as long as the
//     log stays at least retention.bytes large without them;
//   - by time (cleanup.policy has delete, retention.ms >= 0): the oldest segments whose largest record
//     timestamp (the .log's modification time when no record has one) is more than retention.ms old,
//     stopping at the first one that is not (Kafka does not look past it, even when later segments are older).
//
// Segments are taken oldest first and the first one a rule spares stops that rule. The active segment is
// taken too when it is not empty: it is rolled first (a log always has one segment). Before the rules, a
// non-empty active segment older than segment.ms is rolled, as the next append would roll it, so that a
// partition nobody writes to any more still ages out. Deleting segments moves the log start offset to the
// new first segment's base offset (segment-list.ts: the files are renamed .deleted and removed
// file.delete.delay.ms later). Kafka also requires the high watermark to be past a segment before
// deleting it; krill's high watermark is the log end offset, so that always holds.

import fs from './storage-fs.js';
import type { LogConfig } from '../log-config.js';
import type { PartitionLog } from './partition-log.js';
import type { Segment } from './segment.js';

/** What retention reads of a topic's LogConfig. */
export type RetentionConfig = Pick<LogConfig, 'cleanupPolicy' | 'retentionMs' | 'retentionBytes'>;

/** Kafka's LogSegment.largestTimestamp: the largest record timestamp, else the .log's modification time. */
export function largestTimestamp(segment: Segment): number {
  const ts = segment.maxTimestamp;
  if (ts > 0) return ts;
  try {
    return fs.statSync(segment.logPath).mtimeMs;
  } catch {
    return Number.POSITIVE_INFINITY; // gone already: nothing to age out
  }
}

/** Segments that end at or below the log start offset. */
function deleteBelowLogStart(log: PartitionLog): number {
  const start = log.logStartOffset;
  return log.deleteOldestSegments(log.countDeletableSegments((_, next) => next !== null && next.baseOffset <= start));
}

function deleteBySize(log: PartitionLog, retentionBytes: number): number {
  if (retentionBytes < 0) return 0;
  let excess = log.size - retentionBytes;
  if (excess <= 0) return 0;
  return log.deleteOldestSegments(
    log.countDeletableSegments((segment) => {
      if (excess - segment.size < 0) return false;
      excess -= segment.size;
      return true;
    }),
  );
}

function deleteByTime(log: PartitionLog, retentionMs: number, now: number): number {
  if (retentionMs < 0) return 0;
  return log.deleteOldestSegments(log.countDeletableSegments((segment) => now - largestTimestamp(segment) > retentionMs));
}

/**
 * One retention pass over one partition log (see the file comment); returns how many segments it
 * deleted. `now` is the wall clock the segments' timestamps are compared with.
 */
export function deleteOldSegments(log: PartitionLog, config: RetentionConfig, now: number): number {
  if (log.isClosed) return 0;
  log.rollIfOlderThanSegmentMs(now);
  let deleted = deleteBelowLogStart(log);
  if (!config.cleanupPolicy.includes('delete')) return deleted;
  deleted += deleteBySize(log, config.retentionBytes);
  deleted += deleteByTime(log, config.retentionMs, now);
  return deleted;
}
