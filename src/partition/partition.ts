// Kafka's Partition: one topic-partition as the cluster sees it, over the local log that stores it.
// What replication and transactions change lives here rather than in handlers or storage: who leads, in
// which leader epoch, which replicas are in sync, how far consumers may read (the high watermark) and how
// far read_committed consumers may read (the last stable offset). Today this broker is the only replica:
// it leads every partition from its creation in epoch 0, the ISR is itself, everything appended is
// committed at once, and with no transactions the last stable offset is the high watermark.

import type { PartitionLog, ReadResult } from '../storage/partition-log.js';
import type { ActiveProducer } from '../storage/producer-state.js';

export interface PartitionRead extends ReadResult {
  highWatermark: number;
  lastStableOffset: number;
}

/** A single broker leads every partition from its creation on: the leader epoch is always 0. */
export const INITIAL_LEADER_EPOCH = 0;

export class Partition {
  readonly leaderEpoch = INITIAL_LEADER_EPOCH;
  readonly replicas: readonly number[];
  readonly isr: readonly number[];

  constructor(
    readonly topic: string,
    readonly index: number,
    readonly log: PartitionLog,
    readonly leaderId: number,
  ) {
    this.replicas = [leaderId];
    this.isr = [leaderId];
  }

  /** Offset below which records are committed (replicated to the ISR): consumers read up to here. */
  get highWatermark(): number {
    return this.log.logEndOffset;
  }

  /** Offset below which no transaction is open: read_committed consumers read up to here. */
  get lastStableOffset(): number {
    const unstable = this.log.firstUnstableOffset();
    return unstable === null ? this.highWatermark : Math.min(unstable, this.highWatermark);
  }

  get logStartOffset(): number {
    return this.log.logStartOffset;
  }

  get logEndOffset(): number {
    return this.log.logEndOffset;
  }

  /** Batches from fetchOffset on, as the leader serves them (see PartitionLog.read), with this partition's offsets. */
  read(fetchOffset: number, maxBytes: number, minOneBatch: boolean): PartitionRead {
    const read = this.log.read(fetchOffset, maxBytes, minOneBatch);
    return { records: read.records, highWatermark: this.highWatermark, lastStableOffset: this.lastStableOffset, logStartOffset: read.logStartOffset };
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
