// The leader epoch cache: Kafka's LeaderEpochFileCache rules (assign, endOffsetFor, truncation from either
// end; the cases are those of Kafka's LeaderEpochFileCacheTest) and its leader-epoch-checkpoint file.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LEADER_EPOCH_CHECKPOINT, LeaderEpochCache } from '../../src/storage/leader-epoch-cache.js';
import { rmDir, tempDir } from './batches.js';

let dir: string;
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => rmDir(dir));

const LEO = 100;

/** A cache in a directory of its own (cacheIn: a given one) with these assign() calls made. */
function cacheWith(...entries: [number, number][]): LeaderEpochCache {
  return cacheIn(fs.mkdtempSync(path.join(dir, 'cache-')), ...entries);
}

function cacheIn(where: string, ...entries: [number, number][]): LeaderEpochCache {
  const cache = LeaderEpochCache.load(where);
  for (const [epoch, start] of entries) cache.assign(epoch, start);
  return cache;
}

const pairs = (cache: LeaderEpochCache) => cache.entries().map((e) => [e.epoch, e.startOffset]);

function warnings(): { warn: (obj: object, msg?: string) => void; info: () => void; seen: string[] } {
  const seen: string[] = [];
  return { warn: (_obj, msg) => seen.push(msg ?? ''), info: () => {}, seen };
}

describe('LeaderEpochCache.assign', () => {
  it('records a new epoch; the same epoch again, at the same or a later offset, changes nothing', () => {
    const cache = cacheWith([2, 6], [2, 6], [2, 7]);
    expect(pairs(cache)).toEqual([[2, 6]]);
    expect(cache.latestEpoch).toBe(2);
    cache.assign(1, 10); // not an update of the latest entry: Kafka's rule removes the conflicting ones
    expect(pairs(cache)).toEqual([[1, 10]]);
  });

  it('is -1 when empty; negative epochs or offsets (batches without a leader epoch) are ignored', () => {
    const cache = cacheWith([-1, 0], [3, -1]);
    expect(cache.latestEpoch).toBe(-1);
    expect(cache.entries()).toEqual([]);
  });

  it('removes entries at the end whose epoch or start offset is not below the new one', () => {
    const cache = cacheWith([5, 11], [6, 12], [7, 13]);
    cache.assign(7, 12); // the latest epoch at an earlier offset
    expect(pairs(cache)).toEqual([
      [5, 11],
      [7, 12],
    ]);
    const other = cacheWith([2, 6]);
    other.assign(3, 5); // a higher epoch starting lower
    expect(pairs(other)).toEqual([[3, 5]]);
  });
});

describe('LeaderEpochCache.endOffsetFor', () => {
  it('answers the log end offset for the latest epoch', () => {
    expect(cacheWith([2, 5], [3, 6], [4, 7]).endOffsetFor(4, LEO)).toEqual({ leaderEpoch: 4, endOffset: LEO });
    expect(cacheWith([2, 6]).endOffsetFor(2, LEO)).toEqual({ leaderEpoch: 2, endOffset: LEO }); // epochs need not start at 0
  });

  it('answers undefined (-1, -1) for -1, for an epoch above the latest and for an empty cache', () => {
    expect(cacheWith([2, 5]).endOffsetFor(-1, LEO)).toEqual({ leaderEpoch: -1, endOffset: -1 });
    expect(cacheWith([2, 100]).endOffsetFor(3, LEO)).toEqual({ leaderEpoch: -1, endOffset: -1 });
    expect(cacheWith().endOffsetFor(0, LEO)).toEqual({ leaderEpoch: -1, endOffset: -1 });
  });

  it('answers an earlier epoch with the start offset of the next one', () => {
    const cache = cacheWith([1, 5], [1, 6], [1, 7], [2, 8], [2, 9]);
    expect(cache.endOffsetFor(1, 10)).toEqual({ leaderEpoch: 1, endOffset: 8 });
  });

  it('answers an epoch without an entry with the largest epoch below it and the start of the next', () => {
    const cache = cacheWith([0, 10], [2, 13], [4, 17]);
    expect(cache.endOffsetFor(0, LEO)).toEqual({ leaderEpoch: 0, endOffset: 13 });
    expect(cache.endOffsetFor(1, LEO)).toEqual({ leaderEpoch: 0, endOffset: 13 });
    expect(cache.endOffsetFor(2, LEO)).toEqual({ leaderEpoch: 2, endOffset: 17 });
    expect(cache.endOffsetFor(3, LEO)).toEqual({ leaderEpoch: 2, endOffset: 17 });
  });

  it("answers an epoch below the first known with itself and the first entry's start offset", () => {
    const cache = cacheWith([5, 11], [6, 12]);
    expect(cache.endOffsetFor(4, LEO)).toEqual({ leaderEpoch: 4, endOffset: 11 });
  });
});

describe('LeaderEpochCache truncation', () => {
  it('truncateFromEnd drops the entries starting at or after the offset', () => {
    const cache = cacheWith([2, 6], [3, 8], [4, 11]);
    cache.truncateFromEnd(12);
    expect(pairs(cache)).toEqual([
      [2, 6],
      [3, 8],
      [4, 11],
    ]);
    cache.truncateFromEnd(9);
    expect(pairs(cache)).toEqual([
      [2, 6],
      [3, 8],
    ]);
    cache.truncateFromEnd(8);
    expect(pairs(cache)).toEqual([[2, 6]]);
    cache.truncateFromEnd(0);
    expect(pairs(cache)).toEqual([]);
  });

  it('truncateFromStart keeps the epoch holding the new start, moved up to it', () => {
    const at = (offset: number) => {
      const cache = cacheWith([2, 6], [3, 8], [4, 11]);
      cache.truncateFromStart(offset);
      return pairs(cache);
    };
    expect(at(5)).toEqual([
      [2, 6],
      [3, 8],
      [4, 11],
    ]);
    expect(at(8)).toEqual([
      [3, 8],
      [4, 11],
    ]);
    expect(at(9)).toEqual([
      [3, 9],
      [4, 11],
    ]);
    expect(at(11)).toEqual([[4, 11]]);
    expect(at(50)).toEqual([[4, 50]]);
  });

  it('clearAndFlush empties the cache and its file', () => {
    const cache = cacheIn(dir, [1, 0], [2, 5]);
    cache.clearAndFlush();
    expect(cache.entries()).toEqual([]);
    expect(fs.readFileSync(path.join(dir, LEADER_EPOCH_CHECKPOINT), 'utf8')).toBe('0\n0\n');
    expect(LeaderEpochCache.load(dir).entries()).toEqual([]);
  });
});

describe('the leader-epoch-checkpoint file', () => {
  it("is written in Kafka's format at every change and read back by the next load", () => {
    const cache = cacheIn(dir, [0, 0], [3, 17], [4, 40]);
    expect(fs.readFileSync(path.join(dir, LEADER_EPOCH_CHECKPOINT), 'utf8')).toBe('0\n3\n0 0\n3 17\n4 40\n');
    cache.truncateFromEnd(40);
    const again = LeaderEpochCache.load(dir);
    expect(again.fromFile).toBe(true);
    expect(pairs(again)).toEqual([
      [0, 0],
      [3, 17],
    ]);
    expect(again.endOffsetFor(0, LEO)).toEqual({ leaderEpoch: 0, endOffset: 17 });
  });

  it('missing: an empty cache, no file written until something changes', () => {
    const cache = LeaderEpochCache.load(dir);
    expect(cache.fromFile).toBe(false);
    expect(cache.latestEpoch).toBe(-1);
    expect(fs.existsSync(path.join(dir, LEADER_EPOCH_CHECKPOINT))).toBe(false);
  });

  it('malformed: logged, read as empty, never thrown; the next change replaces it', () => {
    const file = path.join(dir, LEADER_EPOCH_CHECKPOINT);
    for (const text of ['0\n2\n1 0\n', '1\n1\n1 0\n', '0\n1\n1 x\n', '0\n1\n1\n', '', 'garbage', '0\n1\n-1 5\n']) {
      fs.writeFileSync(file, text);
      const log = warnings();
      const cache = LeaderEpochCache.load(dir, log);
      expect(cache.entries(), JSON.stringify(text)).toEqual([]);
      expect(cache.fromFile).toBe(false);
      expect(log.seen.length, JSON.stringify(text)).toBe(1);
    }
    fs.rmSync(file);
    fs.mkdirSync(file); // unreadable as a file
    expect(LeaderEpochCache.load(dir, warnings()).entries()).toEqual([]);
    fs.rmdirSync(file);
    fs.writeFileSync(file, 'garbage');
    LeaderEpochCache.load(dir, warnings()).assign(1, 0);
    expect(fs.readFileSync(file, 'utf8')).toBe('0\n1\n1 0\n');
  });

  it('entries out of order in the file are put right as Kafka does (each goes through assign)', () => {
    fs.writeFileSync(path.join(dir, LEADER_EPOCH_CHECKPOINT), '0\n3\n1 0\n2 10\n3 5\n');
    expect(pairs(LeaderEpochCache.load(dir))).toEqual([
      [1, 0],
      [3, 5],
    ]);
  });
});
