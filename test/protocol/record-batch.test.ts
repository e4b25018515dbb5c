// Record batch (magic 2): header scan, validation, patches, full decode/encode, recompression, and
// interop with two independent encoders/decoders (kafkajs and @platformatic/kafka).
import { describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import { createRecordsBatch, readRecordsBatches, Reader as PlatformaticReader } from '@platformatic/kafka';
import {
  ATTRIBUTES_OFFSET,
  BASE_OFFSET_OFFSET,
  BASE_SEQUENCE_OFFSET,
  BATCH_LENGTH_OFFSET,
  CRC_OFFSET,
  MAGIC_OFFSET,
  MAX_TIMESTAMP_OFFSET,
  PARTITION_LEADER_EPOCH_OFFSET,
  PRODUCER_EPOCH_OFFSET,
  PRODUCER_ID_OFFSET,
  RECORDS_COUNT_OFFSET,
  RECORDS_OFFSET,
  RECORD_BATCH_OVERHEAD,
  LAST_OFFSET_DELTA_OFFSET,
  BASE_TIMESTAMP_OFFSET,
  TIMESTAMP_CREATE_TIME,
  TIMESTAMP_LOG_APPEND_TIME,
  buildBatch,
  decodeBatch,
  encodeBatch,
  readBatchHeader,
  recompress,
  scanBatches,
  setBaseOffset,
  setLogAppendTime,
  setPartitionLeaderEpoch,
  verifyBatchCrc,
  type KafkaRecord,
  type SimpleRecord,
} from '../../protocol/record-batch.js';
import { crc32c } from '../../protocol/crc32c.js';
import { CODEC_GZIP, CODEC_LZ4, CODEC_NONE, CODEC_SNAPPY, CODEC_ZSTD } from '../../protocol/compression/index.js';
import { ErrorCode, KafkaError } from '../../protocol/errors.js';

const require = createRequire(import.meta.url);
/* eslint-disable @typescript-eslint/no-explicit-any */
const KjsRecordBatch = require('kafkajs/src/protocol/recordBatch/v0').RecordBatch as (o: any) => Promise<{ buffer: Buffer }>;
const KjsRecord = require('kafkajs/src/protocol/recordBatch/record/v0') as (o: any) => unknown;
const KjsBatchDecoder = require('kafkajs/src/protocol/recordBatch/v0/decoder') as (d: any) => Promise<any>;
const KjsDecoder = require('kafkajs/src/protocol/decoder') as new (b: Buffer) => unknown;
const KjsLong = require('kafkajs/src/utils/long') as { fromValue(v: number | string): unknown };

const ALL_CODECS = [CODEC_NONE, CODEC_GZIP, CODEC_SNAPPY, CODEC_LZ4, CODEC_ZSTD];

function expectKafkaError(fn: () => unknown, code: number, message?: RegExp): void {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(KafkaError);
    expect((err as KafkaError).code).toBe(code);
    if (message) expect((err as Error).message).toMatch(message);
    return;
  }
  throw new Error('expected a KafkaError');
}

/** Recompute the CRC after a test mutated covered bytes. */
function fixCrc(buf: Buffer, pos = 0): void {
  const size = 12 + buf.readInt32BE(pos + BATCH_LENGTH_OFFSET);
  buf.writeUInt32BE(crc32c(buf, pos + ATTRIBUTES_OFFSET, pos + size), pos + CRC_OFFSET);
}

/** Records with buffers as base64 strings: vitest's deep equality walks Buffers byte by byte, which is slow for 100 KB values. */
function norm(records: KafkaRecord[]) {
  const b = (v: Buffer | null) => (v === null ? null : v.toString('base64'));
  return records.map((r) => ({ ...r, key: b(r.key), value: b(r.value), headers: r.headers.map((h) => ({ key: h.key, value: b(h.value) })) }));
}

const T0 = 1_700_000_000_000;
const RECORDS: SimpleRecord[] = [
  { key: 'k0', value: 'v0', timestamp: T0, headers: [{ key: 'h', value: 'x' }] },
  { key: null, value: 'no key', timestamp: T0 + 5 },
  {
    key: 'k2',
    value: null,
    timestamp: T0 - 3,
    headers: [
      { key: 'ünïcødé', value: null },
      { key: 'h', value: Buffer.from([0, 1, 2]) },
    ],
  },
  { key: Buffer.alloc(0), value: Buffer.alloc(0), timestamp: T0 + 1000 },
  { key: 'big', value: Buffer.alloc(100_000, 'abc'), timestamp: T0 + 7 },
];

function expectRecordsMatch(records: KafkaRecord[], input: SimpleRecord[], baseTimestamp: number): void {
  expect(records.length).toBe(input.length);
  const buf = (v: Buffer | string | null | undefined) => (v === null || v === undefined ? null : Buffer.from(v));
  records.forEach((r, i) => {
    expect(r.offsetDelta).toBe(i);
    expect(r.attributes).toBe(0);
    expect(baseTimestamp + r.timestampDelta).toBe(input[i].timestamp);
    expect(r.key === null ? null : r.key.toString('base64')).toEqual(buf(input[i].key)?.toString('base64') ?? null);
    expect(r.value === null ? null : r.value.toString('base64')).toEqual(buf(input[i].value)?.toString('base64') ?? null);
    expect(r.headers).toEqual((input[i].headers ?? []).map((h) => ({ key: h.key, value: buf(h.value) })));
  });
}

describe('crc32c', () => {
  it('matches the standard check value', () => {
    expect(crc32c(Buffer.from('123456789'))).toBe(0xe3069283);
    expect(crc32c(Buffer.from('xx123456789yy'), 2, 11)).toBe(0xe3069283);
    expect(crc32c(Buffer.alloc(0))).toBe(0);
  });
});

describe('layout', () => {
  it("has Kafka's header offsets", () => {
    expect([
      BASE_OFFSET_OFFSET,
      BATCH_LENGTH_OFFSET,
      PARTITION_LEADER_EPOCH_OFFSET,
      MAGIC_OFFSET,
      CRC_OFFSET,
      ATTRIBUTES_OFFSET,
      LAST_OFFSET_DELTA_OFFSET,
      BASE_TIMESTAMP_OFFSET,
      MAX_TIMESTAMP_OFFSET,
      PRODUCER_ID_OFFSET,
      PRODUCER_EPOCH_OFFSET,
      BASE_SEQUENCE_OFFSET,
      RECORDS_COUNT_OFFSET,
      RECORDS_OFFSET,
    ]).toEqual([0, 8, 12, 16, 17, 21, 23, 27, 35, 43, 51, 53, 57, 61]);
    expect(RECORD_BATCH_OVERHEAD).toBe(61);
  });

  it('encodes an empty batch as exactly the header', () => {
    const b = encodeBatch({ records: [], lastOffsetDelta: 4, baseOffset: 10 });
    expect(b.length).toBe(61);
    const info = scanBatches(b, { fromClient: false })[0];
    expect(info).toMatchObject({ recordCount: 0, lastOffsetDelta: 4, baseOffset: 10, baseTimestamp: -1, maxTimestamp: -1 });
    expect(decodeBatch(b).records).toEqual([]);
  });
});

describe.each(ALL_CODECS)('encode/scan/decode with codec %i', (codec) => {
  const batch = buildBatch(RECORDS, {
    compression: codec,
    baseOffset: 0,
    producerId: 4242,
    producerEpoch: 3,
    baseSequence: 17,
    partitionLeaderEpoch: -1,
    isTransactional: true,
  });

  it('scanBatches reads the header', () => {
    const [info, ...rest] = scanBatches(batch);
    expect(rest).toEqual([]);
    expect(info).toEqual({
      position: 0,
      size: batch.length,
      baseOffset: 0,
      lastOffsetDelta: 4,
      recordCount: 5,
      magic: 2,
      attributes: codec | 0x10,
      compression: codec,
      timestampType: TIMESTAMP_CREATE_TIME,
      isTransactional: true,
      isControl: false,
      hasDeleteHorizon: false,
      baseTimestamp: T0,
      maxTimestamp: T0 + 1000,
      producerId: 4242,
      producerEpoch: 3,
      baseSequence: 17,
      partitionLeaderEpoch: -1,
    });
    expect(readBatchHeader(batch, 0)).toEqual(info);
    expect(verifyBatchCrc(batch, 0, batch.length)).toBe(true);
  });

  it('decodeBatch returns the records', () => {
    const decoded = decodeBatch(batch);
    expect(decoded.compression).toBe(codec);
    expectRecordsMatch(decoded.records, RECORDS, decoded.baseTimestamp);
  });

  it('compresses the records section', () => {
    if (codec === CODEC_NONE) return;
    expect(batch.length).toBeLessThan(buildBatch(RECORDS).length / 2);
  });
});

describe('scanBatches over several batches', () => {
  it('walks consecutive batches and reports positions', () => {
    const a = buildBatch([{ value: 'a', timestamp: T0 }]);
    const b = buildBatch(
      [
        { value: 'b', timestamp: T0 },
        { value: 'c', timestamp: T0 },
      ],
      { compression: CODEC_GZIP },
    );
    const c = buildBatch([{ value: 'd', timestamp: T0 }], { compression: CODEC_ZSTD });
    const infos = scanBatches(Buffer.concat([a, b, c]));
    expect(infos.map((i) => [i.position, i.size, i.recordCount, i.compression])).toEqual([
      [0, a.length, 1, 0],
      [a.length, b.length, 2, 1],
      [a.length + b.length, c.length, 1, 4],
    ]);
  });

  it('returns nothing for an empty buffer', () => {
    expect(scanBatches(Buffer.alloc(0))).toEqual([]);
  });
});

describe('validation errors', () => {
  const good = () => Buffer.from(buildBatch(RECORDS.slice(0, 3), { compression: CODEC_NONE }));

  it('detects CRC corruption anywhere in the covered range', () => {
    for (const at of [ATTRIBUTES_OFFSET + 1, MAX_TIMESTAMP_OFFSET + 3, RECORDS_OFFSET + 5]) {
      const b = good();
      b[at] ^= 0x01;
      expect(verifyBatchCrc(b, 0, b.length)).toBe(false);
      expectKafkaError(() => scanBatches(b), ErrorCode.CORRUPT_MESSAGE, /crc/);
    }
    const last = good();
    last[last.length - 1] ^= 0x80;
    expectKafkaError(() => scanBatches(last), ErrorCode.CORRUPT_MESSAGE);
    const crc = good();
    crc[CRC_OFFSET] ^= 0x10;
    expectKafkaError(() => scanBatches(crc), ErrorCode.CORRUPT_MESSAGE);
  });

  it('detects corruption of a compressed batch without decompressing', () => {
    const b = Buffer.from(buildBatch(RECORDS, { compression: CODEC_LZ4 }));
    b[RECORDS_OFFSET + 10] ^= 0xff;
    expectKafkaError(() => scanBatches(b), ErrorCode.CORRUPT_MESSAGE);
  });

  it('detects truncated batches and trailing partial data', () => {
    const b = good();
    expectKafkaError(() => scanBatches(b.subarray(0, b.length - 1)), ErrorCode.CORRUPT_MESSAGE, /truncated/);
    expectKafkaError(() => scanBatches(b.subarray(0, 40)), ErrorCode.CORRUPT_MESSAGE);
    expectKafkaError(() => scanBatches(b.subarray(0, 10)), ErrorCode.CORRUPT_MESSAGE);
    expectKafkaError(() => scanBatches(Buffer.concat([b, b.subarray(0, 30)])), ErrorCode.CORRUPT_MESSAGE);
    expectKafkaError(() => scanBatches(Buffer.concat([b, Buffer.alloc(5)])), ErrorCode.CORRUPT_MESSAGE);
  });

  it('rejects a batch length below the header size and negative lengths', () => {
    const b = good();
    b.writeInt32BE(RECORD_BATCH_OVERHEAD - 12 - 1, BATCH_LENGTH_OFFSET);
    expectKafkaError(() => scanBatches(b.subarray(0, 60)), ErrorCode.CORRUPT_MESSAGE, /smaller than the minimum/);
    const n = good();
    n.writeInt32BE(-5, BATCH_LENGTH_OFFSET);
    expectKafkaError(() => scanBatches(n), ErrorCode.CORRUPT_MESSAGE);
  });

  it('rejects magic 0 and 1 (legacy message sets) with INVALID_RECORD', () => {
    // A v1 legacy message: offset, size, crc, magic=1, attributes, timestamp, key -1, value "x".
    const legacy = Buffer.alloc(12 + 4 + 1 + 1 + 8 + 4 + 4 + 1);
    legacy.writeInt32BE(legacy.length - 12, 8);
    legacy.writeInt8(1, 16);
    legacy.writeInt32BE(-1, 26);
    legacy.writeInt32BE(1, 30);
    legacy[34] = 0x78;
    expectKafkaError(() => scanBatches(legacy), ErrorCode.INVALID_RECORD, /magic/);
    const b = good();
    b.writeInt8(0, MAGIC_OFFSET);
    expectKafkaError(() => scanBatches(b), ErrorCode.INVALID_RECORD);
    b.writeInt8(3, MAGIC_OFFSET);
    expectKafkaError(() => scanBatches(b), ErrorCode.INVALID_RECORD);
  });

  it('rejects an unknown codec id with UNSUPPORTED_COMPRESSION_TYPE', () => {
    const b = good();
    b.writeInt16BE(5, ATTRIBUTES_OFFSET);
    fixCrc(b);
    expectKafkaError(() => scanBatches(b), ErrorCode.UNSUPPORTED_COMPRESSION_TYPE);
    expectKafkaError(() => decodeBatch(b), ErrorCode.UNSUPPORTED_COMPRESSION_TYPE);
  });

  it("applies Kafka's client checks (INVALID_RECORD) unless fromClient is false", () => {
    const records = [{ attributes: 0, timestampDelta: 0, offsetDelta: 0, key: null, value: Buffer.from('x'), headers: [] }];
    const mismatch = encodeBatch({ records, lastOffsetDelta: 3, baseTimestamp: T0 });
    expectKafkaError(() => scanBatches(mismatch), ErrorCode.INVALID_RECORD, /Inconsistent batch offset range/);
    expect(scanBatches(mismatch, { fromClient: false })[0].lastOffsetDelta).toBe(3);

    const empty = encodeBatch({ records: [], lastOffsetDelta: -1 });
    expectKafkaError(() => scanBatches(empty), ErrorCode.INVALID_RECORD);
    expect(scanBatches(empty, { fromClient: false })[0].recordCount).toBe(0);

    const control = encodeBatch({ records, isControl: true, baseTimestamp: T0 });
    expectKafkaError(() => scanBatches(control), ErrorCode.INVALID_RECORD, /control/);
    expect(scanBatches(control, { fromClient: false })[0].isControl).toBe(true);

    const noSeq = encodeBatch({ records, producerId: 7, producerEpoch: 0, baseSequence: -1, baseTimestamp: T0 });
    expectKafkaError(() => scanBatches(noSeq), ErrorCode.INVALID_RECORD, /sequence/);

    const negCount = Buffer.from(mismatch);
    negCount.writeInt32BE(-1, RECORDS_COUNT_OFFSET);
    fixCrc(negCount);
    expectKafkaError(() => scanBatches(negCount, { fromClient: false }), ErrorCode.CORRUPT_MESSAGE);
  });

  it('decodeBatch rejects malformed records with INVALID_RECORD', () => {
    const moreCount = good();
    moreCount.writeInt32BE(4, RECORDS_COUNT_OFFSET);
    fixCrc(moreCount);
    expectKafkaError(() => decodeBatch(moreCount), ErrorCode.INVALID_RECORD);

    const lessCount = good();
    lessCount.writeInt32BE(2, RECORDS_COUNT_OFFSET);
    fixCrc(lessCount);
    expectKafkaError(() => decodeBatch(lessCount), ErrorCode.INVALID_RECORD, /remain/);

    const badLen = good();
    badLen[RECORDS_OFFSET] += 2; // first record's length varint (small, one byte)
    fixCrc(badLen);
    expectKafkaError(() => decodeBatch(badLen), ErrorCode.INVALID_RECORD);
  });

  it('decodeBatch reports undecompressable data as CORRUPT_MESSAGE', () => {
    const b = Buffer.from(buildBatch(RECORDS, { compression: CODEC_GZIP }));
    b.fill(0x55, RECORDS_OFFSET + 12, RECORDS_OFFSET + 40);
    fixCrc(b);
    expectKafkaError(() => decodeBatch(b), ErrorCode.CORRUPT_MESSAGE);
  });
});

describe('in-place patches', () => {
  it('setBaseOffset and setPartitionLeaderEpoch leave the CRC valid', () => {
    const b = Buffer.from(buildBatch(RECORDS, { compression: CODEC_SNAPPY }));
    const crc = b.readUInt32BE(CRC_OFFSET);
    for (const off of [0, 1, 2 ** 32 + 5, 2 ** 40 + 123, 2 ** 53 - 1, -1]) {
      setBaseOffset(b, 0, off);
      expect(readBatchHeader(b, 0).baseOffset).toBe(off);
      expect(b.readBigInt64BE(0)).toBe(BigInt(off));
    }
    setPartitionLeaderEpoch(b, 0, 17);
    expect(readBatchHeader(b, 0).partitionLeaderEpoch).toBe(17);
    expect(b.readUInt32BE(CRC_OFFSET)).toBe(crc);
    expect(scanBatches(b)[0].baseOffset).toBe(-1);
  });

  it('patches a batch in the middle of a buffer', () => {
    const a = buildBatch([{ value: 'a', timestamp: T0 }]);
    const b = buildBatch([
      { value: 'b', timestamp: T0 },
      { value: 'c', timestamp: T0 + 1 },
    ]);
    const buf = Buffer.concat([a, b]);
    setBaseOffset(buf, a.length, 100);
    setLogAppendTime(buf, a.length, T0 + 99);
    const infos = scanBatches(buf);
    expect(infos[0]).toMatchObject({ baseOffset: 0, timestampType: TIMESTAMP_CREATE_TIME });
    expect(infos[1]).toMatchObject({ baseOffset: 100, timestampType: TIMESTAMP_LOG_APPEND_TIME, maxTimestamp: T0 + 99 });
  });

  it('setLogAppendTime sets the attribute and maxTimestamp, keeps baseTimestamp and records, and a valid CRC', () => {
    const b = Buffer.from(buildBatch(RECORDS, { compression: CODEC_GZIP }));
    const before = decodeBatch(b);
    const appendTime = T0 + 123_456;
    setLogAppendTime(b, 0, appendTime);
    expect(verifyBatchCrc(b, 0, b.length)).toBe(true);
    const info = scanBatches(b)[0];
    expect(info.timestampType).toBe(TIMESTAMP_LOG_APPEND_TIME);
    expect(info.attributes).toBe(CODEC_GZIP | 0x08);
    expect(info.maxTimestamp).toBe(appendTime);
    expect(info.baseTimestamp).toBe(T0);
    expect(b.subarray(RECORDS_OFFSET).equals(buildBatch(RECORDS, { compression: CODEC_GZIP }).subarray(RECORDS_OFFSET))).toBe(true);
    expect(norm(decodeBatch(b).records)).toEqual(norm(before.records));
    // idempotent
    const snapshot = Buffer.from(b);
    setLogAppendTime(b, 0, appendTime);
    expect(b.equals(snapshot)).toBe(true);
  });
});

describe('recompress', () => {
  const source = (codec: number) =>
    buildBatch(RECORDS, {
      compression: codec,
      baseOffset: 1000,
      partitionLeaderEpoch: 9,
      producerId: 77,
      producerEpoch: 2,
      baseSequence: 5,
      isTransactional: true,
    });

  for (const from of ALL_CODECS) {
    for (const to of ALL_CODECS) {
      it(`${from} -> ${to}`, () => {
        const src = source(from);
        const out = recompress(src, to);
        const [info] = scanBatches(out);
        const srcInfo = scanBatches(src)[0];
        expect(info).toEqual({ ...srcInfo, size: out.length, compression: to, attributes: (srcInfo.attributes & ~7) | to });
        expect(norm(decodeBatch(out).records)).toEqual(norm(decodeBatch(src).records));
      });
    }
  }

  it('keeps offset gaps, LogAppendTime and lastOffsetDelta of a compacted batch', () => {
    const records: KafkaRecord[] = [
      { attributes: 0, timestampDelta: 0, offsetDelta: 1, key: Buffer.from('a'), value: Buffer.from('1'), headers: [] },
      { attributes: 0, timestampDelta: 4, offsetDelta: 6, key: Buffer.from('b'), value: null, headers: [] },
    ];
    const src = encodeBatch({
      records,
      baseOffset: 50,
      lastOffsetDelta: 9,
      baseTimestamp: T0,
      maxTimestamp: T0 + 500,
      timestampType: TIMESTAMP_LOG_APPEND_TIME,
    });
    const out = recompress(src, CODEC_ZSTD);
    const d = decodeBatch(out);
    expect(d).toMatchObject({ baseOffset: 50, lastOffsetDelta: 9, recordCount: 2, maxTimestamp: T0 + 500, timestampType: TIMESTAMP_LOG_APPEND_TIME });
    expect(d.records).toEqual(records);
  });

  it('recompresses a batch at a position inside a larger buffer', () => {
    const a = buildBatch([{ value: 'a', timestamp: T0 }]);
    const b = buildBatch(RECORDS, { compression: CODEC_LZ4 });
    const out = recompress(Buffer.concat([a, b]), CODEC_NONE, a.length);
    expect(norm(decodeBatch(out).records)).toEqual(norm(decodeBatch(b).records));
  });
});

describe('kafkajs interop', () => {
  async function kafkajsBatch(compression: number) {
    const records = [
      KjsRecord({ offsetDelta: 0, timestampDelta: 0, key: Buffer.from('key-0'), value: Buffer.from('value-0'), headers: { trace: 'abc', multi: ['1', '2'] } }),
      KjsRecord({ offsetDelta: 1, timestampDelta: 12, key: null, value: Buffer.from('value-1') }),
      KjsRecord({ offsetDelta: 2, timestampDelta: 30, key: Buffer.from('key-2'), value: Buffer.from('x'.repeat(5000)) }),
    ];
    const batch = await KjsRecordBatch({
      compression,
      firstOffset: KjsLong.fromValue(0),
      firstTimestamp: T0,
      maxTimestamp: T0 + 30,
      partitionLeaderEpoch: 0,
      lastOffsetDelta: 2,
      producerId: KjsLong.fromValue(-1),
      producerEpoch: 0,
      firstSequence: 0,
      records,
    });
    return batch.buffer;
  }

  for (const codec of [CODEC_NONE, CODEC_GZIP]) {
    it(`reads a kafkajs-encoded batch (codec ${codec})`, async () => {
      const buf = await kafkajsBatch(codec);
      const [info] = scanBatches(buf);
      expect(info).toMatchObject({
        position: 0,
        size: buf.length,
        baseOffset: 0,
        lastOffsetDelta: 2,
        recordCount: 3,
        compression: codec,
        timestampType: TIMESTAMP_CREATE_TIME,
        isTransactional: false,
        isControl: false,
        baseTimestamp: T0,
        maxTimestamp: T0 + 30,
        producerId: -1,
        producerEpoch: 0,
        baseSequence: 0,
        partitionLeaderEpoch: 0,
      });
      const { records } = decodeBatch(buf);
      expect(records.map((r) => [r.offsetDelta, r.timestampDelta, r.key?.toString() ?? null, r.value?.toString().slice(0, 10)])).toEqual([
        [0, 0, 'key-0', 'value-0'],
        [1, 12, null, 'value-1'],
        [2, 30, 'key-2', 'xxxxxxxxxx'],
      ]);
      expect(records[0].headers.map((h) => [h.key, h.value?.toString()])).toEqual([
        ['trace', 'abc'],
        ['multi', '1'],
        ['multi', '2'],
      ]);
      expect(records[2].value!.length).toBe(5000);
    });

    it(`kafkajs decodes encodeBatch output (codec ${codec})`, async () => {
      const buf = buildBatch(RECORDS, { compression: codec, baseOffset: 300 });
      setLogAppendTime(buf, 0, T0 + 5555);
      const decoded = await KjsBatchDecoder(new KjsDecoder(buf));
      expect(decoded.firstOffset).toBe('300');
      expect(decoded.maxTimestamp).toBe(String(T0 + 5555));
      expect(decoded.records.length).toBe(RECORDS.length);
      decoded.records.forEach((r: any, i: number) => {
        expect(r.offset).toBe(String(300 + i));
        expect(r.timestamp).toBe(String(T0 + 5555)); // LogAppendTime: every record takes maxTimestamp
        const want = (v: SimpleRecord['key']) => (v === null || v === undefined ? null : Buffer.from(v).toString('base64'));
        expect(r.key === null ? null : r.key.toString('base64')).toBe(want(RECORDS[i].key));
        expect(r.value === null ? null : r.value.toString('base64')).toBe(want(RECORDS[i].value));
      });
      expect(decoded.records[0].headers).toEqual({ h: Buffer.from('x') });
    });
  }
});

describe('@platformatic/kafka interop', () => {
  const messages = () => [
    { topic: 't', key: Buffer.from('k1'), value: Buffer.from('hello'), timestamp: BigInt(T0), headers: new Map([[Buffer.from('hk'), Buffer.from('hv')]]) },
    { topic: 't', value: Buffer.from('y'.repeat(3000)), timestamp: BigInt(T0 + 9) },
  ];

  for (const name of ['none', 'gzip', 'snappy', 'lz4'] as const) {
    it(`reads a platformatic-encoded batch (${name})`, () => {
      const buf = createRecordsBatch(messages(), { compression: name }).buffer;
      const [info] = scanBatches(buf);
      expect(info).toMatchObject({
        recordCount: 2,
        lastOffsetDelta: 1,
        baseTimestamp: T0,
        maxTimestamp: T0 + 9,
        compression: ['none', 'gzip', 'snappy', 'lz4'].indexOf(name),
      });
      const { records } = decodeBatch(buf);
      expect(records[0].key!.toString()).toBe('k1');
      expect(records[0].value!.toString()).toBe('hello');
      expect(records[0].headers).toEqual([{ key: 'hk', value: Buffer.from('hv') }]);
      expect(records[1].key).toBeNull();
      expect(records[1].value!.toString()).toBe('y'.repeat(3000));
      expect(records[1].timestampDelta).toBe(9);
    });
  }

  for (const codec of [CODEC_NONE, CODEC_GZIP, CODEC_SNAPPY, CODEC_LZ4]) {
    it(`platformatic decodes encodeBatch output (codec ${codec})`, () => {
      const buf = buildBatch(RECORDS, { compression: codec, baseOffset: 12, partitionLeaderEpoch: 3 });
      const [batch] = readRecordsBatches(PlatformaticReader.from(buf));
      expect(batch.firstOffset).toBe(12n);
      expect(batch.partitionLeaderEpoch).toBe(3);
      expect(batch.records.length).toBe(RECORDS.length);
      expect(batch.records[2].key!.toString()).toBe('k2');
      expect(batch.records[2].value).toBeNull();
      expect(batch.records[4].value!.length).toBe(100_000);
    });
  }
});
