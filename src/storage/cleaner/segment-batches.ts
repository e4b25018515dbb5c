// Reading a segment's batches for the cleaner, a bounded chunk at a time (so that a pass can yield to the
// event loop between chunks), with every batch's CRC checked: the cleaner never rewrites a batch it could
// not read back whole.

import { LOG_OVERHEAD, RECORD_BATCH_OVERHEAD, scanBatches, type BatchInfo } from '../../../protocol/record-batch.js';
import { readFully } from '../segment-reader.js';
import type { Segment } from '../segment.js';

export interface BatchChunk {
  buf: Buffer;
  batches: BatchInfo[];
  /** Where the next chunk starts in the .log. */
  next: number;
}

/** The whole batches from `position` within about `chunkBytes` (one batch at least); null at the end of the segment. */
export function readBatchChunk(seg: Segment, position: number, chunkBytes: number): BatchChunk | null {
  const end = seg.size;
  if (position + RECORD_BATCH_OVERHEAD > end) return null;
  const fd = seg.handle();
  let want = Math.min(chunkBytes, end - position);
  let buf = Buffer.allocUnsafe(want);
  let got = readFully(fd, buf, 0, want, position);
  let whole = wholeBatchesLength(buf.subarray(0, got));
  if (whole === 0 && got >= LOG_OVERHEAD) {
    // A batch larger than the chunk: read it alone.
    want = Math.min(LOG_OVERHEAD + buf.readInt32BE(8), end - position);
    buf = Buffer.allocUnsafe(want);
    got = readFully(fd, buf, 0, want, position);
    whole = wholeBatchesLength(buf.subarray(0, got));
  }
  if (whole === 0) throw new Error(`segment ${seg.logPath}: no whole batch at position ${position}`);
  const bytes = buf.subarray(0, whole);
  return { buf: bytes, batches: scanBatches(bytes, { fromClient: false }), next: position + whole };
}

function wholeBatchesLength(buf: Buffer): number {
  let pos = 0;
  while (pos + LOG_OVERHEAD <= buf.length) {
    const size = LOG_OVERHEAD + buf.readInt32BE(pos + 8);
    if (size < RECORD_BATCH_OVERHEAD || pos + size > buf.length) break;
    pos += size;
  }
  return pos;
}

/** The max timestamp of the segment's first batch (Kafka's getFirstBatchTimestamp), -1 when it has none. */
export function firstBatchTimestamp(seg: Segment): number {
  if (seg.size < RECORD_BATCH_OVERHEAD) return -1;
  const head = Buffer.allocUnsafe(RECORD_BATCH_OVERHEAD);
  if (readFully(seg.handle(), head, 0, RECORD_BATCH_OVERHEAD, 0) !== RECORD_BATCH_OVERHEAD) return -1;
  return Number(head.readBigInt64BE(35));
}
