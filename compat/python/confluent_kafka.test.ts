// confluent-kafka-python (librdkafka) against a real krill CLI process, via compat/python/ck_client.py
// run with Debian's /usr/bin/python3: produce in every codec with keys, headers, null values and explicit
// timestamps, consume back exactly (assign(), no group), watermarks and offsets_for_times, and the
// AdminClient (create/delete/list topics with their error codes).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliBroker } from '../../test/helpers.js';
import { BrokerPool, partitionFiles, readBatchHeaders } from '../util.js';
import { encodeRecord, py, unb64, type PyRecord } from './py.js';
import type { Json } from '../util.js';

const TEST_TIMEOUT = 60_000;
const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;
const CODEC_ID: Record<string, number> = { none: 0, gzip: 1, snappy: 2, lz4: 3, zstd: 4 };
const ck = <T = Json>(command: string, args: object, timeoutMs?: number) => py<T>('ck_client.py', command, args, timeoutMs);

interface Report {
  partition: number;
  offset: number;
  timestamp: number;
  tstype: number;
  error?: string;
}
interface Consumed {
  partition: number;
  offset: number;
  key: string | null;
  value: string | null;
  headers: [string, string | null][] | null;
  timestamp: number;
  tstype: number;
  extra?: boolean;
}

const pool = new BrokerPool();
let broker: CliBroker;
let dataDir: string;
let clusterId: string;

beforeAll(async () => {
  dataDir = pool.dir('krill-ck-');
  broker = await pool.start(['--data-dir', dataDir]);
  clusterId = /cluster: ([^,]+),/.exec(broker.readyLine)![1];
});
afterAll(() => pool.cleanup());

const bootstrap = () => broker.bootstrap;

async function createTopic(name: string, partitions: number, config: Record<string, string> = {}) {
  const res = await ck('create_topics', { bootstrap: bootstrap(), topics: [{ name, partitions, config }] });
  expect(res.results[name], JSON.stringify(res)).toEqual({ ok: true });
}

async function produce(topic: string, records: PyRecord[], codec = 'none', extra: object = {}): Promise<Report[]> {
  const res = await ck<{ reports: Report[]; undelivered: number }>('produce', {
    bootstrap: bootstrap(),
    topic,
    codec,
    records: records.map(encodeRecord),
    ...extra,
  });
  expect(res.undelivered).toBe(0);
  for (const r of res.reports) expect(r, JSON.stringify(r)).not.toHaveProperty('error');
  return res.reports;
}

async function consume(topic: string, partitions: number[], count: number, from?: number): Promise<Consumed[]> {
  const res = await ck<{ messages: Consumed[]; errors: string[] }>('consume', {
    bootstrap: bootstrap(),
    topic,
    partitions,
    count,
    ...(from === undefined ? {} : { from }),
  });
  expect(res.errors).toEqual([]);
  return res.messages.map((m) => ({
    ...m,
    key: unb64(m.key),
    value: unb64(m.value),
    headers: m.headers === null ? null : m.headers.map(([k, v]) => [k, unb64(v)] as [string, string | null]),
  }));
}

/** Binary-safe sample records: null keys, null values, empty values, headers (null-valued, repeated), explicit timestamps. */
function sampleRecords(n: number, tag: string): PyRecord[] {
  const binary = Buffer.from(Array.from({ length: 256 }, (_, i) => i)).toString('latin1');
  return Array.from({ length: n }, (_, i) => ({
    key: i % 11 === 5 ? null : `key-${i % 6}`,
    value: i % 9 === 4 ? null : i % 9 === 7 ? '' : i % 13 === 3 ? binary : `${tag}-value-${i}-${'lorem ipsum '.repeat(8)}`,
    headers:
      i % 4 === 0
        ? []
        : [
            ['trace', `t${i}`],
            ['dup', 'a'],
            ['dup', 'b'],
            ['nullh', null],
          ],
    timestamp: 1_600_000_000_000 + i * 1000,
  }));
}

describe('confluent-kafka-python: metadata', () => {
  it(
    'list_topics names broker 1 on our port as controller, with the ready line cluster id',
    async () => {
      await createTopic('ck-md', 2);
      const md = await ck('list_topics', { bootstrap: bootstrap() });
      expect(md.brokers).toEqual([{ id: 1, host: '127.0.0.1', port: broker.port }]);
      expect(md.controller_id).toBe(1);
      expect(md.orig_broker_id).toBe(1);
      expect(md.cluster_id).toBe(clusterId);
      expect(md.topics['ck-md']).toEqual({
        error: null,
        partitions: [0, 1].map((id) => ({ id, leader: 1, replicas: [1], isrs: [1], error: null })),
      });
    },
    TEST_TIMEOUT,
  );
});

describe('confluent-kafka-python: produce and consume', () => {
  for (const codec of CODECS) {
    it(
      `compression.type=${codec}: keys, headers, null/empty values, explicit timestamps round-trip exactly`,
      async () => {
        const topic = `ck-rt-${codec}`;
        await createTopic(topic, 3);
        const records = sampleRecords(120, codec);
        const reports = await produce(topic, records, codec);
        const msgs = await consume(topic, [0, 1, 2], records.length);
        expect(msgs.filter((m) => m.extra)).toEqual([]);
        expect(msgs).toHaveLength(records.length);

        // Match each consumed message to its delivery report: same partition/offset -> same record.
        const byPos = new Map(msgs.map((m) => [`${m.partition}/${m.offset}`, m]));
        records.forEach((r, i) => {
          const rep = reports[i];
          const m = byPos.get(`${rep.partition}/${rep.offset}`);
          expect(m, `record ${i} at ${rep.partition}/${rep.offset}`).toBeTruthy();
          expect(m!.key).toBe(r.key);
          expect(m!.value).toBe(r.value);
          expect(m!.headers ?? []).toEqual(r.headers);
          expect(m!.timestamp).toBe(r.timestamp);
          expect(m!.tstype).toBe(1); // TIMESTAMP_CREATE_TIME
          expect(rep.timestamp).toBe(r.timestamp);
        });
        // Offsets per partition are dense from 0; the same key always went to the same partition.
        for (let p = 0; p < 3; p++) {
          const offs = msgs
            .filter((m) => m.partition === p)
            .map((m) => m.offset)
            .sort((a, b) => a - b);
          expect(offs).toEqual(offs.map((_, i) => i));
        }
        const keyParts = new Map<string, Set<number>>();
        for (const m of msgs) if (m.key !== null) keyParts.set(m.key, (keyParts.get(m.key) ?? new Set()).add(m.partition));
        for (const [k, ps] of keyParts) expect(ps.size, k).toBe(1);
      },
      TEST_TIMEOUT,
    );
  }

  for (const codec of CODECS) {
    // Guards lz4 in particular, as in compat/kcat: librdkafka only uses lz4 when ApiVersions advertises
    // FindCoordinator (its "LZ4" feature check in rdkafka_feature.c), and otherwise silently sends the
    // batches uncompressed (this failed until FindCoordinator was added to ApiVersions).
    it(
      `compression.type=${codec}: the stored batches carry that codec`,
      async () => {
        const topic = `ck-disk-${codec}`;
        await createTopic(topic, 1);
        const records = Array.from({ length: 40 }, (_, i) => ({ key: `k${i}`, value: `${'compressible '.repeat(30)}${i}` }));
        await produce(topic, records, codec);
        const headers = readBatchHeaders(path.join(dataDir, `${topic}-0`, '00000000000000000000.log'));
        expect(headers.length).toBeGreaterThan(0);
        expect(headers.reduce((s, h) => s + h.records, 0)).toBe(records.length);
        for (const h of headers) expect(h.codec, `batch @${h.baseOffset}`).toBe(CODEC_ID[codec]);
      },
      TEST_TIMEOUT,
    );
  }

  it(
    'a 600 KB value in zstd and in none round-trips',
    async () => {
      const topic = 'ck-big';
      await createTopic(topic, 1);
      const big = Array.from({ length: 600_000 }, (_, i) => String.fromCharCode(97 + ((i * 7919) % 26))).join('');
      const records: PyRecord[] = [
        { key: 'big-zstd', value: big },
        { key: 'big-none', value: big.split('').reverse().join('') },
      ];
      await produce(topic, [records[0]], 'zstd');
      await produce(topic, [records[1]], 'none');
      const msgs = await consume(topic, [0], 2);
      expect(msgs.map((m) => [m.offset, m.key, m.value])).toEqual([
        [0, 'big-zstd', records[0].value],
        [1, 'big-none', records[1].value],
      ]);
    },
    TEST_TIMEOUT,
  );

  it(
    'explicit partitions are honoured and consumption can start at an offset',
    async () => {
      const topic = 'ck-part';
      await createTopic(topic, 3);
      const records: PyRecord[] = Array.from({ length: 9 }, (_, i) => ({ key: null, value: `v${i}`, partition: i % 3 }));
      const reports = await produce(topic, records);
      expect(reports.map((r) => [r.partition, r.offset])).toEqual(records.map((_r, i) => [i % 3, Math.floor(i / 3)]));
      const fromOne = await consume(topic, [1], 2, 1);
      expect(fromOne.map((m) => [m.partition, m.offset, m.value])).toEqual([
        [1, 1, 'v4'],
        [1, 2, 'v7'],
      ]);
    },
    TEST_TIMEOUT,
  );

  it(
    'a topic with message.timestamp.type=LogAppendTime stamps records with the broker time',
    async () => {
      const topic = 'ck-lat';
      await createTopic(topic, 1, { 'message.timestamp.type': 'LogAppendTime' });
      const before = Date.now();
      const reports = await produce(topic, [
        { key: 'a', value: '1', timestamp: 1_500_000_000_000 },
        { key: 'b', value: '2', timestamp: 1_500_000_000_001 },
      ]);
      const after = Date.now();
      const msgs = await consume(topic, [0], 2);
      for (const m of msgs) {
        expect(m.tstype).toBe(2); // TIMESTAMP_LOG_APPEND_TIME
        expect(m.timestamp).toBeGreaterThanOrEqual(before - 1000);
        expect(m.timestamp).toBeLessThanOrEqual(after + 1000);
      }
      // The produce response carries the log append time too (librdkafka reports it in the delivery report).
      // The two records may travel in separate produce requests, so each is matched by its offset.
      for (const r of reports) expect(r.timestamp).toBe(msgs.find((m) => m.offset === r.offset)!.timestamp);
    },
    TEST_TIMEOUT,
  );
});

describe('confluent-kafka-python: idempotent producer (enable.idempotence)', () => {
  const idempotent = (records: PyRecord[]) =>
    ck<{ reports: Report[]; undelivered: number; client_errors: { error: string; fatal: boolean }[] }>('produce', {
      bootstrap: bootstrap(),
      topic: 'ck-idem',
      codec: 'lz4',
      records: records.map(encodeRecord),
      conf: { 'enable.idempotence': true, 'linger.ms': 5, 'batch.num.messages': 50 },
    });

  it(
    'every record is stored exactly once, in order per partition, in batches carrying a producer id and sequences',
    async () => {
      await createTopic('ck-idem', 3);
      const runs: PyRecord[][] = [0, 1].map((run) => Array.from({ length: 900 }, (_, i) => ({ key: `k${i % 17}`, value: `run${run}-${i}`, partition: i % 3 })));
      for (const records of runs) {
        const res = await idempotent(records);
        expect(res.client_errors).toEqual([]);
        expect(res.undelivered).toBe(0);
        for (const r of res.reports) expect(r, JSON.stringify(r)).not.toHaveProperty('error');
      }
      const all = runs.flat();
      const msgs = await consume('ck-idem', [0, 1, 2], all.length);
      expect(msgs.filter((m) => m.extra)).toEqual([]);
      expect(msgs).toHaveLength(all.length);
      for (let p = 0; p < 3; p++) {
        const inP = msgs.filter((m) => m.partition === p).sort((x, y) => x.offset - y.offset);
        expect(inP.map((m) => m.offset)).toEqual(inP.map((_, i) => i));
        expect(inP.map((m) => m.value)).toEqual(all.filter((r) => r.partition === p).map((r) => r.value));

        // On disk: each run is one producer (its own id, epoch 0) whose sequences start at 0 on the partition
        // and follow its records without a gap.
        const batches = readBatchHeaders(path.join(dataDir, `ck-idem-${p}`, '00000000000000000000.log'));
        const ids = [...new Set(batches.map((b) => b.producerId))];
        expect(ids).toHaveLength(2);
        for (const id of ids) {
          expect(id >= 0n).toBe(true);
          const mine = batches.filter((b) => b.producerId === id);
          expect(mine.map((b) => b.producerEpoch)).toEqual(mine.map(() => 0));
          let next = 0;
          for (const b of mine) {
            expect(b.baseSequence, `batch @${b.baseOffset}`).toBe(next);
            next += b.records;
          }
          expect(next).toBe(300);
        }
      }
    },
    TEST_TIMEOUT,
  );
});

describe('confluent-kafka-python: ListOffsets', () => {
  it(
    'get_watermark_offsets and offsets_for_times',
    async () => {
      const topic = 'ck-offsets';
      await createTopic(topic, 2);
      const ts = [1_700_000_001_000, 1_700_000_002_000, 1_700_000_003_000, 1_700_000_004_000];
      await produce(
        topic,
        ts.map((t, i) => ({ key: `k${i}`, value: `v${i}`, timestamp: t, partition: 0 })),
        'gzip',
      );
      const res = await ck('offsets', {
        bootstrap: bootstrap(),
        topic,
        partition: 0,
        times: [0, ts[0], ts[0] + 1, ts[2], ts[3], ts[3] + 1],
      });
      expect([res.low, res.high]).toEqual([0, 4]);
      expect(res.by_time).toEqual({
        '0': { offset: 0, error: null },
        [ts[0]]: { offset: 0, error: null },
        [ts[0] + 1]: { offset: 1, error: null },
        [ts[2]]: { offset: 2, error: null },
        [ts[3]]: { offset: 3, error: null },
        [ts[3] + 1]: { offset: -1, error: null }, // no record that late: OFFSET_END (-1)
      });
      const empty = await ck('offsets', { bootstrap: bootstrap(), topic, partition: 1, times: [0] });
      expect([empty.low, empty.high]).toEqual([0, 0]);
      expect(empty.by_time['0'].offset).toBe(-1);
    },
    TEST_TIMEOUT,
  );
});

describe('confluent-kafka-python: AdminClient', () => {
  it(
    'create_topics with configs creates the partitions and applies the configs (segments roll)',
    async () => {
      await createTopic('ck-admin-cfg', 2, { 'segment.bytes': '2048', 'cleanup.policy': 'delete' });
      const md = await ck('list_topics', { bootstrap: bootstrap(), topic: 'ck-admin-cfg' });
      expect(md.topics['ck-admin-cfg'].partitions).toHaveLength(2);
      const stored = JSON.parse(fs.readFileSync(path.join(dataDir, 'krill-topics.json'), 'utf8'));
      const t = stored.topics.find((x: { name: string }) => x.name === 'ck-admin-cfg');
      expect(t.partitions).toBe(2);
      expect(t.configs).toMatchObject({ 'segment.bytes': '2048', 'cleanup.policy': 'delete' });

      const records = Array.from({ length: 300 }, (_, i) => ({ key: null, value: `${'z'.repeat(40)}-${i}`, partition: 0 }));
      await produce('ck-admin-cfg', records, 'none', { conf: { 'batch.num.messages': 20 } });
      const logs = partitionFiles(dataDir, 'ck-admin-cfg', 0).filter((f) => f.endsWith('.log'));
      expect(logs.length).toBeGreaterThan(1);
      const msgs = await consume('ck-admin-cfg', [0], records.length);
      expect(msgs.map((m) => m.value)).toEqual(records.map((r) => r.value));
    },
    TEST_TIMEOUT,
  );

  it(
    'validate_only checks but does not create',
    async () => {
      const ok = await ck('create_topics', { bootstrap: bootstrap(), validate_only: true, topics: [{ name: 'ck-validate', partitions: 4 }] });
      expect(ok.results['ck-validate']).toEqual({ ok: true });
      const bad = await ck('create_topics', {
        bootstrap: bootstrap(),
        validate_only: true,
        topics: [{ name: 'ck-validate-bad', partitions: 1, config: { 'segment.bytes': '1' } }],
      });
      expect(bad.results['ck-validate-bad']).toMatchObject({ ok: false, code: 40 });
      const md = await ck('list_topics', { bootstrap: bootstrap() });
      expect(Object.keys(md.topics)).not.toContain('ck-validate');
      expect(fs.existsSync(path.join(dataDir, 'ck-validate-0'))).toBe(false);
    },
    TEST_TIMEOUT,
  );

  it(
    'error codes: TOPIC_ALREADY_EXISTS, INVALID_TOPIC_EXCEPTION, INVALID_PARTITIONS, INVALID_REPLICATION_FACTOR, INVALID_CONFIG',
    async () => {
      await createTopic('ck-dup', 1);
      const res = await ck('create_topics', {
        bootstrap: bootstrap(),
        topics: [
          { name: 'ck-dup', partitions: 1 },
          { name: 'bad name!', partitions: 1 },
          { name: 'ck-zero', partitions: 0 },
          { name: 'ck-rf', partitions: 1, replication_factor: 3 },
          { name: 'ck-badcfg', partitions: 1, config: { 'no.such.config': 'x' } },
          { name: 'ck-fine', partitions: 1 },
        ],
      });
      const codes = Object.fromEntries(Object.entries(res.results).map(([k, v]: [string, Json]) => [k, v.ok ? 0 : v.code]));
      expect(codes).toEqual({ 'ck-dup': 36, 'bad name!': 17, 'ck-zero': 37, 'ck-rf': 38, 'ck-badcfg': 40, 'ck-fine': 0 });
      expect(res.results['ck-dup'].error).toBe('TOPIC_ALREADY_EXISTS');
      expect(res.results['bad name!'].error).toBe('TOPIC_EXCEPTION'); // librdkafka's name for INVALID_TOPIC_EXCEPTION (17)
      const md = await ck('list_topics', { bootstrap: bootstrap() });
      expect(Object.keys(md.topics)).toContain('ck-fine');
      expect(Object.keys(md.topics)).not.toContain('ck-zero');
    },
    TEST_TIMEOUT,
  );

  it(
    'delete_topics removes the topic (metadata and directory); deleting it again is UNKNOWN_TOPIC_OR_PART',
    async () => {
      await createTopic('ck-del', 2);
      await produce('ck-del', [{ key: 'a', value: 'b' }]);
      expect(fs.existsSync(path.join(dataDir, 'ck-del-0'))).toBe(true);
      const del = await ck('delete_topics', { bootstrap: bootstrap(), topics: ['ck-del'] });
      expect(del.results['ck-del']).toEqual({ ok: true });
      const md = await ck('list_topics', { bootstrap: bootstrap() });
      expect(Object.keys(md.topics)).not.toContain('ck-del');
      expect(fs.readdirSync(dataDir).filter((d) => d === 'ck-del-0' || d === 'ck-del-1')).toEqual([]);
      const again = await ck('delete_topics', { bootstrap: bootstrap(), topics: ['ck-del'] });
      expect(again.results['ck-del']).toMatchObject({ ok: false, code: 3 });
      // The name can be reused, and the new topic starts empty.
      await createTopic('ck-del', 1);
      const off = await ck('offsets', { bootstrap: bootstrap(), topic: 'ck-del', partition: 0 });
      expect([off.low, off.high]).toEqual([0, 0]);
    },
    TEST_TIMEOUT,
  );
});

describe('confluent-kafka-python: transactions (transactional.id)', () => {
  interface TxnRun {
    transactions: { end: string; reports: Report[] }[];
    error: { name: string; fatal: boolean; abortable: boolean } | null;
  }
  const txns = (id: string, topic: string, transactions: { end: 'commit' | 'abort'; records: PyRecord[] }[], conf: object = {}) =>
    ck<TxnRun>('transactions', {
      bootstrap: bootstrap(),
      id,
      topic,
      conf,
      transactions: transactions.map((t) => ({ end: t.end, records: t.records.map(encodeRecord) })),
    });
  const recs = (tag: string, n: number, partitions: number) =>
    Array.from({ length: n }, (_, i) => ({ key: null, value: `${tag}-${i}`, partition: i % partitions }));
  const readAll = (topic: string, partitions: number[], count: number, isolation: 'read_committed' | 'read_uncommitted') =>
    ck<{ messages: Consumed[]; errors: string[] }>('consume', { bootstrap: bootstrap(), topic, partitions, count, conf: { 'isolation.level': isolation } });

  it(
    'init/begin/produce/commit and abort: read_committed sees only the committed records, read_uncommitted all',
    async () => {
      const topic = 'ck-txn';
      await createTopic(topic, 2);
      const run = await txns('ck-txn-id', topic, [
        { end: 'commit', records: recs('c1', 6, 2) },
        { end: 'abort', records: recs('ab', 4, 2) },
        { end: 'commit', records: recs('c2', 4, 2) },
      ]);
      expect(run.error).toBeNull();
      for (const t of run.transactions) for (const r of t.reports) expect(r, JSON.stringify(r)).not.toHaveProperty('error');

      const committed = await readAll(topic, [0, 1], 10, 'read_committed');
      expect(committed.errors).toEqual([]);
      const byPartition = (ms: Consumed[], p: number) => ms.filter((m) => m.partition === p && !m.extra).map((m) => unb64(m.value));
      expect(committed.messages.filter((m) => m.extra)).toEqual([]);
      expect(byPartition(committed.messages, 0)).toEqual(['c1-0', 'c1-2', 'c1-4', 'c2-0', 'c2-2']);
      expect(byPartition(committed.messages, 1)).toEqual(['c1-1', 'c1-3', 'c1-5', 'c2-1', 'c2-3']);

      const all = await readAll(topic, [0, 1], 14, 'read_uncommitted');
      expect(all.messages.filter((m) => m.extra)).toEqual([]);
      expect(byPartition(all.messages, 0)).toEqual(['c1-0', 'c1-2', 'c1-4', 'ab-0', 'ab-2', 'c2-0', 'c2-2']);
      // three transactions, three markers: the high watermark counts them, the consumers skip them
      const off = await ck('offsets', { bootstrap: bootstrap(), topic, partition: 0 });
      expect(off.high).toBe(7 + 3);
    },
    TEST_TIMEOUT,
  );

  it(
    "send_offsets_to_transaction: the offsets become the group's committed offsets on commit, not on abort",
    async () => {
      await createTopic('ck-txn-in', 2);
      await createTopic('ck-txn-out', 1);
      const res = await ck('txn_offsets', {
        bootstrap: bootstrap(),
        id: 'ck-txn-offsets-id',
        group: 'ck-txn-group',
        input: 'ck-txn-in',
        output: 'ck-txn-out',
        partitions: [0, 1],
        transactions: [
          { offsets: { 0: 5, 1: 7 }, end: 'commit' },
          { offsets: { 0: 9 }, end: 'abort' },
          { offsets: { 1: 11 }, end: 'commit' },
        ],
      });
      expect(res.error).toBeNull();
      expect(res.committed).toEqual([
        [5, 7],
        [5, 7],
        [5, 11],
      ]);
      const out = await readAll('ck-txn-out', [0], 2, 'read_committed');
      expect(out.messages.filter((m) => !m.extra).map((m) => unb64(m.value))).toEqual(['out', 'out']);
      expect(out.messages.filter((m) => m.extra)).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    'a transaction.timeout.ms above transaction.max.timeout.ms fails init_transactions with INVALID_TRANSACTION_TIMEOUT',
    async () => {
      const topic = 'ck-txn-timeout';
      await createTopic(topic, 1);
      const run = await txns('ck-txn-bad-timeout', topic, [{ end: 'commit', records: recs('x', 1, 1) }], { 'transaction.timeout.ms': 900_001 });
      expect(run.transactions).toEqual([]);
      expect(run.error?.name).toBe('INVALID_TRANSACTION_TIMEOUT');
    },
    TEST_TIMEOUT,
  );
});
