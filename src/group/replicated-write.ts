// Coordinator writes in a cluster (Kafka's GroupMetadataManager and TransactionStateManager append with
// acks=all): a record in __consumer_offsets or __transaction_state is written on the partition's leader at
// once, and the request that wrote it is answered only once the in-sync replicas have it, so that a new
// coordinator elected from them after a failover knows everything a client was told. A partition with one
// replica (a single broker) needs no wait: null, and the caller stays synchronous.
//
// The append's error becomes the coordinator's, as Kafka maps them: a coordinator without enough in-sync
// replicas is not available (for now), one that lost leadership is not the coordinator any more.
import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import type { Partition } from '../partition/partition.js';
import type { ReplicaManager } from '../partition/replica-manager.js';
import type { LogManager } from '../storage/log-manager.js';

/** Kafka's offsets.commit.timeout.ms default: how long a group write waits for the ISR. */
export const OFFSETS_COMMIT_TIMEOUT_MS = 5_000;
/** Kafka's request.timeout.ms default, which the transaction coordinator's writes wait for the ISR. */
export const TXN_STATE_WRITE_TIMEOUT_MS = 30_000;

/**
 * Before a coordinator appends to its partition in a cluster (more than one replica): refused as Kafka's
 * Partition.appendRecordsToLeader refuses acks=all, NOT_COORDINATOR when this broker no longer leads it,
 * COORDINATOR_NOT_AVAILABLE when the ISR is below the topic's min.insync.replicas.
 */
export function checkCoordinatorAppend(logs: LogManager, partition: Partition): void {
  if (partition.replicas.length <= 1) return;
  if (!partition.isLeader) throw new KafkaError('NOT_COORDINATOR', `This broker no longer leads ${partition.topic}-${partition.index}.`);
  const minIsr = minInsyncReplicas(logs, partition);
  if (partition.isr.length < minIsr) {
    throw new KafkaError(
      'COORDINATOR_NOT_AVAILABLE',
      `${partition.topic}-${partition.index} has ${partition.isr.length} in-sync replica(s), below min.insync.replicas ${minIsr}.`,
    );
  }
}

/**
 * How everything appended to `partition` so far comes to be replicated: null when it already is (one
 * replica), else ReplicaManager.awaitReplicated's outcome (NONE, NOT_ENOUGH_REPLICAS_AFTER_APPEND,
 * NOT_LEADER_OR_FOLLOWER, REQUEST_TIMED_OUT). Called right after the append, the log end offset is the
 * offset after the caller's last record. Waiting for the whole log rather than the request's own records
 * matters for the transaction coordinator, whose memory takes a state change when it is written (Kafka
 * waits with a pending state instead): a retry after a failed wait, which writes nothing new, still waits
 * for what the failed attempt left unreplicated.
 */
export function awaitCoordinatorWrite(replicas: ReplicaManager, logs: LogManager, partition: Partition, timeoutMs: number): Promise<number> | null {
  if (partition.replicas.length <= 1) return null;
  return replicas
    .awaitReplicated(partition, partition.logEndOffset, minInsyncReplicas(logs, partition), timeoutMs)
    .catch(() => ErrorCode.UNKNOWN_SERVER_ERROR as number);
}

function minInsyncReplicas(logs: LogManager, partition: Partition): number {
  return logs.getTopic(partition.topic)?.logConfig.minInsyncReplicas ?? 1;
}

/** OffsetCommit / TxnOffsetCommit: Kafka's GroupMetadataManager.storeOffsets mapping (other errors pass as they are). */
export function commitError(code: number): number {
  switch (code) {
    case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
    case ErrorCode.NOT_ENOUGH_REPLICAS:
    case ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND:
      return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    case ErrorCode.NOT_LEADER_OR_FOLLOWER:
    case ErrorCode.KAFKA_STORAGE_ERROR:
      return ErrorCode.NOT_COORDINATOR;
    case ErrorCode.MESSAGE_TOO_LARGE:
    case ErrorCode.RECORD_LIST_TOO_LARGE:
    case ErrorCode.INVALID_FETCH_SIZE:
      return ErrorCode.INVALID_COMMIT_OFFSET_SIZE;
    default:
      return code;
  }
}

/**
 * The group's metadata (SyncGroup) and the transaction state: Kafka's storeGroup and
 * TransactionStateManager.appendTransactionToLog mapping, where a timed-out wait is "not available" too.
 */
export function coordinatorWriteError(code: number): number {
  switch (code) {
    case ErrorCode.NONE:
      return ErrorCode.NONE;
    case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
    case ErrorCode.NOT_ENOUGH_REPLICAS:
    case ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND:
    case ErrorCode.REQUEST_TIMED_OUT:
      return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    case ErrorCode.NOT_LEADER_OR_FOLLOWER:
    case ErrorCode.KAFKA_STORAGE_ERROR:
      return ErrorCode.NOT_COORDINATOR;
    default:
      return ErrorCode.UNKNOWN_SERVER_ERROR;
  }
}

/** `f` of a value that is there now or comes later: synchronous when it is there (a single broker's writes). */
export function whenWritten<T, R>(value: T | Promise<T>, f: (v: T) => R): R | Promise<R> {
  return value instanceof Promise ? value.then(f) : f(value);
}
