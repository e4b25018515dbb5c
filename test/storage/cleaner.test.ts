// The log cleaner on real files: what a pass keeps (the latest record of each key, at its own offset),
// what it leaves alone (the active segment, records younger than min.compaction.lag.ms), tombstones and
// their delete horizon, compressed batches, the bound of the key map, and its checkpoint.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CODEC_GZIP, CODEC_LZ4, CODEC_SNAPPY, CODEC_ZSTD } from '../../protocol/compression/index.js';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { CLEANER_OFFSET_CHECKPOINT, LogCleaner } from '../../src/storage/cleaner/log-cleaner.js';
import { readCheckpointFile } from '../../src/storage/checkpoints.js';
import { TOPIC, closeAll, latestByKey, partitionDir, produce, readAll, setup, type Fixture } from './cleaner-helpers.js';

afterEach(closeAll);

/** `rounds` rounds over `keys` keys, one batch of `perBatch` records at a time, rolling every `rollEvery` batches. */
function fill(f: Fixture, keys: number, rounds: number, opts: { perBatch?: number; rollEvery?: number; compression?: number } = {}): void {
  const perBatch = opts.perBatch ?? 5;
  let pending: { key: string; value: string }[] = [];
  let batches = 0;
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < keys; k++) {
      pending.push({ key: `key-${k}`, value: `value-${k}-${round}` });
      if (pending.length === perBatch) {
        produce(f.log, pending, { compression: opts.compression });
        pending = [];
        if (++batches % (opts.rollEvery ?? 4) === 0) f.log.roll();
      }
    }
  }
  if (pending.length > 0) produce(f.log, pending, { compression: opts.compression });
}

describe('a cleaning pass', () => {
  it('keeps the latest record of each key at its original offset and leaves the active segment alone', async () => {
    const f = setup();
    fill(f, 10, 10);
    const before = readAll(f.log).records;
    f.log.roll();
    produce(f.log, [
      { key: 'key-0', value: 'in the active segment' },
      { key: 'key-0', value: 'again' },
    ]);
    const activeBase = f.log.segmentBaseOffsets().at(-1)!;
    expect(await f.cleaner.runOnce()).toBe(1);

    const after = readAll(f.log).records;
    const cleaned = after.filter((r) => r.offset < activeBase);
    const expected = latestByKey(before);
    expect(cleaned.map((r) => r.offset)).toEqual([...expected.values()].map((e) => e.offset).sort((a, b) => a - b));
    for (const r of cleaned) expect(expected.get(r.key!)).toEqual({ offset: r.offset, value: r.value });
    expect(after.filter((r) => r.offset >= activeBase).map((r) => r.value)).toEqual(['in the active segment', 'again']);
    expect(f.log.logEndOffset).toBe(before.length + 2);
    expect(f.cleaner.checkpointedOffset(TOPIC, 0)).toBe(activeBase);
    expect(fs.readdirSync(partitionDir(f)).filter((n) => /\.(cleaned|swap)$/.test(n))).toEqual([]);
    // The replaced segments left as retention's do: renamed .deleted, removed file.delete.delay.ms later.
    expect(fs.readdirSync(partitionDir(f)).filter((n) => n.endsWith('.log.deleted')).length).toBeGreaterThan(0);

    // Nothing dirty is left: the next run does nothing.
    expect(await f.cleaner.runOnce()).toBe(0);
    // Reopened, the log reads the same.
    f.reopen();
    expect(readAll(f.log).records).toEqual(after);
  });

  it('waits for min.cleanable.dirty.ratio', async () => {
    const f = setup({ 'min.cleanable.dirty.ratio': '0.9' });
    fill(f, 10, 4);
    f.log.roll();
    expect(await f.cleaner.runOnce()).toBe(1);
    // Now most of the log is clean: a little more dirt is not enough.
    fill(f, 2, 1, { perBatch: 2 });
    f.log.roll();
    expect(await f.cleaner.runOnce()).toBe(0);
  });

  it('does not clean records younger than min.compaction.lag.ms, and cleans a log past max.compaction.lag.ms whatever its ratio', async () => {
    const f = setup({ 'min.compaction.lag.ms': '60000' });
    f.clock.ms = 1_700_000_000_000;
    fill(f, 5, 4);
    f.log.roll();
    f.clock.ms += 30_000;
    expect(await f.cleaner.runOnce()).toBe(0);
    f.clock.ms += 31_000;
    expect(await f.cleaner.runOnce()).toBe(1);
    expect(readAll(f.log).records.length).toBe(5);

    const g = setup({ 'min.cleanable.dirty.ratio': '1', 'max.compaction.lag.ms': '60000' });
    fill(g, 5, 4);
    g.log.roll();
    g.clock.ms = 1_700_000_000_000 + 10_000;
    expect(await g.cleaner.runOnce()).toBe(0);
    g.clock.ms += 60_000;
    expect(await g.cleaner.runOnce()).toBe(1);
  });

  it('keeps a tombstone until delete.retention.ms after it was cleaned past, then removes it', async () => {
    const f = setup({ 'delete.retention.ms': '100000' });
    fill(f, 4, 3);
    produce(f.log, [
      { key: 'key-1', value: null },
      { key: 'key-2', value: null },
    ]);
    f.log.roll();
    expect(await f.cleaner.runOnce()).toBe(1);
    let left = readAll(f.log);
    expect(left.records.filter((r) => r.value === null).map((r) => r.key)).toEqual(['key-1', 'key-2']);
    const horizonBatch = left.batches.find((b) => b.hasDeleteHorizon)!;
    expect(horizonBatch.baseTimestamp).toBe(f.clock.ms + 100_000);
    // Record timestamps are unchanged under the horizon.
    expect(left.records.every((r) => r.timestamp === 1_700_000_000_000)).toBe(true);

    f.clock.ms += 99_999;
    expect(await f.cleaner.runOnce()).toBe(0);
    f.clock.ms += 1;
    expect(await f.cleaner.runOnce()).toBe(1);
    left = readAll(f.log);
    expect(left.records.map((r) => r.key)).toEqual(['key-0', 'key-3']);
  });

  for (const [name, codec] of [
    ['gzip', CODEC_GZIP],
    ['snappy', CODEC_SNAPPY],
    ['lz4', CODEC_LZ4],
    ['zstd', CODEC_ZSTD],
  ] as const) {
    it(`rewrites ${name} batches in ${name}`, async () => {
      const f = setup();
      fill(f, 6, 5, { perBatch: 4, compression: codec });
      const expected = latestByKey(readAll(f.log).records);
      f.log.roll();
      expect(await f.cleaner.runOnce()).toBe(1);
      const left = readAll(f.log);
      expect(latestByKey(left.records)).toEqual(expected);
      expect(left.records.length).toBe(6);
      expect(left.batches.every((b) => b.compression === codec || b.recordCount === 0)).toBe(true);
    });
  }

  it('cleans in several passes when the key map holds fewer keys than the dirty range has', async () => {
    // 24 bytes a key at 90 %: 20 keys.
    const f = setup({ 'min.cleanable.dirty.ratio': '0.01' }, Math.ceil((20 * 24) / 0.9) + 1);
    fill(f, 50, 4, { perBatch: 5, rollEvery: 2 });
    const expected = latestByKey(readAll(f.log).records);
    f.log.roll();
    const passes = await f.cleaner.runOnce();
    expect(passes).toBeGreaterThan(1);
    const left = readAll(f.log).records;
    expect(latestByKey(left)).toEqual(expected);
    expect(left.length).toBe(50);
  });

  it('persists its first dirty offset in cleaner-offset-checkpoint, and moves one below the log start up', async () => {
    const f = setup({ 'min.cleanable.dirty.ratio': '0.01' });
    fill(f, 5, 4);
    f.log.roll();
    const end = f.log.logEndOffset;
    await f.cleaner.runOnce();
    await f.cleaner.closed();
    expect(readCheckpointFile(path.join(f.root, CLEANER_OFFSET_CHECKPOINT))).toEqual([{ topic: TOPIC, partition: 0, offset: end }]);
    f.reopen();
    expect(f.cleaner.checkpointedOffset(TOPIC, 0)).toBe(end);
    expect(await f.cleaner.runOnce()).toBe(0);

    // A checkpoint below the log start (records deleted meanwhile) counts from the log start.
    fill(f, 5, 4);
    f.log.roll();
    f.log.deleteRecordsBefore(f.log.logEndOffset - 3);
    fs.writeFileSync(path.join(f.root, CLEANER_OFFSET_CHECKPOINT), `0\n1\n${TOPIC} 0 1\n`);
    f.reopen();
    expect(await f.cleaner.runOnce()).toBe(1);
    expect(f.cleaner.checkpointedOffset(TOPIC, 0)).toBe(f.log.segmentBaseOffsets().at(-1));
  });

  it('leaves logs of cleanup.policy=delete alone', async () => {
    const f = setup({ 'cleanup.policy': 'delete' });
    fill(f, 5, 4);
    f.log.roll();
    expect(await f.cleaner.runOnce()).toBe(0);
  });
});

describe('the cost of a pass', () => {
  it('cleans 100k records of 1k keys (prints how long the pass took)', async () => {
    const f = setup({ 'segment.bytes': String(1 << 20) });
    f.cleaner = new LogCleaner({ logs: f.mgr, threads: 1, dedupeBufferSize: 1 << 24, now: f.clock.now });
    for (let i = 0; i < 100_000; i += 100) {
      produce(
        f.log,
        Array.from({ length: 100 }, (_, j) => ({ key: `key-${(i + j) % 1000}`, value: `value-${i + j}-${'x'.repeat(40)}` })),
      );
    }
    f.log.roll();
    const sizeBefore = f.log.size;
    const delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    expect(await f.cleaner.runOnce()).toBe(1);
    delay.disable();
    const pass = f.cleaner.passes.at(-1)!;
    expect(pass.recordsRead).toBe(100_000);
    expect(pass.recordsRemoved).toBe(99_000);
    console.log(
      `cleaner pass: 100k records / 1k keys, ${(sizeBefore / 1e6).toFixed(1)} MB → ${(f.log.size / 1e6).toFixed(2)} MB in ${pass.durationMs.toFixed(0)} ms; the event loop waited ${(delay.max / 1e6).toFixed(0)} ms at most`,
    );
  }, 60_000);
});

describe('a pass that cannot finish', () => {
  it('stops at once when the cleaner stops, leaving the log as it was', async () => {
    const f = setup();
    fill(f, 10, 40);
    f.log.roll();
    const before = readAll(f.log).records;
    const run = f.cleaner.runOnce();
    f.cleaner.stop();
    expect(await run).toBe(0);
    expect(readAll(f.log).records).toEqual(before);
    expect(fs.readdirSync(partitionDir(f)).filter((n) => /\.(cleaned|swap|deleted)$/.test(n))).toEqual([]);
    expect(f.cleaner.checkpointedOffset(TOPIC, 0)).toBeUndefined();
  });

  it('is retried after a failure, and a log failing three times in a row is marked uncleanable, its data untouched', async () => {
    const f = setup();
    fill(f, 10, 10);
    f.log.roll();
    // A byte flipped in the records of the first segment's second batch: that batch fails its CRC.
    const file = path.join(partitionDir(f), '00000000000000000000.log');
    const bytes = fs.readFileSync(file);
    bytes[12 + bytes.readInt32BE(8) + 70] ^= 0xff;
    fs.writeFileSync(file, bytes);
    const warnings: string[] = [];
    const errors: string[] = [];
    const log = { info: () => {}, warn: (_: object, m?: string) => void warnings.push(m!), error: (_: object, m?: string) => void errors.push(m!) };
    const cleaner = new LogCleaner({ logs: f.mgr, threads: 1, dedupeBufferSize: 1 << 20, now: f.clock.now, log });
    for (let i = 0; i < 3; i++) expect(await cleaner.runOnce()).toBe(0);
    expect(warnings.filter((w) => /cleaning t-0 failed/.test(w))).toHaveLength(2);
    expect(errors).toEqual([expect.stringMatching(/marking t-0 uncleanable after 3 failed cleaning passes/)]);
    expect(cleaner.isUncleanable(TOPIC, 0)).toBe(true);
    expect(fs.readFileSync(file)).toEqual(bytes);
    expect(fs.readdirSync(partitionDir(f)).filter((n) => /\.(cleaned|swap|deleted)$/.test(n))).toEqual([]);
  });
});
