// Reading a segment's .log: positional reads, a sliding window for walking batch headers, the cutting of a
// fetch read to whole batches, offset and timestamp lookups.
//
// A fetch read (readBatches) answers whole batches from a batch boundary, as many as fit a byte budget,
// the first one whole even when larger with minOneBatch (KIP-74). It is cut in the cheapest of three ways:
//   - near the end of the active segment, the starts of the batches last appended (recent-batches.ts) give
//     the end of the last whole batch that fits: exactly those bytes are read;
//   - large batches: their 12-byte size prefixes are read one by one (at most WALK_MAX of them), then
//     exactly the batches that fit;
//   - otherwise the whole budget is read and cut after its last whole batch.
// Reads for a response go into pooled buffers (read-buffers.ts), or are views of the file in memory
// (storage-fs.ts view()). Everything here is synchronous, so the
// shared scratch buffer and the segment's descriptor are not used by anything else meanwhile.

import fs from './storage-fs.js';
import { KafkaError } from '../../protocol/errors.js';
import { LOG_OVERHEAD, RECORD_BATCH_OVERHEAD as HEADER_SIZE, readBatchHeader } from '../../protocol/record-batch.js';
import { firstRecordAtOrAfter } from './batch-header.js';
import { readBuffers } from './read-buffers.js';
import type { Segment } from './segment.js';

/** Batches read by their size prefixes alone before a read (walkLargeBatches). */
const WALK_MAX = 8;
/** The 12 bytes (offset, length) that start every batch: shared, as reads are synchronous. */
const sizePrefix = Buffer.alloc(LOG_OVERHEAD);

/** Reads `length` bytes at `position` into buf[offset...], fewer only at the end of the file; returns how many. */
export function readFully(fd: number, buf: Buffer, offset: number, length: number, position: number): number {
  let done = 0;
  while (done < length) {
    const n = fs.readSync(fd, buf, offset + done, length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return done;
}

/** A sliding read window over [0, end) of a file, for walking batch headers without a read per header. */
export class Window {
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
    this.start = pos;
    const view = fs.view(this.fd, pos, want);
    if (view) {
      this.buf = view;
      this.len = view.length;
      return this.len >= n ? 0 : -1;
    }
    if (this.buf.length < want) this.buf = Buffer.allocUnsafe(Math.max(want, Math.min(this.chunk, this.end - pos)));
    this.len = readFully(this.fd, this.buf, 0, want, pos);
    return this.len >= n ? 0 : -1;
  }
}

/**
 * Up to `length` bytes of the .log from `position` (fewer at the end of the segment); `forSending`
 * when the bytes are for a response (see read-buffers.ts).
 */
export function readBytes(seg: Segment, position: number, length: number, forSending = false): Buffer {
  const n = Math.max(0, Math.min(length, seg.size - position));
  if (n === 0) return Buffer.alloc(0);
  const fd = seg.handle();
  const view = forSending ? fs.view(fd, position, n) : null;
  if (view) return view;
  const buf = forSending ? readBuffers.take(n) : Buffer.allocUnsafe(n);
  const got = readFully(fd, buf, 0, n, position);
  return got === n ? buf : buf.subarray(0, got);
}

/**
 * Whole batches from `position` fitting in maxBytes; with minOneBatch the first batch is returned
 * whole even when larger (KIP-74). Empty when nothing fits or position is at the end.
 */
export function readBatches(seg: Segment, position: number, maxBytes: number, minOneBatch: boolean): Buffer {
  const avail = seg.size - position;
  if (avail <= 0) return Buffer.alloc(0);
  const limit = position + Math.max(0, maxBytes);
  const exactEnd = seg.recent.wholeBatchesEnd(position, limit, seg.size);
  if (exactEnd > position) return readBytes(seg, position, exactEnd - position, true);
  const walkedEnd = limit < seg.size ? walkLargeBatches(seg, position, limit, minOneBatch) : null;
  if (walkedEnd !== null) return walkedEnd > position ? readBytes(seg, position, walkedEnd - position, true) : Buffer.alloc(0);
  const buf = readBytes(seg, position, Math.max(Math.min(maxBytes, avail), minOneBatch ? Math.min(HEADER_SIZE, avail) : 0), true);
  let end = 0;
  while (end + LOG_OVERHEAD <= buf.length) {
    const size = batchSizeAt(seg, buf, end, position + end);
    if (end + size > buf.length) break;
    end += size;
  }
  if (end > 0) return buf.subarray(0, end);
  if (!minOneBatch || buf.length < LOG_OVERHEAD) return Buffer.alloc(0);
  const size = batchSizeAt(seg, buf, 0, position);
  return readBytes(seg, position, size, true);
}

/**
 * Where a read from the batch at `position` should end (as readBatches would cut it), found by reading
 * only the size prefixes of the batches from there, when they are large: reading the whole budget and
 * cutting it would then throw away up to a batch, and read a first batch larger than the budget twice.
 * Null for small batches (the cut wastes little) and for more than WALK_MAX of them: the caller reads
 * and cuts.
 */
function walkLargeBatches(seg: Segment, position: number, limit: number, minOneBatch: boolean): number | null {
  const fd = seg.handle();
  let end = position;
  for (let step = 0; step < WALK_MAX; step++) {
    if (readFully(fd, sizePrefix, 0, LOG_OVERHEAD, end) < LOG_OVERHEAD) return null;
    const size = batchSizeAt(seg, sizePrefix, 0, end);
    if (end + size > limit) return end > position || !minOneBatch ? end : end + size;
    if (step === 0 && size * WALK_MAX < limit - position) return null;
    end += size;
  }
  return null;
}

/** The size of the batch whose first bytes are at buf[at] (file position `position`), checked. */
function batchSizeAt(seg: Segment, buf: Buffer, at: number, position: number): number {
  const size = LOG_OVERHEAD + buf.readInt32BE(at + 8);
  if (size < HEADER_SIZE) throw invalidBatchSize(seg, size, position);
  return size;
}

function invalidBatchSize(seg: Segment, size: number, position: number): KafkaError {
  return new KafkaError('CORRUPT_MESSAGE', `invalid batch size ${size} at position ${position} of ${seg.logPath}`);
}

/** The whole batch starting at `position`. */
export function readBatch(seg: Segment, position: number): Buffer {
  const head = readBytes(seg, position, LOG_OVERHEAD);
  if (head.length < LOG_OVERHEAD) throw new KafkaError('CORRUPT_MESSAGE', `no batch at position ${position} of ${seg.logPath}`);
  return readBytes(seg, position, LOG_OVERHEAD + head.readInt32BE(8));
}

/**
 * Byte position of the batch holding `offset` (the first batch whose last offset is >= offset), found
 * from the offset index and a scan of batch headers; -1 when no batch of this segment reaches it.
 */
export function translateOffset(seg: Segment, offset: number): number {
  seg.ensureIndexes();
  return findBatch(seg, seg.index.lookup(Math.max(offset, seg.baseOffset)).position, (_base, last) => last >= offset);
}

/** Position of the first batch at or after `start` for which match(baseOffset, lastOffset, maxTimestamp) holds; -1 if none. */
function findBatch(seg: Segment, start: number, match: (base: number, last: number, maxTs: number) => boolean): number {
  seg.ensureIndexes();
  const win = new Window(seg.handle(), seg.size, 1 << 16);
  let pos = start;
  for (;;) {
    const at = win.at(pos, HEADER_SIZE);
    if (at < 0) return -1;
    const { baseOffset: base, size, lastOffsetDelta, maxTimestamp } = readBatchHeader(win.buf, at);
    if (match(base, base + lastOffsetDelta, maxTimestamp)) return pos;
    if (size < HEADER_SIZE) throw invalidBatchSize(seg, size, pos);
    pos += size;
  }
}

/**
 * The first record with timestamp >= ts and offset >= startOffset: time index lookup, offset index
 * lookup, then a scan of batch headers and the records of the first batch that can hold it.
 */
export function findOffsetByTimestamp(seg: Segment, ts: number, startOffset = seg.baseOffset): { offset: number; timestamp: number } | null {
  if (seg.maxTimestamp < ts) return null;
  const fromTime = seg.timeIndex.lookup(ts);
  let pos = seg.index.lookup(Math.max(fromTime.offset, startOffset)).position;
  for (;;) {
    pos = findBatch(seg, pos, (_b, last, maxTs) => maxTs >= ts && last >= startOffset);
    if (pos < 0) return null;
    const batch = readBatch(seg, pos);
    const found = firstRecordAtOrAfter(batch, ts, startOffset);
    if (found) return found;
    pos += batch.length;
  }
}

/** The record with the segment's largest timestamp (the first one, on ties), or null when none has one. */
export function maxTimestampAndOffset(seg: Segment): { offset: number; timestamp: number } | null {
  const ts = seg.maxTimestamp;
  if (ts < 0) return null;
  const maxTsOffset = seg.maxTimestampOffset;
  const pos = translateOffset(seg, maxTsOffset);
  if (pos >= 0) {
    const found = firstRecordAtOrAfter(readBatch(seg, pos), ts, seg.baseOffset);
    if (found) return found;
  }
  return { offset: maxTsOffset, timestamp: ts };
}
