// Structural check of a batch's records, on their bytes: what Kafka's LogValidator proves of every batch a
// producer sends (each record's length, offset delta, key, value and headers within bounds; exactly
// recordCount records, no bytes after them) without building a record object. This is the produce hot
// path for compressed batches, so it reads varints straight off the buffer into a module-level cursor.

import { KafkaError } from './errors.js';

export interface RecordCheckOptions {
  /** A compacted topic refuses records without a key, as Kafka's LogValidator.validateKey does. */
  requireKeys: boolean;
}

let at = 0;
let limit = 0;
/** The record being read, for messages. */
let index = 0;

function invalid(message: string): KafkaError {
  return new KafkaError('INVALID_RECORD', message);
}

/** A zig-zag varint of at most 5 bytes (int32), read at `at`, not past `limit`. */
function varint(data: Buffer, what: string): number {
  let u = 0;
  for (let shift = 0; shift < 35; shift += 7) {
    if (at >= limit) throw invalid(`record ${index}: ${what} runs past the end of the record`);
    const b = data[at++];
    u += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) return u % 2 === 0 ? u / 2 : -(u + 1) / 2;
  }
  throw invalid(`record ${index}: ${what} is a varint longer than 5 bytes`);
}

/** Skip a varlong of at most 10 bytes. */
function skipVarlong(data: Buffer, what: string): void {
  for (let i = 0; i < 10; i++) {
    if (at >= limit) throw invalid(`record ${index}: ${what} runs past the end of the record`);
    if (data[at++] < 0x80) return;
  }
  throw invalid(`record ${index}: ${what} is a varlong longer than 10 bytes`);
}

/** Skip `length` bytes (-1 = null when nullable) of a field. */
function skipBytes(data: Buffer, length: number, nullable: boolean, what: string): void {
  if (length < (nullable ? -1 : 0)) throw invalid(`record ${index}: ${what} has invalid length ${length}`);
  if (length > limit - at) throw invalid(`record ${index}: ${what} of ${length} bytes runs past the end of the record`);
  if (length > 0) at += length;
}

/**
 * Check that `data` (a batch's records section, inflated) holds exactly `count` well-formed records whose
 * offset deltas run 0, 1, 2, ... . Throws KafkaError INVALID_RECORD naming the first fault.
 */
export function checkRecords(data: Buffer, count: number, options: RecordCheckOptions): void {
  at = 0;
  const end = data.length;
  for (let i = 0; i < count; i++) {
    index = i;
    limit = end;
    if (at >= end) throw invalid(`the batch declares ${count} records but holds ${i}`);
    const length = varint(data, 'length');
    if (length < 0 || length > end - at) throw invalid(`record ${i} declares ${length} bytes, ${end - at} are left`);
    limit = at + length;
    if (at >= limit) throw invalid(`record ${i} is empty`);
    at++; // attributes: unused in magic 2
    skipVarlong(data, 'timestamp delta');
    const offsetDelta = varint(data, 'offset delta');
    if (offsetDelta !== i) throw invalid(`record ${i} has offset delta ${offsetDelta}: the records of a batch must have incremental offsets`);
    const keyLength = varint(data, 'key length');
    if (keyLength < 0 && options.requireKeys) throw invalid('Compacted topic cannot accept message without key');
    skipBytes(data, keyLength, true, 'key');
    skipBytes(data, varint(data, 'value length'), true, 'value');
    const headers = varint(data, 'header count');
    if (headers < 0) throw invalid(`record ${i} has negative header count ${headers}`);
    for (let h = 0; h < headers; h++) {
      skipBytes(data, varint(data, 'header key length'), false, 'header key');
      skipBytes(data, varint(data, 'header value length'), true, 'header value');
    }
    if (at !== limit) throw invalid(`record ${i} declares ${length} bytes but its fields take ${length - (limit - at)}`);
  }
  if (at !== end) throw invalid(`Incorrect declared batch size, ${end - at} bytes remain after ${count} records`);
}
