// The file operations storage uses, and the one place that decides where each goes: to node:fs, or to
// the in-memory volume of a broker started with krill.storage=memory (memory-volume.ts). Such a broker's
// data dir is `memory:<n>`, the root of a volume mounted for it at start; every path under that root,
// and every descriptor the volume hands out (negative numbers, which the kernel never returns), is
// served by the volume. Everything else goes to node:fs unchanged. So a memory broker runs the durable
// broker's code on the same file layout, no module is handed a different implementation, and a durable
// broker pays one comparison per call (a durable data dir is an absolute path, never `memory:…`).
//
// The names and arguments are node:fs's, for the subset storage uses; what the volume cannot do
// (descriptors of it to native code, file locks) is not offered here.

import fs from 'node:fs';
import { MemoryVolume, volumes, type DirEntry, type FileStat } from './memory-volume.js';

export type { DirEntry, FileStat } from './memory-volume.js';

/** The parts of fs.promises.FileHandle storage uses. */
export interface FileHandle {
  writeFile(data: string | Buffer): Promise<void>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

const MEMORY_ROOT = 'memory:';
const mounts = volumes.mounts;

/** A fresh, empty volume for one memory broker, its root a new `memory:<n>`; unmountMemoryVolume drops it. */
export function mountMemoryVolume(maxBytes: number): MemoryVolume {
  const volume = new MemoryVolume(`${MEMORY_ROOT}${++volumes.lastVolume}`, maxBytes);
  mounts.set(volume.name, volume);
  return volume;
}

export function unmountMemoryVolume(volume: MemoryVolume): void {
  mounts.delete(volume.name);
  volume.unmount();
}

/** Whether `p` is in a memory volume (mounted or not). */
export function isMemoryPath(p: string): boolean {
  return p.startsWith(MEMORY_ROOT);
}

/** The volume holding `p`, or null for a path of the real file system. */
function volumeOf(p: string): MemoryVolume | null {
  if (!p.startsWith(MEMORY_ROOT)) return null;
  const slash = p.indexOf('/');
  const volume = mounts.get(slash < 0 ? p : p.slice(0, slash));
  if (!volume) {
    const err: NodeJS.ErrnoException = new Error(`ENOENT: no such file or directory (memory volume not mounted), '${p}'`);
    err.code = 'ENOENT';
    err.path = p;
    throw err;
  }
  return volume;
}

function memoryHandle(fd: number): FileHandle {
  return {
    writeFile: async (data) => {
      const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      MemoryVolume.write(fd, buf, 0, buf.length, null);
    },
    sync: async () => undefined,
    close: async () => MemoryVolume.close(fd),
  };
}

const storageFs = {
  openSync(p: string, flags: string): number {
    const v = volumeOf(p);
    return v ? v.open(p, flags) : fs.openSync(p, flags);
  },

  closeSync(fd: number): void {
    if (fd < 0) MemoryVolume.close(fd);
    else fs.closeSync(fd);
  },

  readSync(fd: number, buf: Buffer, offset: number, length: number, position: number): number {
    return fd < 0 ? MemoryVolume.read(fd, buf, offset, length, position) : fs.readSync(fd, buf, offset, length, position);
  },

  /** Without position: at the descriptor's position (the end, for a file opened to append). */
  writeSync(fd: number, buf: Buffer, offset: number, length: number, position?: number): number {
    if (fd < 0) return MemoryVolume.write(fd, buf, offset, length, position);
    return position === undefined ? fs.writeSync(fd, buf, offset, length) : fs.writeSync(fd, buf, offset, length, position);
  },

  /**
   * Up to `length` bytes at `position` without a copy, when the file is in memory (a view that keeps its
   * bytes: memory-volume.ts); null for a file on disk, which the caller reads.
   */
  view(fd: number, position: number, length: number): Buffer | null {
    return fd < 0 ? MemoryVolume.view(fd, position, length) : null;
  },

  fsyncSync(fd: number): void {
    if (fd >= 0) fs.fsyncSync(fd);
    else if (!MemoryVolume.isOpen(fd)) MemoryVolume.fstat(fd); // EBADF, as fsync would
  },

  fstatSync(fd: number): FileStat {
    return fd < 0 ? MemoryVolume.fstat(fd) : fs.fstatSync(fd);
  },

  ftruncateSync(fd: number, length: number): void {
    if (fd < 0) MemoryVolume.truncate(fd, length);
    else fs.ftruncateSync(fd, length);
  },

  statSync(p: string): FileStat {
    const v = volumeOf(p);
    return v ? v.stat(p) : fs.statSync(p);
  },

  existsSync(p: string): boolean {
    if (!isMemoryPath(p)) return fs.existsSync(p);
    try {
      return volumeOf(p)!.exists(p);
    } catch {
      return false;
    }
  },

  readFileSync: readFileSync,

  writeFileSync(p: string, data: string | Buffer): void {
    if (!volumeOf(p)) return fs.writeFileSync(p, data);
    writeAll(p, 'w', data);
  },

  appendFileSync(p: string, data: string | Buffer): void {
    if (!volumeOf(p)) return fs.appendFileSync(p, data);
    writeAll(p, 'a', data);
  },

  readdirSync(p: string): string[] {
    const v = volumeOf(p);
    return v ? v.readdir(p).map((e) => e.name) : fs.readdirSync(p);
  },

  /** readdirSync(p, { withFileTypes: true }). */
  readdirEntries(p: string): DirEntry[] {
    const v = volumeOf(p);
    return v ? v.readdir(p) : fs.readdirSync(p, { withFileTypes: true });
  },

  renameSync(from: string, to: string): void {
    const v = volumeOf(from);
    if (v) v.rename(from, to);
    else fs.renameSync(from, to);
  },

  rmSync(p: string, options: { recursive?: boolean; force?: boolean } = {}): void {
    const v = volumeOf(p);
    if (v) v.rm(p, options.recursive ?? false, options.force ?? false);
    else fs.rmSync(p, options);
  },

  mkdirSync(p: string, options: { recursive?: boolean } = {}): void {
    const v = volumeOf(p);
    if (v) v.mkdir(p, options.recursive ?? false);
    else fs.mkdirSync(p, options);
  },

  utimesSync(p: string, atime: Date, mtime: Date): void {
    const v = volumeOf(p);
    if (v) v.utimes(p, mtime);
    else fs.utimesSync(p, atime, mtime);
  },

  /** The size of the volume holding `p` and the bytes still free on it (statfs; for memory, the bound). */
  spaceOf(p: string): { totalBytes: number; usableBytes: number } {
    const v = volumeOf(p);
    if (v) return { totalBytes: v.maxBytes, usableBytes: Math.max(0, v.maxBytes - v.usedBytes) };
    const st = fs.statfsSync(p);
    return { totalBytes: st.blocks * st.bsize, usableBytes: st.bavail * st.bsize };
  },

  /** fsync of a file or directory through the thread pool (callback API: fs/promises costs a load). */
  syncPath(p: string, ignoreErrors: boolean): Promise<void> {
    if (isMemoryPath(p)) {
      try {
        volumeOf(p)!.stat(p);
        return Promise.resolve();
      } catch (err) {
        return ignoreErrors ? Promise.resolve() : Promise.reject(err as Error);
      }
    }
    return new Promise((resolve, reject) => {
      fs.open(p, 'r', (err, fd) => {
        if (err) return ignoreErrors ? resolve() : reject(err);
        fs.fsync(fd, (syncErr) => {
          fs.close(fd, () => (syncErr && !ignoreErrors ? reject(syncErr) : resolve()));
        });
      });
    });
  },

  /** fsync of a descriptor through the thread pool. */
  fsync(fd: number): Promise<void> {
    if (fd < 0) return Promise.resolve();
    return new Promise((resolve, reject) => fs.fsync(fd, (err) => (err ? reject(err) : resolve())));
  },

  promises: {
    async open(p: string, flags: string): Promise<FileHandle> {
      const v = volumeOf(p);
      return v ? memoryHandle(v.open(p, flags)) : fs.promises.open(p, flags);
    },

    async rename(from: string, to: string): Promise<void> {
      const v = volumeOf(from);
      return v ? v.rename(from, to) : fs.promises.rename(from, to);
    },

    async rm(p: string, options: { recursive?: boolean; force?: boolean } = {}): Promise<void> {
      const v = volumeOf(p);
      return v ? v.rm(p, options.recursive ?? false, options.force ?? false) : fs.promises.rm(p, options);
    },
  },
};

function readFileSync(p: string): Buffer;
function readFileSync(p: string, encoding: 'utf8'): string;
function readFileSync(p: string, encoding?: 'utf8'): Buffer | string {
  const v = volumeOf(p);
  if (!v) return encoding ? fs.readFileSync(p, encoding) : fs.readFileSync(p);
  const fd = v.open(p, 'r');
  try {
    const buf = Buffer.allocUnsafe(MemoryVolume.fstat(fd).size);
    MemoryVolume.read(fd, buf, 0, buf.length, 0);
    return encoding ? buf.toString(encoding) : buf;
  } finally {
    MemoryVolume.close(fd);
  }
}

function writeAll(p: string, flags: string, data: string | Buffer): void {
  const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const fd = storageFs.openSync(p, flags);
  try {
    MemoryVolume.write(fd, buf, 0, buf.length, null);
  } finally {
    MemoryVolume.close(fd);
  }
}

export default storageFs;
