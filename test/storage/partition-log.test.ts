import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ErrorCode } from '../../protocol/errors.js';
import { PartitionLog, type PartitionLogOptions } from '../../src/storage/partition-log.js';
import { Segment } from '../../src/storage/segment.js';
import { OpenFiles } from '../../src/storage/open-files.js';
import { buildBatch, parseBatches, rmDir, tempDir, toAppend } from './batches.js';
import { expectKafkaError } from './partition-logs.js';

let root: string;
let dir: string;
const open: PartitionLog[] = [];
beforeEach(() => {
  root = tempDir();
  dir = path.join(root, 'topic-0');
});
afterEach(async () => {
  for (const l of open.splice(0)) {
    if (!l.isClosed) l.close();
    await l.flushed();
  }
  rmDir(root);
});

function openLog(opts: PartitionLogOptions = {}): PartitionLog {
  const log = PartitionLog.open(dir, opts);
  open.push(log);
  return log;
}

function appendBatch(log: PartitionLog, spec: Parameters<typeof buildBatch>[0] = {}) {
  const { buf, batches } = toAppend(buildBatch(spec));
  return log.append(buf, batches);
}

function segFiles(): string[] {
  return fs
    .readdirSync(dir)
    .filter((n) => n.endsWith('.log'))
    .sort();
}

describe('PartitionLog append and read', () => {
  it('assigns offsets, writes them into the batches and reads them back', () => {
    const log = openLog();
    expect(log.logEndOffset).toBe(0);
    expect(appendBatch(log, { records: 3 })).toEqual({ baseOffset: 0, lastOffset: 2 });
    const { buf, batches } = toAppend(buildBatch({ records: 2 }), buildBatch({ records: 5, baseOffset: 777 }));
    expect(log.append(buf, batches)).toEqual({ baseOffset: 3, lastOffset: 9 });
    expect(Number(buf.readBigInt64BE(0))).toBe(3);
    expect(Number(buf.readBigInt64BE(batches[1].position))).toBe(5);
    expect(log.logEndOffset).toBe(10);
    const read = log.read(0, 1 << 20);
    expect(read.logStartOffset).toBe(0);
    const got = parseBatches(read.records);
    expect(got.map((b) => [b.baseOffset, b.lastOffset])).toEqual([
      [0, 2],
      [3, 4],
      [5, 9],
    ]);
    expect(got.every((b) => b.crcOk)).toBe(true);
    // A fetch inside a batch starts with that batch.
    expect(parseBatches(log.read(4, 1 << 20).records)[0].baseOffset).toBe(3);
    expect(parseBatches(log.read(5, 1 << 20).records)[0].baseOffset).toBe(5);
  });

  it('fetch at the log end is empty; outside [start, end] is OFFSET_OUT_OF_RANGE', () => {
    const log = openLog();
    expect(log.read(0, 100).records).toEqual([]);
    appendBatch(log, { records: 2 });
    expect(log.read(2, 100).records).toEqual([]);
    expectKafkaError(() => log.read(3, 100), ErrorCode.OFFSET_OUT_OF_RANGE);
    expectKafkaError(() => log.read(-1, 100), ErrorCode.OFFSET_OUT_OF_RANGE);
    log.deleteRecordsBefore(1);
    expectKafkaError(() => log.read(0, 100), ErrorCode.OFFSET_OUT_OF_RANGE);
    expect(parseBatches(log.read(1, 100).records)[0].baseOffset).toBe(0);
  });

  it('returns whole batches within maxBytes, and the first one whole even when larger (KIP-74)', () => {
    const log = openLog();
    const sizes: number[] = [];
    for (let i = 0; i < 5; i++) {
      const b = buildBatch({ records: 1, valueSize: 100 });
      sizes.push(b.length);
      const { buf, batches } = toAppend(b);
      log.append(buf, batches);
    }
    const one = sizes[0];
    // Budget for 2.5 batches: two whole batches, no partial third.
    const r = log.read(0, Math.floor(one * 2.5));
    expect(r.records.reduce((n, b) => n + b.length, 0)).toBe(one * 2);
    expect(parseBatches(r.records).map((b) => b.baseOffset)).toEqual([0, 1]);
    // Budget below one batch: the first batch whole anyway.
    const tiny = log.read(2, 10);
    expect(parseBatches(tiny.records).map((b) => b.baseOffset)).toEqual([2]);
    expect(parseBatches(log.read(2, 0).records).map((b) => b.baseOffset)).toEqual([2]);
    // Unless the caller already has data (minOneBatch = false).
    expect(log.read(2, 10, false).records).toEqual([]);
    expect(parseBatches(log.read(2, one, false).records).map((b) => b.baseOffset)).toEqual([2]);
  });

  it('refuses appends once closed', () => {
    const log = openLog();
    appendBatch(log);
    log.close();
    expect(log.isClosed).toBe(true);
    expectKafkaError(() => appendBatch(log), ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  });
});

describe('segments', () => {
  it('rolls by size, never rolls an empty segment, and reads across segments', () => {
    const batch = buildBatch({ records: 2, valueSize: 200 });
    const log = openLog({ segmentBytes: batch.length * 3 + 10 });
    appendBatch(log, { records: 2, valueSize: 5000 }); // larger than a segment: goes into the empty one
    expect(log.segmentBaseOffsets()).toEqual([0]);
    for (let i = 0; i < 10; i++) appendBatch(log, { records: 2, valueSize: 200 });
    expect(log.logEndOffset).toBe(22);
    // [big], then 3 per segment: 2..7, 8..13, 14..19, 20..21
    expect(log.segmentBaseOffsets()).toEqual([0, 2, 8, 14, 20]);
    expect(segFiles()).toEqual([0, 2, 8, 14, 20].map((o) => `${String(o).padStart(20, '0')}.log`));
    for (const base of [0, 2, 8, 14, 20]) {
      for (const ext of ['index', 'timeindex']) expect(fs.existsSync(path.join(dir, `${String(base).padStart(20, '0')}.${ext}`))).toBe(true);
    }
    const all = parseBatches(log.read(0, 1 << 20).records);
    expect(all.map((b) => b.baseOffset)).toEqual([0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20]);
    const r = log.read(5, 1 << 20);
    expect(r.records.length).toBe(4); // slices from 4 segments
    expect(parseBatches(r.records).map((b) => b.baseOffset)).toEqual([4, 6, 8, 10, 12, 14, 16, 18, 20]);
    // A budget that ends inside the second segment stops there.
    const part = log.read(6, batch.length * 3);
    expect(parseBatches(part.records).map((b) => b.baseOffset)).toEqual([6, 8, 10]);
  });

  it('rolls by time with an injected clock', () => {
    let now = 1_000_000;
    const log = openLog({ segmentMs: 60_000, now: () => now });
    now += 120_000; // an empty segment's age does not count
    appendBatch(log);
    expect(log.segmentBaseOffsets()).toEqual([0]);
    now += 30_000;
    appendBatch(log);
    expect(log.segmentBaseOffsets()).toEqual([0]);
    now += 30_001;
    appendBatch(log);
    expect(log.segmentBaseOffsets()).toEqual([0, 2]);
    now += 59_000;
    appendBatch(log);
    expect(log.segmentBaseOffsets()).toEqual([0, 2]);
    now += 2_000;
    appendBatch(log);
    expect(log.segmentBaseOffsets()).toEqual([0, 2, 4]);
  });

  it('translates every offset through a sparse index', () => {
    const log = openLog({ indexIntervalBytes: 300 });
    const bases: number[] = [];
    for (let i = 0; i < 200; i++) bases.push(appendBatch(log, { records: 1 + (i % 4), valueSize: 30 + (i % 7) * 20 }).baseOffset);
    const seg = Segment.open(dir, 0, { indexIntervalBytes: 300, now: Date.now, openFiles: new OpenFiles() }, null);
    expect(seg.index.entries).toBeGreaterThan(20);
    seg.close();
    for (let o = 0; o < log.logEndOffset; o++) {
      const first = parseBatches(log.read(o, 1).records)[0];
      expect(first.baseOffset).toBeLessThanOrEqual(o);
      expect(first.lastOffset).toBeGreaterThanOrEqual(o);
    }
  });

  it('deleteRecordsBefore advances the log start offset and drops whole segments', () => {
    const log = openLog({ segmentBytes: 500 });
    for (let i = 0; i < 10; i++) appendBatch(log, { records: 1, valueSize: 150 });
    const before = log.segmentBaseOffsets();
    expect(before.length).toBeGreaterThan(3);
    expect(log.deleteRecordsBefore(before[2] + 1)).toBe(before[2] + 1);
    expect(log.logStartOffset).toBe(before[2] + 1);
    expect(log.segmentBaseOffsets()[0]).toBe(before[2]);
    expect(segFiles().length).toBe(log.segmentBaseOffsets().length);
    expectKafkaError(() => log.deleteRecordsBefore(11), ErrorCode.OFFSET_OUT_OF_RANGE);
    log.deleteRecordsBefore(10);
    expect(log.logStartOffset).toBe(10);
    expect(log.segmentBaseOffsets()).toEqual([10]);
    expect(log.read(10, 100).records).toEqual([]);
    expect(appendBatch(log).baseOffset).toBe(10);
  });

  it('works with a bound of one open file (active segment included)', () => {
    const log = openLog({ segmentBytes: 300, indexIntervalBytes: 10, openFiles: new OpenFiles(1) });
    for (let i = 0; i < 40; i++) appendBatch(log, { records: 1, valueSize: 100, timestamp: 1000 + i });
    expect(log.segmentBaseOffsets().length).toBeGreaterThan(10);
    for (let round = 0; round < 2; round++) {
      expect(parseBatches(log.read(0, 1 << 20).records).map((b) => b.baseOffset)).toEqual(Array.from({ length: 40 }, (_, i) => i));
      for (let o = 39; o >= 0; o -= 3) expect(parseBatches(log.read(o, 1).records)[0].baseOffset).toBe(o);
      expect(log.offsetForTimestamp(1017)).toEqual({ offset: 17, timestamp: 1017 });
    }
  });

  it('delete() renames the directory at once and removes it after the delay', async () => {
    const log = openLog();
    appendBatch(log);
    log.delete(0);
    expect(fs.existsSync(dir)).toBe(false);
    await vi.waitFor(() => expect(fs.readdirSync(root)).toEqual([]), { timeout: 5_000 });
  });
});

describe('timestamps', () => {
  it('offsetForTimestamp finds the first record with timestamp >= target', () => {
    const log = openLog({ segmentBytes: 600, indexIntervalBytes: 100 });
    // Batch i holds records with timestamps 10_000 + 100*i + {0, 10, 20}.
    for (let i = 0; i < 30; i++) {
      const t = 10_000 + 100 * i;
      appendBatch(log, { records: 3, timestamp: [t, t + 10, t + 20] });
    }
    expect(log.segmentBaseOffsets().length).toBeGreaterThan(3);
    expect(log.offsetForTimestamp(0)).toEqual({ offset: 0, timestamp: 10_000 });
    expect(log.offsetForTimestamp(10_005)).toEqual({ offset: 1, timestamp: 10_010 });
    expect(log.offsetForTimestamp(10_021)).toEqual({ offset: 3, timestamp: 10_100 });
    for (let i = 0; i < 30; i++) {
      const t = 10_000 + 100 * i;
      expect(log.offsetForTimestamp(t + 15)).toEqual({ offset: 3 * i + 2, timestamp: t + 20 });
    }
    expect(log.offsetForTimestamp(10_000 + 100 * 29 + 21)).toBeNull();
    expect(log.maxTimestampOffset()).toEqual({ offset: 89, timestamp: 12_920 });
    // Out-of-order timestamps: the max is the first record holding it.
    appendBatch(log, { records: 3, timestamp: [5, 50_000, 50_000] });
    appendBatch(log, { records: 1, timestamp: 40_000 });
    expect(log.maxTimestampOffset()).toEqual({ offset: 91, timestamp: 50_000 });
    expect(log.offsetForTimestamp(45_000)).toEqual({ offset: 91, timestamp: 50_000 });
    // LogAppendTime batches: every record has the batch's max timestamp.
    appendBatch(log, { records: 2, timestamp: 60_000, attributes: 0x08 });
    expect(log.offsetForTimestamp(55_000)).toEqual({ offset: 94, timestamp: 60_000 });
    // The log start offset bounds the answer.
    log.deleteRecordsBefore(4);
    expect(log.offsetForTimestamp(0)).toEqual({ offset: 4, timestamp: 10_110 });
  });

  it('answers the same after reopening', () => {
    let log = openLog({ segmentBytes: 400, indexIntervalBytes: 50 });
    for (let i = 0; i < 20; i++) appendBatch(log, { records: 2, timestamp: [1000 + i * 10, 1000 + i * 10 + 5] });
    log.close();
    log = openLog({ segmentBytes: 400, indexIntervalBytes: 50, recoveryPoint: log.recoveryPoint });
    expect(log.offsetForTimestamp(1093)).toEqual({ offset: 19, timestamp: 1095 });
    expect(log.maxTimestampOffset()).toEqual({ offset: 39, timestamp: 1195 });
    expect(log.offsetForTimestamp(2000)).toBeNull();
  });
});

describe('recovery', () => {
  function threeBatches(opts: PartitionLogOptions = {}) {
    const log = openLog(opts);
    const sizes = [1, 2, 3].map((n) => {
      const b = buildBatch({ records: n, valueSize: 50 });
      const { buf, batches } = toAppend(b);
      log.append(buf, batches);
      return b.length;
    });
    log.close();
    return sizes;
  }

  const logFile = () => path.join(dir, '00000000000000000000.log');

  it('cuts a torn tail batch', () => {
    const sizes = threeBatches();
    fs.truncateSync(logFile(), sizes[0] + sizes[1] + Math.floor(sizes[2] / 2));
    const log = openLog();
    expect(log.logEndOffset).toBe(3);
    expect(fs.statSync(logFile()).size).toBe(sizes[0] + sizes[1]);
    const got = parseBatches(log.read(0, 1 << 20).records);
    expect(got.map((b) => b.baseOffset)).toEqual([0, 1]);
    expect(appendBatch(log).baseOffset).toBe(3);
    expect(parseBatches(log.read(0, 1 << 20).records).map((b) => b.baseOffset)).toEqual([0, 1, 3]);
  });

  it('cuts a torn header and trailing zeros', () => {
    const sizes = threeBatches();
    fs.truncateSync(logFile(), sizes[0] + sizes[1] + 20);
    let log = openLog();
    expect(log.logEndOffset).toBe(3);
    log.close();
    fs.appendFileSync(logFile(), Buffer.alloc(4096));
    log = openLog();
    expect(log.logEndOffset).toBe(3);
    expect(fs.statSync(logFile()).size).toBe(sizes[0] + sizes[1]);
  });

  it('cuts a batch with a bad CRC, and everything after it', () => {
    const sizes = threeBatches();
    const fd = fs.openSync(logFile(), 'r+');
    fs.writeSync(fd, Buffer.from([0xff]), 0, 1, sizes[0] + 70); // inside batch 2's records
    fs.closeSync(fd);
    const log = openLog();
    expect(log.logEndOffset).toBe(1);
    expect(parseBatches(log.read(0, 1 << 20).records).map((b) => b.baseOffset)).toEqual([0]);
  });

  it('rejects a batch with a wrong magic', () => {
    const sizes = threeBatches();
    const fd = fs.openSync(logFile(), 'r+');
    fs.writeSync(fd, Buffer.from([1]), 0, 1, sizes[0] + sizes[1] + 16);
    fs.closeSync(fd);
    expect(openLog().logEndOffset).toBe(3);
  });

  function manyBatches(opts: PartitionLogOptions) {
    const log = openLog(opts);
    for (let i = 0; i < 100; i++) appendBatch(log, { records: 2, valueSize: 40, timestamp: [5000 + i, 5000 + i] });
    log.close();
    return log;
  }

  it('rebuilds a deleted .index (active and older segments) and lookups work', () => {
    const opts = { segmentBytes: 4000, indexIntervalBytes: 200 };
    const old = manyBatches(opts);
    const bases = old.segmentBaseOffsets();
    expect(bases.length).toBeGreaterThan(2);
    const name = (b: number, ext: string) => path.join(dir, `${String(b).padStart(20, '0')}.${ext}`);
    const sizeBefore = fs.statSync(name(bases[0], 'index')).size;
    expect(sizeBefore).toBeGreaterThan(0);
    for (const b of [bases[0], bases[bases.length - 1]]) fs.rmSync(name(b, 'index'));
    fs.rmSync(name(bases[1], 'timeindex'));
    const log = openLog({ ...opts, recoveryPoint: old.recoveryPoint });
    expect(log.logEndOffset).toBe(200);
    expect(fs.statSync(name(bases[0], 'index')).size).toBe(sizeBefore);
    expect(fs.existsSync(name(bases[bases.length - 1], 'index'))).toBe(true);
    expect(fs.existsSync(name(bases[1], 'timeindex'))).toBe(true);
    for (let o = 0; o < 200; o += 3) {
      const first = parseBatches(log.read(o, 1).records)[0];
      expect(first.baseOffset === o || first.baseOffset === o - 1).toBe(true);
    }
    expect(log.offsetForTimestamp(5050)).toEqual({ offset: 100, timestamp: 5050 });
  });

  it('rebuilds a garbage .index', () => {
    const opts = { segmentBytes: 4000, indexIntervalBytes: 200 };
    const old = manyBatches(opts);
    const bases = old.segmentBaseOffsets();
    const garbage = Buffer.alloc(64);
    for (let i = 0; i < 64; i++) garbage[i] = (i * 97 + 13) & 0xff;
    for (const b of bases) fs.writeFileSync(path.join(dir, `${String(b).padStart(20, '0')}.index`), garbage);
    fs.writeFileSync(path.join(dir, `${String(bases[0]).padStart(20, '0')}.timeindex`), garbage.subarray(0, 36));
    // Trusted segments (before the recovery point) are validated on first use.
    const log = openLog({ ...opts, recoveryPoint: old.recoveryPoint });
    expect(log.logEndOffset).toBe(200);
    for (let o = 0; o < 200; o++) {
      const first = parseBatches(log.read(o, 1).records)[0];
      expect(first.lastOffset >= o && first.baseOffset <= o).toBe(true);
    }
    expect(log.offsetForTimestamp(5001)).toEqual({ offset: 2, timestamp: 5001 });
    expect(log.maxTimestampOffset()).toEqual({ offset: 198, timestamp: 5099 });
    for (const b of bases) {
      const idx = fs.readFileSync(path.join(dir, `${String(b).padStart(20, '0')}.index`));
      expect(idx.equals(garbage)).toBe(false);
      expect(idx.length % 8).toBe(0);
    }
  });

  it('removes leftover files and index files without a .log', () => {
    threeBatches();
    fs.writeFileSync(path.join(dir, '00000000000000000050.index'), Buffer.alloc(8));
    fs.writeFileSync(path.join(dir, '00000000000000000000.log.deleted'), 'x');
    fs.writeFileSync(path.join(dir, 'partition.metadata'), 'version: 0\n');
    const log = openLog();
    expect(log.logEndOffset).toBe(6);
    expect(fs.readdirSync(dir).sort()).toEqual([
      '00000000000000000000.index',
      '00000000000000000000.log',
      '00000000000000000000.timeindex',
      'partition.metadata',
    ]);
  });

  it('truncation in an older segment drops the later ones', () => {
    const log0 = openLog({ segmentBytes: 1000 });
    for (let i = 0; i < 20; i++) appendBatch(log0, { records: 1, valueSize: 100 });
    log0.close();
    const bases = log0.segmentBaseOffsets();
    expect(bases.length).toBeGreaterThan(2);
    const f = path.join(dir, `${String(bases[1]).padStart(20, '0')}.log`);
    fs.truncateSync(f, fs.statSync(f).size - 5);
    const log = openLog({ segmentBytes: 1000, recoveryPoint: bases[1] });
    expect(log.segmentBaseOffsets()).toEqual(bases.slice(0, 2));
    expect(log.logEndOffset).toBe(bases[2] - 1);
    expect(appendBatch(log).baseOffset).toBe(bases[2] - 1);
  });
});
