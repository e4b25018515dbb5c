// The cleaner's key map: latest offset per key, bounded by its buffer size at Kafka's 24 bytes an entry,
// growing from a small table as keys come.
import { describe, expect, it } from 'vitest';
import { OffsetMap } from '../../src/storage/cleaner/offset-map.js';

const key = (i: number) => Buffer.from(`key-${i}`);

describe('OffsetMap', () => {
  it('keeps the latest offset of each key, whatever its length, across growth', () => {
    const map = OffsetMap.forBufferSize(24 * 100_000);
    expect(map.maxEntries).toBe(90_000);
    for (let i = 0; i < 20_000; i++) expect(map.put(key(i), i)).toBe(true);
    for (let i = 0; i < 20_000; i += 2) expect(map.put(key(i), 100_000 + i)).toBe(true);
    const long = Buffer.alloc(5000, 7);
    expect(map.put(long, 42)).toBe(true);
    expect(map.size).toBe(20_001);
    for (let i = 0; i < 20_000; i++) expect(map.get(key(i))).toBe(i % 2 === 0 ? 100_000 + i : i);
    expect(map.get(long)).toBe(42);
    expect(map.get(Buffer.alloc(0))).toBe(-1);
    expect(map.get(key(20_000))).toBe(-1);
    // Offset 0 and large offsets are kept exactly.
    map.put(key(1), 0);
    map.put(key(3), 2 ** 52 + 1);
    expect([map.get(key(1)), map.get(key(3))]).toEqual([0, 2 ** 52 + 1]);
  });

  it('takes no more keys than 90 % of its slots, but still updates the ones it has', () => {
    const map = OffsetMap.forBufferSize(24 * 50);
    expect(map.maxEntries).toBe(45);
    for (let i = 0; i < 45; i++) expect(map.put(key(i), i)).toBe(true);
    expect(map.put(key(45), 45)).toBe(false);
    expect(map.get(key(45))).toBe(-1);
    expect(map.put(key(7), 1000)).toBe(true);
    expect(map.get(key(7))).toBe(1000);
    expect(map.size).toBe(45);
    expect(map.allocatedBytes).toBe(24 * 50);
  });

  it('holds its memory within the buffer size: it starts small and doubles up to it', () => {
    const bytes = 24 * 10_000;
    const map = OffsetMap.forBufferSize(bytes);
    expect(map.allocatedBytes).toBe(24 * 1024);
    let n = 0;
    while (map.put(key(n), n)) n++;
    expect(n).toBe(9_000);
    expect(map.allocatedBytes).toBeLessThanOrEqual(bytes);
    expect(map.allocatedBytes).toBe(bytes);
  });

  it('with no buffer takes nothing', () => {
    const map = OffsetMap.forBufferSize(0);
    expect(map.put(key(1), 1)).toBe(false);
    expect(map.get(key(1))).toBe(-1);
    expect(map.size).toBe(0);
  });
});
