// A log segment: <base>.log + <base>.index + <base>.timeindex in a partition directory, where <base> is
// the 20-digit zero-padded first offset the segment may hold (see file-names.ts).
//
// <base>.log holds magic-2 record batches back to back, exactly as they travel on the wire (with the
// baseOffset the log assigned written in; see batch-header.ts for the 61-byte header). Nothing else is
// in the file: no per-file header, no padding, so its size is the sum of its batch sizes, and a batch
// torn by a crash is recognised by an incomplete header, a size past the end of the file, a magic other
// than 2 or a CRC32C mismatch. The two index files are described in offset-index.ts and time-index.ts.
//
// Appends go through fs.writeSync on the .log's descriptor: once the call returns, the bytes are in the
// page cache and survive a kill -9 of the process (Kafka's default too, which does not fsync per write);
// flush() fsyncs for power-loss durability. Reads are positional fs.readSync, into pooled buffers when
// they are for a response (segment-reader.ts, read-buffers.ts); loading and recovery scans are in
// log-loader.ts.
// Descriptors are opened on first use and kept in the least-recently-used set of open-files.ts that
// the log manager owns, the active segment's too: any number of partitions fits under a small
// `ulimit -n`, and an append or read on a segment whose files were closed reopens them.

import fs, { type FileHandle } from './storage-fs.js';
import { KafkaError } from '../../protocol/errors.js';
import { segmentFilePath } from './file-names.js';
import { renameForDeletion } from './file-deleter.js';
import type { FileOwner, OpenFiles } from './open-files.js';
import { OffsetIndex } from './offset-index.js';
import { TimeIndex } from './time-index.js';
import { RecentBatches } from './recent-batches.js';
import { TransactionIndex } from './transaction-index.js';

export interface SegmentConfig {
  indexIntervalBytes: number;
  now: () => number;
  /** The bound on open segment files these segments' descriptors count against (their log manager's). */
  openFiles: OpenFiles;
}

/** A batch inside the bytes given to Segment.append; position is relative to those bytes. */
export interface SegmentAppendBatch {
  position: number;
  size: number;
  lastOffset: number;
  maxTimestamp: number;
}

export class Segment implements FileOwner {
  readonly logPath: string;
  readonly index: OffsetIndex;
  readonly timeIndex: TimeIndex;
  /** Aborted transactions whose markers lie in this segment. */
  readonly txnIndex: TransactionIndex;
  /** Bytes in the .log. */
  size = 0;
  /** One past the last offset held (the base offset when empty). */
  nextOffset: number;
  /** Wall-clock time the segment started receiving data (segment.ms rolls are measured from it). */
  createdAt: number;
  /** Where the batches last appended start, for exact reads near the end (segment-reader.ts). */
  readonly recent = new RecentBatches();
  private maxTs: number | undefined;
  private maxTsOffset = -1;
  private bytesSinceLastIndexEntry = 0;
  private fd: number | null = null;
  private active = false;
  /** The check of the index files the log loader left for their first use (see ensureIndexes). */
  private pendingIndexCheck: (() => void) | null = null;
  private closed = false;

  private constructor(
    readonly dir: string,
    readonly baseOffset: number,
    readonly config: SegmentConfig,
  ) {
    this.logPath = segmentFilePath(dir, baseOffset, 'log');
    this.index = new OffsetIndex(segmentFilePath(dir, baseOffset, 'index'), baseOffset, config.openFiles, this);
    this.timeIndex = new TimeIndex(segmentFilePath(dir, baseOffset, 'timeindex'), baseOffset, config.openFiles, this);
    this.txnIndex = new TransactionIndex(segmentFilePath(dir, baseOffset, 'txnindex'));
    this.nextOffset = baseOffset;
    this.createdAt = config.now();
  }

  /** A new, empty, active segment (any files of that name are emptied). */
  static create(dir: string, baseOffset: number, config: SegmentConfig): Segment {
    const seg = new Segment(dir, baseOffset, config);
    // Opened as they stay (the segment is about to be appended to), then emptied.
    fs.ftruncateSync(seg.handle(), 0);
    seg.index.reset();
    seg.timeIndex.reset();
    seg.maxTs = -1;
    seg.setActive(true);
    return seg;
  }

  /**
   * An existing segment, not yet read: size from stat, nextOffset = nextBase (the next segment's base
   * offset) until a scan says otherwise. The log loader scans or checks it next (log-loader.ts).
   */
  static open(dir: string, baseOffset: number, config: SegmentConfig, nextBase: number | null): Segment {
    const seg = new Segment(dir, baseOffset, config);
    seg.size = fs.statSync(seg.logPath).size;
    seg.nextOffset = nextBase ?? baseOffset;
    return seg;
  }

  get isActive(): boolean {
    return this.active;
  }

  setActive(active: boolean): void {
    this.active = active;
  }

  /** The .log's descriptor, opened if need be, marked as just used in the bound of open files. */
  handle(): number {
    if (this.closed) throw new KafkaError('KAFKA_STORAGE_ERROR', `segment ${this.logPath} is closed`);
    if (this.fd === null) this.fd = this.config.openFiles.open(this, this.logPath, 'a+');
    else this.config.openFiles.touch(this);
    return this.fd;
  }

  /** Closes the descriptors (they reopen on next use); called by open-files.ts to stay within its bound. */
  closeFiles(): void {
    try {
      if (this.fd !== null) {
        const fd = this.fd;
        this.fd = null;
        this.config.openFiles.close(this, fd);
      }
    } finally {
      try {
        this.index.close();
      } finally {
        this.timeIndex.close();
      }
    }
  }

  // --- index maintenance -------------------------------------------------------------------------------

  /**
   * Leaves a check of the index files for their first use: the log loader does not read a trusted segment
   * at start, so that a log of many segments opens fast.
   */
  checkIndexesOnFirstUse(check: () => void): void {
    this.pendingIndexCheck = check;
  }

  /** Runs the index check left for first use, once (the loader's rebuild clears it). */
  ensureIndexes(): void {
    const check = this.pendingIndexCheck;
    if (check === null) return;
    this.pendingIndexCheck = null;
    check();
  }

  /** Empties both indexes and forgets the max timestamp, to rebuild them from the .log. */
  resetIndexes(): void {
    this.pendingIndexCheck = null;
    this.index.reset();
    this.timeIndex.reset();
    this.maxTs = -1;
    this.maxTsOffset = -1;
    this.bytesSinceLastIndexEntry = 0;
  }

  /** Takes up indexing where the (checked) index files end: their last entries are the latest. */
  continueIndexes(): void {
    this.pendingIndexCheck = null;
    const lastTime = this.timeIndex.lastEntry();
    this.maxTs = lastTime ? lastTime.timestamp : -1;
    this.maxTsOffset = lastTime ? lastTime.offset : -1;
    this.bytesSinceLastIndexEntry = 0;
  }

  /**
   * Accounts for the batch at `position`: tracks the max timestamp and, every index.interval.bytes, adds
   * index entries (unless `write` is false: the batch is already indexed).
   */
  indexBatch(position: number, size: number, lastOffset: number, maxTimestamp: number, write = true): void {
    if (maxTimestamp > this.maxTs!) {
      this.maxTs = maxTimestamp;
      this.maxTsOffset = lastOffset;
    }
    if (write && this.bytesSinceLastIndexEntry > this.config.indexIntervalBytes) {
      this.index.append(lastOffset, position);
      this.timeIndex.maybeAppend(this.maxTs!, this.maxTsOffset);
      this.bytesSinceLastIndexEntry = 0;
    }
    this.bytesSinceLastIndexEntry += size;
  }

  /**
   * Cuts the .log at `position`, a batch boundary (nextOffset is already the offset after it), and the index
   * entries past it. The max timestamp is left to the caller (the loader rebuilds it as it scans).
   */
  truncateTo(position: number): void {
    fs.ftruncateSync(this.handle(), position);
    this.recent.clear();
    this.index.truncateToPosition(position);
    this.timeIndex.truncateTo(this.nextOffset);
    this.txnIndex.truncateTo(this.nextOffset);
    this.size = position;
  }

  /** Adds the time index entry of the segment's max timestamp, which an inactive segment's time index ends with. */
  finishTimeIndex(): void {
    this.ensureMaxTimestamp();
    if (this.maxTs! >= 0) this.timeIndex.maybeAppend(this.maxTs!, this.maxTsOffset);
  }

  private ensureMaxTimestamp(): void {
    if (this.maxTs !== undefined) return;
    this.ensureIndexes();
    if (this.maxTs !== undefined) return;
    const last = this.timeIndex.lastEntry();
    this.maxTs = last ? last.timestamp : -1;
    this.maxTsOffset = last ? last.offset : -1;
  }

  /** The largest batch max timestamp in the segment (-1 when none). */
  get maxTimestamp(): number {
    this.ensureMaxTimestamp();
    return this.maxTs!;
  }

  /** The last offset of the first batch that reached maxTimestamp (-1 when none). */
  get maxTimestampOffset(): number {
    this.ensureMaxTimestamp();
    return this.maxTsOffset;
  }

  // --- appending ---------------------------------------------------------------------------------------

  /**
   * Appends `bytes` (whole batches with offsets already assigned, described by `batches`) in one write,
   * then updates the indexes. On a failed write the file is cut back to its previous size.
   */
  append(bytes: Buffer, batches: SegmentAppendBatch[]): void {
    const fd = this.handle();
    this.ensureMaxTimestamp();
    if (this.size === 0) this.createdAt = this.config.now();
    const start = this.size;
    try {
      let done = 0;
      while (done < bytes.length) done += fs.writeSync(fd, bytes, done, bytes.length - done);
    } catch (err) {
      try {
        fs.ftruncateSync(fd, start);
      } catch {
        // the error below is what matters
      }
      throw new KafkaError('KAFKA_STORAGE_ERROR', `write to ${this.logPath} failed: ${(err as Error).message}`);
    }
    this.size += bytes.length;
    for (const b of batches) {
      this.recent.add(start + b.position);
      this.indexBatch(start + b.position, b.size, b.lastOffset, b.maxTimestamp);
      this.nextOffset = b.lastOffset + 1;
    }
  }

  /** Called when the segment stops being the active one: records its max timestamp in the time index. */
  onBecomeInactive(): void {
    this.recent.clear();
    this.finishTimeIndex();
    this.setActive(false);
  }

  // --- durability and lifecycle ------------------------------------------------------------------------

  /** fsync of the .log and both indexes. */
  flush(): void {
    fs.fsyncSync(this.handle());
    this.index.flush();
    this.timeIndex.flush();
  }

  /** fsync through fresh descriptors, off the event loop; files that vanished meanwhile are skipped. */
  async flushAsync(): Promise<void> {
    for (const p of [this.logPath, this.index.path, this.timeIndex.path]) {
      let fh: FileHandle | null = null;
      try {
        fh = await fs.promises.open(p, 'r');
        await fh.sync();
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      } finally {
        await fh?.close();
      }
    }
  }

  /** Closed (replaced or deleted): its reads fail. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Its files' paths: .log, .index, .timeindex, .txnindex (which may not exist). */
  filePaths(): string[] {
    return [this.logPath, this.index.path, this.timeIndex.path, this.txnIndex.path];
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.closeFiles();
  }

  /**
   * Closes the segment and renames its files to <name>.deleted (Kafka's asynchronous segment deletion):
   * the caller removes the returned paths later (file-deleter.ts). A file that is missing is skipped.
   */
  renameForDeletion(): string[] {
    this.close();
    const renamed: string[] = [];
    for (const p of this.filePaths()) {
      const doomed = renameForDeletion(p);
      if (doomed) renamed.push(doomed);
    }
    return renamed;
  }

  /** Closes and removes its files. */
  delete(): void {
    this.close();
    for (const p of [this.logPath, this.index.path, this.timeIndex.path]) fs.rmSync(p, { force: true });
    this.txnIndex.delete();
  }
}
