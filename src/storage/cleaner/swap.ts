// Swapping cleaned segments into a log crash-safely, Kafka's way (UnifiedLog.replaceSegments, LogLoader):
//   1. the cleaned files <base>.{index,timeindex,txnindex,log}.cleaned are renamed <...>.swap, the .log last,
//      so that a <base>.log.swap means the whole segment is ready;
//   2. the segments it replaces are renamed <...>.deleted and removed;
//   3. the .swap files are renamed into place, the .log last.
// A crash leaves one of these states, which opening the log (log-loader.ts → completeSwaps) settles:
//   - .cleaned files, or .swap index files without their .log.swap: the swap never began; they are deleted
//     and the old segments stay;
//   - a <base>.log.swap: the swap began; the segments it replaces (every .log whose base offset lies in
//     [base, the swap's next offset)) are deleted, then the .swap files take their final names.
// A cleaned segment always ends with its group's last offset (batch-filter.ts's placeholder), so its next
// offset covers every segment it replaces.

import fs from '../storage-fs.js';
import path from 'node:path';
import { LOG_OVERHEAD, RECORD_BATCH_OVERHEAD, readBatchHeader } from '../../../protocol/record-batch.js';
import { parseSegmentFileName, segmentFilePath, type SegmentFileKind } from '../file-names.js';
import { readFully } from '../segment-reader.js';
import { renameForDeletion } from '../file-deleter.js';
import { CLEANED_SUFFIX, SEGMENT_FILE_KINDS, cleanedFilePath } from './cleaned-segment.js';

export const SWAP_SUFFIX = '.swap';

function swapFilePath(dir: string, baseOffset: number, kind: SegmentFileKind): string {
  return segmentFilePath(dir, baseOffset, kind) + SWAP_SUFFIX;
}

/** Renames, ignoring a source that is not there (a .txnindex that was never written). */
function renameIfExists(from: string, to: string): void {
  try {
    fs.renameSync(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/** Step 1: the finished cleaned segment at `baseOffset` becomes a .swap (its .log last). */
export function cleanedToSwap(dir: string, baseOffset: number): void {
  for (const kind of SEGMENT_FILE_KINDS) renameIfExists(cleanedFilePath(dir, baseOffset, kind), swapFilePath(dir, baseOffset, kind));
}

/** Step 2 for one old segment's files (closed already): renamed .deleted, then removed. */
export function deleteSegmentFiles(dir: string, baseOffset: number): void {
  const doomed = SEGMENT_FILE_KINDS.map((kind) => renameForDeletion(segmentFilePath(dir, baseOffset, kind)));
  for (const file of doomed) if (file !== null) fs.rmSync(file, { force: true });
}

/** Step 3: the .swap files of `baseOffset` take their final names (the .log last). */
export function installSwap(dir: string, baseOffset: number): void {
  for (const kind of SEGMENT_FILE_KINDS) {
    const final = segmentFilePath(dir, baseOffset, kind);
    if (fs.existsSync(swapFilePath(dir, baseOffset, kind))) fs.renameSync(swapFilePath(dir, baseOffset, kind), final);
    else if (kind === 'txnindex') fs.rmSync(final, { force: true }); // no aborted transaction left listed
  }
}

/** Whether the swap of `baseOffset` has not been installed yet (its .log.swap is there). */
export function swapPending(dir: string, baseOffset: number): boolean {
  return fs.existsSync(swapFilePath(dir, baseOffset, 'log'));
}

/** Removes the .swap files of `baseOffset`: a swap given up before it began (its segments changed meanwhile). */
export function discardSwap(dir: string, baseOffset: number): void {
  for (const kind of SEGMENT_FILE_KINDS) fs.rmSync(swapFilePath(dir, baseOffset, kind), { force: true });
}

/** One past the last offset of the batches in a .log file (its base offset when it has none), from their headers. */
function nextOffsetOfFile(file: string, baseOffset: number): number {
  const fd = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    const head = Buffer.alloc(RECORD_BATCH_OVERHEAD);
    let pos = 0;
    let next = baseOffset;
    while (pos + RECORD_BATCH_OVERHEAD <= size && readFully(fd, head, 0, RECORD_BATCH_OVERHEAD, pos) === RECORD_BATCH_OVERHEAD) {
      const h = readBatchHeader(head, 0);
      if (h.size < RECORD_BATCH_OVERHEAD || pos + h.size > size) break;
      next = h.baseOffset + h.lastOffsetDelta + 1;
      pos += LOG_OVERHEAD + head.readInt32BE(8);
    }
    return next;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * At open, before anything else reads the directory: deletes .cleaned files and .swap files without a
 * .log.swap, and completes every swap that began (see the top of this file).
 */
export function completeSwaps(dir: string, log?: { warn(obj: object, msg?: string): void }): void {
  const names = fs.readdirSync(dir);
  const swaps: number[] = [];
  for (const name of names) {
    if (name.endsWith(CLEANED_SUFFIX)) fs.rmSync(path.join(dir, name), { force: true });
    else if (name.endsWith(SWAP_SUFFIX)) {
      const parsed = parseSegmentFileName(name.slice(0, -SWAP_SUFFIX.length));
      if (parsed?.kind === 'log') swaps.push(parsed.baseOffset);
    }
  }
  const logs = names
    .map((n) => parseSegmentFileName(n))
    .filter((p) => p?.kind === 'log')
    .map((p) => p!.baseOffset);
  for (const base of swaps.sort((a, b) => a - b)) {
    const next = nextOffsetOfFile(swapFilePath(dir, base, 'log'), base);
    const replaced = logs.filter((b) => b >= base && b < Math.max(next, base + 1));
    for (const b of replaced) deleteSegmentFiles(dir, b);
    installSwap(dir, base);
    log?.warn({ dir, segment: base, replaced }, `completed the swap of cleaned segment ${base} that a crash interrupted`);
  }
  for (const name of fs.readdirSync(dir)) if (name.endsWith(SWAP_SUFFIX)) fs.rmSync(path.join(dir, name), { force: true });
}
