// Exact reads near the end of the log: the same batches as a read that takes the whole budget and cuts it.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PartitionLog } from '../../src/storage/partition-log.js';
import { RecentBatches } from '../../src/storage/recent-batches.js';
import { buildBatch, rmDir, tempDir, toAppend } from './batches.js';

describe('RecentBatches', () => {
  it('finds the end of the last whole batch within a limit', () => {
    const r = new RecentBatches();
    expect(r.wholeBatchesEnd(0, 100, 300)).toBe(-1); // nothing recorded
    for (const p of [0, 100, 250]) r.add(p); // batches [0,100) [100,250) [250,300)
    expect(r.wholeBatchesEnd(0, 99, 300)).toBe(-1); // not even the first batch fits
    expect(r.wholeBatchesEnd(0, 100, 300)).toBe(100);
    expect(r.wholeBatchesEnd(0, 249, 300)).toBe(100);
    expect(r.wholeBatchesEnd(0, 250, 300)).toBe(250);
    expect(r.wholeBatchesEnd(100, 260, 300)).toBe(250);
    expect(r.wholeBatchesEnd(0, 300, 300)).toBe(300);
    expect(r.wholeBatchesEnd(250, 1000, 300)).toBe(300);
    expect(r.wholeBatchesEnd(300, 1000, 300)).toBe(-1); // at the end: nothing to read
    r.clear();
    expect(r.wholeBatchesEnd(0, 300, 300)).toBe(-1);
  });

  it('keeps only the last 1024 batches', () => {
    const r = new RecentBatches();
    for (let i = 0; i < 5000; i++) r.add(i * 10);
    expect(r.wholeBatchesEnd(10 * (5000 - 1024), 10 * (5000 - 1024) + 25, 50_000)).toBe(10 * (5000 - 1024) + 20);
    expect(r.wholeBatchesEnd(10 * (5000 - 1025), 10 * (5000 - 1024) + 25, 50_000)).toBe(-1); // forgotten
  });
});

describe('Segment reads with and without recent batch positions', () => {
  let root: string;
  beforeEach(() => {
    root = tempDir();
  });
  afterEach(() => rmDir(root));

  it('return the same bytes for every offset, budget and minOneBatch', () => {
    const dir = path.join(root, 't-0');
    const log = PartitionLog.open(dir, { segmentBytes: 6000 });
    for (let i = 0; i < 40; i++) {
      const { buf, batches } = toAppend(buildBatch({ records: 1 + (i % 3), valueSize: 100 + ((i * 37) % 400) }));
      log.append(buf, batches);
    }
    expect(log.segmentBaseOffsets().length).toBeGreaterThan(2);
    const offsets = [0, 1, 5, 30, 60, log.logEndOffset - 2, log.logEndOffset - 1, log.logEndOffset];
    const budgets = [0, 1, 61, 300, 700, 2000, 5000, 1 << 20];
    const reads = (l: PartitionLog) => {
      const out: string[] = [];
      for (const o of offsets) for (const b of budgets) for (const min of [true, false]) out.push(Buffer.concat(l.read(o, b, min).records).toString('hex'));
      return out;
    };
    const withPositions = reads(log);
    log.close();
    // Reopened, the log knows no recent batch positions: every read takes the whole budget and cuts it.
    const reopened = PartitionLog.open(dir, { segmentBytes: 6000 });
    try {
      expect(reads(reopened)).toEqual(withPositions);
    } finally {
      reopened.close();
    }
    expect(fs.existsSync(dir)).toBe(true);
  });
});
