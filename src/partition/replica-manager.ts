// Kafka's ReplicaManager: the one way handlers and coordinators reach partitions. It hands out Partition
// objects over the log manager's logs, appends to leaders (validating as Kafka's LogValidator does) and
// wakes the requests waiting in its fetch purgatory when a partition changes (appends, and the log start
// offset moved by DeleteRecords or retention). In a cluster it knows which partitions this broker leads
// (the controller's LeaderAndIsr, see Partition.setLeaderState).
// Replication (a cluster's partitions with followers): followers' fetches tell the leader how far each has
// copied (recordFollowerFetch), which moves the high watermark; acks=all produce requests wait in the
// produce purgatory until the high watermark passes their records (awaitReplicated); a periodic check asks
// the controller for ISR changes (shrink and expand, through the IsrChanger the cluster gives). The follower
// side (fetching from leaders, truncating) is the cluster's ReplicaFetcherManager.
// The controller's LeaderAndIsr and StopReplica are applied here, partition by partition, as Kafka's
// becomeLeaderOrFollower and stopReplicas apply them (epoch checks included); whoever follows a partition's
// role (the replica fetchers, the coordinators) is told through a RoleChangeListener.

import { PARTITION_LEADER_EPOCH_OFFSET, setPartitionLeaderEpoch, type BatchInfo } from '../../protocol/record-batch.js';
import type { LogManager, TopicInfo } from '../storage/log-manager.js';
import type { PartitionLog } from '../storage/partition-log.js';
import { DelayedOperationPurgatory, awaitDelayed } from '../purgatory.js';
import { validateRecords, type TopicAppendConfig } from '../log-validator.js';
import { Partition, type LeaderState } from './partition.js';
import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import { deleteOldSegments } from '../storage/retention.js';
import path from 'node:path';
import { readCheckpointFile, writeCheckpointFile, writeCheckpointFileInBackground, type CheckpointEntry } from '../storage/checkpoints.js';
import { partitionKey } from '../topic-partition.js';

/**
 * Kafka's replication-offset-checkpoint in the data dir: the high watermarks of a cluster broker's
 * partitions, so that after a restart consumers of a partition it leads see what was committed before,
 * without waiting for every follower to fetch again.
 */
export const HIGH_WATERMARK_CHECKPOINT = 'replication-offset-checkpoint';

/** How this broker's partitions start when first opened. */
export interface ReplicaStart {
  /** The leader a partition starts with: this broker, or none (-1) until the controller's LeaderAndIsr names one. */
  readonly leaderId: number;
  /** The high watermarks checkpointed before, by partition key; a partition not in it starts from its log. */
  readonly highWatermarks: ReadonlyMap<string, number>;
}

/** A single broker leads every partition it has, and its high watermark is its log end. */
export function singleBrokerStart(localNodeId: number): ReplicaStart {
  return { leaderId: localNodeId, highWatermarks: new Map() };
}

/**
 * A broker of a cluster leads a partition only once the controller says so, and its high watermarks start
 * where its checkpoint (Kafka's replication-offset-checkpoint) left them.
 */
export function clusterStart(dataDir: string): ReplicaStart {
  const highWatermarks = new Map<string, number>();
  try {
    for (const e of readCheckpointFile(path.join(dataDir, HIGH_WATERMARK_CHECKPOINT))) highWatermarks.set(partitionKey(e.topic, e.partition), e.offset);
  } catch {
    // A damaged checkpoint only costs the wait for followers to fetch again: high watermarks start low.
  }
  return { leaderId: -1, highWatermarks };
}

export interface AppendResult {
  baseOffset: number;
  lastOffset: number;
  logStartOffset: number;
  /** Set for a producer's retry of a batch already in the log: that batch's max timestamp. */
  duplicateTimestamp?: number;
}

/**
 * How a leader asks the controller for a new ISR (AlterPartition): it begins the change on the partition
 * (Partition.beginIsrChange) and sends it; the answer comes as a new LeaderState.
 */
export type IsrChanger = (partition: Partition, isr: number[]) => void;

/** Told when a partition's role here changed (leader, follower, neither), once the new role is in place. */
export type RoleChangeListener = (partition: Partition) => void;

/** Kafka's LeaderAndIsr.EpochDuringDelete: StopReplica's leader epoch for the partitions of a topic being deleted. */
export const EPOCH_DURING_DELETE = -2;

/** One partition of a StopReplica. */
export interface StopReplicaState {
  partitionIndex: number;
  leaderEpoch: number;
  deletePartition: boolean;
}

export class ReplicaManager {
  /** Fetches waiting for data, keyed by the partitions they read. */
  readonly fetchPurgatory = new DelayedOperationPurgatory<Partition>('Fetch');
  /** acks=all produce requests waiting for the ISR to copy their records. */
  readonly producePurgatory = new DelayedOperationPurgatory<Partition>('Produce');
  private readonly partitions = new WeakMap<PartitionLog, Partition>();
  /** How ISR changes reach the controller: the cluster's AlterPartition manager (useIsrChanger); none on a single broker. */
  private isrChanger: IsrChanger | null = null;
  private readonly roleListeners: RoleChangeListener[] = [];
  /** The newest controller epoch a request was accepted from (see controllerRequestStaleness). */
  private controllerEpoch = -1;
  /** replica.lag.time.max.ms, as the cluster configures it. */
  replicaLagTimeMaxMs = 30_000;
  /** ISR changes the controller accepted from this leader (Kafka's IsrShrinksPerSec and IsrExpandsPerSec counts). */
  readonly isrChanges = { shrinks: 0, expands: 0 };

  constructor(
    private readonly logs: LogManager,
    readonly localNodeId: number,
    private readonly start: ReplicaStart = singleBrokerStart(localNodeId),
  ) {}

  /** The partition, if this broker has it (whoever leads it). */
  partition(topic: string, index: number): Partition | undefined {
    const log = this.logs.partition(topic, index);
    if (!log) return undefined;
    let p = this.partitions.get(log);
    if (!p) {
      p = new Partition(topic, index, log, this.localNodeId, this.start.leaderId, this.start.highWatermarks.get(partitionKey(topic, index)));
      this.partitions.set(log, p);
    }
    return p;
  }

  /**
   * The partition when this broker leads it, for the requests only a leader serves (Produce, Fetch from a
   * consumer, ListOffsets, DeleteRecords, ...); otherwise the error code Kafka's getPartitionOrError gives:
   * NOT_LEADER_OR_FOLLOWER for a partition another broker leads (or none does), which makes clients refresh
   * their metadata, UNKNOWN_TOPIC_OR_PARTITION for one that does not exist.
   */
  leaderPartition(topic: string, index: number): Partition | number {
    const partition = this.partition(topic, index);
    if (!partition) return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
    return partition.isLeader ? partition : ErrorCode.NOT_LEADER_OR_FOLLOWER;
  }

  /**
   * Validates a producer's records for the topic's configs and appends them to the leader; throws a
   * KafkaError for records the log refuses. `records` may be rewritten in place (offsets, epoch).
   */
  appendRecords(partition: Partition, records: Buffer | null, config: TopicAppendConfig, now: number, requiredAcks = 1): AppendResult {
    // As Kafka's Partition.appendRecordsToLeader: acks=all with fewer in-sync replicas than
    // min.insync.replicas is refused before anything is written.
    if (requiredAcks === -1 && partition.isr.length < config.minInsyncReplicas) {
      throw new KafkaError(
        'NOT_ENOUGH_REPLICAS',
        `The size of the current ISR [${partition.isr.join(', ')}] is insufficient to satisfy the min.isr requirement of ${config.minInsyncReplicas} for partition ${partition.topic}-${partition.index}`,
      );
    }
    const { buf, batches } = validateRecords(records, config, now, partition.leaderEpoch, partition);
    return this.appendValidated(partition, buf, batches);
  }

  /** Appends batches the broker built itself (coordinator records, transaction markers), as the leader. */
  appendValidated(partition: Partition, buf: Buffer, batches: BatchInfo[], fromCoordinator = false): AppendResult {
    // Every batch a leader writes carries its leader epoch (the leader-epoch-checkpoint is built from them).
    for (const b of batches) {
      if (buf.readInt32BE(b.position + PARTITION_LEADER_EPOCH_OFFSET) !== partition.leaderEpoch)
        setPartitionLeaderEpoch(buf, b.position, partition.leaderEpoch);
    }
    const appended = partition.log.append(buf, batches, fromCoordinator);
    if (partition.maybeIncrementHighWatermark()) this.producePurgatory.checkAndComplete(partition);
    this.fetchPurgatory.checkAndComplete(partition);
    return { ...appended, logStartOffset: partition.logStartOffset };
  }

  /**
   * As Kafka's Partition.checkEnoughReplicasReachOffset: NONE once the high watermark has passed
   * `requiredOffset` with at least `minInsyncReplicas` in the ISR (NOT_ENOUGH_REPLICAS_AFTER_APPEND with
   * fewer), NOT_LEADER_OR_FOLLOWER when this broker lost the leadership, null while it must still wait.
   */
  replicationResult(partition: Partition, requiredOffset: number, minInsyncReplicas: number): number | null {
    if (!partition.isLeader || partition.log.isClosed) return ErrorCode.NOT_LEADER_OR_FOLLOWER;
    if (partition.highWatermark < requiredOffset) return null;
    return partition.isr.length >= minInsyncReplicas ? ErrorCode.NONE : ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND;
  }

  /**
   * Waits until the ISR has the records below `requiredOffset` (acks=all, coordinator writes); resolves with
   * the error code for them: NONE, NOT_ENOUGH_REPLICAS_AFTER_APPEND, NOT_LEADER_OR_FOLLOWER, or
   * REQUEST_TIMED_OUT after `timeoutMs` (or when the client went away).
   */
  awaitReplicated(partition: Partition, requiredOffset: number, minInsyncReplicas: number, timeoutMs: number, signal?: AbortSignal): Promise<number> {
    const now = this.replicationResult(partition, requiredOffset, minInsyncReplicas);
    if (now !== null) return Promise.resolve(now);
    return awaitDelayed(
      this.producePurgatory,
      [partition],
      timeoutMs,
      signal,
      () => this.replicationResult(partition, requiredOffset, minInsyncReplicas) !== null,
    ).then((done) => (done ? this.replicationResult(partition, requiredOffset, minInsyncReplicas)! : ErrorCode.REQUEST_TIMED_OUT));
  }

  /**
   * A follower fetched `partition` (which this broker leads) from `fetchOffset`: its state, the high
   * watermark (waking the acks=all requests and consumers it lets through) and the ISR it may now join.
   */
  recordFollowerFetch(partition: Partition, replicaId: number, fetchOffset: number, now: number): void {
    if (partition.updateFollowerFetchState(replicaId, fetchOffset, partition.logEndOffset, now)) this.highWatermarkMoved(partition);
    if (!partition.isr.includes(replicaId)) this.maybeChangeIsr(partition, now);
  }

  /** The controller accepted this leader's ISR change from `before` to `after` (AlterPartition). */
  isrChanged(before: readonly number[], after: readonly number[]): void {
    if (after.length < before.length) this.isrChanges.shrinks++;
    else if (after.length > before.length) this.isrChanges.expands++;
  }

  /** Waiters on a partition whose high watermark moved (or whose role changed). */
  highWatermarkMoved(partition: Partition): void {
    this.producePurgatory.checkAndComplete(partition);
    this.fetchPurgatory.checkAndComplete(partition);
  }

  /** A new LeaderAndIsr for `partition` was applied: whatever waited on its old role is answered or re-checked. */
  leadershipChanged(partition: Partition): void {
    this.producePurgatory.checkAndComplete(partition);
    this.fetchPurgatory.completeAll(partition);
  }

  /** Asks the controller for the ISR `partition` should have now, if it differs (replica.lag.time.max.ms). */
  maybeChangeIsr(partition: Partition, now: number): void {
    if (!this.isrChanger) return;
    const isr = partition.desiredIsr(now, this.replicaLagTimeMaxMs);
    if (isr) this.isrChanger(partition, isr);
  }

  /** The cluster's way of asking the controller for ISR changes (null: none, as when leaving the cluster). */
  useIsrChanger(changer: IsrChanger | null): void {
    this.isrChanger = changer;
  }

  /** `listener` is told of every role change LeaderAndIsr and StopReplica make, in the order listeners came. */
  onRoleChange(listener: RoleChangeListener): void {
    this.roleListeners.push(listener);
  }

  /**
   * STALE_CONTROLLER_EPOCH / STALE_BROKER_EPOCH for a controller request, as Kafka checks them, or null.
   * `current` is what this broker knows: its registration's epoch and the controller epoch of its metadata.
   * A request that passes makes its controller epoch the one to beat, whichever request it is (Kafka's
   * ReplicaManager.controllerEpoch): a new controller's LeaderAndIsr fences the old one before its
   * UpdateMetadata has arrived.
   */
  controllerRequestStaleness(controllerEpoch: number, brokerEpoch: number, current: { brokerEpoch: number; controllerEpoch: number }): number | null {
    if (controllerEpoch < Math.max(this.controllerEpoch, current.controllerEpoch)) return ErrorCode.STALE_CONTROLLER_EPOCH;
    if (brokerEpoch !== -1 && brokerEpoch < current.brokerEpoch) return ErrorCode.STALE_BROKER_EPOCH;
    this.controllerEpoch = Math.max(this.controllerEpoch, controllerEpoch);
    return null;
  }

  /**
   * One partition of a LeaderAndIsr (Kafka's becomeLeaderOrFollower): the controller's state, unless older
   * than the one held (STALE_CONTROLLER_EPOCH); then the role listeners, and whatever waited on the old role is
   * answered. Returns the partition's error code.
   */
  becomeLeaderOrFollower(partition: Partition, state: LeaderState): number {
    if (!partition.setLeaderState(state)) return ErrorCode.STALE_CONTROLLER_EPOCH;
    this.roleChanged(partition);
    this.leadershipChanged(partition);
    return ErrorCode.NONE;
  }

  /**
   * One topic's partitions of a StopReplica (Kafka's stopReplicas): this broker neither leads nor follows them
   * any more. With delete, a deleted topic's logs go (its partitions come with EPOCH_DURING_DELETE); a partition
   * deleted with its real leader epoch is a replica moved away by a reassignment: its log is emptied (see
   * emptyMovedReplica), unless the request is older than the replica (FENCED_LEADER_EPOCH). Returns each
   * partition's error code (with `emptied` set where a moved replica's log was to be emptied: whether it was),
   * and whether the topic's logs were deleted.
   */
  stopReplicas(
    topic: string,
    states: readonly StopReplicaState[],
  ): { partitions: { partitionIndex: number; errorCode: number; emptied?: boolean }[]; deletedTopic: boolean } {
    const removed: Partition[] = [];
    const partitions = states.map(({ partitionIndex, leaderEpoch, deletePartition }) => {
      const partition = this.partition(topic, partitionIndex);
      const movedAway = deletePartition && leaderEpoch !== EPOCH_DURING_DELETE;
      if (!partition) return { partitionIndex, errorCode: ErrorCode.NONE };
      if (movedAway && leaderEpoch < partition.leaderEpoch) return { partitionIndex, errorCode: ErrorCode.FENCED_LEADER_EPOCH };
      partition.setLeaderState({ leaderId: -1, leaderEpoch: partition.leaderEpoch, replicas: partition.replicas, isr: partition.isr });
      this.roleChanged(partition);
      removed.push(partition);
      if (!movedAway) return { partitionIndex, errorCode: ErrorCode.NONE };
      const errorCode = emptyMovedReplica(partition);
      return { partitionIndex, errorCode, emptied: errorCode === ErrorCode.NONE };
    });
    // The controller deletes a topic by asking every broker to delete all its partitions.
    const deleteTopic = states.some((p) => p.deletePartition && p.leaderEpoch === EPOCH_DURING_DELETE) && this.logs.getTopic(topic) !== undefined;
    if (deleteTopic) {
      try {
        this.logs.deleteTopic(topic);
      } finally {
        this.partitionsRemoved(removed);
      }
    } else {
      for (const partition of removed) this.leadershipChanged(partition);
    }
    return { partitions, deletedTopic: deleteTopic };
  }

  private roleChanged(partition: Partition): void {
    for (const listener of this.roleListeners) listener(partition);
  }

  /** Every partition this broker has, with its topic (whose configs retention reads). */
  *allPartitions(): Generator<{ topic: TopicInfo; partition: Partition }> {
    for (const topic of this.logs.topics()) {
      for (let p = 0; p < topic.partitions; p++) {
        const partition = this.partition(topic.name, p);
        if (partition) yield { topic, partition };
      }
    }
  }

  /** Kafka's isr-expiration task: every partition this broker leads, checked for followers that fell behind. */
  checkIsrs(now: number): void {
    for (const { partition } of this.allPartitions()) {
      if (partition.isLeader && partition.replicas.length > 1) this.maybeChangeIsr(partition, now);
    }
  }

  /**
   * Waits until one of `partitions` has records beyond its high watermark when the wait began, its log
   * start offset has moved, or it goes away; or until the timeout or the abort signal. True when woken by
   * a change. Appends, high watermark moves and topic deletion wake the wait; whatever moves a log start offset
   * (DeleteRecords, retention) must call fetchPurgatory.checkAndComplete too. A follower's fetch
   * (`upToLogEnd`) waits for the log end offset instead.
   */
  awaitChange(partitions: readonly Partition[], timeoutMs: number, signal: AbortSignal, upToLogEnd = false): Promise<boolean> {
    const end = (p: Partition) => (upToLogEnd ? p.logEndOffset : p.highWatermark);
    const seen = partitions.map(end);
    const starts = partitions.map((p) => p.logStartOffset);
    return awaitDelayed(this.fetchPurgatory, partitions, timeoutMs, signal, () =>
      partitions.some((p, i) => p.log.isClosed || end(p) !== seen[i] || p.logStartOffset !== starts[i]),
    );
  }

  /**
   * DeleteRecords on the leader, as Kafka's Partition.deleteRecordsOnLeader: `offset` -1 means the high
   * watermark; the log start offset moves up to it (never back) and the segments wholly below it are
   * deleted. Returns the low watermark (the log start offset). Throws POLICY_VIOLATION for a topic whose
   * cleanup.policy lacks delete, OFFSET_OUT_OF_RANGE below 0 or past the high watermark.
   */
  deleteRecords(partition: Partition, offset: number): number {
    const topic = this.logs.getTopic(partition.topic);
    if (topic && !topic.logConfig.cleanupPolicy.includes('delete')) {
      throw new KafkaError('POLICY_VIOLATION', `Records of partition ${partition.topic}-${partition.index} can not be deleted due to the configured policy`);
    }
    const target = offset === -1 ? partition.highWatermark : offset;
    if (target < 0) throw new KafkaError('OFFSET_OUT_OF_RANGE', `The offset ${target} for partition ${partition.topic}-${partition.index} is not valid`);
    if (target > partition.highWatermark) {
      throw new KafkaError(
        'OFFSET_OUT_OF_RANGE',
        `Cannot increment the log start offset to ${target} of partition ${partition.topic}-${partition.index} since it is larger than the high watermark ${partition.highWatermark}`,
      );
    }
    const before = partition.logStartOffset;
    partition.log.deleteRecordsBefore(target);
    if (partition.logStartOffset !== before) this.fetchPurgatory.checkAndComplete(partition);
    return partition.logStartOffset;
  }

  /**
   * One retention pass over every partition (storage/retention.ts), waking the fetches waiting on those
   * whose log start offset moved. Returns how many segments were deleted. A partition that fails does not
   * stop the others; the failures are thrown together at the end (the scheduler logs them and runs again).
   */
  deleteOldSegments(now: number): number {
    let deleted = 0;
    const failures: string[] = [];
    for (const { topic, partition } of this.allPartitions()) {
      const before = partition.logStartOffset;
      try {
        deleted += deleteOldSegments(partition.log, topic.logConfig, now);
      } catch (err) {
        failures.push(`${topic.name}-${partition.index}: ${(err as Error).message}`);
      }
      if (partition.logStartOffset !== before) this.fetchPurgatory.checkAndComplete(partition);
    }
    if (failures.length > 0) throw new Error(`retention failed for ${failures.length} partition(s): ${failures.join('; ')}`);
    return deleted;
  }

  private highWatermarkEntries(): CheckpointEntry[] {
    const entries: CheckpointEntry[] = [];
    for (const { partition } of this.allPartitions()) {
      if (!partition.log.isClosed) entries.push({ topic: partition.topic, partition: partition.index, offset: partition.highWatermark });
    }
    return entries;
  }

  /** Writes the high watermark checkpoint (a cluster broker's, periodically and at close). */
  checkpointHighWatermarks(): Promise<void> {
    return writeCheckpointFileInBackground(path.join(this.logs.dataDir, HIGH_WATERMARK_CHECKPOINT), this.highWatermarkEntries());
  }

  checkpointHighWatermarksNow(): void {
    writeCheckpointFile(path.join(this.logs.dataDir, HIGH_WATERMARK_CHECKPOINT), this.highWatermarkEntries());
  }

  /** The topic's partitions are gone (deleted): requests waiting on them are answered now. */
  partitionsRemoved(removed: readonly Partition[]): void {
    for (const p of removed) {
      this.fetchPurgatory.completeAll(p);
      this.producePurgatory.completeAll(p);
    }
  }
}

/**
 * A replica a reassignment moved away (StopReplica with delete): an explicit request to drop its records, as
 * Kafka deletes the log. The directory stays, emptied (every segment deleted, the log start offset moved up
 * to the log end offset), since every broker keeps one for every partition of every topic; should the
 * partition come back here, this broker follows the leader from there. Returns the partition's error code.
 */
function emptyMovedReplica(partition: Partition): number {
  try {
    partition.log.deleteRecordsBefore(partition.logEndOffset);
    return ErrorCode.NONE;
  } catch {
    return ErrorCode.KAFKA_STORAGE_ERROR;
  }
}
