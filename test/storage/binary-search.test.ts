import { describe, expect, it } from 'vitest';
import { lastIndexWhere } from '../../src/storage/binary-search.js';

describe('lastIndexWhere', () => {
  const sorted = [3, 5, 5, 8, 13];
  const atOrBelow = (target: number, lo = 0) => lastIndexWhere(lo, sorted.length - 1, (i) => sorted[i] <= target);

  it('finds the last element at or below a target', () => {
    expect(atOrBelow(2)).toBe(-1);
    expect(atOrBelow(3)).toBe(0);
    expect(atOrBelow(5)).toBe(2);
    expect(atOrBelow(7)).toBe(2);
    expect(atOrBelow(13)).toBe(4);
    expect(atOrBelow(100)).toBe(4);
  });

  it('searches [lo, hi] only, answering lo - 1 when nothing there holds', () => {
    expect(atOrBelow(4, 2)).toBe(1);
    expect(atOrBelow(8, 2)).toBe(3);
    expect(lastIndexWhere(0, -1, () => true)).toBe(-1);
  });
});
