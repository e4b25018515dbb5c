// The parts of a magic-2 record batch the log itself needs (private to storage; the protocol layer has
// its own full codec). Layout of the 61-byte header, big-endian:
//
//   @0  baseOffset int64          @8  batchLength int32 (batch size = 12 + batchLength)
//   @12 partitionLeaderEpoch int32 @16 magic int8 (= 2)  @17 crc uint32 = CRC32C of bytes [21, end)
//   @21 attributes int16 (bits 0-2 codec, bit 3 timestamp type: 1 = LogAppendTime)
//   @23 lastOffsetDelta int32     @27 baseTimestamp int64  @35 maxTimestamp int64
//   @43 producerId int64          @51 producerEpoch int16  @53 baseSequence int32  @57 recordCount int32
//   @61 records: each = length varint, attributes int8, timestampDelta varlong, offsetDelta varint, ...
//
// The CRC does not cover baseOffset, batchLength, partitionLeaderEpoch or magic, so the log can write
// baseOffset in place when it assigns offsets.

import { decodeBatch, verifyBatchCrc, type RecordBatch } from '../../protocol/record-batch.js';

export const HEADER_SIZE = 61;
/** Bytes before batchLength's end: the smallest read that tells a batch's size. */
export const LOG_OVERHEAD = 12;
export const MAGIC = 2;

export interface BatchHeader {
  baseOffset: number;
  /** Whole batch: 12 + batchLength. */
  size: number;
  magic: number;
  crc: number;
  attributes: number;
  lastOffsetDelta: number;
  baseTimestamp: number;
  maxTimestamp: number;
  recordCount: number;
}

/** int64 as a number (exact below 2^53). */
export function readInt64(buf: Buffer, at: number): number {
  return buf.readInt32BE(at) * 4294967296 + buf.readUInt32BE(at + 4);
}

export function writeInt64(buf: Buffer, at: number, v: number): void {
  const hi = Math.floor(v / 4294967296);
  buf.writeInt32BE(hi, at);
  buf.writeUInt32BE(v - hi * 4294967296, at + 4);
}

/** Reads the 61-byte header at pos; the caller ensures buf holds HEADER_SIZE bytes there. */
export function readHeader(buf: Buffer, pos: number): BatchHeader {
  return {
    baseOffset: readInt64(buf, pos),
    size: LOG_OVERHEAD + buf.readInt32BE(pos + 8),
    magic: buf.readInt8(pos + 16),
    crc: buf.readUInt32BE(pos + 17),
    attributes: buf.readInt16BE(pos + 21),
    lastOffsetDelta: buf.readInt32BE(pos + 23),
    baseTimestamp: readInt64(buf, pos + 27),
    maxTimestamp: readInt64(buf, pos + 35),
    recordCount: buf.readInt32BE(pos + 57),
  };
}

/** Checks the header fields the log relies on; null when fine, else the reason. */
export function headerProblem(h: BatchHeader): string | null {
  if (h.size < HEADER_SIZE) return `batch size ${h.size} is smaller than a batch header`;
  if (h.magic !== MAGIC) return `magic ${h.magic} is not 2`;
  if (h.lastOffsetDelta < 0) return `negative lastOffsetDelta ${h.lastOffsetDelta}`;
  if (h.baseOffset < 0) return `negative baseOffset ${h.baseOffset}`;
  return null;
}

/** Whether the CRC32C stored in the batch at buf[pos, pos+size) matches its bytes [21, size). */
export function crcValid(buf: Buffer, pos: number, size: number): boolean {
  return verifyBatchCrc(buf, pos, size);
}

/**
 * The first record of `batch` (a whole batch) whose timestamp is >= target and whose offset is >=
 * minOffset, as {offset, timestamp}; null when there is none. LogAppendTime batches answer from the header
 * (every record carries maxTimestamp); CreateTime batches are decoded by the protocol layer, and a batch
 * whose records cannot be read answers at batch granularity (its base offset and max timestamp).
 */
export function firstRecordAtOrAfter(batch: Buffer, target: number, minOffset: number): { offset: number; timestamp: number } | null {
  const h = readHeader(batch, 0);
  const lastOffset = h.baseOffset + h.lastOffsetDelta;
  if (h.maxTimestamp < target || lastOffset < minOffset) return null;
  const atBatch = { offset: Math.max(h.baseOffset, minOffset), timestamp: h.maxTimestamp };
  if ((h.attributes & 0x08) !== 0) return atBatch;
  let decoded: RecordBatch;
  try {
    decoded = decodeBatch(batch);
  } catch {
    return atBatch;
  }
  for (const r of decoded.records) {
    const offset = h.baseOffset + r.offsetDelta;
    const timestamp = h.baseTimestamp + r.timestampDelta;
    if (offset >= minOffset && timestamp >= target) return { offset, timestamp };
  }
  return null;
}
