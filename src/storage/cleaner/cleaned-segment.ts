// The files of one cleaned segment while the cleaner writes them, next to the segments they will replace:
//   <base>.log.cleaned, <base>.index.cleaned, <base>.timeindex.cleaned, <base>.txnindex.cleaned (only when
//   an aborted transaction stays listed)
// in the formats of segment.ts and its indexes, indexed as an append would index them (an offset and a time
// entry every index.interval.bytes, the time index ending with the segment's max timestamp, as an inactive
// segment's does). Once finished (fsynced), swap.ts renames them to .swap and then into place; a crash
// before that leaves .cleaned files, which the next open deletes.

import fs, { type FileHandle } from '../storage-fs.js';
import { OffsetIndex } from '../offset-index.js';
import { TimeIndex } from '../time-index.js';
import { TransactionIndex, type AbortedTxn } from '../transaction-index.js';
import { segmentFilePath, type SegmentFileKind } from '../file-names.js';

export const CLEANED_SUFFIX = '.cleaned';
export const SEGMENT_FILE_KINDS: readonly SegmentFileKind[] = ['index', 'timeindex', 'txnindex', 'log'];

export function cleanedFilePath(dir: string, baseOffset: number, kind: SegmentFileKind): string {
  return segmentFilePath(dir, baseOffset, kind) + CLEANED_SUFFIX;
}

export class CleanedSegment {
  private readonly fd: number;
  private readonly index: OffsetIndex;
  private readonly timeIndex: TimeIndex;
  private readonly aborted: AbortedTxn[] = [];
  size = 0;
  private maxTs = -1;
  private maxTsOffset = -1;
  private bytesSinceLastIndexEntry = 0;
  private closed = false;

  constructor(
    readonly dir: string,
    readonly baseOffset: number,
    private readonly indexIntervalBytes: number,
  ) {
    this.removeFiles();
    this.fd = fs.openSync(cleanedFilePath(dir, baseOffset, 'log'), 'w');
    // Both index files exist even without entries: a missing one would be rebuilt at the next open.
    for (const kind of ['index', 'timeindex'] as const) fs.closeSync(fs.openSync(cleanedFilePath(dir, baseOffset, kind), 'w'));
    this.index = new OffsetIndex(cleanedFilePath(dir, baseOffset, 'index'), baseOffset);
    this.timeIndex = new TimeIndex(cleanedFilePath(dir, baseOffset, 'timeindex'), baseOffset);
  }

  /** Appends whole batches (their last offsets and max timestamps given), indexing them. */
  append(batches: { bytes: Buffer; lastOffset: number; maxTimestamp: number }[]): void {
    if (batches.length === 0) return;
    const start = this.size;
    const all = Buffer.concat(batches.map((b) => b.bytes));
    let done = 0;
    while (done < all.length) done += fs.writeSync(this.fd, all, done, all.length - done, start + done);
    let position = start;
    for (const b of batches) {
      if (b.maxTimestamp > this.maxTs) {
        this.maxTs = b.maxTimestamp;
        this.maxTsOffset = b.lastOffset;
      }
      if (this.bytesSinceLastIndexEntry > this.indexIntervalBytes) {
        this.index.append(b.lastOffset, position);
        this.timeIndex.maybeAppend(this.maxTs, this.maxTsOffset);
        this.bytesSinceLastIndexEntry = 0;
      }
      this.bytesSinceLastIndexEntry += b.bytes.length;
      position += b.bytes.length;
    }
    this.size = position;
  }

  addAbortedTxn(txn: AbortedTxn): void {
    this.aborted.push(txn);
  }

  /** Ends the time index with the max timestamp, writes the .txnindex, and fsyncs every file (off the event loop). */
  async finish(): Promise<void> {
    if (this.maxTs >= 0) this.timeIndex.maybeAppend(this.maxTs, this.maxTsOffset);
    if (this.aborted.length > 0) {
      const txnIndex = new TransactionIndex(cleanedFilePath(this.dir, this.baseOffset, 'txnindex'));
      for (const t of this.aborted) txnIndex.append(t);
    }
    this.index.close();
    this.timeIndex.close();
    await fs.fsync(this.fd);
    this.closeLog();
    for (const kind of ['index', 'timeindex', 'txnindex'] as const) {
      let fh: FileHandle | null = null;
      try {
        fh = await fs.promises.open(cleanedFilePath(this.dir, this.baseOffset, kind), 'r');
        await fh.sync();
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      } finally {
        await fh?.close();
      }
    }
  }

  /**
   * Gives the finished .log the modification time of the last segment it replaces (Kafka's
   * setLastModified): time retention falls back to it for a segment without record timestamps.
   */
  keepModificationTime(mtime: Date): void {
    fs.utimesSync(cleanedFilePath(this.dir, this.baseOffset, 'log'), mtime, mtime);
  }

  private closeLog(): void {
    if (this.closed) return;
    this.closed = true;
    fs.closeSync(this.fd);
  }

  /** Closes and removes the files: the pass was given up. */
  discard(): void {
    this.closeLog();
    this.index.close();
    this.timeIndex.close();
    this.removeFiles();
  }

  private removeFiles(): void {
    for (const kind of SEGMENT_FILE_KINDS) fs.rmSync(cleanedFilePath(this.dir, this.baseOffset, kind), { force: true });
  }
}
