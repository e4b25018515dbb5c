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
// they are for a response (read-buffers.ts).
// Descriptors are opened on first use and kept in the least-recently-used set of open-files.ts that
// the log manager owns, the active segment's too: any number of partitions fits under a small `ulimit -n`, and an
// append or read on a segment whose files were closed reopens them.

import fs from 'node:fs';
import { KafkaError } from '../../protocol/errors.js';
import { LOG_OVERHEAD, RECORD_BATCH_OVERHEAD as HEADER_SIZE, readBatchHeader, verifyBatchCrc, type BatchInfo } from '../../protocol/record-batch.js';
import { firstRecordAtOrAfter, headerProblem } from './batch-header.js';
import { segmentFilePath } from './file-names.js';
import type { FileOwner, OpenFiles } from './open-files.js';
import { OffsetIndex } from './offset-index.js';
import { TimeIndex } from './time-index.js';
import { RecentBatches } from './recent-batches.js';
import { readBuffers } from './read-buffers.js';

export interface SegmentConfig {
  indexIntervalBytes: number;
  now: () => number;
  /** The bound on open segment files these segments' descriptors count against (their log manager's). */
  openFiles: OpenFiles;
  /** Decodes record timestamps of compressed batches (for exact offsetForTimestamp answers). */
}

/** A batch inside the bytes given to Segment.append; position is relative to those bytes. */
export interface SegmentAppendBatch {
  position: number;
  size: number;
  lastOffset: number;
  maxTimestamp: number;
}

export interface ScanResult {
  /** Bytes cut from the end of the .log because they did not form valid batches. */
  truncatedBytes: number;
  /** Why the scan stopped early, when it did. */
  problem: string | null;
}

/** Batches read by their size prefixes alone before a read (Segment.walkLargeBatches). */
const WALK_MAX = 8;
/** The 12 bytes (offset, length) that start every batch: shared, as reads are synchronous. */
const sizePrefix = Buffer.alloc(LOG_OVERHEAD);

function readFully(fd: number, buf: Buffer, offset: number, length: number, position: number): number {
  let done = 0;
  while (done < length) {
    const n = fs.readSync(fd, buf, offset + done, length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return done;
}

/** A sliding read window over [0, end) of a file, for walking batch headers without a read per header. */
class Window {
  buf: Buffer = Buffer.alloc(0);
  private start = 0;
  private len = 0;

  constructor(
    private readonly fd: number,
    private readonly end: number,
    private readonly chunk: number,
  ) {}

  /** Offset into buf at which [pos, pos + n) of the file is available, or -1 when past the end. */
  at(pos: number, n: number): number {
    if (pos < 0 || pos + n > this.end) return -1;
    if (pos >= this.start && pos + n <= this.start + this.len) return pos - this.start;
    const want = Math.min(Math.max(this.chunk, n), this.end - pos);
    if (this.buf.length < want) this.buf = Buffer.allocUnsafe(Math.max(want, Math.min(this.chunk, this.end - pos)));
    this.start = pos;
    this.len = readFully(this.fd, this.buf, 0, want, pos);
    return this.len >= n ? 0 : -1;
  }
}

export class Segment implements FileOwner {
  readonly logPath: string;
  readonly index: OffsetIndex;
  readonly timeIndex: TimeIndex;
  /** Bytes in the .log. */
  size = 0;
  /** One past the last offset held (the base offset when empty). */
  nextOffset: number;
  /** Wall-clock time the segment started receiving data (segment.ms rolls are measured from it). */
  createdAt: number;
  private maxTs: number | undefined;
  private maxTsOffset = -1;
  private bytesSinceLastIndexEntry = 0;
  private fd: number | null = null;
  private active = false;
  private indexesChecked = false;
  private closed = false;
  private readonly recent = new RecentBatches();

  private constructor(
    readonly dir: string,
    readonly baseOffset: number,
    private readonly config: SegmentConfig,
  ) {
    this.logPath = segmentFilePath(dir, baseOffset, 'log');
    this.index = new OffsetIndex(segmentFilePath(dir, baseOffset, 'index'), baseOffset, config.openFiles, this);
    this.timeIndex = new TimeIndex(segmentFilePath(dir, baseOffset, 'timeindex'), baseOffset, config.openFiles, this);
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
    seg.indexesChecked = true;
    seg.setActive(true);
    return seg;
  }

  /**
   * An existing segment, not yet read: size from stat, nextOffset = nextBase (the next segment's base
   * offset) until a scan says otherwise. Call recover(), tailScan() or checkTrusted() next.
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

  private handle(): number {
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

  // --- loading and recovery --------------------------------------------------------------------------

  /**
   * Full scan of the .log from position 0, verifying every batch (complete header, magic 2, size within
   * the file, CRC32C, offsets increasing); truncates the file at the first bad batch (when truncate) and
   * rebuilds both indexes from the batches kept.
   */
  recover(opts: { verifyCrc: boolean; truncate: boolean } = { verifyCrc: true, truncate: true }): ScanResult {
    this.index.reset();
    this.timeIndex.reset();
    this.maxTs = -1;
    this.maxTsOffset = -1;
    this.bytesSinceLastIndexEntry = 0;
    const startNext = this.nextOffset;
    this.nextOffset = this.baseOffset;
    const result = this.scanFrom(0, opts.verifyCrc, opts.truncate, false);
    if (!opts.truncate && result.problem) this.nextOffset = Math.max(this.nextOffset, startNext);
    this.indexesChecked = true;
    this.createdAt = this.firstBatchTime();
    if (!this.active) this.timeIndex.maybeAppend(this.maxTs!, this.maxTsOffset);
    return result;
  }

  /**
   * After a clean shutdown: checks both indexes in full, then scans (with CRC) only from the last offset
   * index entry to the end of the file. Returns null when the indexes were unusable, in which case the
   * caller should recover() instead.
   */
  tailScan(): ScanResult | null {
    if (!this.index.sane() || !this.timeIndex.sane()) return null;
    if (this.index.validate(this.size) || this.timeIndex.validate()) return null;
    const last = this.index.lastEntry();
    let start = 0;
    if (last) {
      const fd = this.handle();
      const head = Buffer.alloc(HEADER_SIZE);
      if (readFully(fd, head, 0, HEADER_SIZE, last.position) !== HEADER_SIZE) return null;
      const h = readBatchHeader(head, 0);
      if (headerProblem(h) || h.baseOffset + h.lastOffsetDelta !== last.offset) return null;
      start = last.position;
      this.nextOffset = h.baseOffset;
    } else {
      this.nextOffset = this.baseOffset;
    }
    const lastTime = this.timeIndex.lastEntry();
    this.maxTs = lastTime ? lastTime.timestamp : -1;
    this.maxTsOffset = lastTime ? lastTime.offset : -1;
    this.bytesSinceLastIndexEntry = 0;
    // The batch at `start` is already indexed: it is counted, not indexed again.
    const result = this.scanFrom(start, true, true, last !== null);
    this.indexesChecked = true;
    this.createdAt = this.firstBatchTime();
    return result;
  }

  /**
   * A segment before the recovery point: trusted, but its indexes are rebuilt (without truncating the
   * log) when missing or not made of whole entries. Full index validation happens on first use.
   */
  checkTrusted(): boolean {
    if (this.index.sane() && this.timeIndex.sane()) return false;
    this.recover({ verifyCrc: false, truncate: false });
    return true;
  }

  /**
   * A cheap look at a trusted segment (one before the recovery point, not scanned at start): walks the
   * batches from its last offset index entry to the end of the .log, checking headers and CRCs, and changes
   * nothing. Returns what is wrong (the .log was cut mid-batch, a batch is corrupt, the index points past
   * the end), or null, in which case nextOffset becomes one past the last batch, so that a gap before the
   * next segment (a missing segment file) shows. Reads about index.interval.bytes plus the last batch.
   */
  checkTail(): string | null {
    const fd = this.handle();
    const fileSize = fs.fstatSync(fd).size;
    const win = new Window(fd, fileSize, 1 << 16);
    const last = this.index.lastEntry();
    let pos = 0;
    let next = this.baseOffset;
    if (last) {
      if (last.position >= fileSize) return `the .log (${fileSize} bytes) ends before the batch its offset index places at position ${last.position}`;
      const at = win.at(last.position, HEADER_SIZE);
      const h = at < 0 ? null : readBatchHeader(win.buf, at);
      if (!h || headerProblem(h) || h.baseOffset + h.lastOffsetDelta !== last.offset) {
        return `no batch ending at offset ${last.offset} at position ${last.position}, where the offset index places one`;
      }
      pos = last.position;
      next = h.baseOffset;
    }
    while (pos < fileSize) {
      const checked = this.checkBatchAt(win, pos, fileSize, next, true);
      if (typeof checked === 'string') return checked;
      next = checked.baseOffset + checked.lastOffsetDelta + 1;
      pos += checked.size;
    }
    if (fileSize > 0) this.nextOffset = next;
    return null;
  }

  /** Validates the indexes once (lazily, for trusted segments); rebuilds them when they fail. */
  private ensureIndexes(): void {
    if (this.indexesChecked) return;
    this.indexesChecked = true;
    const problem = this.index.validate(this.size) ?? this.timeIndex.validate(this.active ? undefined : this.nextOffset);
    if (problem) this.recover({ verifyCrc: false, truncate: false });
  }

  private firstBatchTime(): number {
    const now = this.config.now();
    if (this.size < HEADER_SIZE) return now;
    const head = Buffer.alloc(HEADER_SIZE);
    if (readFully(this.handle(), head, 0, HEADER_SIZE, 0) !== HEADER_SIZE) return now;
    const ts = readBatchHeader(head, 0).maxTimestamp;
    return ts >= 0 && ts <= now ? ts : now;
  }

  /**
   * Walks batches from `start`, indexing them (interval rule) and tracking nextOffset and the max
   * timestamp; at the first invalid batch, truncates the .log (and index entries past it) if asked.
   */
  private scanFrom(start: number, verifyCrc: boolean, truncate: boolean, firstIsIndexed: boolean): ScanResult {
    const fd = this.handle();
    const fileSize = fs.fstatSync(fd).size;
    const win = new Window(fd, fileSize, 1 << 20);
    let pos = start;
    let problem: string | null = null;
    while (pos < fileSize) {
      const checked = this.checkBatchAt(win, pos, fileSize, this.nextOffset, verifyCrc);
      if (typeof checked === 'string') {
        problem = checked;
        break;
      }
      const lastOffset = checked.baseOffset + checked.lastOffsetDelta;
      this.indexBatch(pos, checked.size, lastOffset, checked.maxTimestamp, !(firstIsIndexed && pos === start));
      this.nextOffset = lastOffset + 1;
      pos += checked.size;
    }
    let truncatedBytes = 0;
    if (problem && truncate) {
      truncatedBytes = fileSize - pos;
      fs.ftruncateSync(fd, pos);
      this.index.truncateToPosition(pos);
      this.timeIndex.truncateTo(this.nextOffset);
      this.size = pos;
    } else {
      this.size = fileSize;
    }
    return { truncatedBytes, problem };
  }

  /** The header of the batch at `pos` when it is whole and valid (its CRC too, if asked), else what is wrong. */
  private checkBatchAt(win: Window, pos: number, fileSize: number, nextOffset: number, verifyCrc: boolean): BatchInfo | string {
    let at = win.at(pos, HEADER_SIZE);
    if (at < 0) return `incomplete batch header at position ${pos}`;
    const h = readBatchHeader(win.buf, at);
    const problem = headerProblem(h);
    if (problem) return `${problem} (batch at position ${pos})`;
    if (pos + h.size > fileSize) return `batch at position ${pos} (${h.size} bytes) runs past the end of the file (${fileSize})`;
    if (h.baseOffset < nextOffset) return `batch at position ${pos} has base offset ${h.baseOffset}, below ${nextOffset}`;
    const lastOffset = h.baseOffset + h.lastOffsetDelta;
    if (lastOffset - this.baseOffset > 0x7fffffff) return `offset ${lastOffset} does not fit segment ${this.baseOffset}`;
    if (verifyCrc) {
      at = win.at(pos, h.size);
      if (at < 0 || !verifyBatchCrc(win.buf, at, h.size)) return `CRC mismatch in the batch at position ${pos}`;
    }
    return h;
  }

  private indexBatch(position: number, size: number, lastOffset: number, maxTimestamp: number, write = true): void {
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
    this.ensureMaxTimestamp();
    if (this.maxTs! >= 0) this.timeIndex.maybeAppend(this.maxTs!, this.maxTsOffset);
    this.setActive(false);
  }

  // --- reading -----------------------------------------------------------------------------------------

  /**
   * Up to `length` bytes of the .log from `position` (fewer at the end of the segment); `forSending`
   * when the bytes are for a response (see read-buffers.ts).
   */
  readBytes(position: number, length: number, forSending = false): Buffer {
    const n = Math.max(0, Math.min(length, this.size - position));
    const buf = forSending ? readBuffers.take(n) : Buffer.allocUnsafe(n);
    if (n === 0) return buf;
    const got = readFully(this.handle(), buf, 0, n, position);
    return got === n ? buf : buf.subarray(0, got);
  }

  /**
   * Whole batches from `position` fitting in maxBytes; with minOneBatch the first batch is returned
   * whole even when larger (KIP-74). Empty when nothing fits or position is at the end.
   */
  read(position: number, maxBytes: number, minOneBatch: boolean): Buffer {
    const avail = this.size - position;
    if (avail <= 0) return Buffer.alloc(0);
    const limit = position + Math.max(0, maxBytes);
    const exactEnd = this.recent.wholeBatchesEnd(position, limit, this.size);
    if (exactEnd > position) return this.readBytes(position, exactEnd - position, true);
    const walkedEnd = limit < this.size ? this.walkLargeBatches(position, limit, minOneBatch) : null;
    if (walkedEnd !== null) return walkedEnd > position ? this.readBytes(position, walkedEnd - position, true) : Buffer.alloc(0);
    const buf = this.readBytes(position, Math.max(Math.min(maxBytes, avail), minOneBatch ? Math.min(HEADER_SIZE, avail) : 0), true);
    let end = 0;
    while (end + LOG_OVERHEAD <= buf.length) {
      const size = this.batchSizeAt(buf, end, position + end);
      if (end + size > buf.length) break;
      end += size;
    }
    if (end > 0) return buf.subarray(0, end);
    if (!minOneBatch || buf.length < LOG_OVERHEAD) return Buffer.alloc(0);
    const size = this.batchSizeAt(buf, 0, position);
    return this.readBytes(position, size, true);
  }

  /**
   * Where a read from the batch at `position` should end (as read() would cut it), found by reading only
   * the size prefixes of the batches from there, when they are large: reading the whole budget and cutting
   * it would then throw away up to a batch, and read a first batch larger than the budget twice. Null for
   * small batches (the cut wastes little) and for more than WALK_MAX of them: the caller reads and cuts.
   */
  private walkLargeBatches(position: number, limit: number, minOneBatch: boolean): number | null {
    const fd = this.handle();
    let end = position;
    for (let step = 0; step < WALK_MAX; step++) {
      if (readFully(fd, sizePrefix, 0, LOG_OVERHEAD, end) < LOG_OVERHEAD) return null;
      const size = this.batchSizeAt(sizePrefix, 0, end);
      if (end + size > limit) return end > position || !minOneBatch ? end : end + size;
      if (step === 0 && size * WALK_MAX < limit - position) return null;
      end += size;
    }
    return null;
  }

  /** The size of the batch whose first bytes are at buf[at] (file position `position`), checked. */
  private batchSizeAt(buf: Buffer, at: number, position: number): number {
    const size = LOG_OVERHEAD + buf.readInt32BE(at + 8);
    if (size < HEADER_SIZE) throw this.invalidBatchSize(size, position);
    return size;
  }

  private invalidBatchSize(size: number, position: number): KafkaError {
    return new KafkaError('CORRUPT_MESSAGE', `invalid batch size ${size} at position ${position} of ${this.logPath}`);
  }

  /** The whole batch starting at `position`. */
  readBatch(position: number): Buffer {
    const head = this.readBytes(position, LOG_OVERHEAD);
    if (head.length < LOG_OVERHEAD) throw new KafkaError('CORRUPT_MESSAGE', `no batch at position ${position} of ${this.logPath}`);
    return this.readBytes(position, LOG_OVERHEAD + head.readInt32BE(8));
  }

  /**
   * Byte position of the batch holding `offset` (the first batch whose last offset is >= offset), found
   * from the offset index and a scan of batch headers; -1 when no batch of this segment reaches it.
   */
  translateOffset(offset: number): number {
    this.ensureIndexes();
    return this.findBatch(this.index.lookup(Math.max(offset, this.baseOffset)).position, (base, last) => last >= offset);
  }

  /** Position of the first batch at or after `start` for which match(baseOffset, lastOffset, maxTimestamp) holds; -1 if none. */
  private findBatch(start: number, match: (base: number, last: number, maxTs: number) => boolean): number {
    this.ensureIndexes();
    const win = new Window(this.handle(), this.size, 1 << 16);
    let pos = start;
    for (;;) {
      const at = win.at(pos, HEADER_SIZE);
      if (at < 0) return -1;
      const { baseOffset: base, size, lastOffsetDelta, maxTimestamp } = readBatchHeader(win.buf, at);
      if (match(base, base + lastOffsetDelta, maxTimestamp)) return pos;
      if (size < HEADER_SIZE) throw this.invalidBatchSize(size, pos);
      pos += size;
    }
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

  /**
   * The first record with timestamp >= ts and offset >= startOffset: time index lookup, offset index
   * lookup, then a scan of batch headers and the records of the first batch that can hold it.
   */
  findOffsetByTimestamp(ts: number, startOffset = this.baseOffset): { offset: number; timestamp: number } | null {
    if (this.maxTimestamp < ts) return null;
    const fromTime = this.timeIndex.lookup(ts);
    let pos = this.index.lookup(Math.max(fromTime.offset, startOffset)).position;
    for (;;) {
      pos = this.findBatch(pos, (_b, last, maxTs) => maxTs >= ts && last >= startOffset);
      if (pos < 0) return null;
      const batch = this.readBatch(pos);
      const found = firstRecordAtOrAfter(batch, ts, startOffset);
      if (found) return found;
      pos += batch.length;
    }
  }

  /** The record with the segment's largest timestamp (the first one, on ties), or null when none has one. */
  maxTimestampAndOffset(): { offset: number; timestamp: number } | null {
    const ts = this.maxTimestamp;
    if (ts < 0) return null;
    const pos = this.translateOffset(this.maxTsOffset);
    if (pos >= 0) {
      const found = firstRecordAtOrAfter(this.readBatch(pos), ts, this.baseOffset);
      if (found) return found;
    }
    return { offset: this.maxTsOffset, timestamp: ts };
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
      let fh: fs.promises.FileHandle | null = null;
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

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.closeFiles();
  }

  /** Closes and removes the three files. */
  delete(): void {
    this.close();
    for (const p of [this.logPath, this.index.path, this.timeIndex.path]) fs.rmSync(p, { force: true });
  }
}
