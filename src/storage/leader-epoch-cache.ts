// A partition's leader epoch cache (KIP-101/279), Kafka's LeaderEpochFileCache: for each leader epoch that
// wrote to the log, the offset of its first batch. A follower asks the leader for the end offset of its
// latest epoch (OffsetForLeaderEpoch) and truncates its log there, so that it never keeps records a former
// leader wrote and the new one does not have.
//
// Kept in the partition directory as `leader-epoch-checkpoint`, Kafka's LeaderEpochCheckpointFile format:
//   0                          (format version)
//   <n>                        (number of entries)
//   <epoch> <startOffset>      × n, ascending (both epochs and start offsets strictly increase)
// rewritten atomically (atomic-file.ts) whenever the entries change, so the file is always current. It is not
// fsynced: it changes on the append path (a partition's first batch in each epoch), where an fsync would stall
// every request for milliseconds, and everything in it is derived from the log's batch headers, which are no
// more durable until their segment is flushed: a power loss is repaired at open, which reads the epochs again
// from the recovery point on. A missing file is an empty cache; a malformed one is logged and read as empty
// (the log rebuilds it from its batch headers: rebuild-state.ts).

import path from 'node:path';
import { readTextIfExists, writeFileAtomic } from './atomic-file.js';
import type { StorageLogger } from './log-loader.js';

export const LEADER_EPOCH_CHECKPOINT = 'leader-epoch-checkpoint';

/** Kafka's UNDEFINED_EPOCH and UNDEFINED_EPOCH_OFFSET (OffsetForLeaderEpoch's "unknown"). */
export const UNDEFINED_EPOCH = -1;
export const UNDEFINED_EPOCH_OFFSET = -1;

export interface EpochEntry {
  epoch: number;
  startOffset: number;
}

export interface EpochEndOffset {
  leaderEpoch: number;
  endOffset: number;
}

/** Parses checkpoint text; throws on anything malformed (including entries that do not increase). */
export function parseLeaderEpochCheckpoint(text: string): EpochEntry[] {
  const lines = text.split('\n').map((l) => l.replace(/\r$/, ''));
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  if (lines[0] !== '0') throw new Error(`unsupported version '${lines[0] ?? ''}'`);
  if (lines.length < 2 || !/^\d+$/.test(lines[1])) throw new Error('malformed entry count');
  const count = Number(lines[1]);
  if (lines.length - 2 !== count) throw new Error(`says ${count} entries but has ${lines.length - 2}`);
  const out: EpochEntry[] = [];
  for (let i = 2; i < lines.length; i++) {
    const m = /^\s*(\d+)\s+(\d+)\s*$/.exec(lines[i]);
    if (!m) throw new Error(`malformed line ${i + 1}: '${lines[i]}'`);
    const entry = { epoch: Number(m[1]), startOffset: Number(m[2]) };
    if (!Number.isSafeInteger(entry.startOffset) || entry.epoch > 0x7fffffff) throw new Error(`line ${i + 1} is out of range`);
    out.push(entry);
  }
  return out;
}

export function formatLeaderEpochCheckpoint(entries: readonly EpochEntry[]): string {
  return ['0', String(entries.length), ...entries.map((e) => `${e.epoch} ${e.startOffset}`)].join('\n') + '\n';
}

export class LeaderEpochCache {
  /** Ascending by epoch and by start offset. */
  private epochs: EpochEntry[] = [];

  private constructor(
    readonly file: string,
    /** Whether a valid checkpoint file was read (false: missing or malformed, the cache started empty). */
    readonly fromFile: boolean,
    private readonly log?: StorageLogger,
  ) {}

  /** The cache of the partition in `dir`, from its checkpoint file. Never throws for a bad file. */
  static load(dir: string, log?: StorageLogger): LeaderEpochCache {
    const file = path.join(dir, LEADER_EPOCH_CHECKPOINT);
    let entries: EpochEntry[] | null = null;
    try {
      const text = readTextIfExists(file);
      if (text !== null) entries = parseLeaderEpochCheckpoint(text);
    } catch (err) {
      log?.warn(
        { dir, file, err: (err as Error).message },
        `ignoring malformed ${LEADER_EPOCH_CHECKPOINT} of ${path.basename(dir)}: ${(err as Error).message}`,
      );
    }
    const cache = new LeaderEpochCache(file, entries !== null, log);
    // As Kafka: the entries go through assign(), which drops any that break monotonicity.
    for (const e of entries ?? []) cache.put(e.epoch, e.startOffset);
    return cache;
  }

  /** The latest epoch with an entry, -1 when none. */
  get latestEpoch(): number {
    return this.epochs.length === 0 ? UNDEFINED_EPOCH : this.epochs[this.epochs.length - 1].epoch;
  }

  entries(): readonly EpochEntry[] {
    return this.epochs;
  }

  /**
   * Records that `epoch` starts at `startOffset`, as Kafka's assign: nothing changes when `epoch` is the
   * latest and starts no lower (the common case: one compare); otherwise entries at the end whose epoch is
   * >= epoch or whose start offset is >= startOffset are removed first (they conflict with the new one),
   * and the file is rewritten. Negative values (a batch without a leader epoch) are ignored.
   */
  assign(epoch: number, startOffset: number): void {
    if (this.put(epoch, startOffset)) this.flush();
  }

  private put(epoch: number, startOffset: number): boolean {
    if (epoch < 0 || startOffset < 0) return false;
    const last = this.epochs.length === 0 ? null : this.epochs[this.epochs.length - 1];
    if (last && last.epoch === epoch && startOffset >= last.startOffset) return false;
    const removed: EpochEntry[] = [];
    while (this.epochs.length > 0) {
      const e = this.epochs[this.epochs.length - 1];
      if (e.epoch < epoch && e.startOffset < startOffset) break;
      removed.push(this.epochs.pop()!);
    }
    // Only worth a warning when data was written in a removed epoch (Kafka's rule).
    if (removed.length > 1 || (removed.length === 1 && removed[0].startOffset !== startOffset)) {
      this.log?.warn({ file: this.file, epoch, startOffset, removed }, `leader epoch ${epoch} at ${startOffset} removed conflicting entries`);
    }
    this.epochs.push({ epoch, startOffset });
    return true;
  }

  /**
   * Kafka's endOffsetFor: the largest epoch <= `epoch` with the start offset of the next higher epoch
   * (its end); for the latest epoch, logEndOffset. An epoch below every entry answers itself with the
   * first entry's start offset (the data before it is gone). Undefined (-1, -1) for -1, an epoch above
   * the latest, or an empty cache.
   */
  endOffsetFor(epoch: number, logEndOffset: number): EpochEndOffset {
    const undefinedAnswer = { leaderEpoch: UNDEFINED_EPOCH, endOffset: UNDEFINED_EPOCH_OFFSET };
    if (epoch === UNDEFINED_EPOCH) return undefinedAnswer;
    if (this.epochs.length > 0 && epoch === this.latestEpoch) return { leaderEpoch: epoch, endOffset: logEndOffset };
    const higher = this.epochs.findIndex((e) => e.epoch > epoch);
    if (higher < 0) return undefinedAnswer;
    if (higher === 0) return { leaderEpoch: epoch, endOffset: this.epochs[0].startOffset };
    return { leaderEpoch: this.epochs[higher - 1].epoch, endOffset: this.epochs[higher].startOffset };
  }

  /** Removes the entries starting at or after `endOffset` (the log was truncated there). */
  truncateFromEnd(endOffset: number): void {
    if (endOffset < 0 || this.epochs.length === 0 || this.epochs[this.epochs.length - 1].startOffset < endOffset) return;
    while (this.epochs.length > 0 && this.epochs[this.epochs.length - 1].startOffset >= endOffset) this.epochs.pop();
    this.flush();
  }

  /**
   * The log now starts at `startOffset`: the entries starting at or below it go, except that the last of
   * them stays with its start moved up to `startOffset` (that epoch still holds the first records).
   */
  truncateFromStart(startOffset: number): void {
    let n = 0;
    while (n < this.epochs.length && this.epochs[n].startOffset <= startOffset) n++;
    if (n === 0 || (n === 1 && this.epochs[0].startOffset === startOffset)) return;
    const first = { epoch: this.epochs[n - 1].epoch, startOffset };
    this.epochs.splice(0, n, first);
    this.flush();
  }

  /** Removes every entry and writes the (empty) file. */
  clearAndFlush(): void {
    this.epochs = [];
    this.flush();
  }

  private flush(): void {
    writeFileAtomic(this.file, formatLeaderEpochCheckpoint(this.epochs), false);
  }
}
