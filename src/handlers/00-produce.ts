// Produce: advertised v0-11, served v3-11.
// Like Kafka 4.0 (KIP-896), v0-2 stay advertised because older librdkafka refuses a broker whose Produce
// minimum is above 0 (KAFKA-18659), and are answered with UNSUPPORTED_VERSION on every partition.
// Behaviour: only the partition's leader takes records (NOT_LEADER_OR_FOLLOWER elsewhere, in a cluster);
// acks 0 (no response), 1 (answered once the leader has appended) and -1 (answered once every ISR member
// has the records: the high watermark passed them, or REQUEST_TIMED_OUT after timeoutMs; fewer in-sync
// replicas than min.insync.replicas is NOT_ENOUGH_REPLICAS before the append and
// NOT_ENOUGH_REPLICAS_AFTER_APPEND after it); batches are validated and appended as bytes (see log-validator.ts). A topic that does not exist is UNKNOWN_TOPIC_OR_PARTITION:
// clients create topics through Metadata, as with Kafka.
// Idempotent producers' sequences and epochs are checked by the partition's producer state; a transactional
// batch must belong to its producer's open transaction on the partition (KIP-890 part 1, verifyTransactional)
// when this broker is the transaction's coordinator (always, on a single broker).
// A batch refused for some of its records (no key on a compacted topic, a timestamp out of the topic's
// bounds) lists them in recordErrors (v8+, KIP-467), with the log start offset, as Kafka's ReplicaManager.
import { ErrorCode, KafkaError, errorCodeOf } from '../../protocol/errors.js';
import { defineHandler } from './registry.js';
import { lastOfEach } from './repeated-entries.js';
import { MalformedProduceError, RecordValidationError, topicAppendConfig } from '../log-validator.js';
import type { ProduceRequest, ProduceResponse } from '../../protocol/messages/00-produce.js';
import { CODEC_ZSTD } from '../../protocol/compression/index.js';
import {
  ATTRIBUTES_OFFSET,
  COMPRESSION_CODEC_MASK,
  PRODUCER_EPOCH_OFFSET,
  PRODUCER_ID_OFFSET,
  RECORD_BATCH_OVERHEAD,
  TRANSACTIONAL_FLAG_MASK,
} from '../../protocol/record-batch.js';
import { readInt64At } from '../../protocol/primitives.js';
import type { TransactionCoordinator } from '../txn/coordinator.js';

type PartitionResponse = ProduceResponse['responses'][number]['partitionResponses'][number];

/**
 * The append failures Kafka's ReplicaManager answers without the log start offset (UNKNOWN_LOG_APPEND_INFO);
 * every other one, the producer-state errors among them (OUT_OF_ORDER_SEQUENCE_NUMBER, INVALID_PRODUCER_EPOCH),
 * carries it.
 */
const NO_LOG_START_OFFSET = new Set<number>([
  ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
  ErrorCode.NOT_LEADER_OR_FOLLOWER,
  ErrorCode.MESSAGE_TOO_LARGE,
  ErrorCode.RECORD_LIST_TOO_LARGE,
  ErrorCode.CORRUPT_MESSAGE,
  ErrorCode.KAFKA_STORAGE_ERROR,
  ErrorCode.UNKNOWN_TOPIC_ID,
]);

/** zstd came with Produce v7 (KIP-110): Kafka refuses it below, before the log sees the batch. */
function zstdTooEarly(records: Buffer | null, version: number): boolean {
  return (
    version < 7 &&
    records !== null &&
    records.length >= ATTRIBUTES_OFFSET + 2 &&
    (records.readInt16BE(ATTRIBUTES_OFFSET) & COMPRESSION_CODEC_MASK) === CODEC_ZSTD
  );
}

function partitionResult(index: number, errorCode: number, errorMessage: string | null = null): PartitionResponse {
  return { index, errorCode, baseOffset: -1, logAppendTimeMs: -1, logStartOffset: -1, recordErrors: [], errorMessage };
}

function errorResponse(req: ProduceRequest, code: number): ProduceResponse {
  return {
    responses: req.topicData.map((t) => ({
      name: t.name,
      partitionResponses: t.partitionData.map((p) => partitionResult(p.index, code)),
    })),
    throttleTimeMs: 0,
  };
}

/**
 * KIP-890 part 1, as Kafka's ReplicaManager: a transactional batch must belong to its producer's open
 * transaction on this partition. Kafka's answers for old clients: INVALID_TXN_STATE (TRANSACTION_ABORTABLE
 * from v11 on) when the partition was not added, INVALID_PRODUCER_EPOCH when fenced, NOT_ENOUGH_REPLICAS
 * (retriable) while the transaction completes.
 */
function verifyTransactional(
  transactions: TransactionCoordinator,
  transactionalId: string | null,
  topic: string,
  partition: number,
  records: Buffer | null,
  version: number,
): number | null {
  if (!records || records.length < RECORD_BATCH_OVERHEAD || (records.readInt16BE(ATTRIBUTES_OFFSET) & TRANSACTIONAL_FLAG_MASK) === 0) return null;
  if (transactionalId === null) return ErrorCode.INVALID_TXN_STATE;
  const error = transactions.verifyPartition(
    transactionalId,
    readInt64At(records, PRODUCER_ID_OFFSET),
    records.readInt16BE(PRODUCER_EPOCH_OFFSET),
    topic,
    partition,
  );
  switch (error) {
    case null:
      return null;
    case ErrorCode.INVALID_TXN_STATE:
      return version >= 11 ? ErrorCode.TRANSACTION_ABORTABLE : ErrorCode.INVALID_TXN_STATE;
    case ErrorCode.PRODUCER_FENCED:
      return ErrorCode.INVALID_PRODUCER_EPOCH;
    case ErrorCode.CONCURRENT_TRANSACTIONS:
      return ErrorCode.NOT_ENOUGH_REPLICAS;
    default:
      return error;
  }
}

export default defineHandler({
  apiKey: 0,
  minVersion: 0,
  maxVersion: 11,
  advertisedBelowRange: true,
  // Records are written to the segment (a copy into the page cache) before handle() returns.
  releasesRequestBytes: true,
  errorResponse,
  handle(
    { replicas, topics, transactions, coordinators, metrics, apiVersion, log, closeConnection, signal },
    req,
  ): ProduceResponse | null | Promise<ProduceResponse> {
    if (apiVersion < 3) return errorResponse(req, ErrorCode.UNSUPPORTED_VERSION);
    if (req.acks !== 0 && req.acks !== 1 && req.acks !== -1) return errorResponse(req, ErrorCode.INVALID_REQUIRED_ACKS);
    const now = Date.now();
    const responses: ProduceResponse['responses'][number][] = [];
    /** acks=all partitions whose records the ISR has yet to copy. */
    const waits: Promise<void>[] = [];
    for (const t of req.topicData) {
      const topic = topics.getTopic(t.name);
      const cfg = topic ? topicAppendConfig(topic.logConfig) : null;
      const partitionResponses: PartitionResponse[] = [];
      for (const p of lastOfEach(t.partitionData, (d) => d.index)) {
        const partition = topic && cfg ? replicas.leaderPartition(t.name, p.index) : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
        if (typeof partition === 'number' || !cfg) {
          partitionResponses.push(
            partition === ErrorCode.NOT_LEADER_OR_FOLLOWER
              ? partitionResult(p.index, partition, 'This server is not the leader of this topic-partition.')
              : partitionResult(p.index, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'This server does not host this topic-partition.'),
          );
          continue;
        }
        // Verified where this broker is the transaction's coordinator; in a cluster a leader elsewhere takes the
        // batch as Kafka did before KIP-890's verification (the producer epoch is still checked by the log).
        const verifiable = req.transactionalId === null || coordinators.coordinatesTransactionalId(req.transactionalId);
        const txnError = verifiable ? verifyTransactional(transactions, req.transactionalId, t.name, p.index, p.records, apiVersion) : null;
        if (txnError !== null) {
          partitionResponses.push(
            partitionResult(p.index, txnError, "The partition was not added to the transaction, or the producer is not the transaction's."),
          );
          continue;
        }
        if (zstdTooEarly(p.records, apiVersion)) {
          partitionResponses.push(partitionResult(p.index, ErrorCode.UNSUPPORTED_COMPRESSION_TYPE, 'Produce requests below v7 cannot carry zstd batches'));
          continue;
        }
        try {
          const { baseOffset, lastOffset, logStartOffset, duplicateTimestamp } = replicas.appendRecords(partition, p.records, cfg, now, req.acks);
          metrics?.produced(t.name, lastOffset - baseOffset + 1, p.records?.length ?? 0);
          const result: PartitionResponse = {
            index: p.index,
            errorCode: ErrorCode.NONE,
            baseOffset,
            // As Kafka's UnifiedLog, a retry is answered with the timestamp its producer-state entry kept, even on a
            // CreateTime topic.
            logAppendTimeMs: duplicateTimestamp ?? (cfg.logAppendTime ? now : -1),
            logStartOffset,
            recordErrors: [],
            errorMessage: null,
          };
          partitionResponses.push(result);
          if (req.acks === -1 && partition.replicas.length > 1) {
            waits.push(
              replicas.awaitReplicated(partition, lastOffset + 1, cfg.minInsyncReplicas, req.timeoutMs, signal).then((code) => {
                if (code === ErrorCode.NONE) return;
                Object.assign(
                  result,
                  partitionResult(
                    p.index,
                    code,
                    code === ErrorCode.REQUEST_TIMED_OUT
                      ? `The in-sync replicas did not copy the records within ${req.timeoutMs} ms.`
                      : code === ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND
                        ? `The records were written, but the ISR [${partition.isr.join(', ')}] fell below min.insync.replicas ${cfg.minInsyncReplicas}.`
                        : 'This server lost the leadership of this topic-partition.',
                  ),
                );
              }),
            );
          }
        } catch (err) {
          const code = errorCodeOf(err);
          if (err instanceof KafkaError) log.info({ topic: t.name, partition: p.index, code }, err.message);
          else log.error({ err, topic: t.name, partition: p.index }, 'append failed');
          const failed = partitionResult(p.index, code, (err as Error).message);
          if (err instanceof RecordValidationError) failed.recordErrors = err.recordErrors;
          if (!NO_LOG_START_OFFSET.has(code) && !(err instanceof MalformedProduceError)) failed.logStartOffset = partition.logStartOffset;
          partitionResponses.push(failed);
        }
      }
      responses.push({ name: t.name, partitionResponses });
    }
    if (req.acks === 0) {
      // The producer reads no response, so Kafka closes the connection to make it refresh its metadata.
      const failed = responses.some((t) => t.partitionResponses.some((p) => p.errorCode !== ErrorCode.NONE));
      if (failed) closeConnection('an acks=0 produce failed');
      return null;
    }
    if (waits.length > 0) return Promise.all(waits).then(() => ({ responses, throttleTimeMs: 0 }));
    return { responses, throttleTimeMs: 0 };
  },
});
