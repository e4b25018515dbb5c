// An in-memory volume: the files of a broker started with krill.storage=memory (storage-fs.ts sends every
// path under its root and every descriptor it handed out here). A tree of directories and files, each
// file's bytes in chunks (memory-file.ts, where reads for a response take views instead of copies);
// fsync does nothing, rename and remove are map operations. The storage code above it is the durable
// broker's, file names and formats included, so it behaves as on a disk.
//
// The bound (krill.storage.memory.max.bytes) counts the bytes of every file; a write to a segment's .log
// that would pass it fails with ENOSPC, as on a full disk, which the segment turns into
// KAFKA_STORAGE_ERROR. Every other file (indexes, checkpoints, snapshots, what the cleaner writes) may
// go past it: they are small, and failing them would leave a log half-updated, or keep the cleaner from
// freeing space. Deleted segments keep their bytes until their files are removed, file.delete.delay.ms
// after retention or the cleaner dropped them, as on a disk.

import path from 'node:path';
import { MemoryFileBytes } from './memory-file.js';

interface MemoryFile {
  readonly kind: 'file';
  readonly bytes: MemoryFileBytes;
  mtimeMs: number;
}

interface MemoryDir {
  readonly kind: 'dir';
  readonly entries: Map<string, MemoryNode>;
  mtimeMs: number;
}

type MemoryNode = MemoryFile | MemoryDir;

/** What stat() tells of a file or directory: the parts of fs.Stats storage reads. */
export interface FileStat {
  size: number;
  mtimeMs: number;
  mtime: Date;
  isFile(): boolean;
  isDirectory(): boolean;
}

/** A directory entry: the parts of fs.Dirent storage reads. */
export interface DirEntry {
  name: string;
  isFile(): boolean;
  isDirectory(): boolean;
}

interface Descriptor {
  readonly volume: MemoryVolume;
  readonly node: MemoryNode;
  readonly path: string;
  readonly readable: boolean;
  readonly writable: boolean;
  readonly append: boolean;
  /** A segment's .log: its growth counts against the bound. */
  readonly bounded: boolean;
  position: number;
}

/**
 * The process's volumes by root name and their descriptors by (negative) number. One table per process
 * even where several bundles each hold a copy of this module (the CLI's and the cluster's, src/bin/bundle.ts):
 * a volume mounted by one is reached through the other.
 */
interface VolumeTable {
  readonly mounts: Map<string, MemoryVolume>;
  readonly descriptors: Map<number, Descriptor>;
  lastDescriptor: number;
  lastVolume: number;
}
const TABLE_KEY = Symbol.for('krill.memory-volumes');
export const volumes: VolumeTable = ((globalThis as Record<symbol, VolumeTable | undefined>)[TABLE_KEY] ??= {
  mounts: new Map(),
  descriptors: new Map(),
  lastDescriptor: 0,
  lastVolume: 0,
});
const descriptors = volumes.descriptors;

function fsError(code: string, syscall: string, p: string, detail?: string): NodeJS.ErrnoException {
  const text: Record<string, string> = {
    ENOENT: 'no such file or directory',
    EEXIST: 'file already exists',
    ENOTDIR: 'not a directory',
    EISDIR: 'illegal operation on a directory',
    ENOTEMPTY: 'directory not empty',
    EBADF: 'bad file descriptor',
    ENOSPC: 'no space left on device',
  };
  const err: NodeJS.ErrnoException = new Error(`${code}: ${detail ?? text[code] ?? code}, ${syscall} '${p}'`);
  err.code = code;
  err.syscall = syscall;
  err.path = p;
  return err;
}

function describe(node: MemoryNode): FileStat {
  const isDir = node.kind === 'dir';
  return {
    size: isDir ? 0 : node.bytes.size,
    mtimeMs: node.mtimeMs,
    mtime: new Date(node.mtimeMs),
    isFile: () => !isDir,
    isDirectory: () => isDir,
  };
}

export class MemoryVolume {
  private readonly root: MemoryDir = { kind: 'dir', entries: new Map(), mtimeMs: Date.now() };
  /** Bytes of every file. */
  private used = 0;

  /** `name` is the volume's root path (memory:<n>); `maxBytes` the bound on segment data. */
  constructor(
    readonly name: string,
    readonly maxBytes: number,
  ) {}

  get usedBytes(): number {
    return this.used;
  }

  // --- paths ---------------------------------------------------------------------------------------

  /** The names below the root, or null for the root itself. */
  private parts(p: string): string[] {
    const rel = path.posix.normalize(p).slice(this.name.length);
    return rel.split('/').filter((s) => s !== '' && s !== '.');
  }

  private lookup(p: string, syscall: string): MemoryNode {
    let node: MemoryNode = this.root;
    for (const part of this.parts(p)) {
      if (node.kind !== 'dir') throw fsError('ENOTDIR', syscall, p);
      const next = node.entries.get(part);
      if (!next) throw fsError('ENOENT', syscall, p);
      node = next;
    }
    return node;
  }

  /** The directory holding `p`, and p's name in it. */
  private parentOf(p: string, syscall: string): { dir: MemoryDir; name: string } {
    const parts = this.parts(p);
    const name = parts.pop();
    if (name === undefined) throw fsError('EEXIST', syscall, p);
    let node: MemoryNode = this.root;
    for (const part of parts) {
      const next: MemoryNode | undefined = node.kind === 'dir' ? node.entries.get(part) : undefined;
      if (!next) throw fsError('ENOENT', syscall, p);
      if (next.kind !== 'dir') throw fsError('ENOTDIR', syscall, p);
      node = next;
    }
    return { dir: node as MemoryDir, name };
  }

  exists(p: string): boolean {
    try {
      this.lookup(p, 'access');
      return true;
    } catch {
      return false;
    }
  }

  stat(p: string): FileStat {
    return describe(this.lookup(p, 'stat'));
  }

  mkdir(p: string, recursive: boolean): void {
    let node: MemoryDir = this.root;
    const parts = this.parts(p);
    parts.forEach((part, i) => {
      const next = node.entries.get(part);
      if (next?.kind === 'dir') {
        if (!recursive && i === parts.length - 1) throw fsError('EEXIST', 'mkdir', p);
        node = next;
        return;
      }
      if (next) throw fsError(recursive ? 'ENOTDIR' : 'EEXIST', 'mkdir', p);
      if (!recursive && i < parts.length - 1) throw fsError('ENOENT', 'mkdir', p);
      const dir: MemoryDir = { kind: 'dir', entries: new Map(), mtimeMs: Date.now() };
      node.entries.set(part, dir);
      node = dir;
    });
  }

  readdir(p: string): DirEntry[] {
    const node = this.lookup(p, 'scandir');
    if (node.kind !== 'dir') throw fsError('ENOTDIR', 'scandir', p);
    return [...node.entries].map(([name, child]) => ({ name, isFile: () => child.kind === 'file', isDirectory: () => child.kind === 'dir' }));
  }

  rename(from: string, to: string): void {
    const src = this.parentOf(from, 'rename');
    const node = src.dir.entries.get(src.name);
    if (!node) throw fsError('ENOENT', 'rename', from);
    const dst = this.parentOf(to, 'rename');
    const replaced = dst.dir.entries.get(dst.name);
    if (replaced === node) return;
    if (replaced?.kind === 'dir' && (node.kind !== 'dir' || replaced.entries.size > 0))
      throw fsError(node.kind === 'dir' ? 'ENOTEMPTY' : 'EISDIR', 'rename', to);
    if (replaced?.kind === 'file' && node.kind === 'dir') throw fsError('ENOTDIR', 'rename', to);
    if (replaced) this.release(replaced);
    src.dir.entries.delete(src.name);
    dst.dir.entries.set(dst.name, node);
  }

  rm(p: string, recursive: boolean, force: boolean): void {
    let at: { dir: MemoryDir; name: string };
    try {
      at = this.parentOf(p, 'rm');
    } catch (err) {
      if (force && (err as NodeJS.ErrnoException).code !== 'EEXIST') return;
      throw err;
    }
    const node = at.dir.entries.get(at.name);
    if (!node) {
      if (force) return;
      throw fsError('ENOENT', 'rm', p);
    }
    if (node.kind === 'dir' && !recursive) throw fsError('EISDIR', 'rm', p);
    at.dir.entries.delete(at.name);
    this.release(node);
  }

  utimes(p: string, mtime: Date): void {
    this.lookup(p, 'utime').mtimeMs = mtime.getTime();
  }

  /** Gives back the bytes of a node taken out of the tree (descriptors still open on it keep working). */
  private release(node: MemoryNode): void {
    if (node.kind === 'file') this.used -= node.bytes.size;
    else for (const child of node.entries.values()) this.release(child);
  }

  // --- descriptors ---------------------------------------------------------------------------------

  /** open(2) with node's flag strings: r, r+, w, w+, wx, a, a+, ax. */
  open(p: string, flags: string): number {
    const create = /[wa]/.test(flags);
    const exclusive = flags.includes('x');
    let node: MemoryNode | undefined;
    const at = this.parentOf(p, 'open');
    node = at.dir.entries.get(at.name);
    if (node && exclusive) throw fsError('EEXIST', 'open', p);
    if (!node) {
      if (!create) throw fsError('ENOENT', 'open', p);
      node = { kind: 'file', bytes: new MemoryFileBytes(), mtimeMs: Date.now() };
      at.dir.entries.set(at.name, node);
    }
    const writable = create || flags.includes('+');
    if (node.kind === 'dir' && writable) throw fsError('EISDIR', 'open', p);
    if (flags.startsWith('w') && node.kind === 'file') {
      this.used -= node.bytes.size;
      node.bytes.truncate(0);
    }
    const fd = --volumes.lastDescriptor;
    descriptors.set(fd, {
      volume: this,
      node,
      path: p,
      readable: !flags.startsWith('w') && !flags.startsWith('a') ? true : flags.includes('+'),
      writable,
      append: flags.startsWith('a'),
      bounded: p.endsWith('.log'),
      position: 0,
    });
    return fd;
  }

  /** Closes every descriptor of this volume and drops its files. */
  unmount(): void {
    for (const [fd, d] of descriptors) if (d.volume === this) descriptors.delete(fd);
    this.root.entries.clear();
    this.used = 0;
  }

  static close(fd: number): void {
    if (!descriptors.delete(fd)) throw fsError('EBADF', 'close', String(fd));
  }

  static fstat(fd: number): FileStat {
    return describe(MemoryVolume.descriptor(fd, 'fstat').node);
  }

  static read(fd: number, buf: Buffer, offset: number, length: number, position: number | null): number {
    const d = MemoryVolume.descriptor(fd, 'read');
    const file = MemoryVolume.fileOf(d, 'read', d.readable);
    const n = file.bytes.read(buf, offset, length, position ?? d.position);
    if (position === null) d.position += n;
    return n;
  }

  /** Up to `length` bytes at `position`, as a view of the file's memory where they are in one piece (memory-file.ts). */
  static view(fd: number, position: number, length: number): Buffer {
    const d = MemoryVolume.descriptor(fd, 'read');
    return MemoryVolume.fileOf(d, 'read', d.readable).bytes.view(position, length);
  }

  static write(fd: number, buf: Buffer, offset: number, length: number, position: number | null | undefined): number {
    const d = MemoryVolume.descriptor(fd, 'write');
    const file = MemoryVolume.fileOf(d, 'write', d.writable);
    const at = d.append ? file.bytes.size : (position ?? d.position);
    const before = file.bytes.size;
    if (at + length > before && d.bounded) d.volume.checkRoom(at + length - before, d.path);
    file.bytes.write(buf, offset, length, at);
    d.volume.used += file.bytes.size - before;
    file.mtimeMs = Date.now();
    if (position === null || position === undefined) d.position = at + length;
    return length;
  }

  static truncate(fd: number, length: number): void {
    const d = MemoryVolume.descriptor(fd, 'ftruncate');
    const file = MemoryVolume.fileOf(d, 'ftruncate', d.writable);
    const before = file.bytes.size;
    file.bytes.truncate(length);
    d.volume.used += length - before;
    file.mtimeMs = Date.now();
  }

  static isOpen(fd: number): boolean {
    return descriptors.has(fd);
  }

  private static descriptor(fd: number, syscall: string): Descriptor {
    const d = descriptors.get(fd);
    if (!d) throw fsError('EBADF', syscall, String(fd));
    return d;
  }

  private static fileOf(d: Descriptor, syscall: string, allowed: boolean): MemoryFile {
    if (d.node.kind === 'dir') throw fsError('EISDIR', syscall, d.path);
    if (!allowed) throw fsError('EBADF', syscall, d.path);
    return d.node;
  }

  private checkRoom(more: number, p: string): void {
    if (this.used + more <= this.maxBytes) return;
    throw fsError(
      'ENOSPC',
      'write',
      p,
      `the in-memory storage is full: ${this.used} bytes held, krill.storage.memory.max.bytes is ${this.maxBytes}; ` +
        'retention (retention.bytes, retention.ms) frees space, or raise the bound',
    );
  }
}
