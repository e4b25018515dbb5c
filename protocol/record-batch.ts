// Kafka record batches, magic 2 (the only format krill speaks). The same bytes are the Produce
// payload, the segment-file contents and the Fetch payload, so a batch is validated once on the way in
// and afterwards only ever patched in place (base offset, leader epoch, LogAppendTime).
//
// Layout, big-endian; offsets from the start of the batch:
//
//    0  baseOffset            int64   offset of the first record (assigned by the broker)
//    8  batchLength           int32   bytes that follow this field: a batch is 12 + batchLength bytes
//   12  partitionLeaderEpoch  int32   set by the broker; -1 from clients
//   16  magic                 int8    2 (legacy message sets keep their magic at the same place)
//   17  crc                   uint32  CRC-32C of bytes [21, end): attributes to the end of the batch.
//                                     baseOffset, batchLength and partitionLeaderEpoch are NOT covered,
//                                     which is what lets the broker patch them without recomputing it.
//   21  attributes            int16   bits 0-2 codec (0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd)
//                                     bit 3 timestamp type (0 CreateTime, 1 LogAppendTime)
//                                     bit 4 transactional
//                                     bit 5 control batch (transaction markers)
//                                     bit 6 delete horizon set (baseTimestamp is the compaction horizon)
//   23  lastOffsetDelta       int32   offset of the last record minus baseOffset
//   27  baseTimestamp         int64   timestamp of the first record (records carry deltas from it)
//   35  maxTimestamp          int64   largest record timestamp, or the append time under LogAppendTime
//   43  producerId            int64   -1 unless idempotent/transactional
//   51  producerEpoch         int16
//   53  baseSequence          int32   sequence number of the first record, -1 if none
//   57  recordsCount          int32
//   61  records               recordsCount records, compressed as one blob when the codec is not 0
//
// Each record (varint = zig-zag LEB128):
//   length varint (bytes after this field), attributes int8 (unused, 0), timestampDelta varlong,
//   offsetDelta varint, keyLength varint (-1 = null), key, valueLength varint (-1 = null), value,
//   headerCount varint, then per header: keyLength varint, key (UTF-8), valueLength varint (-1 = null), value.

import { crc32c } from './crc32c.js';
import { KafkaError } from './errors.js';
import { ProtocolError, Reader, readInt64At, varintSize, writeInt64At } from './primitives.js';
import { CODEC_NONE, DEFAULT_MAX_INFLATED_BYTES, compress, decompress, isKnownCodec } from './compression/index.js';

export const BASE_OFFSET_OFFSET = 0;
export const BATCH_LENGTH_OFFSET = 8;
export const PARTITION_LEADER_EPOCH_OFFSET = 12;
export const MAGIC_OFFSET = 16;
export const CRC_OFFSET = 17;
export const ATTRIBUTES_OFFSET = 21;
export const LAST_OFFSET_DELTA_OFFSET = 23;
export const BASE_TIMESTAMP_OFFSET = 27;
export const MAX_TIMESTAMP_OFFSET = 35;
export const PRODUCER_ID_OFFSET = 43;
export const PRODUCER_EPOCH_OFFSET = 51;
export const BASE_SEQUENCE_OFFSET = 53;
export const RECORDS_COUNT_OFFSET = 57;
export const RECORDS_OFFSET = 61;

/** Bytes before batchLength's coverage starts: baseOffset + batchLength. */
export const LOG_OVERHEAD = 12;
/** Size of a batch header, i.e. of a batch holding no records. */
export const RECORD_BATCH_OVERHEAD = 61;
/** Bytes needed to read a batch's magic: baseOffset, length, leader epoch, magic. */
export const HEADER_SIZE_UP_TO_MAGIC = 17;

export const MAGIC = 2;

export const COMPRESSION_CODEC_MASK = 0x07;
export const TIMESTAMP_TYPE_MASK = 0x08;
export const TRANSACTIONAL_FLAG_MASK = 0x10;
export const CONTROL_FLAG_MASK = 0x20;
export const DELETE_HORIZON_FLAG_MASK = 0x40;

export const TIMESTAMP_CREATE_TIME = 0;
export const TIMESTAMP_LOG_APPEND_TIME = 1;

export const NO_PRODUCER_ID = -1;
export const NO_PRODUCER_EPOCH = -1;
export const NO_SEQUENCE = -1;
export const NO_PARTITION_LEADER_EPOCH = -1;
export const NO_TIMESTAMP = -1;

/** Everything in a batch header, plus where the batch sits in its buffer. */
export interface BatchInfo {
  /** Byte position of the batch in the buffer it was read from. */
  position: number;
  /** Whole batch, 12 + batchLength. */
  size: number;
  baseOffset: number;
  lastOffsetDelta: number;
  recordCount: number;
  /** 2 for every batch krill accepts; storage checks it when recovering a log. */
  magic: number;
  attributes: number;
  compression: number;
  /** TIMESTAMP_CREATE_TIME (0) or TIMESTAMP_LOG_APPEND_TIME (1). */
  timestampType: number;
  isTransactional: boolean;
  isControl: boolean;
  hasDeleteHorizon: boolean;
  baseTimestamp: number;
  maxTimestamp: number;
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  partitionLeaderEpoch: number;
}

export interface RecordHeader {
  key: string;
  value: Buffer | null;
}

export interface KafkaRecord {
  attributes: number;
  timestampDelta: number;
  offsetDelta: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: RecordHeader[];
}

export interface RecordBatch extends BatchInfo {
  records: KafkaRecord[];
}

// ---------------------------------------------------------------------------------------------------
// Header access (hot path: no record decoding, no decompression)

/**
 * Header fields of the batch at `position`. No CRC check and no bounds check beyond the header itself
 * (storage calls this on bytes it wrote, or after scanBatches validated them).
 */
export function readBatchHeader(buf: Buffer, position: number): BatchInfo {
  if (buf.length - position < RECORD_BATCH_OVERHEAD) {
    throw new KafkaError('CORRUPT_MESSAGE', `record batch header at ${position} is truncated (${buf.length - position} bytes)`);
  }
  const attributes = buf.readInt16BE(position + ATTRIBUTES_OFFSET);
  return {
    position,
    size: LOG_OVERHEAD + buf.readInt32BE(position + BATCH_LENGTH_OFFSET),
    baseOffset: readInt64At(buf, position + BASE_OFFSET_OFFSET),
    lastOffsetDelta: buf.readInt32BE(position + LAST_OFFSET_DELTA_OFFSET),
    recordCount: buf.readInt32BE(position + RECORDS_COUNT_OFFSET),
    magic: buf.readInt8(position + MAGIC_OFFSET),
    attributes,
    compression: attributes & COMPRESSION_CODEC_MASK,
    timestampType: (attributes & TIMESTAMP_TYPE_MASK) !== 0 ? TIMESTAMP_LOG_APPEND_TIME : TIMESTAMP_CREATE_TIME,
    isTransactional: (attributes & TRANSACTIONAL_FLAG_MASK) !== 0,
    isControl: (attributes & CONTROL_FLAG_MASK) !== 0,
    hasDeleteHorizon: (attributes & DELETE_HORIZON_FLAG_MASK) !== 0,
    baseTimestamp: readInt64At(buf, position + BASE_TIMESTAMP_OFFSET),
    maxTimestamp: readInt64At(buf, position + MAX_TIMESTAMP_OFFSET),
    producerId: readInt64At(buf, position + PRODUCER_ID_OFFSET),
    producerEpoch: buf.readInt16BE(position + PRODUCER_EPOCH_OFFSET),
    baseSequence: buf.readInt32BE(position + BASE_SEQUENCE_OFFSET),
    partitionLeaderEpoch: buf.readInt32BE(position + PARTITION_LEADER_EPOCH_OFFSET),
  };
}

function computeCrc(buf: Buffer, position: number, size: number): number {
  return crc32c(buf, position + ATTRIBUTES_OFFSET, position + size);
}

/** Whether the stored CRC of the `size`-byte batch at `position` matches its contents. */
export function verifyBatchCrc(buf: Buffer, position: number, size: number): boolean {
  if (size < RECORD_BATCH_OVERHEAD || position + size > buf.length) return false;
  return buf.readUInt32BE(position + CRC_OFFSET) === computeCrc(buf, position, size);
}

function writeCrc(buf: Buffer, position: number, size: number): void {
  buf.writeUInt32BE(computeCrc(buf, position, size), position + CRC_OFFSET);
}

export interface ScanOptions {
  /**
   * Apply the checks Kafka makes on batches from producers (LogValidator.validateBatch), all INVALID_RECORD:
   * recordCount > 0, lastOffsetDelta == recordCount - 1, not a control batch, baseSequence >= 0 when a
   * producerId is set. Default true. With false only the structure, magic and CRC are checked
   * (recordCount >= 0).
   */
  fromClient?: boolean;
}

/**
 * Walk the batches of a records blob (a Produce request's partition data) and validate each header.
 * Never decodes or decompresses records. Errors, in the order checked per batch:
 *   - trailing bytes that do not hold a whole batch, or batchLength < 0  → CORRUPT_MESSAGE
 *   - magic != 2                                                        → INVALID_RECORD (what Kafka answers for
 *     "Produce requests ... are only allowed to contain record batches with magic version 2")
 *   - batch smaller than the 61-byte header                              → CORRUPT_MESSAGE
 *   - CRC-32C mismatch                                                   → CORRUPT_MESSAGE
 *   - codec id 5-7                                                       → UNSUPPORTED_COMPRESSION_TYPE
 *   - count/offset-range/control/sequence checks (see ScanOptions)       → INVALID_RECORD
 */
export function scanBatches(buf: Buffer, options: ScanOptions = {}): BatchInfo[] {
  const fromClient = options.fromClient ?? true;
  const out: BatchInfo[] = [];
  let pos = 0;
  while (pos < buf.length) {
    const remaining = buf.length - pos;
    if (remaining < HEADER_SIZE_UP_TO_MAGIC) {
      throw new KafkaError('CORRUPT_MESSAGE', `trailing ${remaining} bytes at ${pos} do not hold a record batch header`);
    }
    const batchLength = buf.readInt32BE(pos + BATCH_LENGTH_OFFSET);
    if (batchLength < 0) throw new KafkaError('CORRUPT_MESSAGE', `record batch at ${pos} has negative length ${batchLength}`);
    const size = LOG_OVERHEAD + batchLength;
    if (size > remaining) {
      throw new KafkaError('CORRUPT_MESSAGE', `record batch at ${pos} is truncated: ${size} bytes declared, ${remaining} present`);
    }
    const magic = buf.readInt8(pos + MAGIC_OFFSET);
    if (magic !== MAGIC) {
      throw new KafkaError('INVALID_RECORD', `only record batches with magic version 2 are supported, got magic ${magic}`);
    }
    if (size < RECORD_BATCH_OVERHEAD) {
      throw new KafkaError('CORRUPT_MESSAGE', `record batch size ${size} is smaller than the minimum ${RECORD_BATCH_OVERHEAD}`);
    }
    const stored = buf.readUInt32BE(pos + CRC_OFFSET);
    const computed = computeCrc(buf, pos, size);
    if (stored !== computed) {
      throw new KafkaError('CORRUPT_MESSAGE', `record batch at ${pos} is corrupt (stored crc = ${stored}, computed crc = ${computed})`);
    }
    const info = readBatchHeader(buf, pos);
    if (!isKnownCodec(info.compression)) {
      throw new KafkaError('UNSUPPORTED_COMPRESSION_TYPE', `unknown compression codec id ${info.compression}`);
    }
    if (info.recordCount < 0) throw new KafkaError('CORRUPT_MESSAGE', `record batch at ${pos} has negative record count ${info.recordCount}`);
    if (fromClient) validateClientBatch(info);
    out.push(info);
    pos += size;
  }
  return out;
}

function validateClientBatch(b: BatchInfo): void {
  const first = b.baseOffset;
  const last = b.baseOffset + b.lastOffsetDelta;
  if (b.lastOffsetDelta < 0) throw new KafkaError('INVALID_RECORD', `Batch has an invalid offset range: [${first}, ${last}]`);
  if (b.recordCount <= 0) throw new KafkaError('INVALID_RECORD', `Invalid reported count for record batch: ${b.recordCount}`);
  if (b.lastOffsetDelta + 1 !== b.recordCount) {
    throw new KafkaError('INVALID_RECORD', `Inconsistent batch offset range [${first}, ${last}] and count of records ${b.recordCount}`);
  }
  if (b.isControl) throw new KafkaError('INVALID_RECORD', 'Clients are not allowed to write control records');
  if (b.producerId >= 0 && b.baseSequence < 0) {
    throw new KafkaError('INVALID_RECORD', `Invalid sequence number ${b.baseSequence} in record batch with producerId ${b.producerId}`);
  }
}

// ---------------------------------------------------------------------------------------------------
// In-place patches

/** Set baseOffset. The CRC does not cover it, so nothing else changes. */
export function setBaseOffset(buf: Buffer, position: number, offset: number): void {
  writeInt64At(buf, position + BASE_OFFSET_OFFSET, offset);
}

/** Set partitionLeaderEpoch. Not covered by the CRC either. */
export function setPartitionLeaderEpoch(buf: Buffer, position: number, epoch: number): void {
  buf.writeInt32BE(epoch, position + PARTITION_LEADER_EPOCH_OFFSET);
}

/**
 * Stamp the batch with LogAppendTime, as Kafka's DefaultRecordBatch.setMaxTimestamp does: set the
 * timestamp-type attribute bit and maxTimestamp, leave baseTimestamp and the records alone (readers
 * take every record's timestamp from maxTimestamp under LogAppendTime), and recompute the CRC.
 */
export function setLogAppendTime(buf: Buffer, position: number, timestamp: number): void {
  const attrAt = position + ATTRIBUTES_OFFSET;
  const attributes = buf.readInt16BE(attrAt);
  if ((attributes & TIMESTAMP_TYPE_MASK) !== 0 && readInt64At(buf, position + MAX_TIMESTAMP_OFFSET) === timestamp) return;
  buf.writeInt16BE(attributes | TIMESTAMP_TYPE_MASK, attrAt);
  writeInt64At(buf, position + MAX_TIMESTAMP_OFFSET, timestamp);
  writeCrc(buf, position, LOG_OVERHEAD + buf.readInt32BE(position + BATCH_LENGTH_OFFSET));
}

// ---------------------------------------------------------------------------------------------------
// Full decode

function invalid(message: string): KafkaError {
  return new KafkaError('INVALID_RECORD', message);
}

function decodeRecords(data: Buffer, count: number): KafkaRecord[] {
  const r = new Reader(data);
  const records: KafkaRecord[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const length = r.varint();
    if (length < 0 || length > r.remaining) throw invalid(`record ${i} declares ${length} bytes, ${r.remaining} left`);
    const end = r.offset + length;
    const attributes = r.int8();
    const timestampDelta = r.varlong();
    const offsetDelta = r.varint();
    const keyLen = r.varint();
    const key = keyLen < 0 ? null : r.raw(keyLen);
    const valueLen = r.varint();
    const value = valueLen < 0 ? null : r.raw(valueLen);
    const headerCount = r.varint();
    if (headerCount < 0) throw invalid(`record ${i} has negative header count ${headerCount}`);
    if (headerCount > end - r.offset) throw invalid(`record ${i} header count ${headerCount} exceeds its size`);
    const headers: RecordHeader[] = new Array(headerCount);
    for (let h = 0; h < headerCount; h++) {
      const hkLen = r.varint();
      if (hkLen < 0) throw invalid(`Invalid negative header key size ${hkLen}`);
      const hk = r.raw(hkLen).toString('utf8');
      const hvLen = r.varint();
      headers[h] = { key: hk, value: hvLen < 0 ? null : r.raw(hvLen) };
    }
    if (r.offset !== end)
      throw invalid(`Invalid record size: expected to read ${length} bytes in record payload, but instead read ${r.offset - (end - length)}`);
    records[i] = { attributes, timestampDelta, offsetDelta, key, value, headers };
  }
  if (r.remaining !== 0) throw invalid(`Incorrect declared batch size, ${r.remaining} bytes remain after ${count} records`);
  return records;
}

/**
 * Decode the batch at `position`, decompressing its records. Key, value and header values are views
 * into `buf` (uncompressed batches) or into the decompressed buffer: copy them to keep them past `buf`.
 * No CRC check (use verifyBatchCrc). Malformed records → INVALID_RECORD; undecompressable data →
 * CORRUPT_MESSAGE; records inflating past maxInflatedBytes → MESSAGE_TOO_LARGE; unknown codec →
 * UNSUPPORTED_COMPRESSION_TYPE.
 */
export function decodeBatch(buf: Buffer, position = 0, maxInflatedBytes = DEFAULT_MAX_INFLATED_BYTES): RecordBatch {
  const info = readBatchHeader(buf, position);
  const magic = buf.readInt8(position + MAGIC_OFFSET);
  if (magic !== MAGIC) throw new KafkaError('INVALID_RECORD', `only record batches with magic version 2 are supported, got magic ${magic}`);
  if (info.size < RECORD_BATCH_OVERHEAD || position + info.size > buf.length) {
    throw new KafkaError('CORRUPT_MESSAGE', `record batch at ${position} is truncated: ${info.size} bytes declared, ${buf.length - position} present`);
  }
  if (info.recordCount < 0) throw invalid(`negative record count ${info.recordCount}`);
  const data = batchRecords(buf, info, maxInflatedBytes);
  let records: KafkaRecord[];
  try {
    records = decodeRecords(data, info.recordCount);
  } catch (err) {
    if (err instanceof ProtocolError) throw invalid(`Found invalid record structure: ${err.message}`);
    throw err;
  }
  return { ...info, records };
}

// ---------------------------------------------------------------------------------------------------
// Encode

export interface EncodeBatchSpec {
  baseOffset?: number;
  partitionLeaderEpoch?: number;
  /** Codec id (0-4). */
  compression?: number;
  timestampType?: number;
  isTransactional?: boolean;
  isControl?: boolean;
  hasDeleteHorizon?: boolean;
  /** Default: NO_TIMESTAMP (-1); required for meaningful record timestamps. */
  baseTimestamp?: number;
  /** Default: baseTimestamp + the largest timestampDelta (or NO_TIMESTAMP with no records). */
  maxTimestamp?: number;
  /** Default: the largest offsetDelta, or -1 with no records (pass it for an empty batch that covers offsets). */
  lastOffsetDelta?: number;
  producerId?: number;
  producerEpoch?: number;
  baseSequence?: number;
  records: KafkaRecord[];
}

function recordBodySize(rec: KafkaRecord): number {
  let size = 1 + varintSize(rec.timestampDelta) + varintSize(rec.offsetDelta);
  size += rec.key === null ? 1 : varintSize(rec.key.length) + rec.key.length;
  size += rec.value === null ? 1 : varintSize(rec.value.length) + rec.value.length;
  size += varintSize(rec.headers.length);
  for (const h of rec.headers) {
    const kl = Buffer.byteLength(h.key);
    size += varintSize(kl) + kl;
    size += h.value === null ? 1 : varintSize(h.value.length) + h.value.length;
  }
  return size;
}

function putVarint(buf: Buffer, at: number, v: number): number {
  let u = v >= 0 ? v * 2 : -v * 2 - 1;
  while (u >= 0x80) {
    buf[at++] = (u % 128) | 0x80;
    u = Math.floor(u / 128);
  }
  buf[at++] = u;
  return at;
}

function putBytes(buf: Buffer, at: number, v: Buffer | null): number {
  if (v === null) return putVarint(buf, at, -1);
  at = putVarint(buf, at, v.length);
  return at + v.copy(buf, at);
}

/** The records section (uncompressed) of a batch. */
export function encodeRecords(records: KafkaRecord[]): Buffer {
  const sizes = new Array<number>(records.length);
  let total = 0;
  for (let i = 0; i < records.length; i++) {
    sizes[i] = recordBodySize(records[i]);
    total += varintSize(sizes[i]) + sizes[i];
  }
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  for (let i = 0; i < records.length; i++) {
    const rec = records[i];
    at = putVarint(out, at, sizes[i]);
    out.writeInt8(rec.attributes, at++);
    at = putVarint(out, at, rec.timestampDelta);
    at = putVarint(out, at, rec.offsetDelta);
    at = putBytes(out, at, rec.key);
    at = putBytes(out, at, rec.value);
    at = putVarint(out, at, rec.headers.length);
    for (const h of rec.headers) {
      at = putVarint(out, at, Buffer.byteLength(h.key));
      at += out.write(h.key, at, 'utf8');
      at = putBytes(out, at, h.value);
    }
  }
  return out;
}

export function batchAttributes(spec: {
  compression?: number;
  timestampType?: number;
  isTransactional?: boolean;
  isControl?: boolean;
  hasDeleteHorizon?: boolean;
}): number {
  const codec = spec.compression ?? CODEC_NONE;
  if (!isKnownCodec(codec)) throw new KafkaError('UNSUPPORTED_COMPRESSION_TYPE', `unknown compression codec id ${codec}`);
  return (
    codec |
    (spec.timestampType === TIMESTAMP_LOG_APPEND_TIME ? TIMESTAMP_TYPE_MASK : 0) |
    (spec.isTransactional ? TRANSACTIONAL_FLAG_MASK : 0) |
    (spec.isControl ? CONTROL_FLAG_MASK : 0) |
    (spec.hasDeleteHorizon ? DELETE_HORIZON_FLAG_MASK : 0)
  );
}

/** A complete batch: lengths, lastOffsetDelta and CRC computed, records compressed with spec.compression. */
export function encodeBatch(spec: EncodeBatchSpec): Buffer {
  const { records } = spec;
  const attributes = batchAttributes(spec);
  let maxDelta = -1;
  let maxTsDelta = 0;
  for (let i = 0; i < records.length; i++) {
    if (records[i].offsetDelta > maxDelta) maxDelta = records[i].offsetDelta;
    if (i === 0 || records[i].timestampDelta > maxTsDelta) maxTsDelta = records[i].timestampDelta;
  }
  const baseTimestamp = spec.baseTimestamp ?? NO_TIMESTAMP;
  const maxTimestamp = spec.maxTimestamp ?? (records.length === 0 ? NO_TIMESTAMP : baseTimestamp + maxTsDelta);
  const lastOffsetDelta = spec.lastOffsetDelta ?? maxDelta;

  const body = compress(attributes & COMPRESSION_CODEC_MASK, encodeRecords(records));
  const size = RECORD_BATCH_OVERHEAD + body.length;
  const out = Buffer.allocUnsafe(size);
  writeInt64At(out, BASE_OFFSET_OFFSET, spec.baseOffset ?? 0);
  out.writeInt32BE(size - LOG_OVERHEAD, BATCH_LENGTH_OFFSET);
  out.writeInt32BE(spec.partitionLeaderEpoch ?? NO_PARTITION_LEADER_EPOCH, PARTITION_LEADER_EPOCH_OFFSET);
  out.writeInt8(MAGIC, MAGIC_OFFSET);
  out.writeInt16BE(attributes, ATTRIBUTES_OFFSET);
  out.writeInt32BE(lastOffsetDelta, LAST_OFFSET_DELTA_OFFSET);
  writeInt64At(out, BASE_TIMESTAMP_OFFSET, baseTimestamp);
  writeInt64At(out, MAX_TIMESTAMP_OFFSET, maxTimestamp);
  writeInt64At(out, PRODUCER_ID_OFFSET, spec.producerId ?? NO_PRODUCER_ID);
  out.writeInt16BE(spec.producerEpoch ?? NO_PRODUCER_EPOCH, PRODUCER_EPOCH_OFFSET);
  out.writeInt32BE(spec.baseSequence ?? NO_SEQUENCE, BASE_SEQUENCE_OFFSET);
  out.writeInt32BE(records.length, RECORDS_COUNT_OFFSET);
  body.copy(out, RECORDS_OFFSET);
  writeCrc(out, 0, size);
  return out;
}

export interface SimpleRecord {
  key?: Buffer | string | null;
  value?: Buffer | string | null;
  headers?: { key: string; value: Buffer | string | null }[];
  /** Absolute timestamp (ms); default Date.now(). */
  timestamp?: number;
}

function toBuf(v: Buffer | string | null | undefined): Buffer | null {
  if (v === null || v === undefined) return null;
  return typeof v === 'string' ? Buffer.from(v) : v;
}

/**
 * Convenience for tests and internal writers: records with absolute timestamps, offset deltas 0..n-1,
 * baseTimestamp = the first record's timestamp, maxTimestamp = the largest.
 */
export function buildBatch(records: SimpleRecord[], opts: Omit<EncodeBatchSpec, 'records'> = {}): Buffer {
  const now = Date.now();
  const stamps = records.map((r) => r.timestamp ?? now);
  const baseTimestamp = opts.baseTimestamp ?? (stamps.length ? stamps[0] : NO_TIMESTAMP);
  const maxTimestamp = opts.maxTimestamp ?? (stamps.length ? Math.max(...stamps) : NO_TIMESTAMP);
  return encodeBatch({
    ...opts,
    baseTimestamp,
    maxTimestamp,
    records: records.map((r, i) => ({
      attributes: 0,
      timestampDelta: stamps[i] - baseTimestamp,
      offsetDelta: i,
      key: toBuf(r.key),
      value: toBuf(r.value),
      headers: (r.headers ?? []).map((h) => ({ key: h.key, value: toBuf(h.value) })),
    })),
  });
}

/**
 * The records section of a batch (whose header `info` was read from `buf`), uncompressed: a view of `buf`
 * for codec none, else a new buffer of at most maxInflatedBytes (see decompress for the errors).
 */
export function batchRecords(buf: Buffer, info: BatchInfo, maxInflatedBytes = DEFAULT_MAX_INFLATED_BYTES): Buffer {
  const body = buf.subarray(info.position + RECORDS_OFFSET, info.position + info.size);
  return info.compression === CODEC_NONE ? body : decompress(info.compression, body, maxInflatedBytes);
}

/**
 * The batch `info` of `buf` stored with `targetCodec`: its header (offsets, timestamps, producer fields,
 * leader epoch, flags) with the codec bits changed, and `records` (its records section, uncompressed, as
 * batchRecords gives it) compressed anew. The records section is the same bytes whatever the codec, so
 * no record is decoded. Returns a new buffer with a valid CRC.
 */
export function rebuildBatch(buf: Buffer, info: BatchInfo, targetCodec: number, records: Buffer): Buffer {
  const body = compress(targetCodec, records);
  const size = RECORD_BATCH_OVERHEAD + body.length;
  const out = Buffer.allocUnsafe(size);
  buf.copy(out, 0, info.position, info.position + RECORD_BATCH_OVERHEAD);
  out.writeInt32BE(size - LOG_OVERHEAD, BATCH_LENGTH_OFFSET);
  out.writeInt16BE((info.attributes & ~COMPRESSION_CODEC_MASK) | targetCodec, ATTRIBUTES_OFFSET);
  body.copy(out, RECORDS_OFFSET);
  writeCrc(out, 0, size);
  return out;
}

/**
 * Re-encode the batch at `position` with `targetCodec`, keeping offsets, timestamps, producer fields,
 * leader epoch and flags. Returns a new buffer with a valid CRC.
 */
export function recompress(batchBuf: Buffer, targetCodec: number, position = 0): Buffer {
  const info = readBatchHeader(batchBuf, position);
  return rebuildBatch(batchBuf, info, targetCodec, batchRecords(batchBuf, info));
}
