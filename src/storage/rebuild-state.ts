// Rebuilding what a partition log keeps beside its segments from the segments themselves: the producers'
// state (at open and after a truncation, as Kafka's UnifiedLog.rebuildProducerState) and the leader epoch
// cache (at open, as Kafka's LogLoader). Both read the batches back as they lie in the segments.

import path from 'node:path';
import { scanBatches, type BatchInfo } from '../../protocol/record-batch.js';
import { readMarker, type TransactionMarker } from '../../protocol/control-record.js';
import type { LeaderEpochCache } from './leader-epoch-cache.js';
import type { StorageLogger } from './log-loader.js';
import { snapshotOffsets, type ProducerStateManager } from './producer-state.js';
import type { LogSegments } from './segment-list.js';

/** The log being rebuilt from. */
export interface RebuildSource {
  readonly dir: string;
  readonly segments: LogSegments;
  readonly logStartOffset: number;
  readonly log?: StorageLogger;
}

/**
 * The producers' state as of the log end: the newest snapshot at or below it, then the producers' batches
 * after it, each given to `apply` (with its marker, for a control batch). With no snapshot file at all no
 * producer wrote before the active segment (one is written at every roll once a producer has written), and
 * after a clean shutdown none wrote at all (close writes one).
 */
export function rebuildProducerState(
  source: RebuildSource,
  producers: ProducerStateManager,
  cleanShutdown: boolean,
  apply: (b: BatchInfo, marker: TransactionMarker | null) => void,
): void {
  const { dir, segments, log } = source;
  const hadSnapshots = snapshotOffsets(dir).length > 0;
  const snapshot = producers.loadSnapshot(segments.logEndOffset, (file, why) =>
    log?.warn({ dir, file, reason: why }, `ignoring producer state snapshot ${path.basename(file)}: ${why}`),
  );
  if (snapshot === null && !hadSnapshots && cleanShutdown) return;
  const from = snapshot ?? (hadSnapshots ? source.logStartOffset : segments.active.baseOffset);
  let replayed = 0;
  forEachBatch(source, from, (chunk, b) => {
    if (b.producerId < 0) return;
    apply(b, b.isControl ? readMarker(chunk, b) : null);
    replayed++;
  });
  if (replayed > 0) log?.info({ dir, batches: replayed }, 'rebuilt producer state from the log');
}

/** Calls visit(chunk, header) for each batch from the one holding `from` (those starting below it skipped) to the log end. */
function forEachBatch(source: RebuildSource, from: number, visit: (chunk: Buffer, b: BatchInfo) => void): void {
  const end = source.segments.logEndOffset;
  from = Math.max(from, source.logStartOffset);
  while (from < end) {
    const records = source.segments.read(from, 1 << 20, true);
    if (records.length === 0) break;
    let next: number = from;
    for (const chunk of records) {
      for (const b of scanBatches(chunk, { fromClient: false })) {
        next = b.baseOffset + b.lastOffsetDelta + 1;
        if (b.baseOffset >= from) visit(chunk, b);
      }
    }
    if (next <= from) break;
    from = next;
  }
}

/**
 * Brings the leader epoch cache in line with the log after opening it. The batch headers are read only
 * when the checkpoint is missing or unreadable and the log has data (the whole log), or after a crash
 * (from the recovery point: a crash may fall between an append and the checkpoint's rewrite, which
 * Kafka's recovery covers the same way).
 */
export function rebuildLeaderEpochs(source: RebuildSource, epochs: LeaderEpochCache, cleanShutdown: boolean): void {
  const { dir, segments, logStartOffset, log } = source;
  const end = segments.logEndOffset;
  let from: number | null = null;
  if (!epochs.fromFile && end > logStartOffset) from = logStartOffset;
  else if (!cleanShutdown && segments.recoveryPoint < end) from = segments.recoveryPoint;
  if (from !== null) {
    let damage: string | null;
    try {
      damage = segments.forEachBatchHeader(Math.max(from, logStartOffset), (b) => epochs.assign(b.partitionLeaderEpoch, b.baseOffset));
    } catch (err) {
      damage = (err as Error).message;
    }
    if (damage) log?.warn({ dir, reason: damage }, `reading leader epochs from the log of ${path.basename(dir)} stopped early: ${damage}`);
    if (!epochs.fromFile) log?.info({ dir, entries: epochs.entries().length }, 'rebuilt the leader epoch cache from the log');
  }
  epochs.truncateFromEnd(end);
  epochs.truncateFromStart(logStartOffset);
}
