// __transaction_state: where the transaction coordinator records every state change, as Kafka does (a
// compacted internal topic; key TransactionLogKey v0 = the transactional id, value TransactionLogValue v0).
// The partition of a transactional id is Kafka's: Utils.abs(id.hashCode) % partitions. A single broker
// replays it all at start; in a cluster each partition is replayed when this broker is elected its leader
// (loadPartition), and a request's writes are answered once the in-sync replicas have them (replicated).

import { buildBatch, scanBatches } from '../../protocol/record-batch.js';
import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import { TransactionLogKey, TransactionLogValue } from '../../protocol/data/transaction-log.js';
import { readVersioned, writeVersioned } from '../../protocol/data/versioned.js';
import type { LogManager } from '../storage/log-manager.js';
import type { ReplicaManager } from '../partition/replica-manager.js';
import { javaStringHashCode } from '../group/records.js';
import { TXN_STATES_BY_ID, TXN_STATE_IDS, type TransactionCoordinator, type TransactionMetadata } from './coordinator.js';
import { replayLog } from '../storage/log-replay.js';
import { TXN_STATE_WRITE_TIMEOUT_MS, awaitCoordinatorWrite, checkCoordinatorAppend, coordinatorWriteError } from '../group/replicated-write.js';
import { CREATE_IN_LOCAL_LOGS, type InternalTopicCreation } from '../internal-topic-creation.js';

export const TRANSACTION_STATE_TOPIC = '__transaction_state';
const INT32_MIN = -2147483648;

/** Kafka's Utils.abs(transactionalId.hashCode) % partitions. */
export function partitionForTransactionalId(transactionalId: string, partitions: number): number {
  const h = javaStringHashCode(transactionalId);
  return (h === INT32_MIN ? 0 : Math.abs(h)) % partitions;
}

export class TransactionStateTopic {
  constructor(
    private readonly logs: LogManager,
    private readonly replicas: ReplicaManager,
    private readonly configuredPartitions: number,
    private readonly segmentBytes: number,
    /** In a cluster the controller creates the topic (as for OffsetsTopicStore). */
    private readonly create: InternalTopicCreation,
  ) {}

  /** The topic's partition count once it exists, else the configured one. */
  get numPartitions(): number {
    return this.logs.getTopic(TRANSACTION_STATE_TOPIC)?.partitions ?? this.configuredPartitions;
  }

  static open(logs: LogManager, replicas: ReplicaManager, numPartitions: number, segmentBytes: number, create = CREATE_IN_LOCAL_LOGS): TransactionStateTopic {
    const existing = logs.getTopic(TRANSACTION_STATE_TOPIC);
    return new TransactionStateTopic(logs, replicas, existing ? existing.partitions : numPartitions, segmentBytes, create);
  }

  /** The topic's configs when it is created (here, or through the controller in a cluster). */
  get topicConfigs(): Record<string, string> {
    return { 'cleanup.policy': 'compact', 'segment.bytes': String(this.segmentBytes) };
  }

  /** Created on the first FindCoordinator for a transactional id, as Kafka does. */
  ensureTopic(): void {
    if (!this.logs.getTopic(TRANSACTION_STATE_TOPIC)) this.create(this.logs, TRANSACTION_STATE_TOPIC, this.numPartitions, this.topicConfigs);
  }

  persist(meta: TransactionMetadata): void {
    this.write(
      meta.transactionalId,
      writeVersioned(TransactionLogValue, 0, {
        producerId: meta.producerId,
        producerEpoch: meta.producerEpoch,
        transactionTimeoutMs: meta.timeoutMs,
        transactionStatus: TXN_STATE_IDS[meta.state],
        transactionPartitions:
          meta.state === 'Empty' || meta.state.startsWith('Complete')
            ? null
            : [...meta.partitions].map(([topic, ps]) => ({ topic, partitionIds: [...ps].sort((a, b) => a - b) })),
        transactionLastUpdateTimestampMs: meta.lastUpdateTimestamp,
        transactionStartTimestampMs: meta.startTimestamp,
      }),
    );
  }

  /** A tombstone: the id expired (transactional.id.expiration.ms). */
  forget(transactionalId: string): void {
    this.write(transactionalId, null);
  }

  partitionFor(transactionalId: string): number {
    return partitionForTransactionalId(transactionalId, this.numPartitions);
  }

  private write(transactionalId: string, value: Buffer | null): void {
    this.ensureTopic();
    const partition = this.replicas.partition(TRANSACTION_STATE_TOPIC, this.partitionFor(transactionalId));
    if (!partition) throw new KafkaError('COORDINATOR_NOT_AVAILABLE', `${TRANSACTION_STATE_TOPIC} is missing`);
    checkCoordinatorAppend(this.logs, partition);
    const key = writeVersioned(TransactionLogKey, 0, { transactionalId });
    const buf = buildBatch([{ key, value }], { partitionLeaderEpoch: partition.leaderEpoch });
    this.replicas.appendValidated(partition, buf, scanBatches(buf));
  }

  /**
   * After a request's writes: null when they are durable now (one replica), else a promise of the code the
   * request is answered with if it is not NONE (Kafka's appendTransactionToLog mapping: COORDINATOR_NOT_AVAILABLE,
   * NOT_COORDINATOR).
   */
  replicated(transactionalId: string): Promise<number> | null {
    if (!this.logs.getTopic(TRANSACTION_STATE_TOPIC)) return null;
    const partition = this.replicas.partition(TRANSACTION_STATE_TOPIC, this.partitionFor(transactionalId));
    const waiting = partition ? awaitCoordinatorWrite(this.replicas, this.logs, partition, TXN_STATE_WRITE_TIMEOUT_MS) : null;
    return waiting && waiting.then(coordinatorWriteError);
  }

  /**
   * `answer`, once the writes to `transactionalId`'s partition are replicated (at once with one replica);
   * `failed(code)` instead when they could not be.
   */
  answerWhenReplicated<T>(transactionalId: string, answer: T, failed: (code: number) => T): T | Promise<T> {
    const waiting = this.replicated(transactionalId);
    if (!waiting) return answer;
    return waiting.then((code) => (code === ErrorCode.NONE ? answer : failed(code)));
  }

  /** Replays every partition into the coordinator (a single broker, at start), then completes what was mid-way. */
  load(coordinator: TransactionCoordinator): void {
    for (let p = 0; p < this.numPartitions; p++) this.loadPartition(coordinator, p);
    coordinator.completePrepared();
  }

  /** Replays one partition into the coordinator, in log order (later records win). */
  loadPartition(coordinator: TransactionCoordinator, p: number): void {
    const log = this.logs.partition(TRANSACTION_STATE_TOPIC, p);
    if (!log) return;
    replayLog(log, {
      record: (_info, r) => {
        const { transactionalId } = readVersioned(TransactionLogKey, r.key!);
        if (!r.value) {
          coordinator.load(null, transactionalId);
          return;
        }
        const v = readVersioned(TransactionLogValue, r.value);
        coordinator.load(
          {
            transactionalId,
            producerId: v.producerId,
            producerEpoch: v.producerEpoch,
            timeoutMs: v.transactionTimeoutMs,
            state: TXN_STATES_BY_ID[v.transactionStatus] ?? 'Empty',
            partitions: new Map((v.transactionPartitions ?? []).map((t) => [t.topic, new Set(t.partitionIds)])),
            startTimestamp: v.transactionStartTimestampMs,
            lastUpdateTimestamp: v.transactionLastUpdateTimestampMs,
          },
          transactionalId,
        );
      },
    });
  }
}
