import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OffsetIndex } from '../../src/storage/offset-index.js';
import { TimeIndex } from '../../src/storage/time-index.js';
import {
  deletedDirName,
  isDeletedDirName,
  offsetToName,
  parsePartitionDirName,
  parseSegmentFileName,
  partitionDirName,
  segmentFileName,
} from '../../src/storage/file-names.js';
import { rmDir, tempDir } from './batches.js';

let dir: string;
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => rmDir(dir));

describe('file names', () => {
  it('pads base offsets to 20 digits', () => {
    expect(offsetToName(0)).toBe('00000000000000000000');
    expect(segmentFileName(42, 'log')).toBe('00000000000000000042.log');
    expect(segmentFileName(1234567890123, 'index')).toBe('00000001234567890123.index');
    expect(segmentFileName(7, 'timeindex')).toBe('00000000000000000007.timeindex');
    expect(parseSegmentFileName('00000000000000000042.timeindex')).toEqual({ baseOffset: 42, kind: 'timeindex' });
    expect(parseSegmentFileName('00000000000000000042.log.deleted')).toBeNull();
    expect(parseSegmentFileName('42.log')).toBeNull();
  });

  it('splits partition directory names at the last dash', () => {
    expect(partitionDirName('my-topic', 3)).toBe('my-topic-3');
    expect(parsePartitionDirName('my-topic-3')).toEqual({ topic: 'my-topic', partition: 3 });
    expect(parsePartitionDirName('a-b-c-12')).toEqual({ topic: 'a-b-c', partition: 12 });
    expect(parsePartitionDirName('topic')).toBeNull();
    expect(parsePartitionDirName('topic-')).toBeNull();
    expect(parsePartitionDirName('-1')).toBeNull();
    expect(parsePartitionDirName('t-01')).toBeNull();
    const doomed = deletedDirName('my-topic', 0, 'abc');
    expect(doomed).toBe('my-topic-0.abc-delete');
    expect(isDeletedDirName(doomed)).toBe(true);
    expect(parsePartitionDirName(doomed)).toBeNull();
  });
});

describe('offset index', () => {
  it('finds the largest entry <= target by binary search', () => {
    const idx = new OffsetIndex(path.join(dir, 'x.index'), 1000);
    for (let i = 0; i < 1000; i++) idx.append(1000 + i * 10 + 5, i * 100 + 7);
    expect(idx.entries).toBe(1000);
    expect(fs.statSync(idx.path).size).toBe(8000);
    expect(idx.lookup(999)).toEqual({ offset: 1000, position: 0 });
    expect(idx.lookup(1004)).toEqual({ offset: 1000, position: 0 });
    expect(idx.lookup(1005)).toEqual({ offset: 1005, position: 7 });
    for (let t = 1005; t < 1000 + 10_000; t += 37) {
      const i = Math.floor((t - 1005) / 10);
      expect(idx.lookup(t)).toEqual({ offset: 1005 + i * 10, position: i * 100 + 7 });
    }
    expect(idx.lookup(1e12)).toEqual({ offset: 1000 + 999 * 10 + 5, position: 99907 });
    expect(idx.validate(1e6)).toBeNull();
    expect(idx.validate(50_000)).toMatch(/outside the log/);
    idx.close();

    const again = new OffsetIndex(idx.path, 1000);
    expect(again.entries).toBe(1000);
    expect(again.lookup(1500)).toEqual({ offset: 1495, position: 4907 });
    again.truncateTo(1495);
    expect(again.entries).toBe(49);
    expect(again.lastEntry()).toEqual({ offset: 1485, position: 4807 });
    again.truncateToPosition(4000);
    expect(again.lastEntry()).toEqual({ offset: 1395, position: 3907 });
    expect(() => again.append(1395, 9999)).toThrow();
    again.close();
  });

  it('rejects garbage on validation and drops a torn trailing entry', () => {
    const p = path.join(dir, 'y.index');
    fs.writeFileSync(p, Buffer.from([0, 0, 0, 9, 0, 0, 1, 0, 0, 0, 0, 3, 0, 0, 2, 0, 1, 2, 3]));
    const idx = new OffsetIndex(p, 0);
    expect(idx.sane()).toBe(false);
    expect(idx.entries).toBe(2); // the torn 3 bytes are cut
    expect(idx.validate(10_000)).toMatch(/not increasing/);
    idx.close();
  });
});

describe('time index', () => {
  it('appends only increasing timestamps and looks up the largest <= ts', () => {
    const idx = new TimeIndex(path.join(dir, 'x.timeindex'), 100);
    expect(idx.lookup(5)).toEqual({ timestamp: -1, offset: 100 });
    expect(idx.maybeAppend(1000, 101)).toBe(true);
    expect(idx.maybeAppend(1000, 105)).toBe(false);
    expect(idx.maybeAppend(900, 106)).toBe(false);
    expect(idx.maybeAppend(2000, 110)).toBe(true);
    expect(idx.maybeAppend(3000, 110)).toBe(true);
    expect(fs.statSync(idx.path).size).toBe(36);
    expect(idx.lookup(999)).toEqual({ timestamp: -1, offset: 100 });
    expect(idx.lookup(1000)).toEqual({ timestamp: 1000, offset: 101 });
    expect(idx.lookup(2999)).toEqual({ timestamp: 2000, offset: 110 });
    expect(idx.lookup(1e15)).toEqual({ timestamp: 3000, offset: 110 });
    expect(idx.validate(111)).toBeNull();
    expect(idx.validate(110)).toMatch(/past the segment/);
    idx.truncateTo(110);
    expect(idx.entries).toBe(1);
    idx.close();
    const big = new TimeIndex(path.join(dir, 'big.timeindex'), 0);
    const t0 = 1_700_000_000_000;
    for (let i = 0; i < 500; i++) big.maybeAppend(t0 + i * 10, i * 3);
    for (let ts = t0 - 5; ts < t0 + 5000; ts += 7) {
      const i = Math.floor((ts - t0) / 10);
      expect(big.lookup(ts)).toEqual(i < 0 ? { timestamp: -1, offset: 0 } : { timestamp: t0 + i * 10, offset: i * 3 });
    }
    big.close();
  });
});
