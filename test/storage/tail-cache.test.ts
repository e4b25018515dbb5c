// The tail cache: reads at the end of the log come from the appended buffers, byte for byte what the
// files hold, within one process-wide budget.
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PartitionLog } from '../../src/storage/partition-log.js';
import { setTailCacheBytes, tailCacheBytes } from '../../src/storage/tail-cache.js';
import { buildBatch, parseBatches, rmDir, tempDir, toAppend } from './batches.js';

let root: string;
const logs: PartitionLog[] = [];
const defaultBudget = tailCacheBytes().budget;

beforeEach(() => {
  root = tempDir();
});
afterEach(() => {
  for (const l of logs.splice(0)) if (!l.isClosed) l.close();
  setTailCacheBytes(defaultBudget);
  rmDir(root);
});

function open(name: string, opts: Parameters<typeof PartitionLog.open>[1] = {}): PartitionLog {
  const log = PartitionLog.open(path.join(root, name), opts);
  logs.push(log);
  return log;
}

/** Appends one batch per call, each in a buffer of its own (as produce requests do). */
function fill(log: PartitionLog, count: number, valueSize = 100): Buffer[] {
  const appended: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const { buf, batches } = toAppend(buildBatch({ records: 1 + (i % 4), valueSize: valueSize + i }));
    log.append(buf, batches);
    appended.push(buf);
  }
  return appended;
}

const concat = (r: { records: Buffer[] }) => Buffer.concat(r.records);
/** The same bytes in memory, not a copy (small buffers share Node's pool, so .buffer alone says little). */
const sameMemory = (a: Buffer, b: Buffer) => a.buffer === b.buffer && a.byteOffset === b.byteOffset;

describe('tail cache', () => {
  it('serves the end of the log from the appended buffers themselves, without a copy', () => {
    const log = open('t-0');
    const appended = fill(log, 5);
    const last = appended[4];
    const r = log.read(log.logEndOffset - 1, 1 << 20);
    expect(r.records).toHaveLength(1);
    expect(sameMemory(r.records[0], last)).toBe(true);
    expect(r.records[0].equals(last)).toBe(true);
    expect(tailCacheBytes().used).toBeGreaterThan(0);
  });

  it('answers every read exactly as the files do (same batches, budgets, KIP-74 first batch)', () => {
    const log = open('t-0', { segmentBytes: 4000 });
    fill(log, 60, 150);
    expect(log.segmentBaseOffsets().length).toBeGreaterThan(3);
    log.flush();
    // A second log on a copy of the same files has nothing cached: it reads from the files.
    const cachedReads: Buffer[] = [];
    const offsets = [0, 1, 7, 50, 99, log.logEndOffset - 1, log.logEndOffset];
    const budgets = [0, 1, 200, 1000, 5000, 1 << 20];
    for (const o of offsets) for (const b of budgets) for (const min of [true, false]) cachedReads.push(concat(log.read(o, b, min)));
    log.close();
    const fromFiles = open('t-0');
    expect(tailCacheBytes().used).toBe(0);
    let i = 0;
    for (const o of offsets) {
      for (const b of budgets) {
        for (const min of [true, false]) {
          const expected = concat(fromFiles.read(o, b, min));
          expect(cachedReads[i++].equals(expected), `offset ${o} maxBytes ${b} minOneBatch ${min}`).toBe(true);
        }
      }
    }
    expect(tailCacheBytes().used).toBe(0); // reads do not fill the cache
  });

  it('keeps within its budget, evicting the oldest appends of all partitions first', () => {
    setTailCacheBytes(64 * 1024);
    const a = open('a-0');
    const b = open('b-0');
    const appendedA = fill(a, 100, 400);
    const appendedB = fill(b, 100, 400);
    const used = tailCacheBytes().used;
    expect(used).toBeGreaterThan(0);
    expect(used).toBeLessThanOrEqual(64 * 1024);
    // b was appended last: its end is cached; a's is older and was evicted.
    expect(sameMemory(b.read(b.logEndOffset - 1, 1 << 20).records[0], appendedB[99])).toBe(true);
    expect(sameMemory(a.read(a.logEndOffset - 1, 1 << 20).records[0], appendedA[99])).toBe(false);
    // Evicted or not, every record reads back.
    expect(parseBatches(a.read(0, 1 << 30).records).length).toBe(100);
    expect(parseBatches(b.read(0, 1 << 30).records).length).toBe(100);
  });

  it('is emptied by close and delete, and off at budget 0', () => {
    const a = open('a-0');
    fill(a, 10);
    expect(tailCacheBytes().used).toBeGreaterThan(0);
    a.close();
    expect(tailCacheBytes().used).toBe(0);
    const b = open('b-0');
    fill(b, 10);
    b.delete();
    expect(tailCacheBytes().used).toBe(0);
    setTailCacheBytes(0);
    const c = open('c-0');
    const appended = fill(c, 3);
    expect(tailCacheBytes().used).toBe(0);
    expect(sameMemory(c.read(2, 1 << 20).records[0], appended[2])).toBe(false);
  });

  it('counts a view as its whole backing buffer', () => {
    setTailCacheBytes(1 << 20);
    const log = open('t-0');
    const { buf, batches } = toAppend(buildBatch({ records: 1, valueSize: 10 }));
    const frame = Buffer.alloc(100_000);
    buf.copy(frame, 500);
    const view = frame.subarray(500, 500 + buf.length);
    log.append(view, batches);
    expect(tailCacheBytes().used).toBe(100_000);
  });
});
