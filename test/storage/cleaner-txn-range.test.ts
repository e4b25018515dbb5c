// The cleaner's transaction state covers every offset a pass rewrites: a group of segments is rewritten
// whole, past the pass's end offset (the last stable offset, or the key map's end), so an aborted
// transaction that begins after that end but lies in the group's last segment is still known aborted:
// its batches go, its abort marker stays listed in the cleaned segment's .txnindex.
import { afterEach, describe, expect, it } from 'vitest';
import { OffsetMap } from '../../src/storage/cleaner/offset-map.js';
import type { PartitionLog } from '../../src/storage/partition-log.js';
import { closeAll, latestByKey, marker, produce, readAll, setup } from './cleaner-helpers.js';

afterEach(closeAll);

/** What a read_committed consumer sees: data records outside the aborted transactions a fetch reports. */
function readCommitted(log: PartitionLog): { offset: number; key: string | null; value: string | null }[] {
  const aborted = log.abortedTransactions(log.logStartOffset, log.logEndOffset);
  return readAll(log)
    .records.filter((r) => !r.control && !aborted.some((t) => t.producerId === r.producerId && t.firstOffset <= r.offset && r.offset <= t.lastOffset))
    .map(({ offset, key, value }) => ({ offset, key, value }));
}

describe('cleaning a segment that holds an aborted transaction past the pass end', () => {
  it('keeps the aborted transaction listed and never lets its records count as committed', async () => {
    const f = setup({ 'delete.retention.ms': '1000', 'min.cleanable.dirty.ratio': '0.01' });
    produce(f.log, [{ key: 'a', value: 'a' }]); // 0
    f.log.roll();
    produce(f.log, [{ key: 'b', value: 'plain-b' }]); // 1
    produce(f.log, [{ key: 'c', value: 'open' }], { producerId: 7, producerEpoch: 0, baseSequence: 0, isTransactional: true }); // 2: open
    produce(f.log, [{ key: 'b', value: 'aborted-b' }], { producerId: 8, producerEpoch: 0, baseSequence: 0, isTransactional: true }); // 3
    marker(f.log, 8, false); // 4
    f.log.roll();
    expect(f.log.abortedTransactions(0, 5).map((t) => [t.producerId, t.firstOffset, t.lastOffset])).toEqual([[8, 3, 4]]);
    expect(readCommitted(f.log).map((r) => r.value)).toEqual(['a', 'plain-b', 'open']);

    expect(await f.cleaner.runOnce()).toBe(1);
    expect(f.cleaner.checkpointedOffset('t', 0)).toBe(2); // the last stable offset
    // The aborted transaction is still reported to read_committed fetches, and its record is not visible.
    expect(f.log.abortedTransactions(0, 5).map((t) => [t.producerId, t.firstOffset, t.lastOffset])).toEqual([[8, 3, 4]]);
    expect(readCommitted(f.log).map((r) => r.value)).toEqual(['a', 'plain-b', 'open']);
    expect(readAll(f.log).records.filter((r) => r.value === 'aborted-b')).toEqual([]);

    // Later passes, past every delete horizon, never take the aborted value for the latest of `b`.
    marker(f.log, 7, true); // 5
    produce(f.log, [{ key: 'd', value: 'd' }]); // 6
    f.log.roll();
    for (let i = 0; i < 3; i++) {
      f.clock.ms += 2000;
      await f.cleaner.runOnce();
    }
    expect(f.cleaner.checkpointedOffset('t', 0)).toBe(7);
    const latest = latestByKey(readAll(f.log).records);
    expect(latest.get('b')).toEqual({ offset: 1, value: 'plain-b' });
    expect(readCommitted(f.log).map((r) => r.value)).toEqual(['a', 'plain-b', 'open', 'd']);
  });

  it('the same when the pass ends where the key map filled', async () => {
    let bufferSize = 24;
    while (OffsetMap.forBufferSize(bufferSize).maxEntries < 2) bufferSize += 24;
    const f = setup({ 'min.cleanable.dirty.ratio': '0.01' }, bufferSize); // a key map of 2 keys
    produce(f.log, [{ key: 'a', value: 'a' }]); // 0
    f.log.roll();
    produce(f.log, [{ key: 'b', value: 'b' }]); // 1
    produce(f.log, [{ key: 'c', value: 'c' }]); // 2: the map is full before it
    produce(f.log, [{ key: 'b', value: 'aborted-b' }], { producerId: 8, producerEpoch: 0, baseSequence: 0, isTransactional: true }); // 3
    marker(f.log, 8, false); // 4
    produce(f.log, [{ key: 'd', value: 'd' }]); // 5
    f.log.roll();
    const listed = () => f.log.abortedTransactions(0, f.log.logEndOffset).map((t) => [t.producerId, t.firstOffset, t.lastOffset]);
    expect(listed()).toEqual([[8, 3, 4]]);

    expect(await f.cleaner.runOnce()).toBeGreaterThan(0);
    expect(listed()).toEqual([[8, 3, 4]]);
    expect(readCommitted(f.log).map((r) => r.value)).toEqual(['a', 'b', 'c', 'd']);
    expect(latestByKey(readAll(f.log).records).get('b')).toEqual({ offset: 1, value: 'b' });
  });
});
