// checkRecords' per-record faults: timestamps out of KIP-937 bounds (read from each record's delta, negative
// ones included) and keyless records, each reported once, a missing key before a timestamp as Kafka does.
import { describe, expect, it } from 'vitest';
import { checkRecords } from '../../protocol/record-check.js';
import { encodeRecords, type KafkaRecord } from '../../protocol/record-batch.js';

function rec(i: number, timestampDelta: number, key: Buffer | null = Buffer.from(`k${i}`)): KafkaRecord {
  return { attributes: 0, timestampDelta, offsetDelta: i, key, value: Buffer.from('v'), headers: [] };
}

const BASE = 1_700_000_000_000;

describe('checkRecords timestamp bounds', () => {
  it('reports the records outside [min, max], bounds inclusive, below the base timestamp too', () => {
    const data = encodeRecords([rec(0, 0), rec(1, -1001), rec(2, -1000), rec(3, 500), rec(4, 501), rec(5, 2 ** 40)]);
    const faults = checkRecords(data, 6, { requireKeys: false, timestamps: { baseTimestamp: BASE, min: BASE - 1000, max: BASE + 500 } });
    expect(faults).toEqual([
      { batchIndex: 1, fault: 'timestamp', timestamp: BASE - 1001 },
      { batchIndex: 4, fault: 'timestamp', timestamp: BASE + 501 },
      { batchIndex: 5, fault: 'timestamp', timestamp: BASE + 2 ** 40 },
    ]);
  });

  it('skips records without a timestamp (-1), and checks nothing without bounds', () => {
    const data = encodeRecords([rec(0, 0), rec(1, 5)]);
    expect(checkRecords(data, 2, { requireKeys: false, timestamps: { baseTimestamp: -1, min: BASE, max: BASE } })).toEqual([
      { batchIndex: 1, fault: 'timestamp', timestamp: 4 },
    ]);
    expect(checkRecords(data, 2, { requireKeys: false, timestamps: null })).toBeNull();
  });

  it('a keyless record with a bad timestamp is reported once, for its key', () => {
    const data = encodeRecords([rec(0, 10_000, null), rec(1, 10_000)]);
    const faults = checkRecords(data, 2, { requireKeys: true, timestamps: { baseTimestamp: BASE, min: BASE, max: BASE } });
    expect(faults?.map((f) => [f.batchIndex, f.fault])).toEqual([[0, 'keyless'], [1, 'timestamp']]);
  });
});
