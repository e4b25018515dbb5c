// What the cleaner keeps of one batch, as Kafka's Cleaner.shouldDiscardBatch / shouldRetainRecord and
// MemoryRecords.filterTo decide it:
//   - a batch of an aborted transaction is removed, and so is a marker of an empty transaction once its
//     delete horizon has passed (transactions.ts says which);
//   - of a data batch, a record stays when it is the latest of its key (the key map's offset for it, or
//     past the map's end) and it has a value, or it is a tombstone whose batch has no delete horizon yet
//     or one still to come; a record without a key never stays;
//   - the last data batch of each producer the log remembers stays, emptied of its records if need be,
//     so that its producer id, epoch and sequence survive a rebuild of producer state from the log;
//   - a batch keeping everything, with no horizon to set, is kept byte for byte; otherwise it is built
//     anew in its own codec with the records kept, its base offset, lastOffsetDelta (so offsets never
//     move), producer id, epoch, base sequence, leader epoch and flags, and a fresh CRC;
//   - a batch that keeps a tombstone or an empty transaction's marker and has no delete horizon gets one:
//     now + delete.retention.ms, written as Kafka v2 does, in baseTimestamp with attribute bit 6 set (record
//     timestamps are deltas from it, so every record keeps its timestamp); the pass after it has passed
//     removes them.

import { CONTROL_FLAG_MASK, TIMESTAMP_LOG_APPEND_TIME, decodeBatch, encodeBatch, type BatchInfo, type KafkaRecord } from '../../../protocol/record-batch.js';
import { CODEC_NONE } from '../../../protocol/compression/index.js';
import { readMarker } from '../../../protocol/control-record.js';
import type { AbortedTxn } from '../transaction-index.js';
import type { OffsetMap } from './offset-map.js';
import type { CleanedTransactionMetadata } from './transactions.js';

export interface FilterContext {
  map: OffsetMap;
  now: number;
  deleteRetentionMs: number;
  txns: CleanedTransactionMetadata;
  /** Last offset of each remembered producer's last data batch (kept, if only as an empty batch). */
  lastDataOffsets: ReadonlyMap<number, number>;
}

export interface FilteredBatch {
  /** The batch to write: `buf`'s own bytes when kept whole, a new batch, or null when removed. */
  bytes: Buffer | null;
  recordsKept: number;
  recordsRemoved: number;
  /** The delete horizon of the batch written, when it keeps tombstones or an empty transaction's marker. */
  deleteHorizon: number | null;
  /** An aborted transaction the cleaned segment's .txnindex must list. */
  abortedTxn: AbortedTxn | null;
}

export function filterBatch(buf: Buffer, info: BatchInfo, ctx: FilterContext): FilteredBatch {
  const lastOffset = info.baseOffset + info.lastOffsetDelta;
  let discardRecords: boolean;
  let emptyTxnMarker = false;
  let abortedTxn: AbortedTxn | null = null;
  if (info.isControl) {
    const verdict = ctx.txns.onControlBatchRead(info, readMarker(buf, info));
    emptyTxnMarker = verdict.canDiscard;
    abortedTxn = verdict.keepInIndex;
    discardRecords = emptyTxnMarker && info.hasDeleteHorizon && info.baseTimestamp <= ctx.now;
  } else {
    discardRecords = ctx.txns.onBatchRead(info);
  }
  const lastOfProducer = !info.isControl && info.producerId >= 0 && ctx.lastDataOffsets.get(info.producerId) === lastOffset;
  const gone = { bytes: null, recordsKept: 0, recordsRemoved: info.recordCount, deleteHorizon: null, abortedTxn };
  if (discardRecords && !lastOfProducer) return gone;

  const decoded = decodeBatch(buf, info.position);
  const kept: KafkaRecord[] = [];
  let tombstones = false;
  for (const r of decoded.records) {
    if (!discardRecords && retainRecord(info, r, ctx)) {
      kept.push(r);
      if (r.value === null && !info.isControl) tombstones = true;
    }
  }
  const removed = decoded.records.length - kept.length;
  if (kept.length === 0 && !lastOfProducer) return gone;
  const awaitsHorizon = (tombstones || emptyTxnMarker) && kept.length > 0;
  const newHorizon = awaitsHorizon && !info.hasDeleteHorizon ? ctx.now + ctx.deleteRetentionMs : null;
  const deleteHorizon = newHorizon ?? (awaitsHorizon ? info.baseTimestamp : null);
  const bytes = removed === 0 && newHorizon === null ? buf.subarray(info.position, info.position + info.size) : rebuild(info, kept, newHorizon);
  return { bytes, recordsKept: kept.length, recordsRemoved: removed, deleteHorizon, abortedTxn };
}

/** Kafka's shouldRetainRecord for a batch that is not removed whole. */
function retainRecord(info: BatchInfo, r: KafkaRecord, ctx: FilterContext): boolean {
  if (info.isControl) return true;
  const offset = info.baseOffset + r.offsetDelta;
  if (offset > ctx.map.latestOffset) return true;
  if (r.key === null) return false;
  if (offset < ctx.map.get(r.key)) return false;
  if (r.value !== null) return true;
  return !info.hasDeleteHorizon || ctx.now < info.baseTimestamp;
}

/**
 * The batch `info` holding only `records` (none: an empty batch, as Kafka's writeEmptyHeader, uncompressed),
 * with baseTimestamp the new delete horizon when one is set, else the old base timestamp.
 */
function rebuild(info: BatchInfo, records: KafkaRecord[], newHorizon: number | null): Buffer {
  const baseTimestamp = newHorizon ?? info.baseTimestamp;
  let maxTimestamp = info.maxTimestamp;
  if (info.timestampType !== TIMESTAMP_LOG_APPEND_TIME && records.length > 0) {
    maxTimestamp = -1;
    for (const r of records) maxTimestamp = Math.max(maxTimestamp, info.baseTimestamp + r.timestampDelta);
  }
  const rebased = newHorizon === null ? records : records.map((r) => ({ ...r, timestampDelta: info.baseTimestamp + r.timestampDelta - newHorizon }));
  return encodeBatch({
    baseOffset: info.baseOffset,
    partitionLeaderEpoch: info.partitionLeaderEpoch,
    compression: records.length === 0 ? CODEC_NONE : info.compression,
    timestampType: info.timestampType,
    isTransactional: info.isTransactional,
    isControl: (info.attributes & CONTROL_FLAG_MASK) !== 0,
    hasDeleteHorizon: newHorizon !== null || info.hasDeleteHorizon,
    baseTimestamp,
    maxTimestamp,
    lastOffsetDelta: info.lastOffsetDelta,
    producerId: info.producerId,
    producerEpoch: info.producerEpoch,
    baseSequence: info.baseSequence,
    records: rebased,
  });
}

/**
 * An empty batch standing for the last offset of a cleaned segment whose last batch went: the segment keeps
 * its offset range whole, so that a restart reads where it ends (and which old segments a .swap replaced).
 * No producer id: it is nobody's batch.
 */
export function placeholderBatch(lastOffset: number): Buffer {
  return encodeBatch({ baseOffset: lastOffset, lastOffsetDelta: 0, records: [] });
}
