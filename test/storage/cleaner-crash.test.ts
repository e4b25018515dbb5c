// A crash at each step of swapping a cleaned segment in (cleaner/swap.ts), left on disk as the crash would
// leave it: reopened, the log holds either what it held before the pass or what the pass made of it, never
// a mix, never fewer latest values, never a record twice, and no leftover file.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LogManager } from '../../src/storage/log-manager.js';
import { segmentFileName, type SegmentFileKind } from '../../src/storage/file-names.js';
import { TOPIC, closeAll, latestByKey, produce, readAll, setup, type ReadRecord } from './cleaner-helpers.js';
import { rmDir, tempDir } from './batches.js';

afterEach(closeAll);

const KINDS: SegmentFileKind[] = ['index', 'timeindex', 'log'];
let before: string;
let after: string;
let contentBefore: ReadRecord[];
let contentAfter: ReadRecord[];
let oldBases: number[];
const work: string[] = [];

beforeAll(async () => {
  const f = setup({ 'min.cleanable.dirty.ratio': '0.01' });
  for (let round = 0; round < 6; round++) {
    for (let k = 0; k < 8; k++) produce(f.log, [{ key: `key-${k}`, value: `value-${k}-${round}` }]);
    if (round % 2 === 1) f.log.roll();
  }
  produce(f.log, [{ key: 'key-0', value: 'active' }]);
  oldBases = f.log.segmentBaseOffsets().slice(0, -1);
  expect(oldBases.length).toBe(3);
  contentBefore = readAll(f.log).records;
  f.mgr.close();
  before = tempDir('krill-cleaner-before-');
  fs.cpSync(f.root, before, { recursive: true });
  f.reopen();
  expect(await f.cleaner.runOnce()).toBe(1);
  expect(f.log.segmentBaseOffsets()).toHaveLength(2); // one cleaned segment for the three, and the active one
  contentAfter = readAll(f.log).records;
  f.mgr.close();
  after = tempDir('krill-cleaner-after-');
  fs.cpSync(f.root, after, { recursive: true });
  work.push(before, after);
  return () => work.forEach(rmDir);
});

/** A data dir as a crash left it: the old segments, then `arrange` moves the new segment's files in. */
function crashState(arrange: (oldDir: string, newDir: string) => void): string {
  const root = tempDir('krill-cleaner-crash-');
  work.push(root);
  fs.cpSync(before, root, { recursive: true });
  fs.rmSync(path.join(root, '.kafka_cleanshutdown'));
  arrange(path.join(root, `${TOPIC}-0`), path.join(after, `${TOPIC}-0`));
  return root;
}

function reopened(root: string): ReadRecord[] {
  const mgr = LogManager.open({ dataDir: root });
  try {
    const log = mgr.partition(TOPIC, 0)!;
    const leftovers = fs.readdirSync(log.dir).filter((n) => /\.(cleaned|swap|deleted)$/.test(n));
    expect(leftovers).toEqual([]);
    return readAll(log).records;
  } finally {
    mgr.close();
  }
}

const copyNew = (newDir: string, dir: string, kind: SegmentFileKind, suffix: string) =>
  fs.copyFileSync(path.join(newDir, segmentFileName(0, kind)), path.join(dir, segmentFileName(0, kind) + suffix));
const renameOld = (dir: string, base: number, kind: SegmentFileKind) =>
  fs.renameSync(path.join(dir, segmentFileName(base, kind)), path.join(dir, segmentFileName(base, kind) + '.deleted'));

describe('a crash while a cleaned segment is swapped in', () => {
  it('the two ends: before and after the pass hold the same latest value of every key', () => {
    expect(latestByKey(contentAfter)).toEqual(latestByKey(contentBefore));
    expect(contentAfter.length).toBeLessThan(contentBefore.length);
  });

  it('while the .cleaned files were written: the old segments stay', () => {
    const root = crashState((dir, newDir) => {
      copyNew(newDir, dir, 'index', '.cleaned');
      const log = fs.readFileSync(path.join(newDir, segmentFileName(0, 'log')));
      fs.writeFileSync(path.join(dir, segmentFileName(0, 'log') + '.cleaned'), log.subarray(0, Math.floor(log.length / 2)));
    });
    expect(reopened(root)).toEqual(contentBefore);
  });

  it('while .cleaned became .swap (the indexes renamed, not the .log): the old segments stay', () => {
    const root = crashState((dir, newDir) => {
      copyNew(newDir, dir, 'index', '.swap');
      copyNew(newDir, dir, 'timeindex', '.swap');
      copyNew(newDir, dir, 'log', '.cleaned');
    });
    expect(reopened(root)).toEqual(contentBefore);
  });

  it('once the .log.swap is there, before any old segment went: the swap is completed', () => {
    const root = crashState((dir, newDir) => KINDS.forEach((k) => copyNew(newDir, dir, k, '.swap')));
    expect(reopened(root)).toEqual(contentAfter);
  });

  it('while the old segments were renamed .deleted: the swap is completed', () => {
    const root = crashState((dir, newDir) => {
      KINDS.forEach((k) => copyNew(newDir, dir, k, '.swap'));
      KINDS.forEach((k) => renameOld(dir, oldBases[0], k));
      renameOld(dir, oldBases[1], 'index');
    });
    expect(reopened(root)).toEqual(contentAfter);
  });

  it('while an old segment was renamed .deleted as Segment.renameForDeletion does it (its .log first, not yet its indexes): the swap is completed', () => {
    const root = crashState((dir, newDir) => {
      KINDS.forEach((k) => copyNew(newDir, dir, k, '.swap'));
      KINDS.forEach((k) => renameOld(dir, oldBases[0], k));
      renameOld(dir, oldBases[1], 'log');
    });
    expect(reopened(root)).toEqual(contentAfter);
    // The indexes left behind by the .log renamed away are not taken for a segment's.
    const names = fs.readdirSync(path.join(root, `${TOPIC}-0`)).filter((n) => /\.(log|index|timeindex)$/.test(n));
    expect(names.filter((n) => n.startsWith(segmentFileName(oldBases[1], 'log').slice(0, 20)))).toEqual([]);
  });

  it('while the .swap files took their names (the indexes done, not the .log): the swap is completed', () => {
    const root = crashState((dir, newDir) => {
      for (const base of oldBases) KINDS.forEach((k) => fs.rmSync(path.join(dir, segmentFileName(base, k))));
      copyNew(newDir, dir, 'index', '');
      copyNew(newDir, dir, 'timeindex', '');
      copyNew(newDir, dir, 'log', '.swap');
    });
    expect(reopened(root)).toEqual(contentAfter);
  });

  it('after the swap, before the checkpoint was written: the log is the cleaned one', () => {
    const root = crashState((dir, newDir) => {
      for (const base of oldBases) KINDS.forEach((k) => fs.rmSync(path.join(dir, segmentFileName(base, k))));
      KINDS.forEach((k) => copyNew(newDir, dir, k, ''));
    });
    expect(reopened(root)).toEqual(contentAfter);
  });
});
