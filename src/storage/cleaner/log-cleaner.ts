// The log cleaner (Kafka's LogCleaner and LogCleanerManager): compacts the logs whose cleanup.policy
// includes compact (__consumer_offsets and __transaction_state among them), dirtiest first.
//
// Each of log.cleaner.threads cleaner "threads" is a task of the broker's scheduler that runs runOnce()
// every log.cleaner.backoff.ms: it cleans the dirtiest cleanable log (cleanable.ts), then the next, until
// none is left, and sleeps. The passes are asynchronous and yield between chunks (cleaner.ts), so they
// share the event loop with requests without holding it; threads never take the same log, and each has
// its share of log.cleaner.dedupe.buffer.size for its key map. When no log is dirty enough, a log whose
// earliest delete horizon has passed is cleaned to remove its tombstones and markers (KIP-534).
//
// Progress: <dataDir>/cleaner-offset-checkpoint, in the format of checkpoints.ts, holds each log's first
// dirty offset; it is rewritten after every pass (off the event loop) and read at start. A topic deleted
// (LogManager.onTopicDeleted) is forgotten at once, checkpoint included, as Kafka's asyncDelete updates the
// cleaner's checkpoint: a topic created again under its name is cleaned from its start.
//
// A pass that fails is logged and its log left alone until the next run (log.cleaner.backoff.ms later);
// after MAX_FAILURES failures in a row the log is marked uncleanable (logged) until the broker restarts,
// as Kafka marks a partition uncleanable. A failed pass changes nothing on disk but .cleaned files, which
// it removes. stop() makes the passes under way give up at their next chunk; the scheduler's close then
// waits for them.

import path from 'node:path';
import { isCompacted, type LogConfig } from '../../log-config.js';
import { readCheckpointFile, writeCheckpointFileInBackground, type CheckpointEntry } from '../checkpoints.js';
import type { LogManager } from '../log-manager.js';
import type { PartitionLog } from '../partition-log.js';
import { cleanableRange, shouldClean, type CleanableRange } from './cleanable.js';
import { CleaningAborted, cleanLog, type CleanResult } from './cleaner.js';
import { partitionKey, partitionKeyPrefix } from '../../topic-partition.js';

export const CLEANER_OFFSET_CHECKPOINT = 'cleaner-offset-checkpoint';
const MAX_FAILURES = 3;

export interface CleanerLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface LogCleanerOptions {
  logs: LogManager;
  /** log.cleaner.threads: how many runOnce() may run at once, each with its share of the dedupe buffer. */
  threads: number;
  /** log.cleaner.dedupe.buffer.size, across the threads. */
  dedupeBufferSize: number;
  now?: () => number;
  log?: CleanerLogger;
  /** Bytes of log a pass reads between two turns of the event loop (tests make it small). */
  chunkBytes?: number;
}

interface LogToClean {
  key: string;
  topic: string;
  partition: number;
  log: PartitionLog;
  config: LogConfig;
  range: CleanableRange;
}

/** The last pass of a log, as tests and the measure script read it. */
export interface CleanerPass extends CleanResult {
  topic: string;
  partition: number;
  firstDirtyOffset: number;
  durationMs: number;
}

export class LogCleaner {
  private readonly firstDirty = new Map<string, number>();
  private readonly inProgress = new Set<string>();
  private readonly failures = new Map<string, number>();
  /** Logs a failed pass leaves alone until the next run. */
  private readonly skipThisRun = new Set<string>();
  private readonly uncleanable = new Set<string>();
  /** Earliest delete horizon a pass left in each log. */
  private readonly deleteHorizons = new Map<string, number>();
  private stopping = false;
  private checkpointWrite: Promise<void> = Promise.resolve();
  private readonly file: string;
  private readonly now: () => number;
  /** Every pass done, the last one last (kept short). */
  readonly passes: CleanerPass[] = [];

  constructor(private readonly options: LogCleanerOptions) {
    this.file = path.join(options.logs.dataDir, CLEANER_OFFSET_CHECKPOINT);
    this.now = options.now ?? Date.now;
    try {
      for (const e of readCheckpointFile(this.file)) this.firstDirty.set(partitionKey(e.topic, e.partition), e.offset);
    } catch (err) {
      // Losing it costs a pass over already clean data, nothing else.
      options.log?.warn({ file: this.file, err: (err as Error).message }, 'ignoring an unreadable cleaner-offset-checkpoint');
    }
    options.logs.onTopicDeleted((topic) => this.forgetTopic(topic));
    options.logs.onLogTruncated((topic, partition, activeBase) => this.truncateCheckpoint(topic, partition, activeBase));
  }

  /**
   * Kafka's maybeTruncateCheckpoint: a log cut back (a follower's truncation) may get other batches where
   * the cleaner had been, so its first dirty offset goes back to the active segment's base offset.
   */
  private truncateCheckpoint(topic: string, partition: number, offset: number): void {
    const key = partitionKey(topic, partition);
    const current = this.firstDirty.get(key);
    if (current === undefined || current <= offset) return;
    this.firstDirty.set(key, offset);
    this.writeCheckpoint();
  }

  /** A deleted topic: its partitions' state goes, and the checkpoint is rewritten without them. */
  private forgetTopic(topic: string): void {
    const ofTopic = (key: string) => key.startsWith(partitionKeyPrefix(topic));
    for (const state of [this.firstDirty, this.failures, this.deleteHorizons]) {
      for (const key of [...state.keys()]) if (ofTopic(key)) state.delete(key);
    }
    for (const state of [this.uncleanable, this.skipThisRun]) {
      for (const key of [...state]) if (ofTopic(key)) state.delete(key);
    }
    this.writeCheckpoint();
  }

  /** The first dirty offset the checkpoint holds for a partition (undefined before its first pass). */
  checkpointedOffset(topic: string, partition: number): number | undefined {
    return this.firstDirty.get(partitionKey(topic, partition));
  }

  /** Whether a partition was marked uncleanable. */
  isUncleanable(topic: string, partition: number): boolean {
    return this.uncleanable.has(partitionKey(topic, partition));
  }

  /** One thread's run: cleans logs, dirtiest first, until none needs it; returns how many passes it made. */
  async runOnce(): Promise<number> {
    let passes = 0;
    const tried = new Set<string>();
    while (!this.stopping) {
      const target = this.grabFilthiestLog(tried);
      if (!target) break;
      tried.add(target.key);
      this.inProgress.add(target.key);
      try {
        const done = await this.clean(target);
        if (done) passes++;
        // A log is taken again in this run only while its passes move on (a key map too small for its dirty range).
        if (!done || this.firstDirty.get(target.key)! <= target.range.firstDirtyOffset) this.skipThisRun.add(target.key);
      } finally {
        this.inProgress.delete(target.key);
      }
    }
    this.skipThisRun.clear();
    return passes;
  }

  /** log.cleaner.threads and log.cleaner.dedupe.buffer.size changed at run time: the next passes use them. */
  resize(threads: number, dedupeBufferSize: number): void {
    this.options.threads = threads;
    this.options.dedupeBufferSize = dedupeBufferSize;
  }

  /** Passes under way give up at their next chunk; no new one starts. */
  stop(): void {
    this.stopping = true;
  }

  /** Waits for the checkpoint write under way. */
  async closed(): Promise<void> {
    await this.checkpointWrite;
  }

  private grabFilthiestLog(tried: Set<string>): LogToClean | null {
    const now = this.now();
    let best: LogToClean | null = null;
    let expired: LogToClean | null = null;
    for (const info of this.options.logs.topics()) {
      if (!isCompacted(info.logConfig)) continue;
      for (let p = 0; p < info.partitions; p++) {
        const key = partitionKey(info.name, p);
        if (this.inProgress.has(key) || this.uncleanable.has(key) || this.skipThisRun.has(key)) continue;
        const log = this.options.logs.partition(info.name, p);
        if (!log || log.isClosed) continue;
        const range = cleanableRange(log, info.logConfig, this.firstDirty.get(key), now);
        const candidate = { key, topic: info.name, partition: p, log, config: info.logConfig, range };
        if (shouldClean(range, info.logConfig)) {
          if (
            !best ||
            range.needCompactionNow > best.range.needCompactionNow ||
            (range.needCompactionNow === best.range.needCompactionNow && range.dirtyRatio > best.range.dirtyRatio)
          )
            best = candidate;
        } else if (!tried.has(key) && (this.deleteHorizons.get(key) ?? Infinity) <= now) {
          expired ??= candidate;
        }
      }
    }
    return best ?? expired;
  }

  /** One pass over one log; whether it completed. Never throws. */
  private async clean(target: LogToClean): Promise<boolean> {
    const { key, topic, partition, log, config, range } = target;
    if (range.checkpointReset) {
      this.options.log?.warn(
        { topic, partition, checkpoint: this.firstDirty.get(key), logStartOffset: log.logStartOffset },
        `the cleaner's checkpointed offset of ${topic}-${partition} is outside the log; cleaning from its start`,
      );
    }
    const started = performance.now();
    let result: CleanResult;
    try {
      result = await cleanLog(log, config, range, {
        now: this.now,
        dedupeBufferBytes: this.options.dedupeBufferSize / Math.max(1, this.options.threads),
        shouldStop: () => this.stopping,
        chunkBytes: this.options.chunkBytes,
      });
    } catch (err) {
      if (err instanceof CleaningAborted) return false;
      this.failed(target, err as Error);
      return false;
    }
    if (log.isClosed) return false; // its topic was deleted meanwhile: nothing to remember of it
    this.failures.delete(key);
    if (result.deleteHorizon === null) this.deleteHorizons.delete(key);
    else this.deleteHorizons.set(key, result.deleteHorizon);
    this.firstDirty.set(key, result.endOffset);
    this.writeCheckpoint();
    const pass: CleanerPass = { ...result, topic, partition, firstDirtyOffset: range.firstDirtyOffset, durationMs: performance.now() - started };
    this.passes.push(pass);
    if (this.passes.length > 100) this.passes.shift();
    this.options.log?.info(
      {
        topic,
        partition,
        from: range.firstDirtyOffset,
        to: result.endOffset,
        dirtyRatio: Number(range.dirtyRatio.toFixed(3)),
        recordsRead: result.recordsRead,
        recordsRemoved: result.recordsRemoved,
        bytesBefore: result.bytesRead,
        bytesAfter: result.bytesWritten,
        ms: Math.round(pass.durationMs),
      },
      `cleaned ${topic}-${partition}`,
    );
    return true;
  }

  private failed(target: LogToClean, err: Error): void {
    const { key, topic, partition } = target;
    const count = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, count);
    if (count >= MAX_FAILURES) {
      this.uncleanable.add(key);
      this.options.log?.error(
        { topic, partition, failures: count, err: err.message, stack: err.stack },
        `marking ${topic}-${partition} uncleanable after ${count} failed cleaning passes; it is no longer compacted until the broker restarts (its data is untouched)`,
      );
    } else {
      this.skipThisRun.add(key);
      this.options.log?.warn({ topic, partition, failures: count, err: err.message }, `cleaning ${topic}-${partition} failed; it will be tried again`);
    }
  }

  /** Rewrites the checkpoint off the event loop, one write at a time, with the partitions that still exist. */
  private writeCheckpoint(): void {
    this.checkpointWrite = this.checkpointWrite
      .then(async () => {
        const entries: CheckpointEntry[] = [];
        for (const info of this.options.logs.topics()) {
          for (let p = 0; p < info.partitions; p++) {
            const offset = this.firstDirty.get(partitionKey(info.name, p));
            if (offset !== undefined) entries.push({ topic: info.name, partition: p, offset });
          }
        }
        await writeCheckpointFileInBackground(this.file, entries, this.options.logs.openFiles);
      })
      .catch((err) => this.options.log?.warn({ file: this.file, err: (err as Error).message }, 'writing cleaner-offset-checkpoint failed'));
  }
}
