// Kafka's Partition: one topic-partition as the cluster sees it, over the local log that stores it.
// What replication and transactions change lives here rather than in handlers or storage: who leads, in
// which leader epoch, which replicas are in sync, how far consumers may read (the high watermark) and how
// far read_committed consumers may read (the last stable offset).
// A partition with one replica (every partition of a single broker) commits what it appends at once: its
// high watermark is its log end offset. With followers the leader tracks how far each has fetched (the
// offset a follower fetches from is its log end offset) and the high watermark is the smallest log end
// offset in the ISR, never moving back; a follower learns it from the leader's fetch responses. A follower
// whose fetches reach the leader's log end offset is caught up; one that has not been for
// replica.lag.time.max.ms leaves the ISR, and one that reaches the high watermark (and the start of the
// current leader epoch) joins it again. The ISR itself changes only through the controller (AlterPartition):
// while a change is in flight the larger of the two sets counts (Kafka's "maximal ISR").

import { RECORD_BATCH_OVERHEAD, readBatchHeader } from '../../protocol/record-batch.js';
import type { PartitionLog, ReadResult } from '../storage/partition-log.js';
import type { ActiveProducer } from '../storage/producer-state.js';

export interface PartitionRead extends ReadResult {
  highWatermark: number;
  lastStableOffset: number;
  /** read_committed only: the producers and first offsets of aborted transactions in the records. */
  abortedTransactions: { producerId: number; firstOffset: number }[] | null;
}

/**
 * The batches of `chunks` wholly below `bound` (the last stable offset, or the high watermark), and the offset
 * after the last one kept (null when none is).
 */
function cutAt(chunks: Buffer[], bound: number): { records: Buffer[]; end: number | null } {
  const records: Buffer[] = [];
  let end: number | null = null;
  for (const chunk of chunks) {
    let pos = 0;
    while (pos + RECORD_BATCH_OVERHEAD <= chunk.length) {
      const info = readBatchHeader(chunk, pos);
      if (info.baseOffset + info.lastOffsetDelta >= bound) break;
      end = info.baseOffset + info.lastOffsetDelta + 1;
      pos += info.size;
    }
    if (pos > 0) records.push(pos === chunk.length ? chunk : chunk.subarray(0, pos));
    if (pos < chunk.length) break;
  }
  return { records, end };
}

/** The leader epoch of a partition's first leader (a single broker's, for ever). */
export const INITIAL_LEADER_EPOCH = 0;

/** Kafka's UNDEFINED_EPOCH and UNDEFINED_EPOCH_OFFSET, and the "no epoch given" of a request's currentLeaderEpoch. */
export const UNDEFINED_EPOCH = -1;
export const UNDEFINED_EPOCH_OFFSET = -1;

/** What the controller said of a partition (LeaderAndIsr): its leader, in which epoch, its replicas and ISR. */
export interface LeaderState {
  leaderId: number;
  leaderEpoch: number;
  replicas: readonly number[];
  isr: readonly number[];
  /** The version of the ISR (ZooKeeper's version of the state znode); AlterPartition names it. */
  partitionEpoch?: number;
}

/** What the leader knows of a follower, from its fetches (Kafka's Replica). */
export interface FollowerState {
  /** The offset it last fetched from; -1 until it fetches in this leader epoch. */
  logEndOffset: number;
  /** When it last had everything the leader had (see updateFollowerFetchState). */
  lastCaughtUpTimeMs: number;
  lastFetchTimeMs: number;
  /** The leader's log end offset at its last fetch. */
  lastFetchLeaderLogEndOffset: number;
}

export class Partition {
  leaderId: number;
  leaderEpoch = INITIAL_LEADER_EPOCH;
  partitionEpoch = 0;
  replicas: readonly number[];
  isr: readonly number[];
  /** An ISR sent to the controller and not yet answered (AlterPartition); see beginIsrChange. */
  private pending: readonly number[] | null = null;
  /** The leader's view of its followers (empty on a follower). */
  readonly followers = new Map<number, FollowerState>();
  /** The log end offset when this broker became leader: the start of its leader epoch. */
  leaderEpochStartOffset = 0;
  /** With followers: the high watermark (see the getter). */
  private hw = 0;

  /**
   * A single broker leads from the start (`leaderId` is itself); in a cluster a partition is led by nobody
   * (-1) until the controller's LeaderAndIsr names its leader (setLeaderState).
   */
  constructor(
    readonly topic: string,
    readonly index: number,
    readonly log: PartitionLog,
    readonly localNodeId: number,
    leaderId = localNodeId,
    savedHighWatermark?: number,
  ) {
    this.leaderId = leaderId;
    this.replicas = leaderId === -1 ? [] : [leaderId];
    this.isr = this.replicas;
    // A restarted broker's high watermark is its checkpoint's (replication-offset-checkpoint), within its log;
    // without one, what every replica certainly has: as a leader it moves up once the ISR has fetched, as a
    // follower with the leader's answers.
    this.hw = Math.min(Math.max(savedHighWatermark ?? log.logStartOffset, log.logStartOffset), log.logEndOffset);
  }

  /** Whether this broker leads the partition: only then does it take produce and serve fetches. */
  get isLeader(): boolean {
    return this.leaderId === this.localNodeId;
  }

  /**
   * The controller's word (LeaderAndIsr); an older leader epoch than the one held is ignored. Returns whether
   * applied. Becoming leader (in a new epoch) starts the epoch at the log end offset and forgets what the
   * previous term knew of followers: those in the ISR count as caught up now, as in Kafka's makeLeader.
   */
  setLeaderState(state: LeaderState, now = Date.now()): boolean {
    if (state.leaderEpoch < this.leaderEpoch && this.leaderId !== -1) return false;
    const wasLeader = this.isLeader;
    const newTerm = state.leaderEpoch !== this.leaderEpoch || state.leaderId !== this.leaderId;
    // What was committed stays committed: a sole replica's log end (when replicas are added to it) included.
    this.hw = Math.min(Math.max(this.hw, this.highWatermark), this.log.logEndOffset);
    this.leaderId = state.leaderId;
    this.leaderEpoch = state.leaderEpoch;
    this.partitionEpoch = state.partitionEpoch ?? this.partitionEpoch;
    this.replicas = [...state.replicas];
    this.isr = [...state.isr];
    this.pending = null;
    if (!this.isLeader) {
      this.followers.clear();
      return true;
    }
    if (newTerm || !wasLeader) {
      this.followers.clear();
      this.leaderEpochStartOffset = this.log.logEndOffset;
      this.log.leaderEpochs.assign(this.leaderEpoch, this.log.logEndOffset);
    }
    for (const id of this.replicas) {
      if (id === this.localNodeId || this.followers.has(id)) continue;
      this.followers.set(id, { logEndOffset: -1, lastCaughtUpTimeMs: this.isr.includes(id) ? now : 0, lastFetchTimeMs: 0, lastFetchLeaderLogEndOffset: -1 });
    }
    for (const id of this.followers.keys()) if (!this.replicas.includes(id)) this.followers.delete(id);
    this.maybeIncrementHighWatermark();
    return true;
  }

  /** An ISR sent to the controller and not yet answered (AlterPartition), or null. */
  get pendingIsr(): readonly number[] | null {
    return this.pending;
  }

  /**
   * The AlterPartition manager (the only writer) sent `isr` to the controller: until its answer, or a new
   * LeaderAndIsr, the larger of the two sets counts and no other change is asked for.
   */
  beginIsrChange(isr: readonly number[]): void {
    this.pending = isr;
  }

  /** The change `isr` began (beginIsrChange) was answered; false when another one, or a LeaderAndIsr, replaced it. */
  endIsrChange(isr: readonly number[]): boolean {
    if (this.pending !== isr) return false;
    this.pending = null;
    return true;
  }

  /** The ISR for the high watermark and acks=all: with a change in flight, the larger set. */
  get maximalIsr(): readonly number[] {
    if (!this.pendingIsr) return this.isr;
    return [...new Set([...this.isr, ...this.pendingIsr])];
  }

  /** Offset below which records are committed (replicated to the ISR): consumers read up to here. */
  get highWatermark(): number {
    // One replica commits at once; none known yet (a cluster broker before LeaderAndIsr) is not that case.
    return this.replicas.length === 1 ? this.log.logEndOffset : this.hw;
  }

  /**
   * The leader's high watermark moves to the smallest log end offset in the ISR, never back. Returns whether it
   * moved. A follower that has not fetched in this term (-1) holds it where it is.
   */
  maybeIncrementHighWatermark(): boolean {
    if (!this.isLeader || this.replicas.length <= 1) return false;
    let min = this.log.logEndOffset;
    for (const id of this.maximalIsr) {
      if (id === this.localNodeId) continue;
      const f = this.followers.get(id);
      min = Math.min(min, f ? f.logEndOffset : -1);
    }
    if (min <= this.hw) return false;
    this.hw = min;
    return true;
  }

  /** A follower's high watermark: the leader's, as far as its own log reaches. */
  updateFollowerHighWatermark(leaderHighWatermark: number): boolean {
    const next = Math.min(leaderHighWatermark, this.log.logEndOffset);
    if (next === this.hw) return false;
    this.hw = next;
    return true;
  }

  /**
   * A follower fetched from `fetchOffset` while the leader's log ended at `leaderLogEndOffset`, as Kafka's
   * Replica.updateFetchState: it is caught up now when it asked for everything; it was at its previous fetch
   * when it now asks from where the leader's log ended then. Returns whether the high watermark moved.
   */
  updateFollowerFetchState(replicaId: number, fetchOffset: number, leaderLogEndOffset: number, now: number): boolean {
    const f = this.followers.get(replicaId);
    if (!f) return false;
    if (fetchOffset >= leaderLogEndOffset) f.lastCaughtUpTimeMs = Math.max(f.lastCaughtUpTimeMs, now);
    else if (fetchOffset >= f.lastFetchLeaderLogEndOffset) f.lastCaughtUpTimeMs = Math.max(f.lastCaughtUpTimeMs, f.lastFetchTimeMs);
    f.logEndOffset = fetchOffset;
    f.lastFetchLeaderLogEndOffset = leaderLogEndOffset;
    f.lastFetchTimeMs = now;
    return this.maybeIncrementHighWatermark();
  }

  /**
   * The ISR this leader should ask for, or null: a follower out of the ISR that has reached the high
   * watermark and the start of this leader epoch joins (Kafka's isFollowerInSync); members that have not
   * caught up for `lagTimeMaxMs` leave (the leader always stays).
   */
  desiredIsr(now: number, lagTimeMaxMs: number): number[] | null {
    if (!this.isLeader || this.pendingIsr || this.replicas.length <= 1) return null;
    // Kafka's isCaughtUp: a follower with the leader's log end is in sync however long ago it fetched.
    const leaderEnd = this.log.logEndOffset;
    const caughtUp = (f: FollowerState) => f.logEndOffset >= leaderEnd || now - f.lastCaughtUpTimeMs <= lagTimeMaxMs;
    const next = this.isr.filter((id) => {
      if (id === this.localNodeId) return true;
      const f = this.followers.get(id);
      return !!f && caughtUp(f);
    });
    for (const [id, f] of this.followers) {
      if (next.includes(id) || !this.replicas.includes(id)) continue;
      if (f.logEndOffset >= this.hw && f.logEndOffset >= this.leaderEpochStartOffset && caughtUp(f)) next.push(id);
    }
    if (next.length === this.isr.length && next.every((id) => this.isr.includes(id))) return null;
    return next;
  }

  /**
   * Offset below which no transaction is open: read_committed consumers read up to here. Never below the log
   * start offset (as Kafka's maybeIncrementFirstUnstableOffset): an open transaction may have begun in
   * records that retention or DeleteRecords removed since.
   */
  get lastStableOffset(): number {
    const unstable = this.log.firstUnstableOffset();
    return unstable === null ? this.highWatermark : Math.min(Math.max(unstable, this.logStartOffset), this.highWatermark);
  }

  get logStartOffset(): number {
    return this.log.logStartOffset;
  }

  get logEndOffset(): number {
    return this.log.logEndOffset;
  }

  /**
   * Batches from fetchOffset on, as the leader serves them (see PartitionLog.read), with this partition's
   * offsets. read_committed (Kafka's isolation level 1) stops at the last stable offset and lists the
   * aborted transactions whose records it returns; otherwise abortedTransactions is null.
   */
  read(fetchOffset: number, maxBytes: number, minOneBatch: boolean, readCommitted = false, upToLogEnd = false): PartitionRead {
    const highWatermark = this.highWatermark;
    const read = this.log.read(fetchOffset, maxBytes, minOneBatch);
    const lastStableOffset = this.lastStableOffset;
    const result: PartitionRead = { records: read.records, highWatermark, lastStableOffset, logStartOffset: read.logStartOffset, abortedTransactions: null };
    // Consumers never see past the high watermark (followers, upToLogEnd, copy everything).
    if (!upToLogEnd && highWatermark < this.log.logEndOffset) result.records = cutAt(result.records, highWatermark).records;
    if (!readCommitted) return result;
    const { records, end } = cutAt(read.records, lastStableOffset);
    result.records = records;
    result.abortedTransactions =
      end === null ? [] : this.log.abortedTransactions(fetchOffset, end).map(({ producerId, firstOffset }) => ({ producerId, firstOffset }));
    return result;
  }

  /**
   * Kafka's checkCurrentLeaderEpoch: a client's idea of the leader epoch (-1 = none given) against this
   * partition's. Older is FENCED_LEADER_EPOCH, newer UNKNOWN_LEADER_EPOCH (its metadata is ahead of ours).
   */
  checkLeaderEpoch(currentLeaderEpoch: number): 'FENCED_LEADER_EPOCH' | 'UNKNOWN_LEADER_EPOCH' | null {
    if (currentLeaderEpoch === UNDEFINED_EPOCH) return null;
    if (currentLeaderEpoch < this.leaderEpoch) return 'FENCED_LEADER_EPOCH';
    if (currentLeaderEpoch > this.leaderEpoch) return 'UNKNOWN_LEADER_EPOCH';
    return null;
  }

  /**
   * The end offset of leader epoch `epoch` and the epoch it belongs to (OffsetForLeaderEpoch, KIP-101/279),
   * from the log's leader-epoch-checkpoint: Kafka's LeaderEpochFileCache.endOffsetFor.
   */
  endOffsetForEpoch(epoch: number): { leaderEpoch: number; endOffset: number } {
    // A single broker's leader epoch starts with its first batch; before that its log is empty, and the answer is
    // the one a checkpoint holding (epoch 0, log end) would give, as a Kafka leader records its epoch at election.
    if (this.isLeader && this.log.leaderEpochs.latestEpoch < 0 && epoch !== UNDEFINED_EPOCH && epoch <= this.leaderEpoch) {
      return { leaderEpoch: epoch, endOffset: this.log.logEndOffset };
    }
    return this.log.endOffsetForEpoch(epoch);
  }

  /** The idempotent producers that wrote to this partition and are not yet expired (DescribeProducers). */
  activeProducers(): ActiveProducer[] {
    return this.log.activeProducers();
  }

  /** The first offset whose record timestamp is at or after ts, with that timestamp; null if none. */
  offsetForTimestamp(ts: number): { offset: number; timestamp: number } | null {
    return this.log.offsetForTimestamp(ts);
  }

  /** The offset of the record with the largest timestamp (ListOffsets -3); null when the log is empty. */
  maxTimestampOffset(): { offset: number; timestamp: number } | null {
    return this.log.maxTimestampOffset();
  }
}
