// Kafka's ReplicaManager: the one way handlers and coordinators reach partitions. It hands out Partition
// objects over the log manager's logs, appends to leaders (validating as Kafka's LogValidator does) and
// wakes the requests waiting in its fetch purgatory when a partition changes. Later: acks=all waits,
// followers' fetches and the ISR, and becoming leader or follower on the controller's word.

import type { BatchInfo } from '../../protocol/record-batch.js';
import type { LogManager } from '../storage/log-manager.js';
import type { PartitionLog } from '../storage/partition-log.js';
import { DelayedOperationPurgatory, awaitDelayed } from '../purgatory.js';
import { validateRecords, type TopicAppendConfig } from '../log-validator.js';
import { Partition } from './partition.js';

export interface AppendResult {
  baseOffset: number;
  lastOffset: number;
  logStartOffset: number;
}

export class ReplicaManager {
  /** Fetches waiting for data, keyed by the partitions they read. */
  readonly fetchPurgatory = new DelayedOperationPurgatory<Partition>('Fetch');
  private readonly partitions = new WeakMap<PartitionLog, Partition>();

  constructor(
    private readonly logs: LogManager,
    readonly localNodeId: number,
  ) {}

  /** The partition, if this broker has it. */
  partition(topic: string, index: number): Partition | undefined {
    const log = this.logs.partition(topic, index);
    if (!log) return undefined;
    let p = this.partitions.get(log);
    if (!p) {
      p = new Partition(topic, index, log, this.localNodeId);
      this.partitions.set(log, p);
    }
    return p;
  }

  /**
   * Validates a producer's records for the topic's configs and appends them to the leader; throws a
   * KafkaError for records the log refuses. `records` may be rewritten in place (offsets, epoch).
   */
  appendRecords(partition: Partition, records: Buffer | null, config: TopicAppendConfig, now: number): AppendResult {
    const { buf, batches } = validateRecords(records, config, now, partition.leaderEpoch, partition);
    return this.appendValidated(partition, buf, batches);
  }

  /** Appends batches the broker built itself (coordinator records, transaction markers), as the leader. */
  appendValidated(partition: Partition, buf: Buffer, batches: BatchInfo[], fromCoordinator = false): AppendResult {
    const { baseOffset, lastOffset } = partition.log.append(buf, batches, fromCoordinator);
    this.fetchPurgatory.checkAndComplete(partition);
    return { baseOffset, lastOffset, logStartOffset: partition.logStartOffset };
  }

  /**
   * Waits until one of `partitions` has records beyond its high watermark when the wait began, its log
   * start offset has moved, or it goes away; or until the timeout or the abort signal. True when woken by
   * a change. Appends and topic deletion wake the wait today; whatever moves a log start offset (DeleteRecords,
   * retention) must call fetchPurgatory.checkAndComplete too.
   */
  awaitChange(partitions: readonly Partition[], timeoutMs: number, signal: AbortSignal): Promise<boolean> {
    const seen = partitions.map((p) => p.highWatermark);
    const starts = partitions.map((p) => p.logStartOffset);
    return awaitDelayed(this.fetchPurgatory, partitions, timeoutMs, signal, () =>
      partitions.some((p, i) => p.log.isClosed || p.highWatermark !== seen[i] || p.logStartOffset !== starts[i]),
    );
  }

  /** The topic's partitions are gone (deleted): requests waiting on them are answered now. */
  partitionsRemoved(removed: readonly Partition[]): void {
    for (const p of removed) this.fetchPurgatory.completeAll(p);
  }
}
