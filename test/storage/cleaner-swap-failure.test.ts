// A failure in the middle of PartitionLog.replaceSegments (a rename that throws, a fault only a mock of
// fs.renameSync can cause here): the swap is finished from its files when it can be, else the old segments
// are put back, else the log is closed; the list of segments never keeps closed segments for reads.
import fs from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { closeAll, produce, readAll, setup, partitionDir, type Fixture } from './cleaner-helpers.js';

afterEach(async () => {
  vi.restoreAllMocks();
  await closeAll();
});

const realRename = fs.renameSync.bind(fs);

/** Makes fs.renameSync throw EIO for the renames `fails` picks (while it returns true). */
function failRenames(fails: (from: string, to: string) => boolean): void {
  vi.spyOn(fs, 'renameSync').mockImplementation((from, to) => {
    if (fails(String(from), String(to))) throw Object.assign(new Error(`EIO: rename ${String(from)}`), { code: 'EIO' });
    realRename(from, to);
  });
}

/** Two closed segments of duplicates and an active one: the cleaner makes one segment of the two. */
function logOfDuplicates(): Fixture {
  const f = setup({ 'min.cleanable.dirty.ratio': '0.01' });
  produce(f.log, [
    { key: 'a', value: '1' },
    { key: 'a', value: '2' },
  ]); // 0-1
  f.log.roll();
  produce(f.log, [
    { key: 'b', value: '1' },
    { key: 'b', value: '2' },
  ]); // 2-3
  f.log.roll();
  produce(f.log, [{ key: 'c', value: '1' }]); // 4
  return f;
}

const offsets = (f: Fixture) => readAll(f.log).records.map((r) => r.offset);
const leftovers = (f: Fixture) => fs.readdirSync(partitionDir(f)).filter((n) => /\.(swap|cleaned)$/.test(n));

describe('a failure while swapping in a cleaned segment', () => {
  it('finishes the swap from its files when an old segment fails to be renamed once', async () => {
    const f = logOfDuplicates();
    let failures = 0;
    failRenames((_, to) => to.endsWith('00000000000000000002.log.deleted') && failures++ === 0);
    expect(await f.cleaner.runOnce()).toBe(1);
    expect(failures).toBe(2); // failed once, then done by the recovery
    expect(f.log.segmentBaseOffsets()).toEqual([0, 4]);
    expect(f.log.segmentList().every((s) => !s.isClosed)).toBe(true);
    expect(offsets(f)).toEqual([1, 3, 4]);
    expect(leftovers(f)).toEqual([]);
    vi.restoreAllMocks();
    f.reopen();
    expect(offsets(f)).toEqual([1, 3, 4]);
  });

  it('puts the old segments back when the swap cannot be installed, and cleans at the next run', async () => {
    const f = logOfDuplicates();
    failRenames((from) => from.endsWith('00000000000000000000.log.swap'));
    expect(await f.cleaner.runOnce()).toBe(0);
    expect(f.log.isClosed).toBe(false);
    expect(f.log.segmentBaseOffsets()).toEqual([0, 2, 4]);
    expect(f.log.segmentList().every((s) => !s.isClosed)).toBe(true);
    expect(offsets(f)).toEqual([0, 1, 2, 3, 4]);
    expect(leftovers(f)).toEqual([]);
    expect(f.cleaner.checkpointedOffset('t', 0)).toBeUndefined();

    vi.restoreAllMocks();
    expect(await f.cleaner.runOnce()).toBe(1);
    expect(offsets(f)).toEqual([1, 3, 4]);
    f.reopen();
    expect(offsets(f)).toEqual([1, 3, 4]);
  });

  it('closes the log when the old segments cannot be put back either; the next open finishes the swap', async () => {
    const f = logOfDuplicates();
    failRenames((from) => from.endsWith('.log.swap') || from.endsWith('.deleted'));
    expect(await f.cleaner.runOnce()).toBe(0);
    expect(f.log.isClosed).toBe(true);
    expect(() => f.log.read(0, 1 << 20)).toThrow(/closed/);
    vi.restoreAllMocks();
    f.reopen();
    expect(offsets(f)).toEqual([1, 3, 4]);
    expect(leftovers(f)).toEqual([]);
  });
});
