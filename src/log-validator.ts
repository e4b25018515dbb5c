// What Kafka's LogValidator does before an append, on bytes: validate each batch's framing and CRC,
// enforce max.message.bytes, stamp LogAppendTime, and rewrite batches only when the topic's
// compression.type demands another codec than the producer used. Offsets are assigned by the log.

import { KafkaError } from '../protocol/errors.js';
import { scanBatches, setLogAppendTime, setPartitionLeaderEpoch, recompress, type BatchInfo } from '../protocol/record-batch.js';

/** A single broker leads every partition from its creation on: the leader epoch is always 0. */
export const LEADER_EPOCH = 0;
import { codecFromName } from '../protocol/compression/index.js';

export interface TopicAppendConfig {
  maxMessageBytes: number;
  logAppendTime: boolean;
  /** Codec id to store batches in, or null to keep the producer's ('producer'). */
  targetCodec: number | null;
}

export function topicAppendConfig(configs: Record<string, string>): TopicAppendConfig {
  const compression = configs['compression.type'] ?? 'producer';
  return {
    maxMessageBytes: Number(configs['max.message.bytes'] ?? 1048588),
    logAppendTime: configs['message.timestamp.type'] === 'LogAppendTime',
    targetCodec: compression === 'producer' ? null : codecFromName(compression),
  };
}

export interface ValidatedRecords {
  buf: Buffer;
  batches: BatchInfo[];
}

export function validateRecords(records: Buffer | null, cfg: TopicAppendConfig, now: number): ValidatedRecords {
  if (!records || records.length === 0) throw new KafkaError('INVALID_RECORD', 'Produce request carries no record batch');
  let buf = records;
  let batches = scanBatches(buf);
  if (batches.length !== 1) {
    throw new KafkaError('INVALID_RECORD', 'Produce requests with version 3 and above must contain exactly one record batch per partition');
  }
  const size = batches[0].size;
  if (size > cfg.maxMessageBytes) {
    throw new KafkaError('MESSAGE_TOO_LARGE', `The record batch is ${size} bytes, larger than max.message.bytes (${cfg.maxMessageBytes})`);
  }
  if (cfg.targetCodec !== null && batches.some((b) => b.compression !== cfg.targetCodec)) {
    const parts = batches.map((b) => {
      const bytes = buf.subarray(b.position, b.position + b.size);
      return b.compression === cfg.targetCodec ? bytes : recompress(bytes, cfg.targetCodec!);
    });
    buf = Buffer.concat(parts);
    batches = scanBatches(buf);
    // Like Kafka's UnifiedLog.append, check the size again: recompression may have grown the batch.
    for (const b of batches) {
      if (b.size > cfg.maxMessageBytes) {
        throw new KafkaError('MESSAGE_TOO_LARGE', `The record batch is ${b.size} bytes after recompression, larger than max.message.bytes (${cfg.maxMessageBytes})`);
      }
    }
  }
  for (const b of batches) {
    // As Kafka's leader does; the field is outside the CRC, so this is a plain in-place write.
    setPartitionLeaderEpoch(buf, b.position, LEADER_EPOCH);
    if (cfg.logAppendTime) setLogAppendTime(buf, b.position, now);
  }
  return { buf, batches };
}
