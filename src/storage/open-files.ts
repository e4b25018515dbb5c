// The process-wide bound on open segment files. Every segment has three files (.log, .index, .timeindex);
// keeping all of them open would make the number of partitions krill can restart with depend on the
// open-file limit (`ulimit -n`, often 1,024: about 340 partitions). Instead descriptors are opened on first
// use and kept in one least-recently-used set, bounded by krill.log.max.open.files (counted in
// descriptors); going past the bound closes the files of the segments used longest ago, which reopen
// transparently on their next use. A produce or fetch on a segment whose files are open costs one pointer
// comparison here (the same segment as last time) or a Map move.
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

import fs from 'node:fs';
import { KafkaError } from '../../protocol/errors.js';

/** Something holding descriptors opened through openFile(); closeFiles() must closeFile() each of them. */
export interface FileOwner {
  closeFiles(): void;
}

export const DEFAULT_MAX_OPEN_FILES = 512;

let maxOpen = DEFAULT_MAX_OPEN_FILES;
let openCount = 0;
/** Owners holding descriptors, least recently used first, with how many each holds. */
const owners = new Map<FileOwner, number>();
let newest: FileOwner | null = null;

/** Sets the bound (at least 1; the owner in use may still hold its three files) and applies it. */
export function setMaxOpenFiles(n: number): void {
  maxOpen = Math.max(1, Math.floor(n));
  evictBeyondBound(null);
}

export function maxOpenFiles(): number {
  return maxOpen;
}

/** Descriptors currently open through openFile(). */
export function openFileCount(): number {
  return openCount;
}

/** Marks the owner as just used. */
export function touch(owner: FileOwner): void {
  if (owner === newest) return;
  const held = owners.get(owner);
  if (held === undefined) return;
  owners.delete(owner);
  owners.set(owner, held);
  newest = owner;
}

function isOutOfDescriptors(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'EMFILE' || code === 'ENFILE';
}

/**
 * fs.openSync that, when the process is out of descriptors, closes the cached segment files (but `keep`'s)
 * and tries once more; then throws KAFKA_STORAGE_ERROR naming the limit. For any file storage opens.
 */
export function openMakingRoom(path: string, flags: string, keep: FileOwner | null = null): number {
  try {
    return fs.openSync(path, flags);
  } catch (err) {
    if (!isOutOfDescriptors(err)) throw err;
  }
  closeIdleFiles(keep);
  try {
    return fs.openSync(path, flags);
  } catch (err) {
    if (!isOutOfDescriptors(err)) throw err;
    throw outOfDescriptors(path, err as NodeJS.ErrnoException);
  }
}

/** fs.openSync for a file of `owner`, counted against the bound (see the file comment for EMFILE). */
export function openFile(owner: FileOwner, path: string, flags: string): number {
  const fd = openMakingRoom(path, flags, owner);
  const held = owners.get(owner) ?? 0;
  owners.delete(owner);
  owners.set(owner, held + 1);
  newest = owner;
  openCount++;
  if (openCount > maxOpen) evictBeyondBound(owner);
  return fd;
}

/** Closes a descriptor opened by openFile() for `owner`. */
export function closeFile(owner: FileOwner, fd: number): void {
  const held = owners.get(owner);
  if (held !== undefined) {
    openCount--;
    if (held > 1) owners.set(owner, held - 1);
    else {
      owners.delete(owner);
      if (newest === owner) newest = null;
    }
  }
  fs.closeSync(fd);
}

/** Closes the files of every owner but `keep` (they reopen on next use). */
export function closeIdleFiles(keep: FileOwner | null = null): void {
  for (const owner of [...owners.keys()]) if (owner !== keep) owner.closeFiles();
}

function evictBeyondBound(keep: FileOwner | null): void {
  while (openCount > maxOpen) {
    const oldest = owners.keys().next().value;
    if (oldest === undefined || oldest === keep) return;
    const before = openCount;
    try {
      oldest.closeFiles();
    } catch {
      // close() releases the descriptor even when it reports an error
    }
    // An owner that did not release anything would otherwise be asked forever.
    if (openCount === before) owners.delete(oldest);
  }
}

/** Where the first failure of a burst is reported (requests fail one by one; the log says why once). */
let warn: ((obj: object, msg: string) => void) | null = null;
let lastWarnedAt = -Infinity;
const WARN_EVERY_MS = 10_000;

export function setOpenFilesLogger(log: { warn(obj: object, msg?: string): void } | null): void {
  warn = log ? (obj, msg) => log.warn(obj, msg) : null;
}

function outOfDescriptors(path: string, err: NodeJS.ErrnoException): KafkaError {
  const which = err.code === 'ENFILE' ? 'the system-wide limit of open files (fs.file-max)' : 'its limit of open files (ulimit -n, RLIMIT_NOFILE)';
  const message =
    `cannot open ${path}: the process is at ${which} (${err.code}); krill keeps at most ` +
    `krill.log.max.open.files=${maxOpen} segment files open and closed all it could, the rest are ` +
    'connections and other files: raise the limit or lower krill.log.max.open.files';
  const now = Date.now();
  if (warn && now - lastWarnedAt >= WARN_EVERY_MS) {
    lastWarnedAt = now;
    warn({ code: err.code, path }, `${message} (requests needing a file fail until descriptors are free)`);
  }
  return new KafkaError('KAFKA_STORAGE_ERROR', message);
}
