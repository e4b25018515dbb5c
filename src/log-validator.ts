// What Kafka's LogValidator does before an append, on bytes: validate each batch's framing and CRC,
// enforce max.message.bytes, prove the records well-formed (inflating a compressed batch, with a cap),
// stamp LogAppendTime, and rewrite batches only when the topic's compression.type demands another codec
// than the producer used. Offsets are assigned by the log.

import { KafkaError } from '../protocol/errors.js';
import { batchRecords, readBatchHeader, rebuildBatch, scanBatches, setLogAppendTime, setPartitionLeaderEpoch, type BatchInfo } from '../protocol/record-batch.js';
import { checkRecords } from '../protocol/record-check.js';
import { DEFAULT_MAX_INFLATED_BYTES, codecFromName } from '../protocol/compression/index.js';

/**
 * How far a batch's records may inflate, as a multiple of max.message.bytes (64 MiB at the default), and
 * never more than DEFAULT_MAX_INFLATED_BYTES (256 MiB). Kafka inflates record by record with no cap; krill inflates a
 * batch whole, so it caps what one batch can make it hold. Real producers' batches inflate 2-10 times.
 */
export const INFLATE_FACTOR = 64;

export interface TopicAppendConfig {
  maxMessageBytes: number;
  /** The most a batch's records may take once inflated. */
  maxInflatedBytes: number;
  logAppendTime: boolean;
  /** Codec id to store batches in, or null to keep the producer's ('producer'). */
  targetCodec: number | null;
  /** cleanup.policy includes compact: every record needs a key. */
  compacted: boolean;
}

export function topicAppendConfig(configs: Record<string, string>): TopicAppendConfig {
  const compression = configs['compression.type'] ?? 'producer';
  const maxMessageBytes = Number(configs['max.message.bytes'] ?? 1048588);
  return {
    maxMessageBytes,
    maxInflatedBytes: Math.min(maxMessageBytes * INFLATE_FACTOR, DEFAULT_MAX_INFLATED_BYTES),
    logAppendTime: configs['message.timestamp.type'] === 'LogAppendTime',
    targetCodec: compression === 'producer' ? null : codecFromName(compression),
    compacted: (configs['cleanup.policy'] ?? 'delete').split(',').some((p) => p.trim() === 'compact'),
  };
}

export interface ValidatedRecords {
  buf: Buffer;
  batches: BatchInfo[];
}

/** `leaderEpoch`: the leader's epoch, stamped into each batch as Kafka's leader does. */
export function validateRecords(records: Buffer | null, cfg: TopicAppendConfig, now: number, leaderEpoch: number): ValidatedRecords {
  if (!records || records.length === 0) throw new KafkaError('INVALID_RECORD', 'Produce request carries no record batch');
  let buf = records;
  let batches = scanBatches(buf);
  if (batches.length !== 1) {
    throw new KafkaError('INVALID_RECORD', 'Produce requests with version 3 and above must contain exactly one record batch per partition');
  }
  let batch = batches[0];
  if (batch.size > cfg.maxMessageBytes) {
    throw new KafkaError('MESSAGE_TOO_LARGE', `The record batch is ${batch.size} bytes, larger than max.message.bytes (${cfg.maxMessageBytes})`);
  }
  const inflated = batchRecords(buf, batch, cfg.maxInflatedBytes);
  checkRecords(inflated, batch.recordCount, { requireKeys: cfg.compacted });
  if (cfg.targetCodec !== null && batch.compression !== cfg.targetCodec) {
    buf = rebuildBatch(buf, batch, cfg.targetCodec, inflated);
    batch = readBatchHeader(buf, 0);
    batches = [batch];
    // Like Kafka's UnifiedLog.append, check the size again: recompression may have grown the batch.
    if (batch.size > cfg.maxMessageBytes) {
      throw new KafkaError('MESSAGE_TOO_LARGE', `The record batch is ${batch.size} bytes after recompression, larger than max.message.bytes (${cfg.maxMessageBytes})`);
    }
  }
  // As Kafka's leader does; the field is outside the CRC, so this is a plain in-place write.
  setPartitionLeaderEpoch(buf, batch.position, leaderEpoch);
  if (cfg.logAppendTime) setLogAppendTime(buf, batch.position, now);
  return { buf, batches };
}
