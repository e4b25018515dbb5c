// Swapping a cleaned segment into a live log in the place of the segments it was cleaned from (Kafka's
// UnifiedLog.replaceSegments), with the file steps of swap.ts, and what is done when one of them fails
// midway. The list of segments changes in one step of the event loop, so that every read sees the old
// segments or the new one. A crash at any point is settled by the next open (swap.ts's completeSwaps).

import fs from '../storage-fs.js';
import path from 'node:path';
import { DELETED_SUFFIX } from '../file-names.js';
import { fsyncDirInBackground } from '../atomic-file.js';
import { Segment, type SegmentConfig } from '../segment.js';
import type { StorageLogger } from '../log-loader.js';
import { discardSwap, installSwap, swapPending } from './swap.js';

/** What the swap needs of the log's list of segments (segment-list.ts's SegmentList). */
export interface SwapTarget {
  readonly dir: string;
  readonly segmentConfig: SegmentConfig;
  readonly options: { readonly log?: StorageLogger; closeLog(): void };
  list(): readonly Segment[];
  /** A segment leaves the list: no background flush or read hint may keep it. */
  forget(seg: Segment): void;
  /** Removes files renamed .deleted after file.delete.delay.ms. */
  deleteLater(renamed: readonly string[]): void;
  replaceRun(first: number, count: number, replacement: readonly Segment[]): void;
}

/** What a failed step had got to: whether the .swap files had begun taking their final names. */
interface SwapProgress {
  installing: boolean;
}

/**
 * Puts the cleaned segment at `baseOffset`, whose files are <name>.swap by now, in the place of `old`
 * (consecutive inactive segments of the log; the first has that base offset): the old files go, the swap
 * files take their names. False, and nothing done, when `old` is no longer in the log as it was (retention
 * or DeleteRecords took some). A file operation failing midway is recovered from (recoverSwap): it throws
 * only once the old segments are back in place or the log is closed.
 */
export function replaceSegments(target: SwapTarget, old: readonly Segment[], baseOffset: number): boolean {
  const segments = target.list();
  if (old.length === 0 || old[0].baseOffset !== baseOffset) return false;
  const first = segments.indexOf(old[0]);
  if (first < 0 || first + old.length >= segments.length) return false;
  if (old.some((seg, i) => segments[first + i] !== seg)) return false;
  const nextBase = segments[first + old.length].baseOffset;
  const progress: SwapProgress = { installing: false };
  let cleaned: Segment;
  try {
    cleaned = swapIn(target, old, baseOffset, nextBase, progress);
  } catch (err) {
    cleaned = recoverSwap(target, old, first, baseOffset, nextBase, progress, err as Error);
  }
  target.replaceRun(first, old.length, [cleaned]);
  // The renames, for a power loss (a crash of the process keeps them); the files were fsynced before.
  fsyncDirInBackground(target.dir).catch((err) =>
    target.options.log?.warn({ dir: target.dir, err: (err as Error).message }, 'fsync of a partition directory after a swap failed'),
  );
  return true;
}

/** The file steps of replaceSegments (idempotent: run again, they redo only what is left to do). */
function swapIn(target: SwapTarget, old: readonly Segment[], baseOffset: number, nextBase: number, progress: SwapProgress): Segment {
  const renamed: string[] = [];
  try {
    for (const seg of old) {
      target.forget(seg);
      renamed.push(...seg.renameForDeletion());
    }
  } finally {
    target.deleteLater(renamed);
  }
  if (swapPending(target.dir, baseOffset)) {
    progress.installing = true;
    installSwap(target.dir, baseOffset);
  }
  return Segment.open(target.dir, baseOffset, target.segmentConfig, nextBase);
}

/**
 * replaceSegments failed midway: some old segments may be closed and renamed .deleted, the swap partly
 * installed. The swap is finished from its files, as the next open would (swap.ts), and the cleaned
 * segment returned. Failing that, the old segments are put back (files renamed back, reopened), the swap
 * files removed, and `err` thrown (the cleaner logs it and tries again later). Failing that too, the log
 * is closed, its reads refused, rather than left serving closed segments; the next open settles its files.
 */
function recoverSwap(
  target: SwapTarget,
  old: readonly Segment[],
  first: number,
  baseOffset: number,
  nextBase: number,
  progress: SwapProgress,
  err: Error,
): Segment {
  const { dir, segmentConfig } = target;
  const log = target.options.log;
  const context = { dir, segment: baseOffset, err: err.message };
  log?.warn(context, `swapping in cleaned segment ${baseOffset} failed midway; finishing it from its files`);
  try {
    return swapIn(target, old, baseOffset, nextBase, progress);
  } catch (retryErr) {
    log?.warn({ ...context, retryErr: (retryErr as Error).message }, `cannot finish swapping in cleaned segment ${baseOffset}; putting the old segments back`);
  }
  try {
    for (let i = 0; i < old.length; i++) {
      if (!old[i].isClosed) continue;
      for (const file of old[i].filePaths()) {
        if (fs.existsSync(file + DELETED_SUFFIX)) fs.renameSync(file + DELETED_SUFFIX, file);
        // The old segment had no such file: the one there is the swap's.
        else if (progress.installing && old[i].baseOffset === baseOffset) fs.rmSync(file, { force: true });
      }
      const next = i + 1 < old.length ? old[i + 1].baseOffset : nextBase;
      target.replaceRun(first + i, 1, [Segment.open(dir, old[i].baseOffset, segmentConfig, next)]);
    }
    discardSwap(dir, baseOffset);
  } catch (restoreErr) {
    log?.warn(
      { ...context, restoreErr: (restoreErr as Error).message },
      `cannot put back the segments cleaned segment ${baseOffset} was to replace; closing ${path.basename(dir)} until the next open`,
    );
    try {
      target.options.closeLog();
    } catch {
      // closed regardless (close's finally)
    }
  }
  throw err;
}
