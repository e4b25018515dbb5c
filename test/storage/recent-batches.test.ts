// Exact reads near the end of the log: the same batches as a read that takes the whole budget and cuts it.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PartitionLog } from '../../src/storage/partition-log.js';
import { RecentBatches } from '../../src/storage/recent-batches.js';
import { buildBatch, rmDir, tempDir, toAppend } from './batches.js';

/** How many batches a run of whole batches holds. */
function countBatches(buf: Buffer): number {
  let n = 0;
  for (let at = 0; at < buf.length; at += 12 + buf.readInt32BE(at + 8)) n++;
  return n;
}

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

  const profiles = [
    // small batches: the cold read takes the budget and cuts it
    {
      name: 'small batches',
      segmentBytes: 6000,
      batch: (i: number) => ({ records: 1 + (i % 3), valueSize: 100 + ((i * 37) % 400) }),
      budgets: [0, 1, 61, 300, 700, 2000, 5000, 1 << 20],
    },
    // large batches, a few small ones among them: the cold read walks size prefixes (or gives up and cuts)
    {
      name: 'large batches',
      segmentBytes: 400_000,
      batch: (i: number) => (i % 7 === 3 ? { records: 1, valueSize: 50 } : { records: 1 + (i % 2), valueSize: 20_000 + ((i * 7919) % 40_000) }),
      budgets: [0, 1, 61, 10_000, 30_000, 70_000, 150_000, 1 << 20],
    },
  ];
  for (const profile of profiles) {
    it(`return the same bytes for every offset, budget and minOneBatch (${profile.name})`, () => {
      const dir = path.join(root, 't-0');
      const log = PartitionLog.open(dir, { segmentBytes: profile.segmentBytes });
      for (let i = 0; i < 40; i++) {
        const { buf, batches } = toAppend(buildBatch(profile.batch(i)));
        log.append(buf, batches);
      }
      expect(log.segmentBaseOffsets().length).toBeGreaterThan(2);
      const offsets = [0, 1, 5, 30, 60, log.logEndOffset - 2, log.logEndOffset - 1, log.logEndOffset].filter((o) => o <= log.logEndOffset);
      const reads = (l: PartitionLog) => {
        const out: string[] = [];
        for (const o of offsets)
          for (const b of profile.budgets) for (const min of [true, false]) out.push(Buffer.concat(l.read(o, b, min).records).toString('hex'));
        return out;
      };
      const withPositions = reads(log);
      log.close();
      // Reopened, the log knows no recent batch positions: reads are cold.
      const reopened = PartitionLog.open(dir, { segmentBytes: profile.segmentBytes });
      try {
        expect(reads(reopened)).toEqual(withPositions);
      } finally {
        reopened.close();
      }
      expect(fs.existsSync(dir)).toBe(true);
    });
  }

  it('a cold read of large batches reads little more than it returns', () => {
    const dir = path.join(root, 't-0');
    const sizes = [300_000, 500_000, 700_000, 400_000, 600_000, 900_000, 350_000, 800_000];
    const log = PartitionLog.open(dir, { segmentBytes: 100 << 20 });
    let stored = 0;
    for (const valueSize of sizes) {
      const { buf, batches } = toAppend(buildBatch({ valueSize }));
      log.append(buf, batches);
      stored += buf.length;
    }
    log.close();
    const cold = PartitionLog.open(dir, { segmentBytes: 100 << 20 });
    try {
      const readBytes = () => Number(/rchar: (\d+)/.exec(fs.readFileSync('/proc/self/io', 'utf8'))![1]);
      // A consumer catching up with a 1 MB partition budget, as librdkafka's default is.
      let offset = 0;
      let returned = 0;
      const before = readBytes();
      while (offset < sizes.length) {
        const records = cold.read(offset, 1 << 20, true).records;
        if (records.length === 0) throw new Error(`no progress at offset ${offset}`);
        for (const r of records) returned += r.length;
        offset += countBatches(Buffer.concat(records));
      }
      const read = readBytes() - before;
      expect(returned).toBe(stored);
      // Before, each read took the whole megabyte and cut it: about twice what it returned.
      expect(read).toBeLessThan(returned + 256 * 1024);
    } finally {
      cold.close();
    }
  });
});
