// The cleaner and transactions, producer state and timestamps: records of aborted transactions go, markers
// stay while their transaction has records and go delete.retention.ms after it has none, the last batch of a
// producer stays (emptied) so its sequence survives a rebuild, and reads by timestamp still answer.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ProducerStateManager } from '../../src/storage/producer-state.js';
import { closeAll, marker, produce, readAll, setup, type Fixture } from './cleaner-helpers.js';

afterEach(closeAll);

const TS = 1_700_000_000_000;

function txnBatch(f: Fixture, producerId: number, baseSequence: number, records: { key: string; value: string }[]): number {
  return produce(f.log, records, { producerId, producerEpoch: 0, baseSequence, isTransactional: true });
}

describe('cleaning transactions', () => {
  it('removes aborted records, then the abort marker delete.retention.ms after its transaction is empty', async () => {
    const f = setup({ 'delete.retention.ms': '1000', 'min.cleanable.dirty.ratio': '0.01' });
    txnBatch(f, 1, 0, [
      { key: 'a', value: 'aborted-a' },
      { key: 'b', value: 'aborted-b' },
    ]); // 0-1
    const abortAt = marker(f.log, 1, false); // 2
    txnBatch(f, 1, 2, [{ key: 'd', value: 'committed-d' }]); // 3
    const commitAt = marker(f.log, 1, true); // 4
    produce(f.log, [{ key: 'a', value: 'plain-a' }]); // 5
    f.log.roll();
    expect(f.log.abortedTransactions(0, 6)).toHaveLength(1);

    expect(await f.cleaner.runOnce()).toBe(1);
    let left = readAll(f.log).records;
    expect(left.filter((r) => !r.control).map((r) => [r.offset, r.key, r.value])).toEqual([
      [3, 'd', 'committed-d'],
      [5, 'a', 'plain-a'],
    ]);
    // The abort marker stays this pass (its transaction had batches, removed by this very pass), listed in the .txnindex.
    expect(left.filter((r) => r.control).map((r) => r.offset)).toEqual([abortAt, commitAt]);
    expect(f.log.abortedTransactions(0, 6)).toHaveLength(1);

    // The next pass finds the aborted transaction empty: its marker gets a delete horizon...
    produce(f.log, [{ key: 'e', value: 'e' }]);
    f.log.roll();
    expect(await f.cleaner.runOnce()).toBe(1);
    left = readAll(f.log).records;
    expect(left.filter((r) => r.control).map((r) => r.offset)).toEqual([abortAt, commitAt]);
    // ... and goes once it has passed; the commit marker of a transaction with records stays.
    f.clock.ms += 1000;
    expect(await f.cleaner.runOnce()).toBe(1);
    left = readAll(f.log).records;
    expect(left.filter((r) => r.control).map((r) => r.offset)).toEqual([commitAt]);
    expect(left.filter((r) => !r.control).map((r) => r.key)).toEqual(['d', 'a', 'e']);
    expect(f.log.abortedTransactions(0, f.log.logEndOffset)).toEqual([]);
  });

  it('never cleans past the last stable offset', async () => {
    const f = setup({ 'min.cleanable.dirty.ratio': '0.01' });
    produce(f.log, [
      { key: 'a', value: '1' },
      { key: 'a', value: '2' },
    ]); // 0-1
    f.log.roll();
    txnBatch(f, 7, 0, [{ key: 'a', value: 'open' }]); // 2: an open transaction
    produce(f.log, [{ key: 'a', value: '3' }]); // 3
    f.log.roll();
    expect(await f.cleaner.runOnce()).toBe(1);
    expect(f.cleaner.checkpointedOffset('t', 0)).toBe(2);
    expect(readAll(f.log).records.map((r) => r.offset)).toEqual([1, 2, 3]);
  });

  it('stops at an open transaction in the middle of a segment, and makes no empty passes against it', async () => {
    const f = setup({ 'min.cleanable.dirty.ratio': '0.01' });
    produce(f.log, [
      { key: 'a', value: '1' },
      { key: 'a', value: '2' },
    ]); // 0-1
    txnBatch(f, 7, 0, [{ key: 'a', value: 'open' }]); // 2: an open transaction
    produce(f.log, [{ key: 'a', value: '3' }]); // 3
    f.log.roll();
    expect(await f.cleaner.runOnce()).toBe(1);
    expect(f.cleaner.checkpointedOffset('t', 0)).toBe(2);
    expect(await f.cleaner.runOnce()).toBe(0);
    marker(f.log, 7, true);
    f.log.roll();
    expect(await f.cleaner.runOnce()).toBe(1);
    // The committed value was superseded by offset 3; its marker stays (its transaction still had a batch in this pass).
    expect(readAll(f.log).records.map((r) => [r.offset, r.value, r.control])).toEqual([
      [3, '3', false],
      [4, expect.anything(), true],
    ]);
  });

  it("keeps each producer's last batch, emptied, so its sequence survives a rebuild of producer state", async () => {
    const f = setup({ 'min.cleanable.dirty.ratio': '0.01' });
    produce(f.log, [{ key: 'k', value: 'from producer 9' }], { producerId: 9, producerEpoch: 3, baseSequence: 0 }); // 0
    produce(
      f.log,
      [
        { key: 'k', value: 'from producer 9 again' },
        { key: 'k', value: 'x' },
      ],
      { producerId: 9, producerEpoch: 3, baseSequence: 1 },
    ); // 1-2
    produce(f.log, [{ key: 'k', value: 'plain' }]); // 3
    f.log.roll();
    expect(await f.cleaner.runOnce()).toBe(1);
    const { batches, records } = readAll(f.log);
    expect(records.map((r) => r.offset)).toEqual([3]);
    const last = batches.find((b) => b.producerId === 9)!;
    expect(last).toMatchObject({ baseOffset: 1, lastOffsetDelta: 1, recordCount: 0, producerEpoch: 3, baseSequence: 1 });

    // Rebuilt from the log alone (no snapshot), producer 9 is where it was.
    f.mgr.close();
    for (const file of fs.readdirSync(f.log.dir)) if (file.endsWith('.snapshot')) fs.rmSync(path.join(f.log.dir, file));
    // Only a snapshot of no producer at offset 0: the reopen replays the whole log.
    const empty = new ProducerStateManager(f.log.dir);
    empty['snapshotting'] = true;
    empty.writeSnapshot(0);
    fs.rmSync(path.join(f.root, '.kafka_cleanshutdown'), { force: true });
    f.reopen();
    expect(f.log.activeProducers().find((p) => p.producerId === 9)).toMatchObject({ producerEpoch: 3, lastSequence: 2 });
  });

  it('answers reads by timestamp after a swap', async () => {
    const f = setup({ 'min.cleanable.dirty.ratio': '0.01', 'index.interval.bytes': '0' });
    for (let i = 0; i < 40; i++) produce(f.log, [{ key: `k${i % 4}`, value: `v${i}`, timestamp: TS + i * 1000 }]);
    f.log.roll();
    expect(await f.cleaner.runOnce()).toBe(1);
    // Offsets 36..39 are left (the latest of each key).
    expect(f.log.offsetForTimestamp(TS)).toEqual({ offset: 36, timestamp: TS + 36_000 });
    expect(f.log.offsetForTimestamp(TS + 38_500)).toEqual({ offset: 39, timestamp: TS + 39_000 });
    expect(f.log.maxTimestampOffset()).toEqual({ offset: 39, timestamp: TS + 39_000 });
    f.reopen();
    expect(f.log.offsetForTimestamp(TS + 37_000)).toEqual({ offset: 37, timestamp: TS + 37_000 });
  });
});
