// Apache Kafka 4.4.0's kafka-dump-log (DumpLogSegments) over the files a real krill CLI process wrote: the
// .log segments (--deep-iteration --print-data-log), .index and .timeindex (as dumped, --verify-index-only,
// --index-sanity-check), .txnindex and the producer-state .snapshot files, for transactional data
// (committed and aborted, plain and gzip) and a compacted topic after the cleaner ran, and krill's
// __transaction_state and __consumer_offsets through Kafka's own decoders. krill writes Kafka's on-disk
// format, so Kafka's tool must read every file back with nothing to report.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CompressionTypes, Kafka, logLevel } from 'kafkajs';
import { describeWithToolchain } from '../toolchain.js';
import { BrokerPool, eventually, readBatchHeaders } from '../util.js';
import type { CliBroker } from '../../test/helpers.js';
import { tool, toolsMissing, unique } from './tools.js';

const pool = new BrokerPool();
let broker: CliBroker;
let dataDir: string;
const TXN_TOPIC = unique('dump-txn');
const COMPACTED = unique('dump-compacted');
const TXN_ID = unique('dump-txn-id');
const GROUP = unique('dump-group');
// Six transactions of 20 records each (the 3rd and 6th aborted, the odd ones gzip), each with its marker.
const TXNS = 6;
const PER_TXN = 20;
const aborted = (i: number) => i % 3 === 2;

const files = (dir: string, ...exts: string[]) =>
  fs
    .readdirSync(dir)
    .filter((f) => exts.some((e) => f.endsWith(e)))
    .sort()
    .map((f) => path.join(dir, f));

/** stderr without the one report DumpLogSegments makes of any segment whose base offset is not 0. */
function unexpectedErrors(stderr: string): string {
  return stderr.replace(/^Non-consecutive offsets in .*\/0*(\d+)\.log\n {2}-1 is followed by (\d+)\n/gm, (m, base, next) => (base === next ? '' : m)).trim();
}

describeWithToolchain("Kafka 4.4.0's kafka-dump-log over krill's files", toolsMissing, { timeout: 120_000 }, () => {
  beforeAll(async () => {
    dataDir = pool.dir('krill-tools-dump-');
    broker = await pool.start(['--data-dir', dataDir, '--set', 'log.cleaner.backoff.ms=100']);
    const kafka = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({
      topics: [
        // Small segments and a dense offset index: several segments, each with index entries.
        {
          topic: TXN_TOPIC,
          numPartitions: 1,
          configEntries: [
            { name: 'segment.bytes', value: '4096' },
            { name: 'index.interval.bytes', value: '512' },
          ],
        },
        {
          topic: COMPACTED,
          numPartitions: 1,
          configEntries: [
            { name: 'cleanup.policy', value: 'compact' },
            { name: 'segment.bytes', value: '2048' },
            { name: 'min.cleanable.dirty.ratio', value: '0.01' },
          ],
        },
      ],
    });
    const txnProducer = kafka.producer({ transactionalId: TXN_ID, idempotent: true, maxInFlightRequests: 1 });
    await txnProducer.connect();
    for (let i = 0; i < TXNS; i++) {
      const txn = await txnProducer.transaction();
      await txn.send({
        topic: TXN_TOPIC,
        compression: i % 2 ? CompressionTypes.GZIP : CompressionTypes.None,
        messages: Array.from({ length: PER_TXN }, (_, j) => ({ key: `k${j}`, value: `txn${i}-${'x'.repeat(40)}-${j}`, headers: { h: 'v' } })),
      });
      if (aborted(i)) await txn.abort();
      else await txn.commit();
    }
    await txnProducer.disconnect();

    // Ten rounds over the same ten keys, the last one a tombstone for k9: the cleaner keeps the last round.
    const producer = kafka.producer();
    await producer.connect();
    for (let round = 0; round < 10; round++) {
      await producer.send({
        topic: COMPACTED,
        messages: Array.from({ length: 10 }, (_, j) => ({ key: `k${j}`, value: round === 9 && j === 9 ? null : `round${round}-${'v'.repeat(80)}` })),
      });
    }
    await producer.disconnect();
    const consumer = kafka.consumer({ groupId: GROUP });
    await consumer.connect();
    await consumer.subscribe({ topic: TXN_TOPIC, fromBeginning: true });
    let seen = 0;
    await consumer.run({ eachMessage: async () => void seen++ });
    await eventually('the consumer reading the committed records', () => (seen === (TXNS - 2) * PER_TXN ? true : undefined), 30_000);
    await consumer.commitOffsets([{ topic: TXN_TOPIC, partition: 0, offset: String(TXNS * (PER_TXN + 1)) }]);
    await consumer.disconnect();
    await admin.disconnect();
    // The cleaner maps the keys of the inactive segments only (as Kafka's, up to the active segment's base
    // offset), so the last round there (round 8) stays beside round 9 in the active segment.
    const compactedDir = path.join(dataDir, `${COMPACTED}-0`);
    await eventually(
      'the cleaner to clean every inactive segment of the compacted topic',
      () => {
        const logs = files(compactedDir, '.log');
        const inactive = logs.slice(0, -1).flatMap((f) => readBatchHeaders(f));
        return logs.length > 1 && inactive.reduce((n, b) => n + b.records, 0) === 10 ? true : undefined;
      },
      30_000,
    );
    // A clean shutdown, as before an operator inspects a broker's files.
    expect(await pool.stop(broker)).toBe(0);
  }, 90_000);
  afterAll(() => pool.cleanup());

  it('.log, .index, .timeindex, .txnindex and .snapshot of transactional data: every batch valid, records and markers as produced', async () => {
    const dir = path.join(dataDir, `${TXN_TOPIC}-0`);
    const all = files(dir, '.log', '.index', '.timeindex', '.txnindex', '.snapshot');
    expect(all.filter((f) => f.endsWith('.log')).length).toBeGreaterThan(1);
    expect(all.some((f) => f.endsWith('.snapshot'))).toBe(true);
    const r = await tool('kafka-dump-log', ['--files', all.join(','), '--deep-iteration', '--print-data-log']);
    expect(unexpectedErrors(r.stderr)).toBe('');
    expect(r.stdout).not.toMatch(/invalid bytes|isvalid: false/);

    const batches = [
      ...r.stdout.matchAll(
        /^baseOffset: (\d+) lastOffset: (\d+) count: (\d+) .*producerEpoch: (-?\d+) .*isTransactional: (\w+) isControl: (\w+) .*compresscodec: (\w+) .*isvalid: true$/gm,
      ),
    ];
    expect(batches.length).toBe(TXNS * 2);
    const records = [
      ...r.stdout.matchAll(/^\| offset: (\d+) CreateTime: \d+ keySize: (-?\d+) valueSize: (-?\d+) sequence: (-?\d+) headerKeys: \[(.*?)\](.*)$/gm),
    ];
    expect(records).toHaveLength(TXNS * (PER_TXN + 1));
    for (let i = 0; i < TXNS; i++) {
      const data = batches[2 * i];
      const marker = batches[2 * i + 1];
      const base = i * (PER_TXN + 1);
      expect(data.slice(1)).toEqual([String(base), String(base + PER_TXN - 1), String(PER_TXN), '0', 'true', 'false', i % 2 ? 'gzip' : 'none']);
      expect(marker.slice(1)).toEqual([String(base + PER_TXN), String(base + PER_TXN), '1', '0', 'true', 'true', 'none']);
      for (let j = 0; j < PER_TXN; j++) {
        const rec = records[base + j];
        expect([rec[1], rec[4], rec[5], rec[6]]).toEqual([
          String(base + j),
          String(i * PER_TXN + j),
          'h',
          ` key: k${j} payload: txn${i}-${'x'.repeat(40)}-${j}`,
        ]);
      }
      expect(records[base + PER_TXN][6]).toBe(` endTxnMarker: ${aborted(i) ? 'ABORT' : 'COMMIT'} coordinatorEpoch: 0`);
    }

    // The aborted transactions, each in the .txnindex of the segment holding its marker.
    const abortedTxns = [...r.stdout.matchAll(/^version: 0 producerId: (\d+) firstOffset: (\d+) lastOffset: (\d+) lastStableOffset: (\d+)$/gm)].map((m) =>
      m.slice(2).map(Number),
    );
    const expected = [2, 5].map((i) => [i * (PER_TXN + 1), i * (PER_TXN + 1) + PER_TXN, i * (PER_TXN + 1) + PER_TXN + 1]);
    expect(abortedTxns).toEqual(expected);

    // The producer-state snapshots: the transactional producer, its epoch, no open transaction, its last
    // sequence at the snapshot's offset.
    const snapshots = [...r.stdout.matchAll(/^Dumping .*\/0*(\d+)\.snapshot\n((?:producerId: .*\n)*)/gm)];
    expect(snapshots.length).toBeGreaterThan(0);
    for (const [, offsetText, entries] of snapshots) {
      const offset = Number(offsetText);
      const lines = entries.trim().split('\n');
      expect(lines).toHaveLength(1);
      const m =
        /^producerId: (\d+) producerEpoch: 0 coordinatorEpoch: 0 currentTxnFirstOffset: OptionalLong\.empty lastTimestamp: \d+ firstSequence: (\d+) lastSequence: (\d+) lastOffset: (\d+) offsetDelta: 19 timestamp: \d+$/.exec(
          lines[0],
        );
      expect(m, lines[0]).not.toBeNull();
      // The last data batch before the snapshot's offset (markers are not data batches).
      const txn = Math.floor(offset / (PER_TXN + 1)) - 1;
      expect(m!.slice(2).map(Number)).toEqual([txn * PER_TXN, txn * PER_TXN + PER_TXN - 1, txn * (PER_TXN + 1) + PER_TXN - 1]);
    }

    // Every offset index entry points at the batch it names; so does every time index entry.
    const indexes = files(dir, '.index', '.timeindex');
    const dumped = r.stdout.match(/^offset: \d+ position: \d+$/gm) ?? [];
    expect(dumped.length).toBeGreaterThan(1);
    const verify = await tool('kafka-dump-log', ['--files', indexes.join(','), '--verify-index-only']);
    expect(verify.stdout + verify.stderr).not.toMatch(/Mismatches|not found|mismatch|out of order/i);
    const sanity = await tool('kafka-dump-log', ['--files', indexes.join(','), '--index-sanity-check']);
    expect(sanity.stderr.trim()).toBe('');
    for (const f of indexes) expect(sanity.stdout).toMatch(new RegExp(`^(${f} passed sanity check\\.|${f} is empty\\.)$`, 'm'));
    expect(sanity.stdout.match(/passed sanity check/g)?.length).toBeGreaterThan(1);
  });

  it('a compacted topic after cleaning: the last value of each key in the cleaned segments, the tombstone, every batch valid', async () => {
    const dir = path.join(dataDir, `${COMPACTED}-0`);
    const logs = files(dir, '.log', '.index', '.timeindex');
    const r = await tool('kafka-dump-log', ['--files', logs.join(','), '--deep-iteration', '--print-data-log']);
    expect(r.stdout).not.toMatch(/invalid bytes|isvalid: false/);
    const records = [...r.stdout.matchAll(/^\| offset: (\d+) .* keySize: (-?\d+) valueSize: (-?\d+) .*? key: (k\d)(?: payload: (\S+))?$/gm)].map((m) => [
      Number(m[1]),
      m[4],
      m[5] ?? null,
    ]);
    // Round r holds offsets 10r..10r+9. The active segment (uncleaned) starts at a round; of the rounds
    // before it, the cleaner keeps the last one alone.
    const active = Number(path.basename(logs.filter((f) => f.endsWith('.log')).at(-1)!, '.log')) / 10;
    const round = (r: number) => Array.from({ length: 10 }, (_, j) => [r * 10 + j, `k${j}`, r === 9 && j === 9 ? null : `round${r}-${'v'.repeat(80)}`]);
    expect(Number.isInteger(active) && active >= 1).toBe(true);
    expect(records).toEqual([active - 1, ...Array.from({ length: 10 - active }, (_, i) => active + i)].flatMap(round));
  });

  it("__transaction_state and __consumer_offsets through Kafka's own decoders", async () => {
    const withData = (prefix: string) =>
      fs
        .readdirSync(dataDir)
        .filter((d) => d.startsWith(prefix))
        .flatMap((d) => files(path.join(dataDir, d), '.log'))
        .filter((f) => fs.statSync(f).size > 0);
    const txnLog = await tool('kafka-dump-log', ['--files', withData('__transaction_state-').join(','), '--transaction-log-decoder']);
    const states = [...txnLog.stdout.matchAll(/^\| offset: \d+ .* key: (\{.*\}) payload: (\{.*\})$/gm)].map((m) => [JSON.parse(m[1]), JSON.parse(m[2])]);
    const mine = states.filter(([k]) => k.data.transactionalId === TXN_ID).map(([, v]) => v.data.transactionStatus);
    // Empty on InitProducerId, then per transaction Ongoing, Prepare*, Complete*.
    expect(mine).toEqual([
      'Empty',
      ...Array.from({ length: TXNS }, (_, i) =>
        aborted(i) ? ['Ongoing', 'PrepareAbort', 'CompleteAbort'] : ['Ongoing', 'PrepareCommit', 'CompleteCommit'],
      ).flat(),
    ]);

    const offsetsLog = await tool('kafka-dump-log', ['--files', withData('__consumer_offsets-').join(','), '--offsets-decoder']);
    const entries = [...offsetsLog.stdout.matchAll(/^\| offset: \d+ .* key: (\{.*\}) payload: (\{.*\})$/gm)].map((m) => [JSON.parse(m[1]), JSON.parse(m[2])]);
    const commits = entries.filter(([k]) => k.type === '1' && k.data.group === GROUP).map(([k, v]) => [k.data.topic, k.data.partition, v.data.offset]);
    expect(commits.at(-1)).toEqual([TXN_TOPIC, 0, TXNS * (PER_TXN + 1)]);
    const groupMeta = entries.filter(([k]) => k.type === '2' && k.data.group === GROUP).map(([, v]) => v.data);
    expect(groupMeta[0]).toMatchObject({ protocolType: 'consumer', generation: 1, members: [{ subscription: { topics: [TXN_TOPIC] } }] });
  });
});
