// checkRecords' per-record faults: timestamps out of KIP-937 bounds (read from each record's delta, negative
// ones included) and keyless records, each reported once, a missing key before a timestamp as Kafka does.
import { describe, expect, it } from 'vitest';
import { MAX_LISTED_FAULTS, checkRecords } from '../../protocol/record-check.js';
import { encodeRecords, type KafkaRecord } from '../../protocol/record-batch.js';

function rec(i: number, timestampDelta: number, key: Buffer | null = Buffer.from(`k${i}`)): KafkaRecord {
  return { attributes: 0, timestampDelta, offsetDelta: i, key, value: Buffer.from('v'), headers: [] };
}

const BASE = 1_700_000_000_000;

describe('checkRecords timestamp bounds', () => {
  it('reports the records outside [min, max], bounds inclusive, below the base timestamp too', () => {
    const data = encodeRecords([rec(0, 0), rec(1, -1001), rec(2, -1000), rec(3, 500), rec(4, 501), rec(5, 2 ** 40)]);
    const faults = checkRecords(data, 6, { requireKeys: false, timestamps: { baseTimestamp: BASE, min: BASE - 1000, max: BASE + 500 } });
    expect(faults).toEqual({
      listed: [
        { batchIndex: 1, fault: 'timestamp', timestamp: BASE - 1001 },
        { batchIndex: 4, fault: 'timestamp', timestamp: BASE + 501 },
        { batchIndex: 5, fault: 'timestamp', timestamp: BASE + 2 ** 40 },
      ],
      total: 3,
      timestamp: true,
    });
  });

  it('skips records without a timestamp (-1), and checks nothing without bounds', () => {
    const data = encodeRecords([rec(0, 0), rec(1, 5)]);
    expect(checkRecords(data, 2, { requireKeys: false, timestamps: { baseTimestamp: -1, min: BASE, max: BASE } })?.listed).toEqual([
      { batchIndex: 1, fault: 'timestamp', timestamp: 4 },
    ]);
    expect(checkRecords(data, 2, { requireKeys: false, timestamps: null })).toBeNull();
  });

  it('a keyless record with a bad timestamp is reported once, for its key', () => {
    const data = encodeRecords([rec(0, 10_000, null), rec(1, 10_000)]);
    const faults = checkRecords(data, 2, { requireKeys: true, timestamps: { baseTimestamp: BASE, min: BASE, max: BASE } });
    expect(faults?.listed.map((f) => [f.batchIndex, f.fault])).toEqual([
      [0, 'keyless'],
      [1, 'timestamp'],
    ]);
  });

  it(`lists the first ${MAX_LISTED_FAULTS} refused records of a batch and counts them all`, () => {
    const n = MAX_LISTED_FAULTS + 500;
    const data = encodeRecords(Array.from({ length: n }, (_, i) => rec(i, i === n - 1 ? 10_000 : 0, i === n - 1 ? Buffer.from('k') : null)));
    const faults = checkRecords(data, n, { requireKeys: true, timestamps: { baseTimestamp: BASE, min: BASE, max: BASE } })!;
    expect(faults.total).toBe(n);
    expect(faults.listed).toHaveLength(MAX_LISTED_FAULTS);
    expect(faults.listed.at(-1)).toMatchObject({ batchIndex: MAX_LISTED_FAULTS - 1, fault: 'keyless' });
    // The one timestamp fault is past the listed ones, and still makes the batch's error INVALID_TIMESTAMP.
    expect(faults.timestamp).toBe(true);
  });
});
