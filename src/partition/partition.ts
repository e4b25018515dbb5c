// Kafka's Partition: one topic-partition as the cluster sees it, over the local log that stores it.
// What replication and transactions change lives here rather than in handlers or storage: who leads, in
// which leader epoch, which replicas are in sync, how far consumers may read (the high watermark) and how
// far read_committed consumers may read (the last stable offset). Today this broker is the only replica:
// it leads every partition from its creation in epoch 0, the ISR is itself, everything appended is
// committed at once, and with no transactions the last stable offset is the high watermark.

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
 * The batches of `chunks` below `bound` (a batch boundary: the last stable offset), and the offset after the
 * last one kept (null when none is).
 */
function cutAt(chunks: Buffer[], bound: number): { records: Buffer[]; end: number | null } {
  const records: Buffer[] = [];
  let end: number | null = null;
  for (const chunk of chunks) {
    let pos = 0;
    while (pos + RECORD_BATCH_OVERHEAD <= chunk.length) {
      const info = readBatchHeader(chunk, pos);
      if (info.baseOffset >= bound) break;
      end = info.baseOffset + info.lastOffsetDelta + 1;
      pos += info.size;
    }
    if (pos > 0) records.push(pos === chunk.length ? chunk : chunk.subarray(0, pos));
    if (pos < chunk.length) break;
  }
  return { records, end };
}

/** A single broker leads every partition from its creation on: the leader epoch is always 0. */
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
}

export class Partition {
  leaderId: number;
  leaderEpoch = INITIAL_LEADER_EPOCH;
  replicas: readonly number[];
  isr: readonly number[];

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
  ) {
    this.leaderId = leaderId;
    this.replicas = leaderId === -1 ? [] : [leaderId];
    this.isr = this.replicas;
  }

  /** Whether this broker leads the partition: only then does it take produce and serve fetches. */
  get isLeader(): boolean {
    return this.leaderId === this.localNodeId;
  }

  /** The controller's word (LeaderAndIsr); an older leader epoch than the one held is ignored. Returns whether applied. */
  setLeaderState(state: LeaderState): boolean {
    if (state.leaderEpoch < this.leaderEpoch && this.leaderId !== -1) return false;
    this.leaderId = state.leaderId;
    this.leaderEpoch = state.leaderEpoch;
    this.replicas = [...state.replicas];
    this.isr = [...state.isr];
    return true;
  }

  /** Offset below which records are committed (replicated to the ISR): consumers read up to here. */
  get highWatermark(): number {
    return this.log.logEndOffset;
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
  read(fetchOffset: number, maxBytes: number, minOneBatch: boolean, readCommitted = false): PartitionRead {
    const read = this.log.read(fetchOffset, maxBytes, minOneBatch);
    const lastStableOffset = this.lastStableOffset;
    const result: PartitionRead = { records: read.records, highWatermark: this.highWatermark, lastStableOffset, logStartOffset: read.logStartOffset, abortedTransactions: null };
    if (!readCommitted) return result;
    const { records, end } = cutAt(read.records, lastStableOffset);
    result.records = records;
    result.abortedTransactions = end === null ? [] : this.log.abortedTransactions(fetchOffset, end)
      .map(({ producerId, firstOffset }) => ({ producerId, firstOffset }));
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
   * The end offset of leader epoch `epoch` and the epoch it belongs to, as Kafka's LeaderEpochFileCache.endOffsetFor
   * answers over this partition's one epoch (0, starting at the log start offset: truncating the front moves
   * an epoch's start with it): the current epoch ends at the log end offset; an epoch below every known one
   * gets the start of the first known; an unknown or undefined epoch gets (-1, -1).
   * In a cluster the leader epoch moves at each election, and krill keeps no per-epoch history yet (Kafka's
   * leader-epoch-checkpoint comes with replication): an earlier epoch is answered with the log end offset.
   * That is safe for the consumers that ask (KIP-320: they compare it with their position to detect a
   * truncated log) because without replication a partition's log is only ever on its one in-sync replica,
   * so no history was ever cut: a smaller answer could make them reset for nothing.
   */
  endOffsetForEpoch(epoch: number): { leaderEpoch: number; endOffset: number } {
    if (epoch === UNDEFINED_EPOCH || epoch > this.leaderEpoch) return { leaderEpoch: UNDEFINED_EPOCH, endOffset: UNDEFINED_EPOCH_OFFSET };
    if (epoch >= INITIAL_LEADER_EPOCH) return { leaderEpoch: epoch, endOffset: this.logEndOffset };
    return { leaderEpoch: epoch, endOffset: this.logStartOffset };
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
