// Committed offsets of the classic group coordinator (Kafka's GroupMetadataManager, offsets side):
// OffsetCommit, OffsetFetch and OffsetDelete on a group's offsets, their replay from __consumer_offsets,
// and retention.
//
// Commits are written to __consumer_offsets (through the store) before they are acknowledged, and in a
// cluster take effect (and are answered) once the in-sync replicas have them, as Kafka's storeOffsets;
// deletions write tombstones, which nobody waits for (Kafka's cleanupGroupMetadata appends them without acks). Retention (KIP-211, Kafka's GroupMetadata.removeExpiredOffsets): every
// offsets.retention.check.interval.ms the offsets of an Empty group expire offsets.retention.minutes after
// it became Empty; a simple group's (no protocol type: commits only) and a Stable consumer group's offsets
// of topics it no longer subscribes to, that long after their commit; a v1 record's explicit expire
// timestamp wins. Expired offsets get tombstones; an Empty group left without offsets becomes Dead and is
// dropped (with a GroupMetadata tombstone when it ever had a generation).
import { ErrorCode } from '../../protocol/errors.js';
import { commitError } from './replicated-write.js';
import { Group, type CommittedOffset, type Member } from './group.js';
import { encodeGroupMetadataKey, encodeOffsetCommitKey, encodeOffsetCommitValue } from './records.js';
import type { CoordinatorStore, StoreRecord, Timers } from './store.js';
import { brokerConfigDefault } from '../config.js';
import type { Scheduler } from '../scheduler.js';
import { partitionKey, splitPartitionKey } from '../topic-partition.js';

export interface CommitPartition {
  partition: number;
  offset: number;
  leaderEpoch: number;
  metadata: string | null;
}

/** Per topic, per partition error codes of a commit. */
export type CommitResult = { name: string; partitions: { partitionIndex: number; errorCode: number }[] }[];

/** Tombstones for the given offsets (offsetKey form) of a group. */
export function offsetTombstones(groupId: string, keys: Iterable<string>): StoreRecord[] {
  return [...keys].map((k) => {
    const [topic, partition] = splitPartitionKey(k);
    return { key: encodeOffsetCommitKey({ group: groupId, topic, partition }), value: null };
  });
}

/** What the offsets side needs of the coordinator that owns the groups. */
export interface OffsetsHost {
  readonly groups: Map<string, Group>;
  readonly store: CoordinatorStore | null;
  readonly timers: Timers;
  /** Runs the periodic expiration of offsets. */
  readonly scheduler: Scheduler;
  isClosed(): boolean;
  /** A commit by a member counts as a sign of life (resets its session timer). */
  touch(group: Group, member: Member): void;
  /** Removes an Empty group whose last offsets expired (it becomes Dead). */
  dropGroup(group: Group): void;
  /** Whether the coordinator serves the group's partition now (a commit's wait may outlive its leadership). */
  coordinates(groupId: string): boolean;
}

export interface OffsetsOptions {
  offsetMetadataMaxBytes?: number;
  /** Whether topic-partition exists (OffsetCommit answers UNKNOWN_TOPIC_OR_PARTITION otherwise). */
  partitionExists?: (topic: string, partition: number) => boolean;
  /** offsets.retention.minutes, in ms (default: the config's). */
  offsetsRetentionMs?: number;
  /** offsets.retention.check.interval.ms (default: the config's); the first check runs at once. */
  offsetsRetentionCheckIntervalMs?: number;
}

const DEFAULT_OFFSETS_RETENTION_MS = brokerConfigDefault('offsets.retention.minutes') * 60_000;
const DEFAULT_RETENTION_CHECK_INTERVAL_MS = brokerConfigDefault('offsets.retention.check.interval.ms');
const MAX_TIMER_MS = 2_147_483_647;
/** Kafka's name for the task. */
const EXPIRATION_TASK = 'delete-expired-group-metadata';

export class GroupOffsets {
  /** Offsets written by open transactions, by producer id, then group (TxnOffsetCommit). */
  private readonly pending = new Map<number, Map<string, Map<string, CommittedOffset>>>();
  private readonly metadataMax: number;
  private readonly retentionMs: number;
  private readonly retentionCheckMs: number;

  constructor(
    private readonly host: OffsetsHost,
    private readonly options: OffsetsOptions = {},
  ) {
    this.metadataMax = options.offsetMetadataMaxBytes ?? 4096;
    this.retentionMs = options.offsetsRetentionMs ?? DEFAULT_OFFSETS_RETENTION_MS;
    this.retentionCheckMs = Math.min(MAX_TIMER_MS, Math.max(1, options.offsetsRetentionCheckIntervalMs ?? DEFAULT_RETENTION_CHECK_INTERVAL_MS));
    // First run at once (after the load), then periodic. A failed pass is logged by the scheduler and the
    // next one retries.
    host.scheduler.schedule(
      EXPIRATION_TASK,
      () => {
        if (!this.host.isClosed()) this.expire();
      },
      { periodMs: this.retentionCheckMs, delayMs: 0 },
    );
  }

  stop(): void {
    void this.host.scheduler.cancel(EXPIRATION_TASK);
  }

  /**
   * Per topic, per partition error codes; a promise of them when the write waits for the in-sync replicas
   * (a cluster). Throws nothing; a store failure is a per-partition error.
   */
  commit(
    groupId: string,
    generationId: number,
    memberId: string,
    groupInstanceId: string | null,
    topics: { name: string; partitions: CommitPartition[] }[],
    /** OffsetCommit v2-4: -1 (the default) keeps the broker's retention; otherwise these offsets expire that long after the commit. */
    retentionTimeMs = -1,
  ): CommitResult | Promise<CommitResult> {
    const all = (code: number) =>
      topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partition, errorCode: code })) }));
    if (this.host.isClosed()) return all(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    if (!groupId) return all(ErrorCode.INVALID_GROUP_ID);
    let group = this.host.groups.get(groupId);
    let created = false;
    if (!group) {
      if (generationId >= 0) return all(ErrorCode.ILLEGAL_GENERATION);
      group = new Group(groupId);
      created = true;
    }
    let code: number = ErrorCode.NONE;
    if (group.is('Dead')) code = ErrorCode.COORDINATOR_NOT_AVAILABLE;
    else if (generationId < 0 && group.is('Empty'))
      code = ErrorCode.NONE; // a simple consumer's commit
    else if (group.is('CompletingRebalance')) code = ErrorCode.REBALANCE_IN_PROGRESS;
    else if (groupInstanceId && group.staticMembers.get(groupInstanceId) !== undefined && group.staticMembers.get(groupInstanceId) !== memberId)
      code = ErrorCode.FENCED_INSTANCE_ID;
    else if (!group.members.has(memberId)) code = group.is('Empty') && generationId >= 0 ? ErrorCode.ILLEGAL_GENERATION : ErrorCode.UNKNOWN_MEMBER_ID;
    else if (generationId !== group.generationId) code = ErrorCode.ILLEGAL_GENERATION;
    if (code !== ErrorCode.NONE) return all(code);
    const member = group.members.get(memberId);
    if (member) this.host.touch(group, member);

    const now = this.host.timers.now();
    const records: { key: Buffer; value: Buffer }[] = [];
    const accepted: [string, CommittedOffset][] = [];
    const result = topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => {
        let errorCode: number = ErrorCode.NONE;
        const metadata = p.metadata ?? '';
        if (this.options.partitionExists && !this.options.partitionExists(t.name, p.partition)) errorCode = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
        else if (Buffer.byteLength(metadata) > this.metadataMax) errorCode = ErrorCode.OFFSET_METADATA_TOO_LARGE;
        else {
          const value: CommittedOffset = { offset: p.offset, leaderEpoch: p.leaderEpoch, metadata, commitTimestamp: now };
          if (retentionTimeMs !== -1) value.expireTimestamp = now + retentionTimeMs;
          records.push({
            key: encodeOffsetCommitKey({ group: groupId, topic: t.name, partition: p.partition }),
            value: encodeOffsetCommitValue(value),
          });
          accepted.push([partitionKey(t.name, p.partition), value]);
        }
        return { partitionIndex: p.partition, errorCode };
      }),
    }));
    const apply = () => {
      // Kafka puts the offsets in the cache only once the append succeeded, and never into a Dead group.
      let target = this.host.groups.get(groupId);
      if (!target && created && accepted.length > 0) this.host.groups.set(groupId, (target = group));
      if (target && !target.is('Dead')) for (const [k, v] of accepted) target.offsets.set(k, v);
    };
    return this.written(groupId, records, undefined, all, result, apply);
  }

  /**
   * Appends a commit's records and applies it: at once when they are durable now, else once the in-sync
   * replicas have them (a promise; the append's error, mapped as Kafka's storeOffsets, answers every
   * partition the commit wrote). A failed append answers COORDINATOR_NOT_AVAILABLE, or NOT_COORDINATOR.
   */
  private written(
    groupId: string,
    records: StoreRecord[],
    txn: { producerId: number; producerEpoch: number } | undefined,
    all: (code: number) => CommitResult,
    result: CommitResult,
    apply: () => void,
  ): CommitResult | Promise<CommitResult> {
    let replicated: Promise<number> | null = null;
    if (records.length > 0 && this.host.store) {
      try {
        this.host.store.append(groupId, records, txn);
        replicated = this.host.store.replicated?.(groupId) ?? null;
      } catch (err) {
        return all(storeFailure(err));
      }
    }
    if (!replicated) {
      apply();
      return result;
    }
    return replicated.then((code) => {
      const error = commitError(code);
      if (error !== ErrorCode.NONE) return failWritten(result, error);
      if (!this.host.coordinates(groupId)) return failWritten(result, ErrorCode.NOT_COORDINATOR);
      apply();
      return result;
    });
  }

  /**
   * TxnOffsetCommit (KIP-98/447): the offsets are written now, in the producer's transaction, and stay pending
   * (invisible to OffsetFetch) until its marker commits or aborts them. Member checks apply only when the
   * request names a generation, a member or an instance (v3+), as in Kafka; the group state does not matter.
   */
  commitTxn(
    groupId: string,
    producerId: number,
    producerEpoch: number,
    generationId: number,
    memberId: string,
    groupInstanceId: string | null,
    topics: { name: string; partitions: CommitPartition[] }[],
  ): CommitResult | Promise<CommitResult> {
    const all = (code: number) =>
      topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partition, errorCode: code })) }));
    if (this.host.isClosed()) return all(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    if (!groupId) return all(ErrorCode.INVALID_GROUP_ID);
    const group = this.host.groups.get(groupId);
    if (group?.is('Dead')) return all(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    if (generationId >= 0 || memberId !== '' || groupInstanceId !== null) {
      if (!group) return all(ErrorCode.ILLEGAL_GENERATION);
      if (groupInstanceId && group.staticMembers.get(groupInstanceId) !== undefined && group.staticMembers.get(groupInstanceId) !== memberId)
        return all(ErrorCode.FENCED_INSTANCE_ID);
      if (!group.members.has(memberId)) return all(ErrorCode.UNKNOWN_MEMBER_ID);
      if (generationId !== group.generationId) return all(ErrorCode.ILLEGAL_GENERATION);
    }
    const now = this.host.timers.now();
    const records: { key: Buffer; value: Buffer }[] = [];
    const accepted: [string, CommittedOffset][] = [];
    const result = topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => {
        const metadata = p.metadata ?? '';
        if (this.options.partitionExists && !this.options.partitionExists(t.name, p.partition))
          return { partitionIndex: p.partition, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION };
        if (Buffer.byteLength(metadata) > this.metadataMax) return { partitionIndex: p.partition, errorCode: ErrorCode.OFFSET_METADATA_TOO_LARGE };
        const value: CommittedOffset = { offset: p.offset, leaderEpoch: p.leaderEpoch, metadata, commitTimestamp: now };
        records.push({ key: encodeOffsetCommitKey({ group: groupId, topic: t.name, partition: p.partition }), value: encodeOffsetCommitValue(value) });
        accepted.push([partitionKey(t.name, p.partition), value]);
        return { partitionIndex: p.partition, errorCode: ErrorCode.NONE as number };
      }),
    }));
    return this.written(groupId, records, { producerId, producerEpoch }, all, result, () => {
      for (const [k, v] of accepted) this.pendingFor(producerId, groupId).set(k, v);
    });
  }

  private pendingFor(producerId: number, groupId: string): Map<string, CommittedOffset> {
    let byGroup = this.pending.get(producerId);
    if (!byGroup) this.pending.set(producerId, (byGroup = new Map()));
    let offsets = byGroup.get(groupId);
    if (!offsets) byGroup.set(groupId, (offsets = new Map()));
    return offsets;
  }

  /** Replay: an offset a transaction wrote, pending until its marker. */
  loadPending(producerId: number, groupId: string, topic: string, partition: number, value: CommittedOffset): void {
    this.pendingFor(producerId, groupId).set(partitionKey(topic, partition), value);
  }

  /**
   * A transaction marker of `producerId` landed in __consumer_offsets partition `offsetsPartition`: its pending
   * offsets of the groups stored there become committed (commit) or are dropped (abort).
   */
  completeTxn(producerId: number, commit: boolean, inPartition: (groupId: string) => boolean): void {
    const byGroup = this.pending.get(producerId);
    if (!byGroup) return;
    for (const [groupId, offsets] of byGroup) {
      if (!inPartition(groupId)) continue;
      byGroup.delete(groupId);
      if (!commit) continue;
      let group = this.host.groups.get(groupId);
      if (!group) {
        group = new Group(groupId);
        this.host.groups.set(groupId, group);
      }
      for (const [k, v] of offsets) group.offsets.set(k, v);
    }
    if (byGroup.size === 0) this.pending.delete(producerId);
  }

  /** The coordinator resigned a partition: the pending transactional offsets of its groups go with them. */
  unloadPending(inPartition: (groupId: string) => boolean): void {
    for (const [producerId, byGroup] of this.pending) {
      for (const groupId of byGroup.keys()) if (inPartition(groupId)) byGroup.delete(groupId);
      if (byGroup.size === 0) this.pending.delete(producerId);
    }
  }

  /** Whether a transaction's offsets for the group's partition are pending (OffsetFetch requireStable). */
  hasPending(groupId: string, topic: string, partition: number): boolean {
    const k = partitionKey(topic, partition);
    for (const byGroup of this.pending.values()) if (byGroup.get(groupId)?.has(k)) return true;
    return false;
  }

  /** null topics: every committed offset of the group. */
  /** requireStable (OffsetFetch v7+): a partition with offsets pending in a transaction is UNSTABLE_OFFSET_COMMIT. */
  fetch(groupId: string, topics: { name: string; partitionIndexes: number[] }[] | null, requireStable = false) {
    const group = this.host.groups.get(groupId);
    const entry = (topic: string, partition: number) => {
      if (requireStable && this.hasPending(groupId, topic, partition)) {
        return {
          partitionIndex: partition,
          committedOffset: -1,
          committedLeaderEpoch: -1,
          metadata: '',
          errorCode: ErrorCode.UNSTABLE_OFFSET_COMMIT as number,
        };
      }
      const c = group?.offsets.get(partitionKey(topic, partition));
      return {
        partitionIndex: partition,
        committedOffset: c ? c.offset : -1,
        committedLeaderEpoch: c ? c.leaderEpoch : -1,
        metadata: c ? c.metadata : '',
        errorCode: ErrorCode.NONE as number,
      };
    };
    if (topics === null) {
      const byTopic = new Map<string, number[]>();
      for (const k of group?.offsets.keys() ?? []) {
        const [t, p] = splitPartitionKey(k);
        if (!byTopic.has(t)) byTopic.set(t, []);
        byTopic.get(t)!.push(p);
      }
      return [...byTopic].map(([name, ps]) => ({ name, partitions: ps.sort((a, b) => a - b).map((p) => entry(name, p)) }));
    }
    return topics.map((t) => ({ name: t.name, partitions: t.partitionIndexes.map((p) => entry(t.name, p)) }));
  }

  delete(
    groupId: string,
    topics: { name: string; partitions: number[] }[],
  ): { errorCode: number; topics: { name: string; partitions: { partitionIndex: number; errorCode: number }[] }[] } {
    if (this.host.isClosed()) return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, topics: [] };
    const group = this.host.groups.get(groupId);
    if (!group || group.is('Dead')) return { errorCode: ErrorCode.GROUP_ID_NOT_FOUND, topics: [] };
    if (group.members.size > 0 && group.protocolType !== 'consumer') return { errorCode: ErrorCode.NON_EMPTY_GROUP, topics: [] };
    const subscribed = group.members.size > 0 ? group.subscribedTopics() : new Set<string>();
    const tombstones: StoreRecord[] = [];
    const removed: string[] = [];
    const result = topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => {
        if (subscribed === null || subscribed.has(t.name)) return { partitionIndex: p, errorCode: ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC };
        const k = partitionKey(t.name, p);
        if (group.offsets.has(k)) {
          tombstones.push({ key: encodeOffsetCommitKey({ group: groupId, topic: t.name, partition: p }), value: null });
          removed.push(k);
        }
        return { partitionIndex: p, errorCode: ErrorCode.NONE };
      }),
    }));
    if (tombstones.length > 0) {
      try {
        this.host.store?.append(groupId, tombstones);
      } catch {
        return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, topics: [] };
      }
    }
    for (const k of removed) group.offsets.delete(k);
    return { errorCode: ErrorCode.NONE, topics: result };
  }

  /** The group's offsets that have expired at `now` (Kafka's GroupMetadata.removeExpiredOffsets, without removing). */
  private expiredOffsets(group: Group, now: number): string[] {
    let base: ((c: CommittedOffset) => number) | null = null;
    let subscribed: Set<string> | null = null;
    if (group.protocolType !== null && group.is('Empty')) {
      // No member left: retention counts from the moment the group became Empty (commit time if unknown).
      const since = group.currentStateTimestamp;
      base = (c) => (since >= 0 ? since : c.commitTimestamp);
    } else if (group.protocolType === 'consumer' && group.is('Stable')) {
      // Live consumers: only offsets of topics nobody subscribes to any more expire, from their commit.
      subscribed = group.subscribedTopics();
      if (subscribed !== null) base = (c) => c.commitTimestamp;
    } else if (group.protocolType === null) {
      base = (c) => c.commitTimestamp; // a simple consumer's group: offsets only
    }
    if (base === null) return [];
    const expired: string[] = [];
    for (const [k, c] of group.offsets) {
      if (subscribed !== null && subscribed.has(splitPartitionKey(k)[0])) continue;
      const gone =
        c.expireTimestamp !== undefined && c.expireTimestamp >= 0
          ? now >= c.expireTimestamp // a v1 record with an explicit expire timestamp: the old semantics
          : now - base(c) >= this.retentionMs;
      if (gone) expired.push(k);
    }
    return expired;
  }

  /**
   * One retention pass over every group (run every offsets.retention.check.interval.ms): tombstones and
   * forgets expired offsets; an Empty group left without offsets becomes Dead and is removed. A group whose
   * tombstones cannot be written is left as it is until the next pass. Returns the number of offsets expired.
   */
  expire(now: number = this.host.timers.now()): number {
    if (this.host.isClosed()) return 0;
    let count = 0;
    for (const group of [...this.host.groups.values()]) {
      if (group.is('Dead')) continue;
      const expired = this.expiredOffsets(group, now);
      // (A group with KIP-394 member ids handed out is kept: those members are about to join.)
      const dead = group.is('Empty') && group.offsets.size === expired.length && group.pendingMembers.size === 0;
      if (expired.length === 0 && !dead) continue;
      const tombstones = offsetTombstones(group.groupId, expired);
      // Kafka writes no GroupMetadata tombstone for a group that only ever stored offsets (generation 0).
      if (dead && group.generationId > 0) tombstones.push({ key: encodeGroupMetadataKey(group.groupId), value: null });
      if (tombstones.length > 0) {
        try {
          this.host.store?.append(group.groupId, tombstones);
        } catch {
          continue;
        }
      }
      for (const k of expired) group.offsets.delete(k);
      count += expired.length;
      if (dead) this.host.dropGroup(group);
    }
    return count;
  }

  /** Replay: a committed offset (value null = tombstone). */
  load(groupId: string, topic: string, partition: number, value: CommittedOffset | null): void {
    let group = this.host.groups.get(groupId);
    if (value === null) {
      group?.offsets.delete(partitionKey(topic, partition));
      if (group && group.offsets.size === 0 && group.protocolType === null && group.generationId === 0) this.host.groups.delete(groupId);
      return;
    }
    if (!group) {
      group = new Group(groupId);
      this.host.groups.set(groupId, group);
    }
    group.offsets.set(partitionKey(topic, partition), value);
  }
}

/** The code a failed append answers: NOT_COORDINATOR when leadership moved, else COORDINATOR_NOT_AVAILABLE. */
export function storeFailure(err: unknown): number {
  const code = (err as { code?: unknown })?.code;
  return code === ErrorCode.NOT_COORDINATOR ? ErrorCode.NOT_COORDINATOR : ErrorCode.COORDINATOR_NOT_AVAILABLE;
}

/** A commit's answer with every partition it wrote (those answered NONE) failed with `error`. */
function failWritten(result: CommitResult, error: number): CommitResult {
  return result.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => (p.errorCode === ErrorCode.NONE ? { ...p, errorCode: error } : p)) }));
}
