// A memory volume file's chunked bytes: reads and views across chunks, truncation at and inside a chunk,
// and writes over stored bytes, checked against a flat copy of what was written; a view keeps its bytes.
import { describe, expect, it } from 'vitest';
import { MemoryFileBytes } from '../../src/storage/memory-file.js';

/** Bytes of the given length, each its index modulo 251 plus `salt`. */
const pattern = (length: number, salt = 0) => Buffer.from(Array.from({ length }, (_, i) => (i + salt) % 251));

function contents(f: MemoryFileBytes): Buffer {
  const out = Buffer.alloc(f.size);
  expect(f.read(out, 0, out.length, 0)).toBe(f.size);
  return out;
}

describe('MemoryFileBytes', () => {
  it('reads and views what was appended, across chunk boundaries', () => {
    const f = new MemoryFileBytes();
    const flat: Buffer[] = [];
    // Growing writes: the first chunks are small, so many writes start new ones.
    for (let i = 1; i <= 40; i++) {
      const w = pattern(i * 397, i);
      f.write(w, 0, w.length, f.size);
      flat.push(w);
    }
    const all = Buffer.concat(flat);
    expect(contents(f)).toEqual(all);
    for (const [pos, len] of [
      [0, 10],
      [4090, 20],
      [1000, 100_000],
      [all.length - 5, 50],
    ]) {
      expect(f.view(pos, len)).toEqual(all.subarray(pos, Math.min(all.length, pos + len)));
    }
    expect(f.view(all.length, 10).length).toBe(0);
  });

  it('truncates inside and at the end of a chunk, and appends after it without touching a view', () => {
    const f = new MemoryFileBytes();
    const a = pattern(3000, 1);
    const b = pattern(3000, 2);
    f.write(a, 0, a.length, 0);
    f.write(b, 0, b.length, 3000);
    const view = f.view(2000, 500);
    const before = Buffer.from(view);
    f.truncate(2100);
    const c = pattern(1000, 3);
    f.write(c, 0, c.length, 2100);
    expect(view).toEqual(before);
    expect(contents(f)).toEqual(Buffer.concat([a.subarray(0, 2100), c]));
    f.truncate(3100);
    expect(contents(f)).toEqual(Buffer.concat([a.subarray(0, 2100), c]));
    f.truncate(0);
    expect(f.size).toBe(0);
    f.truncate(10);
    expect(contents(f)).toEqual(Buffer.alloc(10));
  });

  it('writes over stored bytes in copies of the chunks, and past the end with zeros between', () => {
    const f = new MemoryFileBytes();
    const a = pattern(5000, 4);
    f.write(a, 0, a.length, 0);
    const view = f.view(100, 4800);
    const before = Buffer.from(view);
    const over = pattern(4000, 5);
    f.write(over, 0, over.length, 3000);
    expect(view).toEqual(before);
    expect(contents(f)).toEqual(Buffer.concat([a.subarray(0, 3000), over]));
    f.write(Buffer.from('x'), 0, 1, 7010);
    expect(contents(f)).toEqual(Buffer.concat([a.subarray(0, 3000), over, Buffer.alloc(10), Buffer.from('x')]));
  });
});
