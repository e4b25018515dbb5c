// What Kafka's LogValidator does before an append, on bytes: validate each batch's framing and CRC,
// enforce max.message.bytes, prove the records well-formed (inflating a compressed batch, with a cap),
// refuse the records Kafka refuses one by one (no key on a compacted topic; with CreateTime, a timestamp
// more than message.timestamp.before.max.ms behind or after.max.ms ahead of the broker's clock, KIP-937),
// stamp LogAppendTime, and rewrite batches only when the topic's compression.type demands another codec
// than the producer used. Offsets are assigned by the log.
// Refused records fail the whole batch with a RecordValidationError listing each of them, which Produce
// v8+ returns as recordErrors (KIP-467), with Kafka's messages.

import { KafkaError } from '../protocol/errors.js';
import {
  BATCH_LENGTH_OFFSET,
  HEADER_SIZE_UP_TO_MAGIC,
  LOG_OVERHEAD,
  MAGIC,
  MAGIC_OFFSET,
  batchRecords,
  readBatchHeader,
  rebuildBatch,
  scanBatches,
  setLogAppendTime,
  setPartitionLeaderEpoch,
  type BatchInfo,
} from '../protocol/record-batch.js';
import { checkRecords, type RecordFaults } from '../protocol/record-check.js';
import { DEFAULT_MAX_INFLATED_BYTES, codecFromName } from '../protocol/compression/index.js';
import { LONG_MAX, isCompacted, type LogConfig } from './log-config.js';

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
  /** CreateTime with a KIP-937 bound set: how far behind and ahead of now a record's timestamp may be. */
  timestampBounds: { beforeMaxMs: number; afterMaxMs: number } | null;
  /** min.insync.replicas: an acks=all produce needs at least this many in-sync replicas. */
  minInsyncReplicas: number;
}

const NO_BOUND = Number(LONG_MAX);

/** A batch refused for some of its records (Kafka's RecordValidationException): the per-record errors of Produce v8+. */
/**
 * A produced partition without exactly one whole batch: Kafka refuses it before the log sees it
 * (ProduceRequest.validateRecords), so its answer carries no log start offset.
 */
export class MalformedProduceError extends KafkaError {
  constructor(message: string) {
    super('INVALID_RECORD', message);
  }
}

export class RecordValidationError extends KafkaError {
  constructor(
    name: 'INVALID_RECORD' | 'INVALID_TIMESTAMP',
    message: string,
    readonly recordErrors: { batchIndex: number; batchIndexErrorMessage: string }[],
  ) {
    super(name, message);
  }
}

/** Where a batch goes, for the messages Kafka's LogValidator writes ("in topic partition t-0"). */
export interface AppendTarget {
  topic: string;
  index: number;
}

/** Kafka's Long arithmetic for a bound in a message: a bound left at Long.MAX_VALUE stays exact. */
function bound(now: number, ms: number, sign: 1 | -1): string {
  const big = ms >= NO_BOUND ? BigInt(LONG_MAX) : BigInt(ms);
  return String(BigInt(now) + BigInt(sign) * big);
}

/** The error Kafka's processRecordErrors throws for a batch's refused records. */
function recordValidationError(faults: RecordFaults, batch: BatchInfo, cfg: TopicAppendConfig, now: number, target: AppendTarget): RecordValidationError {
  const keyless = `Compacted topic cannot accept message without key in topic partition ${target.topic}-${target.index}.`;
  const recordErrors = faults.listed.map(({ batchIndex, fault, timestamp }) => ({
    batchIndex,
    batchIndexErrorMessage:
      fault === 'keyless'
        ? keyless
        : `Timestamp ${timestamp} of message with offset ${batch.baseOffset + batchIndex} is out of range. The timestamp should be within [${bound(now, cfg.timestampBounds!.beforeMaxMs, -1)}, ${bound(now, cfg.timestampBounds!.afterMaxMs, 1)}]`,
  }));
  if (faults.timestamp) {
    return new RecordValidationError('INVALID_TIMESTAMP', 'One or more records have been rejected due to invalid timestamp', recordErrors);
  }
  const shown = recordErrors.slice(0, 3).map((e) => `RecordError(batchIndex=${e.batchIndex}, message='${e.batchIndexErrorMessage}')`);
  return new RecordValidationError(
    'INVALID_RECORD',
    `One or more records have been rejected due to ${faults.total} record errors in total, and only showing the first three errors at most: [${shown.join(', ')}]`,
    recordErrors,
  );
}

const appendConfigs = new WeakMap<LogConfig, TopicAppendConfig>();

/**
 * What validateRecords reads of a topic's LogConfig, derived once per LogConfig: a topic's is built when the
 * topic is created or opened or its configs change, so a produce finds this ready.
 */
export function topicAppendConfig(config: LogConfig): TopicAppendConfig {
  let cfg = appendConfigs.get(config);
  if (cfg === undefined) {
    cfg = {
      maxMessageBytes: config.maxMessageBytes,
      maxInflatedBytes: Math.min(config.maxMessageBytes * INFLATE_FACTOR, DEFAULT_MAX_INFLATED_BYTES),
      logAppendTime: config.messageTimestampType === 'LogAppendTime',
      targetCodec: config.compressionType === 'producer' ? null : codecFromName(config.compressionType),
      compacted: isCompacted(config),
      timestampBounds:
        config.messageTimestampType === 'CreateTime' && (config.messageTimestampBeforeMaxMs < NO_BOUND || config.messageTimestampAfterMaxMs < NO_BOUND)
          ? { beforeMaxMs: config.messageTimestampBeforeMaxMs, afterMaxMs: config.messageTimestampAfterMaxMs }
          : null,
      minInsyncReplicas: config.minInsyncReplicas,
    };
    appendConfigs.set(config, cfg);
  }
  return cfg;
}

export interface ValidatedRecords {
  buf: Buffer;
  batches: BatchInfo[];
}

/**
 * `leaderEpoch`: the leader's epoch, stamped into each batch as Kafka's leader does. Throws a KafkaError for a
 * malformed batch, a RecordValidationError for one with refused records.
 */
export function validateRecords(records: Buffer | null, cfg: TopicAppendConfig, now: number, leaderEpoch: number, target: AppendTarget): ValidatedRecords {
  if (!records || records.length === 0) throw new MalformedProduceError('Produce request carries no record batch');
  // Kafka reads only whole batches out of a produced buffer, so one that is cut short holds no batch at all.
  if (records.length < HEADER_SIZE_UP_TO_MAGIC || LOG_OVERHEAD + Math.max(0, records.readInt32BE(BATCH_LENGTH_OFFSET)) > records.length) {
    throw new MalformedProduceError('Produce request carries no complete record batch');
  }
  if (records.readInt8(MAGIC_OFFSET) !== MAGIC) {
    throw new MalformedProduceError(`Produce requests with version 3 and above must contain record batches of magic ${MAGIC}`);
  }
  let buf = records;
  let batches = scanBatches(buf);
  if (batches.length !== 1) {
    throw new MalformedProduceError('Produce requests with version 3 and above must contain exactly one record batch per partition');
  }
  let batch = batches[0];
  if (batch.size > cfg.maxMessageBytes) {
    throw new KafkaError('MESSAGE_TOO_LARGE', `The record batch is ${batch.size} bytes, larger than max.message.bytes (${cfg.maxMessageBytes})`);
  }
  const inflated = batchRecords(buf, batch, cfg.maxInflatedBytes);
  // The bounds are checked in the walk that runs anyway, so only a topic with a bound pays for reading the
  // timestamp deltas: the header cannot stand in (a record may sit below the base timestamp).
  const tb = cfg.timestampBounds;
  const timestamps = tb === null ? null : { baseTimestamp: batch.baseTimestamp, min: now - tb.beforeMaxMs, max: now + tb.afterMaxMs };
  const faults = checkRecords(inflated, batch.recordCount, { requireKeys: cfg.compacted, timestamps });
  if (faults !== null) throw recordValidationError(faults, batch, cfg, now, target);
  if (cfg.targetCodec !== null && batch.compression !== cfg.targetCodec) {
    buf = rebuildBatch(buf, batch, cfg.targetCodec, inflated);
    batch = readBatchHeader(buf, 0);
    batches = [batch];
    // Like Kafka's UnifiedLog.append, check the size again: recompression may have grown the batch.
    if (batch.size > cfg.maxMessageBytes) {
      throw new KafkaError(
        'MESSAGE_TOO_LARGE',
        `The record batch is ${batch.size} bytes after recompression, larger than max.message.bytes (${cfg.maxMessageBytes})`,
      );
    }
  }
  // As Kafka's leader does; the field is outside the CRC, so this is a plain in-place write.
  setPartitionLeaderEpoch(buf, batch.position, leaderEpoch);
  if (cfg.logAppendTime) setLogAppendTime(buf, batch.position, now);
  return { buf, batches };
}
