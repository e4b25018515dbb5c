// Opening a partition's log: the segments found in its directory, recovered as Kafka's LogLoader does.
//
// A swap of cleaned segments that a crash interrupted is completed, or undone when it had not begun
// (cleaner/swap.ts). Leftovers of interrupted operations (*.deleted, *.cleaned, *.tmp) are removed, and
// index files without their .log, then
//   - after a crash (no clean-shutdown flag), every segment from the one holding the recovery point on is
//     scanned in full (complete header, magic 2, size within the file, CRC32C, increasing offsets), cut at
//     the first bad batch, and its indexes rebuilt; segments after a cut one are deleted;
//   - after a clean shutdown, only the active segment's tail (from its last offset index entry) is checked;
//   - segments before the recovery point are trusted, their indexes rebuilt only when missing or broken
//     (otherwise validated in full on first use); after a crash the tail of each is checked too (from its
//     last offset index entry, as the clean shutdown's check of the active segment), and damage is logged,
//     not repaired;
//   - offsets missing between one read segment's end and the next one's base offset are logged;
//   - an empty segment in the middle of the log is deleted.
// The log start offset comes from the checkpoint (at least the first segment's base offset, at most the
// log end offset), the recovery point too (at most the log end offset).

import fs from './storage-fs.js';
import path from 'node:path';
import { RECORD_BATCH_OVERHEAD as HEADER_SIZE, readBatchHeader, verifyBatchCrc, type BatchInfo } from '../../protocol/record-batch.js';
import { headerProblem } from './batch-header.js';
import { TEMP_SUFFIXES, parseSegmentFileName } from './file-names.js';
import { Segment, type SegmentConfig } from './segment.js';
import { Window, readFully } from './segment-reader.js';
import { SWAP_SUFFIX, completeSwaps } from './cleaner/swap.js';
import { CLEANED_SUFFIX } from './cleaner/cleaned-segment.js';

/** The subset of a pino logger storage uses. */
export interface StorageLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

/** What the loader reads of PartitionLogOptions (see there). */
export interface LogLoadOptions {
  recoveryPoint?: number;
  logStartOffset?: number;
  cleanShutdown?: boolean;
  log?: StorageLogger;
}

export interface LoadedLog {
  /** Oldest first; the last one is active. */
  segments: Segment[];
  logStartOffset: number;
  recoveryPoint: number;
}

export interface ScanResult {
  /** Bytes cut from the end of the .log because they did not form valid batches. */
  truncatedBytes: number;
  /** Why the scan stopped early, when it did. */
  problem: string | null;
}

/** Opens (creating if needed) and recovers the log in `dir`. Synchronous. */
export function loadLog(dir: string, options: LogLoadOptions, segmentConfig: SegmentConfig): LoadedLog {
  fs.mkdirSync(dir, { recursive: true });
  const log = options.log;
  const bases = segmentBaseOffsets(dir, log);
  let segments: Segment[];
  if (bases.length === 0) {
    segments = [Segment.create(dir, Math.max(0, options.logStartOffset ?? 0), segmentConfig)];
  } else {
    segments = bases.map((b, i) => Segment.open(dir, b, segmentConfig, i + 1 < bases.length ? bases[i + 1] : null));
    segments[segments.length - 1].setActive(true);
    segments = recoverSegments(dir, segments, options, log);
  }

  const active = segments[segments.length - 1];
  const logEnd = active.nextOffset;
  let logStart = Math.max(options.logStartOffset ?? 0, segments[0].baseOffset);
  if (logStart > logEnd) {
    log?.warn(
      { dir, partition: path.basename(dir), logStartOffset: logStart, logEndOffset: logEnd },
      `the log start offset ${logStart} of ${path.basename(dir)} (from the checkpoint) is past its log end offset ${logEnd}; using ${logEnd}`,
    );
    logStart = logEnd;
  }
  const recoveryPoint = Math.min(options.recoveryPoint ?? 0, logEnd);
  return { segments, logStartOffset: logStart, recoveryPoint };
}

/** The base offsets of the .log files in `dir`, ascending, once leftovers and orphan index files are removed. */
function segmentBaseOffsets(dir: string, log: StorageLogger | undefined): number[] {
  const logs = new Set<number>();
  const others: { name: string; baseOffset: number }[] = [];
  let names = fs.readdirSync(dir);
  if (names.some((n) => n.endsWith(SWAP_SUFFIX) || n.endsWith(CLEANED_SUFFIX))) {
    completeSwaps(dir, log);
    names = fs.readdirSync(dir);
  }
  for (const name of names) {
    if (TEMP_SUFFIXES.some((s) => name.endsWith(s))) {
      fs.rmSync(path.join(dir, name), { force: true, recursive: true });
      continue;
    }
    const parsed = parseSegmentFileName(name);
    if (!parsed) continue;
    if (parsed.kind === 'log') logs.add(parsed.baseOffset);
    else others.push({ name, baseOffset: parsed.baseOffset });
  }
  for (const o of others) {
    if (!logs.has(o.baseOffset)) fs.rmSync(path.join(dir, o.name), { force: true });
  }
  return [...logs].sort((a, b) => a - b);
}

function recoverSegments(dir: string, segments: Segment[], options: LogLoadOptions, log: StorageLogger | undefined): Segment[] {
  const last = segments.length - 1;
  const recoveryPoint = options.recoveryPoint ?? 0;
  const partition = path.basename(dir);
  let firstToScan = 0;
  if (options.cleanShutdown) firstToScan = last;
  else for (let i = 0; i < segments.length; i++) if (segments[i].baseOffset <= recoveryPoint) firstToScan = i;
  for (let i = 0; i < firstToScan; i++) {
    const seg = segments[i];
    if (rebuildMissingIndexes(seg)) {
      log?.warn({ dir, segment: seg.baseOffset }, 'rebuilt missing or broken index files');
      continue;
    }
    seg.checkIndexesOnFirstUse(() => checkIndexes(seg));
    // Segments below the recovery point were fsynced and are trusted (as Kafka does), but after a
    // crash a look at each one's tail costs little and tells damage from the outside (a cut or
    // rotten file) instead of letting consumers skip its records unawares. Nothing is changed.
    if (options.cleanShutdown) continue;
    const problem = checkTail(seg);
    if (problem) {
      log?.warn(
        { dir, partition, segment: seg.baseOffset, reason: problem },
        `segment ${seg.baseOffset} of ${partition}, below the recovery point, is damaged (${problem}); it is left as it is, and consumers reaching the damaged batch may fail`,
      );
    }
  }
  let keep = segments.length;
  for (let i = firstToScan; i <= last; i++) {
    const seg = segments[i];
    let result = options.cleanShutdown ? recoverTail(seg) : null;
    if (!result) {
      if (options.cleanShutdown) log?.warn({ dir, segment: seg.baseOffset }, 'index files unusable after a clean shutdown; rebuilding them');
      result = recoverSegment(seg);
    }
    if (result.truncatedBytes > 0) {
      log?.warn(
        { dir, segment: seg.baseOffset, truncatedBytes: result.truncatedBytes, reason: result.problem },
        'truncated invalid bytes at the end of the log',
      );
    }
    if (i < last && (result.truncatedBytes > 0 || seg.nextOffset > segments[i + 1].baseOffset)) {
      // Everything after a cut is suspect (Kafka deletes it too).
      for (const later of segments.slice(i + 1)) {
        log?.warn({ dir, segment: later.baseOffset }, 'deleting a segment that follows a truncated one');
        later.delete();
      }
      keep = i + 1;
      break;
    }
  }
  const kept = segments.slice(0, keep);
  for (let i = 0; i + 1 < kept.length; i++) {
    // Known only for segments that were read: a gap is a missing segment file or one cut at a batch boundary.
    const seg = kept[i];
    const next = kept[i + 1];
    if (seg.size > 0 && seg.nextOffset < next.baseOffset) {
      log?.warn(
        { dir, partition, segment: seg.baseOffset, missingFrom: seg.nextOffset, missingTo: next.baseOffset - 1 },
        `offsets ${seg.nextOffset} to ${next.baseOffset - 1} of ${partition} are missing (segment ${seg.baseOffset} ends before the next one, ${next.baseOffset}, starts: a segment file missing or cut?); consumers will skip them`,
      );
    }
  }
  // An empty segment in the middle holds nothing: drop it (the first one stays: it anchors the start).
  const result = kept.filter((seg, i) => {
    if (i === 0 || i === kept.length - 1 || seg.size > 0) return true;
    seg.delete();
    return false;
  });
  result[result.length - 1].setActive(true);
  return result;
}

// --- one segment -----------------------------------------------------------------------------------------

/**
 * Full scan of the .log from position 0, verifying every batch (complete header, magic 2, size within
 * the file, CRC32C, offsets increasing); truncates the file at the first bad batch (when truncate) and
 * rebuilds both indexes from the batches kept.
 */
export function recoverSegment(seg: Segment, opts: { verifyCrc: boolean; truncate: boolean } = { verifyCrc: true, truncate: true }): ScanResult {
  seg.resetIndexes();
  const startNext = seg.nextOffset;
  seg.nextOffset = seg.baseOffset;
  const fileSize = fs.fstatSync(seg.handle()).size;
  const win = new Window(seg.handle(), fileSize, 1 << 20);
  const result = scanFrom(seg, win, fileSize, 0, opts.verifyCrc, opts.truncate, false);
  if (!opts.truncate && result.problem) seg.nextOffset = Math.max(seg.nextOffset, startNext);
  seg.createdAt = firstBatchTime(seg);
  if (!seg.isActive) seg.finishTimeIndex();
  return result;
}

/**
 * After a clean shutdown: checks both indexes in full, then scans (with CRC) only from the last offset
 * index entry to the end of the file. Returns null when the indexes were unusable, in which case the
 * caller should recoverSegment() instead.
 */
function recoverTail(seg: Segment): ScanResult | null {
  if (!seg.index.sane() || !seg.timeIndex.sane()) return null;
  if (seg.index.validate(seg.size) || seg.timeIndex.validate()) return null;
  const fileSize = fs.fstatSync(seg.handle()).size;
  const win = new Window(seg.handle(), fileSize, 1 << 20);
  const start = tailStart(seg, win, fileSize);
  if (typeof start === 'string') return null;
  seg.nextOffset = start.baseOffset;
  seg.continueIndexes();
  // The batch at the last index entry is already indexed: it is counted, not indexed again.
  const result = scanFrom(seg, win, fileSize, start.position, true, true, start.indexed);
  seg.createdAt = firstBatchTime(seg);
  return result;
}

/**
 * After the log cut `seg` at a batch boundary (SegmentList.truncateTo): its end, max timestamp and index
 * bookkeeping, taken up again from the tail as after a clean shutdown (the whole segment when its indexes
 * are unusable).
 */
export function rescanAfterTruncation(seg: Segment): void {
  if (!recoverTail(seg)) recoverSegment(seg);
}

/**
 * A cheap look at a trusted segment (one before the recovery point, not scanned at start): walks the
 * batches from its last offset index entry to the end of the .log, checking headers and CRCs, and changes
 * nothing. Returns what is wrong (the .log was cut mid-batch, a batch is corrupt, the index points past
 * the end), or null, in which case nextOffset becomes one past the last batch, so that a gap before the
 * next segment (a missing segment file) shows. Reads about index.interval.bytes plus the last batch.
 */
function checkTail(seg: Segment): string | null {
  const fileSize = fs.fstatSync(seg.handle()).size;
  const win = new Window(seg.handle(), fileSize, 1 << 16);
  const start = tailStart(seg, win, fileSize);
  if (typeof start === 'string') return start;
  const walked = walkBatches(seg, win, fileSize, start.position, start.baseOffset, true, () => {});
  if (walked.problem) return walked.problem;
  if (fileSize > 0) seg.nextOffset = walked.nextOffset;
  return null;
}

/**
 * A trusted segment's indexes are rebuilt (without truncating the log) when missing or not made of whole
 * entries; returns whether they were. Full index validation happens on first use (checkIndexes).
 */
function rebuildMissingIndexes(seg: Segment): boolean {
  if (seg.index.sane() && seg.timeIndex.sane()) return false;
  recoverSegment(seg, { verifyCrc: false, truncate: false });
  return true;
}

/** Validates a trusted segment's indexes in full; rebuilds them when they fail. */
function checkIndexes(seg: Segment): void {
  const problem = seg.index.validate(seg.size) ?? seg.timeIndex.validate(seg.isActive ? undefined : seg.nextOffset);
  if (problem) recoverSegment(seg, { verifyCrc: false, truncate: false });
}

/**
 * Where a look at the tail starts: the batch the last offset index entry points at (already indexed), or
 * position 0 without entries; what is wrong when that batch is not where the index says.
 */
function tailStart(seg: Segment, win: Window, fileSize: number): { position: number; baseOffset: number; indexed: boolean } | string {
  const last = seg.index.lastEntry();
  if (!last) return { position: 0, baseOffset: seg.baseOffset, indexed: false };
  if (last.position >= fileSize) return `the .log (${fileSize} bytes) ends before the batch its offset index places at position ${last.position}`;
  const at = win.at(last.position, HEADER_SIZE);
  const h = at < 0 ? null : readBatchHeader(win.buf, at);
  if (!h || headerProblem(h) || h.baseOffset + h.lastOffsetDelta !== last.offset) {
    return `no batch ending at offset ${last.offset} at position ${last.position}, where the offset index places one`;
  }
  return { position: last.position, baseOffset: h.baseOffset, indexed: true };
}

/**
 * Walks batches from `start`, indexing them (interval rule) and tracking nextOffset and the max
 * timestamp; at the first invalid batch, truncates the .log (and index entries past it) if asked.
 */
function scanFrom(seg: Segment, win: Window, fileSize: number, start: number, verifyCrc: boolean, truncate: boolean, firstIsIndexed: boolean): ScanResult {
  const walked = walkBatches(seg, win, fileSize, start, seg.nextOffset, verifyCrc, (h, pos) => {
    const lastOffset = h.baseOffset + h.lastOffsetDelta;
    seg.indexBatch(pos, h.size, lastOffset, h.maxTimestamp, !(firstIsIndexed && pos === start));
    seg.nextOffset = lastOffset + 1;
  });
  let truncatedBytes = 0;
  if (walked.problem && truncate) {
    truncatedBytes = fileSize - walked.position;
    seg.truncateTo(walked.position);
  } else {
    seg.size = fileSize;
  }
  return { truncatedBytes, problem: walked.problem };
}

/**
 * Calls visit(header, position) for each whole, valid batch from `position` on (its CRC checked too, if
 * asked); returns where it stopped, the offset after the last good batch, and what is wrong there (null at
 * the end of the file).
 */
function walkBatches(
  seg: Segment,
  win: Window,
  fileSize: number,
  position: number,
  nextOffset: number,
  verifyCrc: boolean,
  visit: (h: BatchInfo, position: number) => void,
): { position: number; nextOffset: number; problem: string | null } {
  let pos = position;
  let next = nextOffset;
  while (pos < fileSize) {
    const checked = checkBatchAt(seg, win, pos, fileSize, next, verifyCrc);
    if (typeof checked === 'string') return { position: pos, nextOffset: next, problem: checked };
    visit(checked, pos);
    next = checked.baseOffset + checked.lastOffsetDelta + 1;
    pos += checked.size;
  }
  return { position: pos, nextOffset: next, problem: null };
}

/** The header of the batch at `pos` when it is whole and valid (its CRC too, if asked), else what is wrong. */
function checkBatchAt(seg: Segment, win: Window, pos: number, fileSize: number, nextOffset: number, verifyCrc: boolean): BatchInfo | string {
  let at = win.at(pos, HEADER_SIZE);
  if (at < 0) return `incomplete batch header at position ${pos}`;
  const h = readBatchHeader(win.buf, at);
  const problem = headerProblem(h);
  if (problem) return `${problem} (batch at position ${pos})`;
  if (pos + h.size > fileSize) return `batch at position ${pos} (${h.size} bytes) runs past the end of the file (${fileSize})`;
  if (h.baseOffset < nextOffset) return `batch at position ${pos} has base offset ${h.baseOffset}, below ${nextOffset}`;
  const lastOffset = h.baseOffset + h.lastOffsetDelta;
  if (lastOffset - seg.baseOffset > 0x7fffffff) return `offset ${lastOffset} does not fit segment ${seg.baseOffset}`;
  if (verifyCrc) {
    at = win.at(pos, h.size);
    if (at < 0 || !verifyBatchCrc(win.buf, at, h.size)) return `CRC mismatch in the batch at position ${pos}`;
  }
  return h;
}

/** When the segment started receiving data: its first batch's max timestamp, unless missing or in the future. */
function firstBatchTime(seg: Segment): number {
  const now = seg.config.now();
  if (seg.size < HEADER_SIZE) return now;
  const head = Buffer.alloc(HEADER_SIZE);
  if (readFully(seg.handle(), head, 0, HEADER_SIZE, 0) !== HEADER_SIZE) return now;
  const ts = readBatchHeader(head, 0).maxTimestamp;
  return ts >= 0 && ts <= now ? ts : now;
}
