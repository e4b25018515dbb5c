// The segments of one partition log, Kafka's LocalLog: segment files (segment.ts) ordered by base offset,
// the last one active (receiving appends); the segment holding offset o is the one with the largest base
// offset <= o. It rolls, reads, deletes a prefix (retention, DeleteRecords), cuts a suffix (a follower's
// truncation), swaps cleaned segments in (cleaner/replace-segments.ts), and keeps the recovery point.
// What the segments hold is the partition log's business (partition-log.ts: the log start offset, the
// producers' state, the leader epochs), as UnifiedLog's is on top of LocalLog.
//
// A rolled segment is fsynced in the background and the recovery point then moves to the next segment's
// base offset; flush() fsyncs everything and sets the recovery point to the log end offset.

import fs from './storage-fs.js';
import path from 'node:path';
import { randomBytes } from './random.js';
import { deletedDirName, parsePartitionDirName } from './file-names.js';
import { RECORD_BATCH_OVERHEAD as HEADER_SIZE, LOG_OVERHEAD, readBatchHeader, type BatchInfo } from '../../protocol/record-batch.js';
import { lastIndexWhere } from './binary-search.js';
import { headerProblem } from './batch-header.js';
import { rescanAfterTruncation, type LoadedLog, type StorageLogger } from './log-loader.js';
import { fsyncDir, fsyncDirInBackground } from './atomic-file.js';
import type { FileDeleter } from './file-deleter.js';
import { Segment, type SegmentAppendBatch, type SegmentConfig } from './segment.js';
import { Window, findOffsetByTimestamp, maxTimestampAndOffset, readBatches, readBytes, translateOffset } from './segment-reader.js';
import type { AbortedTxn } from './transaction-index.js';
import { replaceSegments } from './cleaner/replace-segments.js';

/** What a partition log reads of one segment to decide on rolls and retention. */
export interface LogSegmentInfo {
  readonly baseOffset: number;
  /** Bytes held. */
  readonly size: number;
  /** One past the last offset held (the base offset when empty). */
  readonly nextOffset: number;
  /** Wall-clock time the segment started receiving data (segment.ms rolls are measured from it). */
  readonly createdAt: number;
  /** The largest record timestamp held, -1 when none. */
  readonly maxTimestamp: number;
}

/**
 * What the partition log asks of its segments: the seam where a log's bytes live. SegmentList keeps them
 * in files; an in-memory storage engine would implement the same calls over buffers. Batches go in and
 * come out as bytes, as they travel on the wire.
 */
export interface LogSegments<S extends LogSegmentInfo = LogSegmentInfo> {
  /** The segment receiving appends. */
  readonly active: S;
  readonly logEndOffset: number;
  /** Total bytes of all segments. */
  readonly size: number;
  /** Offset below which the segments are known to be durable. */
  readonly recoveryPoint: number;
  /** How many times the log was cut back (truncateTo, truncateFullyAndStartAt). */
  readonly truncationCount: number;
  /** The segments, oldest first, the last one active (a copy of the list). */
  list(): readonly S[];
  /** Appends whole batches, offsets set, to the active segment. */
  append(bytes: Buffer, batches: SegmentAppendBatch[]): void;
  /** Starts a new active segment at `base` (see SegmentList.roll). */
  roll(base: number): void;
  /** Whole batches from the one holding fetchOffset, up to maxBytes (the first whole if minOneBatch). */
  read(fetchOffset: number, maxBytes: number, minOneBatch: boolean): Buffer[];
  /** Calls visit for each batch header from the one holding `from`; what is wrong where it stopped early. */
  forEachBatchHeader(from: number, visit: (b: BatchInfo) => void): string | null;
  offsetForTimestamp(ts: number, startOffset: number): { offset: number; timestamp: number } | null;
  maxTimestampOffset(startOffset: number): { offset: number; timestamp: number } | null;
  /** The aborted transactions indexed for the range [fetchOffset, upperBound), oldest first. */
  abortedTransactions(fetchOffset: number, upperBound: number): AbortedTxn[];
  /** Indexes an aborted transaction ended by the marker at txn.lastOffset (once: replays repeat it). */
  indexAbortedTxn(txn: AbortedTxn): void;
  /** How many of the oldest segments `predicate` holds for (Kafka's LocalLog.deletableSegments). */
  countDeletable(predicate: (segment: S, next: S | null) => boolean): number;
  /** Removes the `count` oldest segments (not the active one); returns their base offsets. */
  deleteOldest(count: number): number[];
  /** Removes everything at `offset` and after; returns the base offsets of the segments removed. */
  truncateTo(offset: number): number[];
  /** Removes every segment and starts again empty at `offset`; returns the base offsets removed. */
  truncateFullyAndStartAt(offset: number): number[];
  /**
   * Puts the cleaned segment at `baseOffset` (its files .swap by now) in the place of `old`; false, and
   * nothing done, when `old` is no longer in the log as it was.
   */
  replaceSegments(old: readonly S[], baseOffset: number): boolean;
  /** Writes the active segment's max timestamp to its time index, as at a roll (before a close). */
  finishActive(): void;
  /** Makes every segment durable; the recovery point becomes the log end offset. */
  flush(): void;
  /** Waits for the background flushes of rolled segments. */
  flushed(): Promise<void>;
  close(): void;
  /** Closes without flushing and removes every segment, after `delayMs`. */
  delete(delayMs: number): void;
}

export interface SegmentListOptions {
  deleter: FileDeleter;
  /** file.delete.delay.ms, read at each deletion (the topic's config may change). */
  fileDeleteDelayMs: () => number;
  log?: StorageLogger;
  /** A failed swap could not put the old segments back: the log must close (cleaner/replace-segments.ts). */
  closeLog: () => void;
}

export class SegmentList implements LogSegments<Segment> {
  private segments: Segment[];
  private _recoveryPoint: number;
  private truncations = 0;
  private closed = false;
  private flushing: Promise<void> = Promise.resolve();
  private readonly unflushed = new Set<Segment>();
  /**
   * Where the last read ended: consumers fetch sequentially, so the next fetch usually starts exactly there
   * and needs no index lookup or header scan. Segments only grow at their end, so a batch boundary stays valid.
   */
  private readHint: { segment: Segment; offset: number; position: number } | null = null;

  constructor(
    readonly dir: string,
    loaded: LoadedLog,
    /** Shared with the partition log, so that its config changes reach new segments. */
    readonly segmentConfig: SegmentConfig,
    readonly options: SegmentListOptions,
  ) {
    this.segments = loaded.segments;
    this._recoveryPoint = loaded.recoveryPoint;
  }

  get active(): Segment {
    return this.segments[this.segments.length - 1];
  }

  get logEndOffset(): number {
    return this.active.nextOffset;
  }

  get size(): number {
    let n = 0;
    for (const s of this.segments) n += s.size;
    return n;
  }

  get recoveryPoint(): number {
    return this._recoveryPoint;
  }

  get truncationCount(): number {
    return this.truncations;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  list(): readonly Segment[] {
    return [...this.segments];
  }

  append(bytes: Buffer, batches: SegmentAppendBatch[]): void {
    this.active.append(bytes, batches);
  }

  /** The index of the segment holding `offset`: the last one whose base offset is <= offset (0 below all). */
  private indexFor(offset: number): number {
    return Math.max(
      0,
      lastIndexWhere(0, this.segments.length - 1, (i) => this.segments[i].baseOffset <= offset),
    );
  }

  // --- roll --------------------------------------------------------------------------------------------

  /**
   * Starts a new active segment at `base` (>= logEndOffset: above it only when a follower's next batch
   * lies past an offset gap too wide for the active segment). An empty active segment stays, unless
   * `base` is above its own: then it is replaced.
   */
  roll(base: number): void {
    const old = this.active;
    if (old.size === 0) {
      if (base <= old.baseOffset) return;
      this.segments.pop();
      this.forget(old);
      old.delete();
      this.segments.push(Segment.create(this.dir, base, this.segmentConfig));
      return;
    }
    const truncations = this.truncations;
    old.onBecomeInactive();
    this.segments.push(Segment.create(this.dir, base, this.segmentConfig));
    this.unflushed.add(old);
    this.flushing = this.flushing
      .then(async () => {
        if (this.closed) return;
        await old.flushAsync();
        await fsyncDirInBackground(this.dir);
        this.unflushed.delete(old);
        if (!this.closed && truncations === this.truncations) this._recoveryPoint = Math.max(this._recoveryPoint, base);
      })
      .catch((err) => {
        if (!this.closed) this.options.log?.warn({ dir: this.dir, err: (err as Error).message }, 'background flush of a rolled segment failed');
      });
    this.options.log?.info({ dir: this.dir, segment: base }, 'rolled new log segment');
  }

  // --- read --------------------------------------------------------------------------------------------

  read(fetchOffset: number, maxBytes: number, minOneBatch: boolean): Buffer[] {
    const logEnd = this.logEndOffset;
    const records: Buffer[] = [];
    let remaining = Math.max(0, maxBytes);
    let first = true;
    const hint = this.readHint;
    for (let i = this.indexFor(fetchOffset); fetchOffset < logEnd && i < this.segments.length; i++) {
      const seg = this.segments[i];
      let position = 0;
      if (first) position = hint && hint.segment === seg && hint.offset === fetchOffset ? hint.position : translateOffset(seg, fetchOffset);
      if (position < 0 || position >= seg.size) continue;
      const chunk = readBatches(seg, position, remaining, first && minOneBatch);
      if (chunk.length === 0) break;
      records.push(chunk);
      remaining -= chunk.length;
      first = false;
      this.readHint = { segment: seg, offset: nextOffsetAfter(chunk), position: position + chunk.length };
      if (position + chunk.length < seg.size || remaining <= 0) break;
    }
    return records;
  }

  /**
   * Calls visit(header) for each batch from the one holding `from` to the log end, reading only batch headers
   * (no CRC: the loader checked what it had to). Stops at a header that makes no sense (a damaged segment
   * the loader left as it was) and returns what is wrong there; null when it reached the end.
   */
  forEachBatchHeader(from: number, visit: (b: BatchInfo) => void): string | null {
    const first = this.indexFor(from);
    for (let i = first; i < this.segments.length; i++) {
      const seg = this.segments[i];
      let pos = i === first ? translateOffset(seg, from) : 0;
      if (pos < 0) continue;
      const win = new Window(seg.handle(), seg.size, 1 << 16);
      while (pos < seg.size) {
        const at = win.at(pos, HEADER_SIZE);
        if (at < 0) return `incomplete batch header at position ${pos} of segment ${seg.baseOffset}`;
        const h = readBatchHeader(win.buf, at);
        const problem = headerProblem(h);
        if (problem) return `${problem} (position ${pos} of segment ${seg.baseOffset})`;
        visit(h);
        pos += h.size;
      }
    }
    return null;
  }

  offsetForTimestamp(ts: number, startOffset: number): { offset: number; timestamp: number } | null {
    for (let i = this.indexFor(startOffset); i < this.segments.length; i++) {
      const found = findOffsetByTimestamp(this.segments[i], ts, startOffset);
      if (found) return found;
    }
    return null;
  }

  maxTimestampOffset(startOffset: number): { offset: number; timestamp: number } | null {
    let best: Segment | null = null;
    for (let i = this.indexFor(startOffset); i < this.segments.length; i++) {
      const seg = this.segments[i];
      if (seg.maxTimestamp >= 0 && (!best || seg.maxTimestamp > best.maxTimestamp)) best = seg;
    }
    return best ? maxTimestampAndOffset(best) : null;
  }

  // --- transaction index -------------------------------------------------------------------------------

  /** From the .txnindex of the segments whose markers may end a transaction with records in the range. */
  abortedTransactions(fetchOffset: number, upperBound: number): AbortedTxn[] {
    const out: AbortedTxn[] = [];
    // As Kafka: past an entry whose last stable offset reaches the bound, no later abort can concern the range.
    scan: for (let i = this.indexFor(fetchOffset); i < this.segments.length; i++) {
      for (const e of this.segments[i].txnIndex.entries()) {
        if (e.lastOffset >= fetchOffset && e.firstOffset < upperBound) out.push(e);
        if (e.lastStableOffset >= upperBound) break scan;
      }
    }
    return out.sort((a, b) => a.firstOffset - b.firstOffset);
  }

  /** Into the .txnindex of the segment holding the marker. */
  indexAbortedTxn(txn: AbortedTxn): void {
    const index = this.segments[this.indexFor(txn.lastOffset)].txnIndex;
    if (!index.has(txn.lastOffset)) index.append(txn);
  }

  // --- deletion and truncation -------------------------------------------------------------------------

  /** The active segment counts only when it is not empty (the caller rolls first); `next` is null for it. */
  countDeletable(predicate: (segment: Segment, next: Segment | null) => boolean): number {
    let n = 0;
    for (let i = 0; i < this.segments.length; i++) {
      const next = i + 1 < this.segments.length ? this.segments[i + 1] : null;
      if (next === null && this.segments[i].size === 0) break;
      if (!predicate(this.segments[i], next)) break;
      n++;
    }
    return n;
  }

  /** Their files are renamed <name>.deleted at once and removed file.delete.delay.ms later (file-deleter.ts). */
  deleteOldest(count: number): number[] {
    const doomed = this.segments.splice(0, Math.min(count, this.segments.length - 1));
    this.scheduleDeletion(doomed);
    return doomed.map((s) => s.baseOffset);
  }

  /**
   * The segments starting after `offset` are deleted and the one holding it is cut before its batch holding
   * `offset`, which becomes the log end offset when it is a batch boundary (else the log ends at the base
   * offset of that batch, removed whole as in Kafka). The recovery point is capped at the new end.
   */
  truncateTo(offset: number): number[] {
    this.truncations++;
    this.readHint = null;
    let keep = this.segments.length;
    while (keep > 1 && this.segments[keep - 1].baseOffset > offset) keep--;
    const doomed = this.segments.splice(keep);
    this.scheduleDeletion(doomed);
    const seg = this.active;
    seg.setActive(true);
    const position = translateOffset(seg, offset);
    if (position >= 0) {
      seg.nextOffset = readBatchHeader(readBytes(seg, position, HEADER_SIZE), 0).baseOffset;
      seg.truncateTo(position);
      rescanAfterTruncation(seg);
    } else {
      // Every batch of the segment lies below `offset` (a compacted log's gap follows): the log ends there.
      seg.nextOffset = Math.max(seg.baseOffset, offset);
    }
    this._recoveryPoint = Math.min(this._recoveryPoint, this.logEndOffset);
    return doomed.map((s) => s.baseOffset);
  }

  /** Through the file deleter, as retention does; `offset` becomes the recovery point. */
  truncateFullyAndStartAt(offset: number): number[] {
    this.truncations++;
    this.readHint = null;
    const doomed = this.segments.splice(0);
    this.scheduleDeletion(doomed);
    this.segments.push(Segment.create(this.dir, offset, this.segmentConfig));
    this._recoveryPoint = offset;
    return doomed.map((s) => s.baseOffset);
  }

  /** Renames the files of segments taken out of the list for deletion, removed file.delete.delay.ms later. */
  private scheduleDeletion(doomed: readonly Segment[]): void {
    const renamed: string[] = [];
    for (const seg of doomed) {
      this.forget(seg);
      try {
        renamed.push(...seg.renameForDeletion());
      } catch (err) {
        // Its files keep their names: the next open finds the segment again (below the log start offset, if
        // that moved, where it is deleted again).
        this.options.log?.warn({ dir: this.dir, segment: seg.baseOffset, err: (err as Error).message }, 'renaming a deleted segment failed');
      }
    }
    this.deleteLater(renamed);
  }

  /** Removes files already renamed .deleted, file.delete.delay.ms from now. */
  deleteLater(renamed: readonly string[]): void {
    this.options.deleter.schedule(renamed, this.options.fileDeleteDelayMs());
  }

  /** A segment leaves the list: no flush or read hint may keep it. */
  forget(seg: Segment): void {
    this.unflushed.delete(seg);
    if (this.readHint?.segment === seg) this.readHint = null;
  }

  // --- cleaning ----------------------------------------------------------------------------------------

  /** cleaner/replace-segments.ts. */
  replaceSegments(old: readonly Segment[], baseOffset: number): boolean {
    if (this.closed) return false;
    return replaceSegments(this, old, baseOffset);
  }

  /** Puts `replacement` in the place of the `count` segments from index `first` (the swap's last step). */
  replaceRun(first: number, count: number, replacement: readonly Segment[]): void {
    this.segments.splice(first, count, ...replacement);
    this.readHint = null;
  }

  // --- durability and lifecycle ------------------------------------------------------------------------

  finishActive(): void {
    this.active.onBecomeInactive();
    this.active.setActive(true);
  }

  flush(): void {
    for (const seg of this.unflushed) seg.flush();
    this.unflushed.clear();
    this.active.flush();
    fsyncDir(this.dir, this.segmentConfig.openFiles);
    this._recoveryPoint = this.logEndOffset;
  }

  async flushed(): Promise<void> {
    await this.flushing;
  }

  /** Closes the segments' descriptors; nothing is flushed (flush() first for that). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const seg of this.segments) seg.close();
  }

  /**
   * The directory is renamed <dir>.<id>-delete at once and removed `delayMs` later in the background (a
   * restart removes it too).
   */
  delete(delayMs: number): void {
    this.close();
    const parsed = parsePartitionDirName(path.basename(this.dir));
    const unique = randomBytes(8).toString('hex');
    const doomed = parsed ? path.join(path.dirname(this.dir), deletedDirName(parsed.topic, parsed.partition, unique)) : `${this.dir}.${unique}-delete`;
    try {
      fs.renameSync(this.dir, doomed);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    this.options.deleter.schedule([doomed], delayMs);
  }
}

/** The offset after the last batch in a run of whole batches. */
function nextOffsetAfter(batches: Buffer): number {
  let pos = 0;
  let last = 0;
  while (pos + HEADER_SIZE <= batches.length) {
    last = pos;
    pos += LOG_OVERHEAD + batches.readInt32BE(pos + 8);
  }
  const h = readBatchHeader(batches, last);
  return h.baseOffset + h.lastOffsetDelta + 1;
}
