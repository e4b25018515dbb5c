// The in-memory volume behind krill.storage=memory, through storage-fs.ts as storage calls it: node:fs's
// answers (ENOENT, EEXIST, ENOTEMPTY), a view that keeps the bytes it was taken with whatever is written
// after it, the bound on segment data, and a durable path untouched.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import storageFs, { mountMemoryVolume, unmountMemoryVolume } from '../../src/storage/storage-fs.js';
import type { MemoryVolume } from '../../src/storage/memory-volume.js';
import { useTempDirs } from '../helpers.js';

const volumes: MemoryVolume[] = [];
afterEach(() => volumes.splice(0).forEach(unmountMemoryVolume));
function mount(maxBytes = 1 << 20): MemoryVolume {
  const v = mountMemoryVolume(maxBytes);
  volumes.push(v);
  return v;
}
const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return (err as NodeJS.ErrnoException).code;
  }
  return null;
};
const tempDir = useTempDirs('krill-storage-fs-');

describe('a memory volume', () => {
  it('answers as node:fs does: directories, renames, removals', () => {
    const root = mount().name;
    const dir = path.join(root, 'topic-0');
    expect(codeOf(() => storageFs.openSync(path.join(dir, 'a.log'), 'a+'))).toBe('ENOENT');
    storageFs.mkdirSync(dir, { recursive: true });
    expect(codeOf(() => storageFs.mkdirSync(dir))).toBe('EEXIST');
    storageFs.writeFileSync(path.join(dir, 'a.txt'), 'one');
    storageFs.appendFileSync(path.join(dir, 'a.txt'), ' two');
    expect(storageFs.readFileSync(path.join(dir, 'a.txt'), 'utf8')).toBe('one two');
    storageFs.renameSync(path.join(dir, 'a.txt'), path.join(dir, 'b.txt'));
    expect(storageFs.readdirSync(dir)).toEqual(['b.txt']);
    expect(storageFs.readdirEntries(root).map((e) => [e.name, e.isDirectory()])).toEqual([['topic-0', true]]);
    storageFs.mkdirSync(path.join(root, 'other'));
    expect(codeOf(() => storageFs.renameSync(path.join(root, 'other'), dir))).toBe('ENOTEMPTY');
    expect(codeOf(() => storageFs.rmSync(dir))).toBe('EISDIR');
    storageFs.rmSync(dir, { recursive: true });
    expect(storageFs.existsSync(dir)).toBe(false);
    expect(codeOf(() => storageFs.statSync(path.join(dir, 'b.txt')))).toBe('ENOENT');
    storageFs.rmSync(dir, { recursive: true, force: true });
  });

  it('keeps the bytes of a view when the file is cut and written again, or grows', () => {
    const root = mount().name;
    const fd = storageFs.openSync(path.join(root, '0.log'), 'a+');
    storageFs.writeSync(fd, Buffer.from('abcdef'), 0, 6);
    const view = storageFs.view(fd, 2, 3)!;
    expect(view.toString()).toBe('cde');
    storageFs.ftruncateSync(fd, 1);
    storageFs.writeSync(fd, Buffer.from('XYZW'), 0, 4);
    storageFs.writeSync(fd, Buffer.alloc(64 * 1024, 'q'), 0, 64 * 1024);
    expect(view.toString()).toBe('cde');
    const now = Buffer.alloc(5);
    expect(storageFs.readSync(fd, now, 0, 5, 0)).toBe(5);
    expect(now.toString()).toBe('aXYZW');
    expect(storageFs.fstatSync(fd).size).toBe(5 + 64 * 1024);
    storageFs.closeSync(fd);
    expect(codeOf(() => storageFs.fstatSync(fd))).toBe('EBADF');
  });

  it('fails a .log write past the bound with ENOSPC, lets other files past it, and frees what is removed', () => {
    const v = mount(1000);
    const log = path.join(v.name, '0.log');
    const fd = storageFs.openSync(log, 'a+');
    storageFs.writeSync(fd, Buffer.alloc(900), 0, 900);
    const err = (() => {
      try {
        storageFs.writeSync(fd, Buffer.alloc(200), 0, 200);
      } catch (e) {
        return e as NodeJS.ErrnoException;
      }
      return null;
    })();
    expect(err?.code).toBe('ENOSPC');
    expect(err?.message).toContain('the in-memory storage is full: 900 bytes held, krill.storage.memory.max.bytes is 1000');
    storageFs.writeFileSync(path.join(v.name, '0.index'), Buffer.alloc(200));
    expect(v.usedBytes).toBe(1100);
    storageFs.closeSync(fd);
    storageFs.rmSync(log);
    expect(v.usedBytes).toBe(200);
    expect(storageFs.spaceOf(v.name)).toEqual({ totalBytes: 1000, usableBytes: 800 });
  });

  it('is gone once unmounted, and paths on disk still go to the disk', () => {
    const v = mountMemoryVolume(1000);
    storageFs.writeFileSync(path.join(v.name, 'x'), 'x');
    unmountMemoryVolume(v);
    expect(storageFs.existsSync(path.join(v.name, 'x'))).toBe(false);
    expect(codeOf(() => storageFs.readFileSync(path.join(v.name, 'x')))).toBe('ENOENT');
    const disk = path.join(tempDir(), 'on-disk.log');
    const fd = storageFs.openSync(disk, 'a+');
    expect(fd).toBeGreaterThanOrEqual(0);
    expect(storageFs.view(fd, 0, 1)).toBeNull();
    storageFs.writeSync(fd, Buffer.from('disk'), 0, 4);
    storageFs.closeSync(fd);
    expect(fs.readFileSync(disk, 'utf8')).toBe('disk');
  });
});
