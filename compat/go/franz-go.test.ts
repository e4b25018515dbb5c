// franz-go (github.com/twmb/franz-go v1.22.3, kgo) against a real krill CLI process, through the Go driver
// (compat/go/franz.go). kgo uses the newest request versions it knows and checks ApiVersions strictly; its
// defaults are an idempotent producer with acks=all and the cooperative-sticky group balancer.
// - produce with each codec, then consume exactly what was sent (keys, values, headers, timestamps), and the
//   codec and producer id krill stored in each batch;
// - a kgo.ConsumerGroup with two members: the cooperative rebalances as the second joins and leaves, every
//   record consumed exactly once, and the committed offsets read back with kadm;
// - GroupTransactSession (read-process-write): with one transaction aborted on purpose, a read_committed
//   reader sees each input once in the output and nothing aborted; a read_uncommitted reader sees both.
import fs from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CliBroker } from '../../test/helpers.js';
import { BrokerPool, readBatchHeaders } from '../util.js';
import { describeWithToolchain } from '../toolchain.js';
import { go, goMissing, sampleRecords, unique, type Acked, type GoRecord } from './go.js';

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
    const perPhase = 60;
    const res = await go('franz_group', { bootstrap: broker.bootstrap, topic: unique('franz-group'), group: unique('franz-g'), partitions: 4, perPhase });
    expect(res.phase1).toEqual({ a: [0, 1, 2, 3] });
    // The second member takes half; cooperative-sticky leaves a the partitions it kept.
    expect(res.phase2.a).toHaveLength(2);
    expect([...res.phase2.a, ...res.phase2.b].sort()).toEqual([0, 1, 2, 3]);
    expect(res.phase3).toEqual({ a: [0, 1, 2, 3] });
    // Cooperative: a's partitions it kept are never revoked while b joins; only the moved ones are.
    const aEvents: string[] = res.a.events;
    expect(aEvents[0]).toBe('assigned [0 1 2 3]');
    expect(aEvents[1]).toBe(`revoked [${res.phase2.b.join(' ')}]`);
    expect(aEvents[2]).toBe(`assigned [${res.phase2.b.join(' ')}]`);
    expect(res.a.errors).toBeNull();
    expect(res.b.errors).toBeNull();

    const expected = ['p1', 'p2', 'p3'].flatMap((ph) => Array.from({ length: perPhase }, (_, i) => `${ph}-${String(i).padStart(3, '0')}`));
    const consumed: string[] = [...res.a.values, ...res.b.values].sort();
    expect(consumed).toEqual(expected.sort());
    // Phase 2 was split between the two members.
    expect(res.b.values.length).toBeGreaterThan(0);
    expect(res.b.values.every((v: string) => v.startsWith('p2-'))).toBe(true);
    // Committed offsets (OffsetFetch through kadm) are the end offsets.
    expect(res.committed).toEqual(res.ends);
    expect(Object.values(res.ends as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(3 * perPhase);
  });

  it('GroupTransactSession: each input once in the output, the aborted transaction invisible to read_committed', async () => {
    const count = 50;
    const res = await go('franz_txn', {
      bootstrap: broker.bootstrap,
      input: unique('franz-txn-in'),
      output: unique('franz-txn-out'),
      group: unique('franz-txn-g'),
      txnId: unique('franz-txn'),
      partitions: 2,
      count,
    });
    const inputs = Array.from({ length: count }, (_, i) => `out-in-${String(i).padStart(3, '0')}`);
    expect(res.aborted).toBeGreaterThan(0);
    expect(res.commits).toBeGreaterThan(0);
    expect(res.readCommitted).toEqual(inputs.map((v) => `${v}/committed`));
    // read_uncommitted also sees the aborted attempt's output: it was written, then aborted.
    const aborted = (res.readUncommitted as string[]).filter((v) => v.endsWith('/aborted'));
    expect(aborted).toHaveLength(res.aborted);
    expect((res.readUncommitted as string[]).filter((v) => v.endsWith('/committed'))).toEqual(res.readCommitted);
    // The offsets committed within the transactions are the input's end offsets.
    expect(res.committed).toEqual(res.inputEnds);
  });
});
