// Produce on a live broker: every served version, every error Kafka's LogValidator would give, and the
// rewrites the broker makes (LogAppendTime, recompression), checked by fetching the stored bytes back.
import { describe, expect, it } from 'vitest';
import { useBrokerAndClient, withBroker } from '../helpers.js';
import { TestClient } from '../server/client.js';
import { API, batchesOf, createTopic, fetchOne, produce, produceBody, produceOk, recordsOf, uniqueTopic, values } from '../server/kafka.js';
import { buildBatch, readBatchHeader, verifyBatchCrc } from '../../protocol/record-batch.js';
import { CODEC_GZIP, CODEC_ZSTD } from '../../protocol/compression/index.js';
import type { Message } from '../../protocol/codec.js';

const live = useBrokerAndClient();

describe('Produce versions', () => {
  for (const v of [0, 1, 2]) {
    it(`v${v} is advertised but answered UNSUPPORTED_VERSION on every partition`, async () => {
      const topic = uniqueTopic('old');
      await createTopic(live.client, topic, 2);
      const batch = buildBatch(values(1));
      const res = await live.client.request(API.Produce, v, {
        acks: 1,
        timeoutMs: 1000,
        topicData: [
          {
            name: topic,
            partitionData: [
              { index: 0, records: batch },
              { index: 1, records: batch },
            ],
          },
        ],
      });
      expect(res.responses).toHaveLength(1);
      expect(res.responses[0].name).toBe(topic);
      expect(res.responses[0].partitionResponses.map((p: Message) => [p.index, p.errorCode])).toEqual([
        [0, 35],
        [1, 35],
      ]);
      // nothing was written
      const f = await fetchOne(live.client, topic, 0, 0);
      expect(f.highWatermark).toBe(0);
    });
  }

  it('v3..v11 append and Fetch v4..v17 read the same records back (by name, and by topic id from v13)', async () => {
    const topic = uniqueTopic('rt');
    const created = await createTopic(live.client, topic, 1);
    const md = await live.client.request(API.Metadata, 10, {
      topics: [{ name: topic, topicId: Buffer.alloc(16) }],
      allowAutoTopicCreation: false,
      includeClusterAuthorizedOperations: false,
      includeTopicAuthorizedOperations: false,
    });
    const topicId: Buffer = md.topics[0].topicId;
    expect(topicId.equals(created.topicId)).toBe(true);
    const expected: { offset: number; key: string; value: string }[] = [];
    let next = 0;
    for (let v = 3; v <= 11; v++) {
      const recs = values(v - 1, `p${v}-`); // 2..10 records per batch
      const p = await produce(live.client, topic, 0, buildBatch(recs), v);
      expect(p.errorCode).toBe(0);
      expect(p.baseOffset).toBe(next);
      if (v >= 5) expect(p.logStartOffset).toBe(0);
      if (v >= 2) expect(p.logAppendTimeMs).toBe(-1);
      recs.forEach((r, i) => expected.push({ offset: next + i, key: r.key as string, value: r.value as string }));
      next += recs.length;
    }
    for (const fv of [4, 5, 7, 9, 11, 12, 13, 15, 16, 17]) {
      const p = await fetchOne(live.client, fv >= 13 ? topicId : topic, 0, 0, fv);
      expect(p.errorCode).toBe(0);
      expect(p.highWatermark).toBe(next);
      expect(p.lastStableOffset).toBe(next);
      if (fv >= 5) expect(p.logStartOffset).toBe(0);
      expect(recordsOf(p.records).map(({ offset, key, value }) => ({ offset, key, value }))).toEqual(expected);
      // from the middle: the batch holding offset 5 may start before it; everything from 5 is there
      const mid = await fetchOne(live.client, fv >= 13 ? topicId : topic, 0, 5, fv);
      const got = recordsOf(mid.records).filter((r) => r.offset >= 5);
      expect(got.map((r) => r.value)).toEqual(expected.slice(5).map((r) => r.value));
    }
  });
});

describe('Produce errors', () => {
  it('acks=2 is INVALID_REQUIRED_ACKS and writes nothing', async () => {
    const topic = uniqueTopic('acks');
    await createTopic(live.client, topic);
    const res = await live.client.request(API.Produce, 9, produceBody(topic, 0, buildBatch(values(1)), 2));
    expect(res.responses[0].partitionResponses[0]).toMatchObject({ index: 0, errorCode: 21, baseOffset: -1 });
    expect((await fetchOne(live.client, topic, 0, 0)).highWatermark).toBe(0);
  });

  it('an unknown topic is UNKNOWN_TOPIC_OR_PARTITION and is not created', async () => {
    const topic = uniqueTopic('nope');
    const p = await produce(live.client, topic, 0, buildBatch(values(1)));
    expect(p.errorCode).toBe(3);
    expect(p.baseOffset).toBe(-1);
    const md = await live.client.request(API.Metadata, 1, { topics: null });
    expect(md.topics.map((t: Message) => t.name)).not.toContain(topic);
  });

  it('an unknown partition of a known topic is UNKNOWN_TOPIC_OR_PARTITION', async () => {
    const topic = uniqueTopic('part');
    await createTopic(live.client, topic, 2);
    expect((await produce(live.client, topic, 2, buildBatch(values(1)))).errorCode).toBe(3);
    expect((await produce(live.client, topic, -1, buildBatch(values(1)))).errorCode).toBe(3);
  });

  it('a batch larger than the topic max.message.bytes is MESSAGE_TOO_LARGE; one under it passes', async () => {
    const topic = uniqueTopic('big');
    await createTopic(live.client, topic, 1, { 'max.message.bytes': '500' });
    const big = buildBatch([{ value: Buffer.alloc(600, 1) }]);
    const p = await produce(live.client, topic, 0, big);
    expect(p.errorCode).toBe(10);
    expect(p.errorMessage).toMatch(/max\.message\.bytes/);
    const small = buildBatch([{ value: Buffer.alloc(100, 1) }]);
    expect((await produce(live.client, topic, 0, small)).errorCode).toBe(0);
    expect((await fetchOne(live.client, topic, 0, 0)).highWatermark).toBe(1);
  });

  it('a corrupted CRC is CORRUPT_MESSAGE', async () => {
    const topic = uniqueTopic('crc');
    await createTopic(live.client, topic);
    const batch = buildBatch(values(3));
    batch[batch.length - 2] ^= 0xff; // a byte of the last record's value
    const p = await produce(live.client, topic, 0, batch);
    expect(p.errorCode).toBe(2);
    expect((await fetchOne(live.client, topic, 0, 0)).highWatermark).toBe(0);
  });

  it('two batches in one partition is INVALID_RECORD', async () => {
    const topic = uniqueTopic('two');
    await createTopic(live.client, topic);
    const p = await produce(live.client, topic, 0, Buffer.concat([buildBatch(values(1)), buildBatch(values(1))]));
    expect(p.errorCode).toBe(87);
    expect((await fetchOne(live.client, topic, 0, 0)).highWatermark).toBe(0);
  });

  it('null or empty records is INVALID_RECORD', async () => {
    const topic = uniqueTopic('empty');
    await createTopic(live.client, topic);
    expect((await produce(live.client, topic, 0, null as unknown as Buffer)).errorCode).toBe(87);
    expect((await produce(live.client, topic, 0, Buffer.alloc(0))).errorCode).toBe(87);
  });

  it('errors are per partition: a bad partition does not fail the good one', async () => {
    const topic = uniqueTopic('mixed');
    await createTopic(live.client, topic, 2);
    const bad = buildBatch(values(1));
    bad[bad.length - 1] ^= 0x01;
    const res = await live.client.request(API.Produce, 9, {
      transactionalId: null,
      acks: -1,
      timeoutMs: 1000,
      topicData: [
        {
          name: topic,
          partitionData: [
            { index: 0, records: buildBatch(values(2)) },
            { index: 1, records: bad },
          ],
        },
      ],
    });
    expect(res.responses[0].partitionResponses.map((p: Message) => [p.index, p.errorCode, p.baseOffset])).toEqual([
      [0, 0, 0],
      [1, 2, -1],
    ]);
  });
});

describe('Produce against a broker-wide message.max.bytes', () => {
  it('message.max.bytes=1000 makes a bigger batch MESSAGE_TOO_LARGE on an auto-created topic', async () => {
    const small = await withBroker({ config: { 'message.max.bytes': '1000' } });
    const c = await TestClient.connect(small.port);
    try {
      const topic = uniqueTopic('mmb');
      const md = await c.request(API.Metadata, 9, { topics: [{ name: topic }], allowAutoTopicCreation: true, includeTopicAuthorizedOperations: false });
      expect(md.topics[0].errorCode).toBe(0);
      const p = await produce(c, topic, 0, buildBatch([{ value: Buffer.alloc(1200, 7) }]));
      expect(p.errorCode).toBe(10);
      const ok = await produce(c, topic, 0, buildBatch([{ value: Buffer.alloc(800, 7) }]));
      expect(ok.errorCode).toBe(0);
      // a topic-level override above the broker default wins
      const t2 = uniqueTopic('mmb2');
      await createTopic(c, t2, 1, { 'max.message.bytes': '5000' });
      expect((await produce(c, t2, 0, buildBatch([{ value: Buffer.alloc(1200, 7) }]))).errorCode).toBe(0);
    } finally {
      c.close();
      await small.close();
    }
  });
});

describe('Broker-side rewrites', () => {
  it('LogAppendTime: logAppendTimeMs is set and the stored batch carries it as maxTimestamp with the type bit', async () => {
    const topic = uniqueTopic('lat');
    await createTopic(live.client, topic, 1, { 'message.timestamp.type': 'LogAppendTime' });
    const before = Date.now();
    const recs = [
      { value: 'a', timestamp: 1000 },
      { value: 'b', timestamp: 2000 },
    ];
    const p = await produce(live.client, topic, 0, buildBatch(recs));
    const after = Date.now();
    expect(p.errorCode).toBe(0);
    expect(p.logAppendTimeMs).toBeGreaterThanOrEqual(before);
    expect(p.logAppendTimeMs).toBeLessThanOrEqual(after);
    const f = await fetchOne(live.client, topic, 0, 0);
    const [b] = batchesOf(f.records);
    expect(b.timestampType).toBe(1);
    expect(b.attributes & 0x08).toBe(0x08);
    expect(b.maxTimestamp).toBe(p.logAppendTimeMs);
    expect(verifyBatchCrc(f.records, 0, b.size)).toBe(true);
    expect(recordsOf(f.records).map((r) => [r.value, r.timestamp])).toEqual([
      ['a', p.logAppendTimeMs],
      ['b', p.logAppendTimeMs],
    ]);
  });

  it('compression.type=zstd recompresses a gzip batch: codec zstd, valid CRC, same records and offsets', async () => {
    const topic = uniqueTopic('zstd');
    await createTopic(live.client, topic, 1, { 'compression.type': 'zstd' });
    await produceOk(live.client, topic, 0, values(2, 'first-'));
    const recs = Array.from({ length: 20 }, (_, i) => ({
      key: `k${i}`,
      value: `value-${i}-`.repeat(5),
      timestamp: 1_700_000_000_000 + i,
      headers: [{ key: 'h', value: `${i}` }],
    }));
    const gz = buildBatch(recs, { compression: CODEC_GZIP });
    expect(readBatchHeader(gz, 0).compression).toBe(CODEC_GZIP);
    const p = await produce(live.client, topic, 0, gz);
    expect(p.errorCode).toBe(0);
    expect(p.baseOffset).toBe(2);
    const f = await fetchOne(live.client, topic, 0, 2);
    const batches = batchesOf(f.records).filter((b) => b.baseOffset + b.lastOffsetDelta >= 2);
    expect(batches).toHaveLength(1);
    const b = batches[0];
    expect(b.compression).toBe(CODEC_ZSTD);
    expect(b.baseOffset).toBe(2);
    expect(b.lastOffsetDelta).toBe(19);
    expect(b.recordCount).toBe(20);
    expect(b.maxTimestamp).toBe(1_700_000_000_019);
    expect(verifyBatchCrc(f.records, b.position, b.size)).toBe(true);
    expect(
      b.records.map((r) => ({
        offset: b.baseOffset + r.offsetDelta,
        key: r.key!.toString(),
        value: r.value!.toString(),
        ts: b.baseTimestamp + r.timestampDelta,
        h: r.headers[0].value!.toString(),
      })),
    ).toEqual(recs.map((r, i) => ({ offset: 2 + i, key: r.key, value: r.value, ts: r.timestamp, h: `${i}` })));
    expect(f.highWatermark).toBe(22);
  });

  it('compression.type=uncompressed stores a gzip batch uncompressed', async () => {
    const topic = uniqueTopic('unc');
    await createTopic(live.client, topic, 1, { 'compression.type': 'uncompressed' });
    const p = await produce(live.client, topic, 0, buildBatch(values(4, 'u-'), { compression: CODEC_GZIP }));
    expect(p.errorCode).toBe(0);
    const f = await fetchOne(live.client, topic, 0, 0);
    const [b] = batchesOf(f.records);
    expect(b.compression).toBe(0);
    expect(verifyBatchCrc(f.records, 0, b.size)).toBe(true);
    expect(recordsOf(f.records).map((r) => r.value)).toEqual(['u-0', 'u-1', 'u-2', 'u-3']);
  });

  // Kafka checks max.message.bytes again after recompression (UnifiedLog.append: "re-validate message
  // sizes if there's a possibility that they have changed (due to re-compression ...)").
  it('a batch that only outgrows max.message.bytes once recompressed is MESSAGE_TOO_LARGE', async () => {
    const topic = uniqueTopic('grow');
    await createTopic(live.client, topic, 1, { 'compression.type': 'uncompressed', 'max.message.bytes': '1000' });
    const gz = buildBatch([{ value: Buffer.alloc(5000, 0x61) }], { compression: CODEC_GZIP });
    expect(gz.length).toBeLessThan(1000);
    const p = await produce(live.client, topic, 0, gz);
    expect(p.errorCode).toBe(10);
    expect((await fetchOne(live.client, topic, 0, 0)).highWatermark).toBe(0);
  });

  it('compression.type=producer stores the producer bytes unchanged (bar base offset and leader epoch)', async () => {
    const topic = uniqueTopic('prod');
    await createTopic(live.client, topic, 1, { 'compression.type': 'producer' });
    await produceOk(live.client, topic, 0, values(3));
    const gz = buildBatch(values(5, 'gz-'), { compression: CODEC_GZIP });
    const sent = Buffer.from(gz);
    expect((await produce(live.client, topic, 0, gz)).baseOffset).toBe(3);
    const f = await fetchOne(live.client, topic, 0, 3);
    const batches = batchesOf(f.records);
    const stored = batches.find((b) => b.baseOffset === 3)!;
    const bytes = f.records.subarray(stored.position, stored.position + stored.size);
    expect(bytes.length).toBe(sent.length);
    expect(bytes.readBigInt64BE(0)).toBe(3n);
    expect(sent.readInt32BE(12)).toBe(-1); // the producer leaves partitionLeaderEpoch unset ...
    expect(bytes.readInt32BE(12)).toBe(0); // ... and the leader stamps its epoch, outside the CRC
    expect(bytes.subarray(8, 12).equals(sent.subarray(8, 12))).toBe(true);
    expect(bytes.subarray(16).equals(sent.subarray(16))).toBe(true);
    expect(verifyBatchCrc(bytes, 0, bytes.length)).toBe(true);
  });
});
