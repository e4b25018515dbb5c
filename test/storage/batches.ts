// Test helper: builds valid uncompressed magic-2 record batches (CRC32C included) without the protocol
// layer, and describes batches the way PartitionLog.append wants them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { crc32c } from '@node-rs/crc32';
import type { AppendBatchInfo } from '../../src/storage/partition-log.js';
import { writeInt64At } from '../../protocol/primitives.js';

function varint(n: number): number[] {
  let v = n >= 0 ? n * 2 : -n * 2 - 1; // zig-zag
  const out: number[] = [];
  while (v >= 128) {
    out.push((v % 128) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return out;
}

const int64 = writeInt64At;

export interface BatchSpec {
  /** Number of records (default 1). */
  records?: number;
  /** Bytes of each record's value (default 10). */
  valueSize?: number;
  /** Timestamp of every record, or one per record (default 1_000). */
  timestamp?: number | number[];
  /** Attributes (e.g. 0x08 for LogAppendTime); codec bits must stay 0. */
  attributes?: number;
  /** baseOffset to put in the header (the log overwrites it). */
  baseOffset?: number;
  /** An idempotent producer's fields (default none: -1). */
  producerId?: number;
  producerEpoch?: number;
  baseSequence?: number;
}

export function buildBatch(spec: BatchSpec = {}): Buffer {
  const n = spec.records ?? 1;
  const ts = Array.from({ length: n }, (_, i) => (Array.isArray(spec.timestamp) ? spec.timestamp[i] : (spec.timestamp ?? 1_000)));
  const baseTs = Math.min(...ts);
  const maxTs = Math.max(...ts);
  const records: Buffer[] = [];
  for (let i = 0; i < n; i++) {
    const value = Buffer.alloc(spec.valueSize ?? 10, 0x61 + (i % 26));
    const body = Buffer.from([0, ...varint(ts[i] - baseTs), ...varint(i), ...varint(-1), ...varint(value.length)]);
    const rec = Buffer.concat([body, value, Buffer.from(varint(0))]);
    records.push(Buffer.concat([Buffer.from(varint(rec.length)), rec]));
  }
  const recs = Buffer.concat(records);
  const buf = Buffer.alloc(61 + recs.length);
  int64(buf, 0, spec.baseOffset ?? 0);
  buf.writeInt32BE(buf.length - 12, 8);
  buf.writeInt32BE(-1, 12);
  buf.writeInt8(2, 16);
  buf.writeInt16BE(spec.attributes ?? 0, 21);
  buf.writeInt32BE(n - 1, 23);
  int64(buf, 27, baseTs);
  int64(buf, 35, maxTs);
  int64(buf, 43, spec.producerId ?? -1);
  buf.writeInt16BE(spec.producerEpoch ?? -1, 51);
  buf.writeInt32BE(spec.baseSequence ?? -1, 53);
  buf.writeInt32BE(n, 57);
  recs.copy(buf, 61);
  buf.writeUInt32BE(crc32c(buf.subarray(21)) >>> 0, 17);
  return buf;
}

/** Concatenates batches and describes them for PartitionLog.append. */
export function toAppend(...batches: Buffer[]): { buf: Buffer; batches: AppendBatchInfo[] } {
  const buf = Buffer.concat(batches);
  const infos: AppendBatchInfo[] = [];
  let pos = 0;
  while (pos < buf.length) {
    const size = 12 + buf.readInt32BE(pos + 8);
    infos.push({
      position: pos,
      size,
      lastOffsetDelta: buf.readInt32BE(pos + 23),
      recordCount: buf.readInt32BE(pos + 57),
      maxTimestamp: Number(buf.readBigInt64BE(pos + 35)),
      producerId: Number(buf.readBigInt64BE(pos + 43)),
      producerEpoch: buf.readInt16BE(pos + 51),
      baseSequence: buf.readInt32BE(pos + 53),
    });
    pos += size;
  }
  return { buf, batches: infos };
}

export interface ParsedBatch {
  baseOffset: number;
  lastOffset: number;
  size: number;
  maxTimestamp: number;
  crcOk: boolean;
}

/** Splits fetched bytes into batches (all of them must be whole). */
export function parseBatches(records: Buffer[] | Buffer): ParsedBatch[] {
  const buf = Buffer.isBuffer(records) ? records : Buffer.concat(records);
  const out: ParsedBatch[] = [];
  let pos = 0;
  while (pos < buf.length) {
    const size = 12 + buf.readInt32BE(pos + 8);
    if (pos + size > buf.length) throw new Error(`partial batch at ${pos}`);
    const base = Number(buf.readBigInt64BE(pos));
    out.push({
      baseOffset: base,
      lastOffset: base + buf.readInt32BE(pos + 23),
      size,
      maxTimestamp: Number(buf.readBigInt64BE(pos + 35)),
      crcOk: crc32c(buf.subarray(pos + 21, pos + size)) >>> 0 === buf.readUInt32BE(pos + 17),
    });
    pos += size;
  }
  return out;
}

export function tempDir(prefix = 'krill-storage-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function rmDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}
