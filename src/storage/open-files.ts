// The bound on open segment files, one per LogManager (two brokers in one process have one each). Every
// segment has three files (.log, .index, .timeindex); keeping all of them open would make the number of
// partitions krill can restart with depend on the open-file limit (`ulimit -n`, often 1,024: about 340
// partitions). Instead descriptors are opened on first use and kept in one least-recently-used set,
// bounded by krill.log.max.open.files (counted in descriptors); going past the bound closes the files of
// the segments used longest ago, which reopen transparently on their next use. A produce or fetch on a
// segment whose files are open costs one pointer comparison here (the same segment as last time) or a
// Map move.
//
// The unit of recency is the owner (a segment), not the file: an operation on a segment may hold one of
// its descriptors in a local while it opens another of the same segment (a scan writing index entries),
// but never holds a descriptor of one segment while using another one, and everything is synchronous. So
// the owner in use is never evicted, and no evicted descriptor is in use (a descriptor is a number the
// kernel hands out again: closing one still in use would make a later write land in another file).
//
// When an open fails because the process (EMFILE) or the system (ENFILE) is out of descriptors anyway
// (sockets take their share), every other owner's files are closed and the open is retried once; if that
// fails too, the operation fails with KAFKA_STORAGE_ERROR naming the limit: that request fails, the broker
// goes on. Storage's other files (checkpoints, krill-topics.json) open through openMakingRoom() for the same
// treatment, outside the bound: they are closed right away.

import fs, { type FileHandle } from './storage-fs.js';
import { KafkaError } from '../../protocol/errors.js';

/** Something holding descriptors opened through OpenFiles.open(); closeFiles() must OpenFiles.close() each of them. */
export interface FileOwner {
  closeFiles(): void;
}

export const DEFAULT_MAX_OPEN_FILES = 512;

/** Where the first failure of a burst is reported (requests fail one by one; the log says why once). */
export interface OpenFilesLogger {
  warn(obj: object, msg?: string): void;
}

const WARN_EVERY_MS = 10_000;

function isOutOfDescriptors(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'EMFILE' || code === 'ENFILE';
}

export class OpenFiles {
  private maxOpen = DEFAULT_MAX_OPEN_FILES;
  private openCount = 0;
  /** Owners holding descriptors, least recently used first, with how many each holds. */
  private readonly owners = new Map<FileOwner, number>();
  private newest: FileOwner | null = null;
  private lastWarnedAt = -Infinity;

  constructor(
    maxOpen = DEFAULT_MAX_OPEN_FILES,
    private readonly log: OpenFilesLogger | null = null,
  ) {
    this.setMax(maxOpen);
  }

  /** Sets the bound (at least 1; the owner in use may still hold its three files) and applies it. */
  setMax(n: number): void {
    this.maxOpen = Math.max(1, Math.floor(n));
    this.evictBeyondBound(null);
  }

  get max(): number {
    return this.maxOpen;
  }

  /** Descriptors currently open through open(). */
  get count(): number {
    return this.openCount;
  }

  /** Marks the owner as just used. */
  touch(owner: FileOwner): void {
    if (owner === this.newest) return;
    const held = this.owners.get(owner);
    if (held === undefined) return;
    this.owners.delete(owner);
    this.owners.set(owner, held);
    this.newest = owner;
  }

  /**
   * fs.openSync that, when the process is out of descriptors, closes the cached segment files (but `keep`'s)
   * and tries once more; then throws KAFKA_STORAGE_ERROR naming the limit. For any file storage opens.
   */
  openMakingRoom(path: string, flags: string, keep: FileOwner | null = null): number {
    try {
      return fs.openSync(path, flags);
    } catch (err) {
      if (!isOutOfDescriptors(err)) throw err;
    }
    this.closeIdle(keep);
    try {
      return fs.openSync(path, flags);
    } catch (err) {
      if (!isOutOfDescriptors(err)) throw err;
      throw this.outOfDescriptors(path, err as NodeJS.ErrnoException);
    }
  }

  /**
   * openMakingRoom() through the thread pool, for writes off the event loop. Closing the cached files from
   * here is safe: no synchronous segment operation is under way, holding a descriptor in a local.
   */
  async openHandleMakingRoom(path: string, flags: string): Promise<FileHandle> {
    try {
      return await fs.promises.open(path, flags);
    } catch (err) {
      if (!isOutOfDescriptors(err)) throw err;
    }
    this.closeIdle(null);
    try {
      return await fs.promises.open(path, flags);
    } catch (err) {
      if (!isOutOfDescriptors(err)) throw err;
      throw this.outOfDescriptors(path, err as NodeJS.ErrnoException);
    }
  }

  /** fs.openSync for a file of `owner`, counted against the bound (see the file comment for EMFILE). */
  open(owner: FileOwner, path: string, flags: string): number {
    const fd = this.openMakingRoom(path, flags, owner);
    const held = this.owners.get(owner) ?? 0;
    this.owners.delete(owner);
    this.owners.set(owner, held + 1);
    this.newest = owner;
    this.openCount++;
    if (this.openCount > this.maxOpen) this.evictBeyondBound(owner);
    return fd;
  }

  /** Closes a descriptor opened by open() for `owner`. */
  close(owner: FileOwner, fd: number): void {
    const held = this.owners.get(owner);
    if (held !== undefined) {
      this.openCount--;
      if (held > 1) this.owners.set(owner, held - 1);
      else {
        this.owners.delete(owner);
        if (this.newest === owner) this.newest = null;
      }
    }
    fs.closeSync(fd);
  }

  /** Closes the files of every owner but `keep` (they reopen on next use). */
  closeIdle(keep: FileOwner | null = null): void {
    for (const owner of [...this.owners.keys()]) if (owner !== keep) owner.closeFiles();
  }

  private evictBeyondBound(keep: FileOwner | null): void {
    while (this.openCount > this.maxOpen) {
      const oldest = this.owners.keys().next().value;
      if (oldest === undefined || oldest === keep) return;
      const before = this.openCount;
      try {
        oldest.closeFiles();
      } catch {
        // close() releases the descriptor even when it reports an error
      }
      // An owner that did not release anything would otherwise be asked forever.
      if (this.openCount === before) this.owners.delete(oldest);
    }
  }

  private outOfDescriptors(path: string, err: NodeJS.ErrnoException): KafkaError {
    const which = err.code === 'ENFILE' ? 'the system-wide limit of open files (fs.file-max)' : 'its limit of open files (ulimit -n, RLIMIT_NOFILE)';
    const message =
      `cannot open ${path}: the process is at ${which} (${err.code}); krill keeps at most ` +
      `krill.log.max.open.files=${this.maxOpen} segment files open and closed all it could, the rest are ` +
      'connections and other files: raise the limit or lower krill.log.max.open.files';
    const now = Date.now();
    if (this.log && now - this.lastWarnedAt >= WARN_EVERY_MS) {
      this.lastWarnedAt = now;
      this.log.warn({ code: err.code, path }, `${message} (requests needing a file fail until descriptors are free)`);
    }
    return new KafkaError('KAFKA_STORAGE_ERROR', message);
  }
}
