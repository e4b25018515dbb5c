// What the log itself asks of a magic-2 record batch, on top of protocol/record-batch.ts (which reads
// headers, checks CRCs and decodes records). Layout of the 61-byte header, big-endian:
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

import { MAGIC, RECORD_BATCH_OVERHEAD, decodeBatch, readBatchHeader, type BatchInfo, type RecordBatch } from '../../protocol/record-batch.js';

/** Checks the header fields the log relies on; null when fine, else the reason. */
export function headerProblem(h: BatchInfo): string | null {
  if (h.size < RECORD_BATCH_OVERHEAD) return `batch size ${h.size} is smaller than a batch header`;
  if (h.magic !== MAGIC) return `magic ${h.magic} is not 2`;
  if (h.lastOffsetDelta < 0) return `negative lastOffsetDelta ${h.lastOffsetDelta}`;
  if (h.baseOffset < 0) return `negative baseOffset ${h.baseOffset}`;
  return null;
}

/**
 * The first record of `batch` (a whole batch) whose timestamp is >= target and whose offset is >=
 * minOffset, as {offset, timestamp}; null when there is none. LogAppendTime batches answer from the header
 * (every record carries maxTimestamp); CreateTime batches are decoded by the protocol layer, and a batch
 * whose records cannot be read answers at batch granularity (its base offset and max timestamp).
 */
export function firstRecordAtOrAfter(batch: Buffer, target: number, minOffset: number): { offset: number; timestamp: number } | null {
  const h = readBatchHeader(batch, 0);
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
