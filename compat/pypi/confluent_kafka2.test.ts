// confluent-kafka 2.x from PyPI (its wheel bundles librdkafka 2.x, which sends newer request versions than
// Debian's librdkafka 2.0.2) against one real krill CLI process. The produce/consume, transaction and group
// scenarios run compat/python's drivers (ck_client.py, groups_client.py) with compat/pypi's venv; the
// AdminClient calls that 1.7 lacks are in ck2_client.py. krill runs with --log-level debug so the suite can
// assert which requests librdkafka sent.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CliBroker } from '../../test/helpers.js';
import { describeWithToolchain } from '../toolchain.js';
import { BrokerPool, readBatchHeaders } from '../util.js';
import type { Json } from '../util.js';
import { encodeRecord, unb64, type PyRecord } from '../python/py.js';
import { pypiDriver, venvMissing, venvPy } from './pypi.js';

const TEST_TIMEOUT = 90_000;
const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;
const CODEC_ID: Record<string, number> = { none: 0, gzip: 1, snappy: 2, lz4: 3, zstd: 4 };
const ck = <T = Json>(command: string, args: object, timeoutMs?: number) => venvPy<T>('ck_client.py', command, args, timeoutMs);
const gc = <T = Json>(command: string, args: object, timeoutMs = 60_000) => venvPy<T>('groups_client.py', command, args, timeoutMs);
const ck2 = <T = Json>(command: string, args: object) => venvPy<T>(pypiDriver('ck2_client.py'), command, args);

interface Consumed {
  partition: number;
  offset: number;
  key: string | null;
  value: string | null;
  headers: [string, string | null][] | null;
  timestamp: number;
  extra?: boolean;
}
interface GroupRun {
  messages: { topic: string; partition: number; offset: number; value: string }[];
  errors: string[];
  events: { type: string; partitions: [string, number][] }[];
  all_events: { type: string; partitions: [string, number][] }[];
  assignment: [string, number][];
  committed: Record<string, number>;
}

const pool = new BrokerPool();
let broker: CliBroker;
let dataDir: string;
let clusterId: string;
let seq = 0;
const unique = (label: string) => `ck2-${label}-${++seq}`;
const bootstrap = () => broker.bootstrap;

/** The requests krill logged (debug), as "Api vN" with counts. */
function requestsSeen(): Map<string, number> {
  const seen = new Map<string, number>();
  for (const line of broker.stderr().split('\n')) {
    const m = /"api":"(\w+)","apiVersion":(\d+)/.exec(line);
    if (m) seen.set(`${m[1]} v${m[2]}`, (seen.get(`${m[1]} v${m[2]}`) ?? 0) + 1);
  }
  return seen;
}

async function createTopic(name: string, partitions: number) {
  const res = await ck('create_topics', { bootstrap: bootstrap(), topics: [{ name, partitions, config: {} }] });
  expect(res.results[name], JSON.stringify(res)).toEqual({ ok: true });
}

async function produce(topic: string, records: PyRecord[], extra: object = {}) {
  const res = await ck<{ reports: { partition: number; offset: number; error?: string }[]; undelivered: number; client_errors: Json[] }>('produce', {
    bootstrap: bootstrap(),
    topic,
    records: records.map(encodeRecord),
    ...extra,
  });
  expect(res.undelivered).toBe(0);
  expect(res.client_errors).toEqual([]);
  for (const r of res.reports) expect(r, JSON.stringify(r)).not.toHaveProperty('error');
  return res.reports;
}

async function consume(topic: string, partitions: number[], count: number, conf: object = {}): Promise<Consumed[]> {
  const res = await ck<{ messages: Consumed[]; errors: string[] }>('consume', { bootstrap: bootstrap(), topic, partitions, count, conf });
  expect(res.errors).toEqual([]);
  return res.messages.map((m) => ({
    ...m,
    key: unb64(m.key),
    value: unb64(m.value),
    headers: m.headers === null || m.headers === undefined ? m.headers : m.headers.map(([k, v]) => [k, unb64(v)] as [string, string | null]),
  }));
}

const syncDir = () => fs.mkdtempSync(path.join(pool.dir('krill-ck2sync-'), 's-'));
async function fileAppears(file: string) {
  const deadline = Date.now() + 30_000;
  while (!fs.existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`${file} never appeared`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describeWithToolchain('confluent-kafka 2.x (PyPI, bundled librdkafka 2.x), one broker', venvMissing, { timeout: TEST_TIMEOUT }, () => {
  beforeAll(async () => {
    dataDir = pool.dir('krill-ck2-');
    broker = await pool.start(['--data-dir', dataDir, '--log-level', 'debug', '--set', 'group.initial.rebalance.delay.ms=0']);
    clusterId = /cluster: ([^,]+),/.exec(broker.readyLine)![1];
  });
  afterAll(() => pool.cleanup());

  it('is confluent-kafka 2.16 with librdkafka 2.x, which negotiates Produce v10, Fetch v16 and Metadata v12', async () => {
    const v = await ck2('versions', {});
    expect(v.client).toBe('2.16.1');
    expect(v.librdkafka).toMatch(/^2\.(1[0-9]|[2-9][0-9])\./);
    const topic = unique('versions');
    await createTopic(topic, 1);
    await produce(topic, [{ key: 'k', value: 'v' }]);
    expect((await consume(topic, [0], 1)).map((m) => m.value)).toEqual(['v']);
    const seen = requestsSeen();
    for (const r of ['Produce v10', 'Fetch v16', 'Metadata v12', 'ApiVersions v3']) expect(seen.has(r), `${r} in ${[...seen.keys()]}`).toBe(true);
  });

  for (const idempotent of [false, true]) {
    for (const codec of CODECS) {
      it(`produces ${codec}${idempotent ? ', idempotent' : ''}: keys, headers, null values and timestamps read back exactly, batches stored in ${codec}`, async () => {
        const topic = unique(`${codec}-${idempotent ? 'idem' : 'plain'}`);
        await createTopic(topic, 1);
        const records: PyRecord[] = Array.from({ length: 40 }, (_, i) => ({
          key: i % 7 === 3 ? null : `key-${i % 5}`,
          value: i % 9 === 4 ? null : `${codec}-value-${i}-${'lorem ipsum '.repeat(6)}`,
          headers:
            i % 3 === 0
              ? []
              : [
                  ['trace', `t${i}`],
                  ['nullh', null],
                ],
          timestamp: 1_700_000_000_000 + i,
          partition: 0,
        }));
        const reports = await produce(topic, records, { codec, conf: { 'enable.idempotence': idempotent } });
        expect(reports.map((r) => r.offset)).toEqual(records.map((_, i) => i));
        const got = await consume(topic, [0], records.length);
        expect(got.filter((m) => m.extra)).toEqual([]);
        expect(got.map((m) => [m.key, m.value, m.headers ?? [], m.timestamp])).toEqual(records.map((r) => [r.key, r.value, r.headers, r.timestamp]));
        const batches = readBatchHeaders(path.join(dataDir, `${topic}-0`, '00000000000000000000.log'));
        expect(batches.reduce((s, b) => s + b.records, 0)).toBe(records.length);
        for (const b of batches) {
          expect(b.codec, `batch @${b.baseOffset}`).toBe(CODEC_ID[codec]);
          expect(b.producerId >= 0n, `batch @${b.baseOffset} producer id ${b.producerId}`).toBe(idempotent);
        }
      });
    }
  }

  it('a producer with its defaults (librdkafka 2.x: acks=all, idempotence off unless asked)', async () => {
    const topic = unique('defaults');
    await createTopic(topic, 3);
    const records = Array.from({ length: 30 }, (_, i) => ({ key: `k${i}`, value: `v${i}` }));
    const reports = await produce(topic, records, { conf: { 'enable.idempotence': false, acks: 'all', 'linger.ms': 5 } });
    const got = await consume(topic, [0, 1, 2], records.length);
    expect(got.map((m) => m.value).sort()).toEqual(records.map((r) => r.value).sort());
    // keyed records: each key's partition is the one its report named
    const byKey = new Map(records.map((r, i) => [r.key, reports[i].partition]));
    for (const m of got) expect(m.partition).toBe(byKey.get(m.key!));
  });

  it('transactions: commit and abort; read_committed sees only committed records; list_offsets read_committed stops at the LSO', async () => {
    const topic = unique('txn');
    await createTopic(topic, 2);
    const recs = (tag: string, n: number) => Array.from({ length: n }, (_, i) => ({ key: null, value: `${tag}-${i}`, partition: i % 2 }));
    const run = await ck('transactions', {
      bootstrap: bootstrap(),
      id: unique('txn-id'),
      topic,
      transactions: [
        { end: 'commit', records: recs('c1', 6).map(encodeRecord) },
        { end: 'abort', records: recs('ab', 4).map(encodeRecord) },
        { end: 'commit', records: recs('c2', 4).map(encodeRecord) },
      ],
    });
    expect(run.error).toBeNull();
    const committed = await consume(topic, [0, 1], 10, { 'isolation.level': 'read_committed' });
    expect(committed.filter((m) => m.extra)).toEqual([]);
    const on = (ms: Consumed[], p: number) => ms.filter((m) => m.partition === p && !m.extra).map((m) => m.value);
    expect(on(committed, 0)).toEqual(['c1-0', 'c1-2', 'c1-4', 'c2-0', 'c2-2']);
    expect(on(committed, 1)).toEqual(['c1-1', 'c1-3', 'c1-5', 'c2-1', 'c2-3']);
    const all = await consume(topic, [0, 1], 14, { 'isolation.level': 'read_uncommitted' });
    expect(on(all, 0)).toEqual(['c1-0', 'c1-2', 'c1-4', 'ab-0', 'ab-2', 'c2-0', 'c2-2']);
    const off = await ck2('offsets_tour', { bootstrap: bootstrap(), topic, timestamp: 0, delete_before: 0 });
    // 7 records and 3 markers on partition 0, no transaction open: the LSO is the high watermark
    expect(off.before.latest).toEqual({ offset: 10, timestamp: -1 });
    expect(off.before.latest_committed).toEqual({ offset: 10, timestamp: -1 });
  });

  it("send_offsets_to_transaction: the group's committed offsets move on commit, not on abort", async () => {
    const input = unique('txn-in');
    const output = unique('txn-out');
    await createTopic(input, 2);
    await createTopic(output, 1);
    const res = await ck('txn_offsets', {
      bootstrap: bootstrap(),
      id: unique('txn-offsets-id'),
      group: unique('txn-group'),
      input,
      output,
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
    const out = await consume(output, [0], 2, { 'isolation.level': 'read_committed' });
    expect(out.map((m) => [m.value, !!m.extra])).toEqual([
      ['out', false],
      ['out', false],
    ]);
  });

  it('a group of two members splits 4 partitions, each record once, and commits end offsets', async () => {
    const topic = unique('queue');
    const group = unique('g');
    await createTopic(topic, 4);
    const values = Array.from({ length: 40 }, (_, i) => ({ key: null, value: `q-${i}`, partition: i % 4 }));
    await produce(topic, values);
    const dir = syncDir();
    const member = (name: string) =>
      gc<GroupRun>('ck_group_consume', {
        bootstrap: bootstrap(),
        group,
        topics: [topic],
        name,
        sync_dir: dir,
        peers: ['a', 'b'],
        pause_until_size: 2,
        stop_size: 2,
        commit: 'sync',
      });
    const [a, b] = await Promise.all([member('a'), member('b')]);
    expect([...a.errors, ...b.errors]).toEqual([]);
    expect([...a.assignment, ...b.assignment].sort()).toEqual([0, 1, 2, 3].map((p) => [topic, p]));
    for (const r of [a, b]) expect(r.messages).toHaveLength(20);
    expect([...a.messages, ...b.messages].map((m) => m.value).sort()).toEqual(values.map((v) => v.value).sort());
    const committed = await gc('ck_committed', { bootstrap: bootstrap(), group, topic, partitions: 4 });
    expect(committed).toEqual({ committed: { 0: 10, 1: 10, 2: 10, 3: 10 }, errors: [] });
  });

  for (const strategy of ['range', 'cooperative-sticky'] as const) {
    it(`${strategy}: a member joins, then leaves; the other gets its partitions back and every record is consumed`, async () => {
      const topic = unique(`leave-${strategy}`);
      const group = unique('g');
      await createTopic(topic, 4);
      const values = Array.from({ length: 80 }, (_, i) => ({ key: null, value: `l-${i}`, partition: i % 4 }));
      await produce(topic, values);
      const dir = syncDir();
      const conf = { 'partition.assignment.strategy': strategy };
      const common = { bootstrap: bootstrap(), group, topics: [topic], sync_dir: dir, commit: 'sync', conf };
      // a reads slowly and stops only once it owns all four partitions at their ends; b takes a share,
      // drains it and leaves (close() sends LeaveGroup), so a's last assignment comes from b's leaving.
      const pa = gc<GroupRun>('ck_group_consume', { ...common, name: 'a', peers: ['a'], stop_size: 4, slow_ms: 40, progress_after: 5 });
      await fileAppears(path.join(dir, 'a.progress'));
      const b = await gc<GroupRun>('ck_group_consume', { ...common, name: 'b', peers: ['b'], stop_size: 2 });
      const a = await pa;
      expect([...a.errors, ...b.errors]).toEqual([]);
      expect(b.assignment).toHaveLength(2);
      expect(a.assignment.sort()).toEqual([0, 1, 2, 3].map((p) => [topic, p]));
      const aRevokes = a.events.filter((e) => e.type === 'revoke');
      expect(aRevokes.length).toBeGreaterThanOrEqual(1);
      if (strategy === 'cooperative-sticky') {
        // incremental: a gives up exactly b's two partitions and never everything
        expect(aRevokes.map((e) => e.partitions.sort())).toEqual([b.assignment.sort()]);
        expect(a.events.filter((e) => e.type === 'lost')).toEqual([]);
      }
      const seen = new Set([...a.messages, ...b.messages].map((m) => m.value));
      expect([...seen].sort()).toEqual(values.map((v) => v.value).sort());
      expect(b.messages.length).toBeGreaterThan(0);
      const committed = await gc('ck_committed', { bootstrap: bootstrap(), group, topic, partitions: 4 });
      expect(committed).toEqual({ committed: { 0: 20, 1: 20, 2: 20, 3: 20 }, errors: [] });
    });
  }

  it('AdminClient: create_topics, describe_topics, create_partitions, describe/incremental_alter configs, describe_cluster, delete_topics', async () => {
    const topic = unique('admin');
    const r = await ck2('topics_tour', { bootstrap: bootstrap(), topic });
    expect(r.create).toBe('ok');
    const part = (id: number) => ({ id, leader: 1, replicas: [1], isr: [1] });
    expect(r.describe[topic]).toEqual({
      name: topic,
      // librdkafka prints a topic id in standard base64 without padding (Kafka's own Uuid.toString is URL-safe).
      topic_id: expect.stringMatching(/^[A-Za-z0-9+/]{22}$/),
      is_internal: false,
      partitions: [0, 1].map(part),
    });
    expect(r.create_partitions).toBe('ok');
    expect(r.describe_after[topic]).toEqual({ ...r.describe[topic], partitions: [0, 1, 2].map(part) });
    // ConfigEntry.source: 1 = DYNAMIC_TOPIC_CONFIG, 5 = DEFAULT_CONFIG
    expect(r.configs).toEqual({
      'retention.ms': { value: '3600000', source: 1, is_default: false, read_only: false },
      'cleanup.policy': { value: 'delete', source: 5, is_default: true, read_only: false },
      'max.message.bytes': { value: '1048588', source: 5, is_default: true, read_only: false },
    });
    expect(r.alter).toBe('ok');
    expect(r.configs_after).toEqual({
      'retention.ms': { value: '604800000', source: 5, is_default: true, read_only: false },
      'cleanup.policy': { value: 'delete', source: 5, is_default: true, read_only: false },
      'max.message.bytes': { value: '123456', source: 1, is_default: false, read_only: false },
    });
    expect(r.cluster).toEqual({ cluster_id: clusterId, controller: 1, nodes: [[1, '127.0.0.1', broker.port]] });
    expect(r.delete).toBe('ok');
    expect(r.describe_deleted[topic]).toEqual({ error: 'UNKNOWN_TOPIC_OR_PART' });
  });

  it('AdminClient: list_offsets (earliest, latest, max_timestamp, for_timestamp) and delete_records', async () => {
    const topic = unique('offsets');
    await createTopic(topic, 1);
    await produce(
      topic,
      [1000, 3000, 2000, 4000, 5000].map((timestamp) => ({ key: null, value: 'x', timestamp, partition: 0 })),
    );
    const r = await ck2('offsets_tour', { bootstrap: bootstrap(), topic, timestamp: 2500, delete_before: 2 });
    expect(r.before).toEqual({
      earliest: { offset: 0, timestamp: -1 },
      latest: { offset: 5, timestamp: -1 },
      latest_committed: { offset: 5, timestamp: -1 },
      max_timestamp: { offset: 4, timestamp: 5000 },
      for_timestamp: { offset: 1, timestamp: 3000 },
    });
    expect(r.delete_records).toEqual({ low_watermark: 2 });
    // the first record at or after 2500 from the new log start is offset 3
    expect(r.after).toEqual({ ...r.before, earliest: { offset: 2, timestamp: -1 }, for_timestamp: { offset: 3, timestamp: 4000 } });
    expect((await consume(topic, [0], 3)).map((m) => m.offset)).toEqual([2, 3, 4]);
  });

  it('AdminClient: list/describe consumer groups, list/alter consumer group offsets, delete_consumer_groups', async () => {
    const topic = unique('grp-admin');
    const group = unique('g');
    await createTopic(topic, 2);
    await produce(
      topic,
      Array.from({ length: 6 }, (_, i) => ({ key: null, value: `g${i}`, partition: i % 2 })),
    );
    const run = await gc<GroupRun>('ck_group_consume', { bootstrap: bootstrap(), group, topics: [topic], stop_size: 2, commit: 'sync' });
    expect(run.messages).toHaveLength(6);
    const r = await ck2('groups_tour', { bootstrap: bootstrap(), group, groups: [group], topic, partitions: 2, alter_to: 1 });
    expect(r.list).toEqual({ valid: [[group, false, 'EMPTY']], errors: [] });
    expect(r.describe).toEqual({ group_id: group, state: 'EMPTY', simple: false, assignor: '', members: 0, coordinator: 1 });
    expect(r.describe_unknown).toEqual({ state: 'DEAD', members: 0 });
    expect(r.offsets).toEqual([
      [topic, 0, 3],
      [topic, 1, 3],
    ]);
    expect(r.alter).toEqual([
      [topic, 0, 1],
      [topic, 1, 1],
    ]);
    expect(r.offsets_after).toEqual(r.alter);
    expect(r.delete).toBe('ok');
    expect(r.list_after).toEqual({ valid: [], errors: [] });
    expect(r.offsets_deleted).toEqual([
      [topic, 0, -1001],
      [topic, 1, -1001],
    ]);
  });

  it('KIP-848 consumer groups and KIP-714 metrics push stay off: krill advertises neither, librdkafka 2.x sends neither', async () => {
    // enable.metrics.push is on by default in librdkafka 2.x; every consumer above had it.
    const seen = requestsSeen();
    expect(seen.size).toBeGreaterThan(10);
    for (const api of seen.keys()) expect(api).not.toMatch(/^(GetTelemetrySubscriptions|PushTelemetry|ConsumerGroupHeartbeat|ConsumerGroupDescribe) /);
    expect(broker.stderr()).not.toMatch(/unknown API key/);
  });
});
