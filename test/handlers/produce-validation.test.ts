// Produce validates every batch's records as Kafka's LogValidator does, compressed ones inflated under a
// cap: garbage, mislabelled, miscounted and padded batches and decompression bombs of every codec are
// refused with a Kafka error code, and nothing of them reaches the log.
import fs from 'node:fs';
import zlib from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnCli, tempDir, useBrokerAndClient } from '../helpers.js';
import { TestClient } from '../server/client.js';
import { createTopic, fetchOne, produce, recordsOf, uniqueTopic } from '../server/kafka.js';
import {
  ATTRIBUTES_OFFSET,
  BATCH_LENGTH_OFFSET,
  CRC_OFFSET,
  LAST_OFFSET_DELTA_OFFSET,
  LOG_OVERHEAD,
  RECORDS_COUNT_OFFSET,
  RECORDS_OFFSET,
  buildBatch,
  encodeRecords,
  type KafkaRecord,
} from '../../protocol/record-batch.js';
import { CODEC_GZIP, CODEC_LZ4, CODEC_NAMES, CODEC_NONE, CODEC_SNAPPY, CODEC_ZSTD, compress } from '../../protocol/compression/index.js';
import { crc32c } from '../../protocol/crc32c.js';

const live = useBrokerAndClient();

const CORRUPT_MESSAGE = 2;
const MESSAGE_TOO_LARGE = 10;
const INVALID_RECORD = 87;

function record(i: number, over: Partial<KafkaRecord> = {}): KafkaRecord {
  return { attributes: 0, timestampDelta: 0, offsetDelta: i, key: Buffer.from(`k${i}`), value: Buffer.from(`value ${i}`), headers: [], ...over };
}

/**
 * A batch with a valid header and CRC whose records section is `body` as given (compressed or not, by
 * `codec`) and which declares `count` records: what a buggy or hostile producer can send.
 */
function forgeBatch(codec: number, body: Buffer, count: number): Buffer {
  const header = buildBatch([{ value: 'x' }]).subarray(0, RECORDS_OFFSET);
  const out = Buffer.concat([header, body]);
  out.writeInt32BE(out.length - LOG_OVERHEAD, BATCH_LENGTH_OFFSET);
  out.writeInt16BE(codec, ATTRIBUTES_OFFSET);
  out.writeInt32BE(count - 1, LAST_OFFSET_DELTA_OFFSET);
  out.writeInt32BE(count, RECORDS_COUNT_OFFSET);
  out.writeUInt32BE(crc32c(out, ATTRIBUTES_OFFSET, out.length), CRC_OFFSET);
  return out;
}

async function expectRefused(topic: string, batch: Buffer, code: number, message?: RegExp): Promise<void> {
  const p = await produce(live.client, topic, 0, batch);
  expect(p.errorCode, p.errorMessage).toBe(code);
  if (message) expect(p.errorMessage).toMatch(message);
  expect((await fetchOne(live.client, topic, 0, 0)).highWatermark).toBe(0);
}

async function freshTopic(configs: Record<string, string> = {}): Promise<string> {
  const topic = uniqueTopic('val');
  await createTopic(live.client, topic, 1, configs);
  return topic;
}

const COMPRESSED = [CODEC_GZIP, CODEC_SNAPPY, CODEC_LZ4, CODEC_ZSTD];

describe('compressed batches are inflated and checked before they are stored', () => {
  for (const codec of COMPRESSED) {
    const name = CODEC_NAMES[codec];
    it(`${name}: an honest batch is stored and read back`, async () => {
      const topic = await freshTopic();
      const batch = forgeBatch(codec, compress(codec, encodeRecords([record(0), record(1), record(2)])), 3);
      expect((await produce(live.client, topic, 0, batch)).errorCode).toBe(0);
      const got = recordsOf((await fetchOne(live.client, topic, 0, 0)).records);
      expect(got.map((r) => r.value)).toEqual(['value 0', 'value 1', 'value 2']);
    });

    it(`${name}: garbage labelled ${name} is CORRUPT_MESSAGE`, async () => {
      await expectRefused(await freshTopic(), forgeBatch(codec, Buffer.from('this is not compressed at all. '.repeat(8)), 1), CORRUPT_MESSAGE);
    });

    it(`${name}: another codec's data labelled ${name} is CORRUPT_MESSAGE`, async () => {
      const other = codec === CODEC_GZIP ? CODEC_ZSTD : CODEC_GZIP;
      await expectRefused(await freshTopic(), forgeBatch(codec, compress(other, encodeRecords([record(0)])), 1), CORRUPT_MESSAGE);
    });

    it(`${name}: a batch that declares 3 records and holds 1 is INVALID_RECORD`, async () => {
      await expectRefused(
        await freshTopic(),
        forgeBatch(codec, compress(codec, encodeRecords([record(0)])), 3),
        INVALID_RECORD,
        /declares 3 records but holds 1/,
      );
    });

    it(`${name}: a batch that declares 1 record and holds 2 is INVALID_RECORD`, async () => {
      await expectRefused(
        await freshTopic(),
        forgeBatch(codec, compress(codec, encodeRecords([record(0), record(1)])), 1),
        INVALID_RECORD,
        /bytes remain after 1 records/,
      );
    });

    it(`${name}: bytes after the last record are INVALID_RECORD`, async () => {
      const body = Buffer.concat([encodeRecords([record(0)]), Buffer.from([1, 2, 3])]);
      await expectRefused(await freshTopic(), forgeBatch(codec, compress(codec, body), 1), INVALID_RECORD);
    });

    it(`${name}: records whose offsets are not incremental are INVALID_RECORD`, async () => {
      const body = encodeRecords([record(0), record(5, { offsetDelta: 5 })]);
      await expectRefused(await freshTopic(), forgeBatch(codec, compress(codec, body), 2), INVALID_RECORD, /incremental offsets/);
    });
  }
});

describe('uncompressed batches are checked record by record', () => {
  it('a batch that declares 3 records and holds 1 is INVALID_RECORD', async () => {
    await expectRefused(await freshTopic(), forgeBatch(CODEC_NONE, encodeRecords([record(0)]), 3), INVALID_RECORD, /declares 3 records but holds 1/);
  });

  it('a record whose length overruns the batch is INVALID_RECORD', async () => {
    const body = encodeRecords([record(0)]);
    body[0] = 0x7e; // length varint 63, more than is left
    await expectRefused(await freshTopic(), forgeBatch(CODEC_NONE, body, 1), INVALID_RECORD, /declares 63 bytes/);
  });

  it('a value length that overruns its record is INVALID_RECORD', async () => {
    const body = encodeRecords([record(0, { value: Buffer.from('abc') })]);
    body[body.length - 5] = 0x20; // value length varint (3 → 16), past the record's end
    await expectRefused(await freshTopic(), forgeBatch(CODEC_NONE, body, 1), INVALID_RECORD, /value/);
  });

  it('a negative header key length is INVALID_RECORD', async () => {
    const body = encodeRecords([record(0, { headers: [{ key: 'h', value: null }] })]);
    body[body.length - 3] = 0x01; // header key length varint 1 → -1
    await expectRefused(await freshTopic(), forgeBatch(CODEC_NONE, body, 1), INVALID_RECORD, /header key has invalid length -1/);
  });

  it('records with keys, headers and null values pass and read back', async () => {
    const topic = await freshTopic();
    const recs = [record(0, { headers: [{ key: 'h', value: Buffer.from('v') }] }), record(1, { key: null, value: null })];
    expect((await produce(live.client, topic, 0, forgeBatch(CODEC_NONE, encodeRecords(recs), 2))).errorCode).toBe(0);
    const got = recordsOf((await fetchOne(live.client, topic, 0, 0)).records);
    expect(got.map((r) => [r.key, r.value])).toEqual([
      ['k0', 'value 0'],
      [null, null],
    ]);
  });
});

describe('compacted topics', () => {
  it('a record without a key is INVALID_RECORD, as Kafka refuses it', async () => {
    const topic = await freshTopic({ 'cleanup.policy': 'compact' });
    const body = encodeRecords([record(0), record(1, { key: null })]);
    await expectRefused(topic, forgeBatch(CODEC_GZIP, compress(CODEC_GZIP, body), 2), INVALID_RECORD, /without key/);
    expect((await produce(live.client, topic, 0, forgeBatch(CODEC_NONE, encodeRecords([record(0)]), 1))).errorCode).toBe(0);
  });
});

// max.message.bytes 100000 caps a batch's inflated records at 64 × that: 6.4 MB.
const SMALL_CAP = { 'max.message.bytes': '100000' };
const ZEROS = Buffer.alloc(32 * 1024 * 1024);

describe('decompression bombs are refused once they pass the cap', () => {
  it('gzip: 32 MB of zeros in 32 KB is MESSAGE_TOO_LARGE', async () => {
    const body = zlib.gzipSync(ZEROS, { level: 9 });
    await expectRefused(await freshTopic(SMALL_CAP), forgeBatch(CODEC_GZIP, body, 1), MESSAGE_TOO_LARGE, /inflate to more than the 6400000 bytes/);
  });

  it("lz4: 16 MB of zeros is MESSAGE_TOO_LARGE from the frame's block headers alone", async () => {
    const body = compress(CODEC_LZ4, ZEROS.subarray(0, 16 * 1024 * 1024));
    expect(body.length).toBeLessThan(100_000);
    await expectRefused(await freshTopic(SMALL_CAP), forgeBatch(CODEC_LZ4, body, 1), MESSAGE_TOO_LARGE);
  });

  it('zstd: 32 MB of zeros is MESSAGE_TOO_LARGE', async () => {
    await expectRefused(await freshTopic(SMALL_CAP), forgeBatch(CODEC_ZSTD, compress(CODEC_ZSTD, ZEROS), 1), MESSAGE_TOO_LARGE);
  });

  it('snappy: a block that declares 2 GB is MESSAGE_TOO_LARGE before anything is allocated', async () => {
    const body = Buffer.concat([Buffer.from([0x80, 0x80, 0x80, 0x80, 0x08]), Buffer.alloc(100, 0)]);
    await expectRefused(await freshTopic(SMALL_CAP), forgeBatch(CODEC_SNAPPY, body, 1), MESSAGE_TOO_LARGE, /2147483648 bytes/);
  });

  it('a batch that inflates to just under the cap is accepted', async () => {
    const topic = await freshTopic(SMALL_CAP);
    const value = Buffer.alloc(6_000_000, 0x61);
    const batch = forgeBatch(CODEC_ZSTD, compress(CODEC_ZSTD, encodeRecords([record(0, { value })])), 1);
    expect((await produce(live.client, topic, 0, batch)).errorCode).toBe(0);
  });
});

function rssKb(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
}

describe.skipIf(process.platform !== 'linux')('a gigabyte gzip bomb on a recompressing topic', () => {
  const dir = tempDir();
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is refused, and the broker does not grow by anything like what it claims', async () => {
    const broker = await spawnCli(['--port', '0', '--data-dir', dir, '--log-level', 'warn']);
    const client = await TestClient.connect(broker.port);
    try {
      const topic = uniqueTopic('bomb');
      // 2 MB batches allowed: the cap is 128 MB of inflated records.
      await createTopic(client, topic, 1, { 'compression.type': 'lz4', 'max.message.bytes': '2000000' });
      // gzip members concatenate: 64 copies of 16 MB of zeros are 1 GiB in about 1 MB.
      const member = zlib.gzipSync(Buffer.alloc(16 * 1024 * 1024), { level: 9 });
      const bomb = forgeBatch(CODEC_GZIP, Buffer.concat(Array.from({ length: 64 }, () => member)), 1);
      expect(bomb.length).toBeLessThan(2_000_000);
      const before = rssKb(broker.proc.pid!);
      for (let i = 0; i < 3; i++) {
        const p = await produce(client, topic, 0, bomb);
        expect(p.errorCode, p.errorMessage).toBe(MESSAGE_TOO_LARGE);
      }
      const grewMb = (rssKb(broker.proc.pid!) - before) / 1024;
      // Inflating it all would take more than 1,024 MB; the cap bounds one attempt to 128 MB.
      expect(grewMb).toBeLessThan(400);
      expect((await fetchOne(client, topic, 0, 0)).highWatermark).toBe(0);
      const ok = forgeBatch(CODEC_GZIP, compress(CODEC_GZIP, encodeRecords([record(0)])), 1);
      expect((await produce(client, topic, 0, ok)).errorCode).toBe(0);
    } finally {
      client.close();
      broker.proc.kill('SIGTERM');
      await broker.exited;
    }
  });
});
