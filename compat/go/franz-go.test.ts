// franz-go (github.com/twmb/franz-go v1.22.3, kgo) against a real krill CLI process, through the Go driver
// (compat/go/franz.go). kgo uses the newest request versions it knows and checks ApiVersions strictly; its
// defaults are an idempotent producer with acks=all and the cooperative-sticky group balancer.
// - produce with each codec, then consume exactly what was sent (keys, values, headers, timestamps), and the
//   codec and producer id krill stored in each batch;
// - a kgo.ConsumerGroup with two members: the cooperative rebalances as the second joins and leaves, every
//   record consumed exactly once, and the committed offsets read back with kadm;
// - GroupTransactSession (read-process-write): with one transaction aborted on purpose, a read_committed
//   reader sees each input once in the output and nothing aborted; a read_uncommitted reader sees both;
// - every (API, version) krill advertises, sent as kmsg encodes it with default fields on a raw connection:
//   answered, decodable by kmsg at that version, and re-encoded to the very bytes krill sent.
import fs from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CliBroker } from '../../test/helpers.js';
import { BrokerPool, readBatchHeaders } from '../util.js';
import { describeWithToolchain } from '../toolchain.js';
import { expectSweepClean, franzGroupRun, franzTxnRun, go, goMissing, sampleRecords, unique, type Acked, type GoRecord, type SweepResult } from './go.js';

const TEST_TIMEOUT = 120_000;
const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;
const CODEC_ID: Record<string, number> = { none: 0, gzip: 1, snappy: 2, lz4: 3, zstd: 4 };

const pool = new BrokerPool();
let broker: CliBroker;
let dataDir: string;

describeWithToolchain('franz-go v1.22.3 (kgo) against one krill broker', goMissing, { timeout: TEST_TIMEOUT }, () => {
  beforeAll(async () => {
    dataDir = pool.dir('krill-franz-');
    broker = await pool.start(['--data-dir', dataDir]);
  });
  afterAll(() => pool.cleanup());

  for (const codec of CODECS) {
    it(`produces with codec ${codec} (idempotent, acks=all) and consumes exactly what was sent`, async () => {
      const topic = unique(`franz-${codec}`);
      const records = sampleRecords(40, codec);
      const res = await go<{ acked: Acked[]; consumed: GoRecord[] }>('franz_produce_consume', {
        bootstrap: broker.bootstrap,
        codec,
        topic,
        partitions: 3,
        records,
      });

      // Each acknowledged (partition, offset) holds the record sent there, byte for byte.
      const byPosition = new Map(res.consumed.map((r) => [`${r.partition}/${r.offset}`, r]));
      expect(res.consumed).toHaveLength(records.length);
      records.forEach((sent, i) => {
        const { partition, offset } = res.acked[i];
        const got = byPosition.get(`${partition}/${offset}`);
        expect(got, `record ${i} at ${partition}/${offset}`).toEqual({ topic, partition, offset, ...sent });
      });
      // Per partition the offsets are dense from 0 (nothing duplicated, nothing lost).
      for (const p of new Set(res.acked.map((a) => a.partition))) {
        const offsets = res.consumed.filter((r) => r.partition === p).map((r) => r.offset);
        expect(offsets).toEqual(offsets.map((_, i) => i));
      }

      // On disk: every batch in the codec kgo was told to use, from an idempotent producer.
      let batches = 0;
      for (let p = 0; p < 3; p++) {
        const dir = `${dataDir}/${topic}-${p}`;
        for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.log'))) {
          for (const b of readBatchHeaders(`${dir}/${f}`)) {
            batches++;
            expect(b).toMatchObject({ magic: 2, codec: CODEC_ID[codec] });
            expect(b.producerId >= 0n, 'idempotent batch has a producer id').toBe(true);
            expect(b.baseSequence).toBeGreaterThanOrEqual(0);
          }
        }
      }
      expect(batches).toBeGreaterThan(0);
    });
  }

  it('a two-member consumer group: cooperative rebalances on join and leave, each record once, commits read back', async () => {
    await franzGroupRun(broker.bootstrap, 1);
  });

  it('GroupTransactSession: each input once in the output, the aborted transaction invisible to read_committed', async () => {
    await franzTxnRun(broker.bootstrap, 1);
  });

  it('every (API, version) krill advertises: answered, decoded by kmsg at that version, re-encoded to the same bytes', async () => {
    const res = await go<{ results: SweepResult[]; unknownToKmsg: number[] }>('kmsg_sweep', { bootstrap: broker.bootstrap });
    expectSweepClean(res);
  });
});
