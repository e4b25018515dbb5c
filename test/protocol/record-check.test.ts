// checkRecords on bytes: every record structure Kafka's LogValidator refuses, and the well-formed ones it keeps.
import { describe, expect, it } from 'vitest';
import { checkRecords } from '../../protocol/record-check.js';
import { encodeRecords, type KafkaRecord } from '../../protocol/record-batch.js';
import { KafkaError } from '../../protocol/errors.js';

const loose = { requireKeys: false };

function rec(i: number, over: Partial<KafkaRecord> = {}): KafkaRecord {
  return { attributes: 0, timestampDelta: i * 1000, offsetDelta: i, key: Buffer.from(`key-${i}`), value: Buffer.alloc(i * 50, 1), headers: [], ...over };
}

function refusal(data: Buffer, count: number, options = loose): string {
  try {
    checkRecords(data, count, options);
  } catch (err) {
    expect(err).toBeInstanceOf(KafkaError);
    expect((err as KafkaError).code).toBe(87);
    return (err as Error).message;
  }
  throw new Error('checkRecords accepted the records');
}

describe('checkRecords', () => {
  it('accepts records with null keys and values, headers, large varints and negative timestamp deltas', () => {
    const records = [
      rec(0, { key: null, value: null }),
      rec(1, {
        headers: [
          { key: 'a', value: null },
          { key: '', value: Buffer.from('v') },
        ],
      }),
      rec(2, { timestampDelta: -5_000_000_000, value: Buffer.alloc(70_000) }),
    ];
    expect(() => checkRecords(encodeRecords(records), 3, loose)).not.toThrow();
  });

  it('counts: fewer or more records than declared, and zero records with bytes', () => {
    const two = encodeRecords([rec(0), rec(1)]);
    expect(refusal(two, 3)).toMatch(/declares 3 records but holds 2/);
    expect(refusal(two, 1)).toMatch(/bytes remain after 1 records/);
    expect(refusal(two, 0)).toMatch(/bytes remain after 0 records/);
  });

  it('a record cut short at every byte is refused, never read past its end', () => {
    const data = encodeRecords([rec(0, { headers: [{ key: 'h', value: Buffer.from('x') }] })]);
    for (let cut = 1; cut < data.length; cut++) {
      const truncated = Buffer.from(data.subarray(0, cut));
      expect(refusal(truncated, 1)).toMatch(/record 0/);
    }
  });

  it('offset deltas must run 0, 1, 2', () => {
    expect(refusal(encodeRecords([rec(0), rec(2, { offsetDelta: 2 })]), 2)).toMatch(/record 1 has offset delta 2/);
  });

  it('negative lengths other than null, and negative header counts', () => {
    const keyed = encodeRecords([rec(0, { key: Buffer.from('k'), value: null })]);
    const bad = Buffer.from(keyed);
    // key length varint 1 (zig-zag 2) → -2 (zig-zag 3)
    bad[bad.indexOf(2, 3)] = 3;
    expect(refusal(bad, 1)).toMatch(/key has invalid length -2/);
    const headers = Buffer.from(encodeRecords([rec(0, { value: null })]));
    headers[headers.length - 1] = 0x01; // header count 0 → -1
    expect(refusal(headers, 1)).toMatch(/negative header count -1/);
  });

  it('a record length that disagrees with its fields', () => {
    const data = Buffer.concat([encodeRecords([rec(0, { value: null })]), Buffer.from([0])]);
    data[0] += 2; // one byte longer than its fields (the extra byte is there)
    expect(refusal(data, 1)).toMatch(/declares \d+ bytes but its fields take/);
  });

  it('a varint longer than 5 bytes', () => {
    expect(refusal(Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0x01]), 1)).toMatch(/length runs past the end of the record or is not a valid varint/);
  });

  it('requireKeys reports each record with a null key, as for a compacted topic', () => {
    const data = encodeRecords([rec(0), rec(1, { key: null }), rec(2), rec(3, { key: null })]);
    expect(checkRecords(data, 4, loose)).toBeNull();
    expect(checkRecords(data, 4, { requireKeys: true })?.listed.map((f) => [f.batchIndex, f.fault])).toEqual([
      [1, 'keyless'],
      [3, 'keyless'],
    ]);
  });
});
