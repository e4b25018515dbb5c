// kafka-python 2.0.2 against a real krill CLI process, via compat/python/kp_client.py run with Debian's
// /usr/bin/python3: produce in every codec (snappy/lz4/zstd need the Debian packages python3-snappy,
// python3-lz4, python3-zstandard) with keys, headers, null values and explicit timestamps; consume back
// exactly with KafkaConsumer(group_id=None) + assign(); beginning_offsets / end_offsets /
// offsets_for_times; KafkaAdminClient create/delete/list/describe with error codes. Cross-client: what
// kafka-python produces in each codec is also read back with librdkafka (confluent-kafka-python).
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
const MODULE_FOR: Record<string, string> = {
  snappy: 'snappy (Debian: python3-snappy)',
  lz4: 'lz4 (Debian: python3-lz4)',
  zstd: 'zstandard (Debian: python3-zstandard)',
};
const kp = <T = Json>(command: string, args: object, timeoutMs?: number) => py<T>('kp_client.py', command, args, timeoutMs);

interface Report {
  partition: number;
  offset: number;
  timestamp: number;
  error?: string;
  errno?: number;
}
interface Consumed {
  partition: number;
  offset: number;
  key: string | null;
  value: string | null;
  headers: [string, string | null][];
  timestamp: number;
  tstype: number;
  extra?: boolean;
}

const pool = new BrokerPool();
let broker: CliBroker;
let dataDir: string;
let clusterId: string;
let modules: Record<string, boolean> = {};

beforeAll(async () => {
  dataDir = pool.dir('krill-kp-');
  broker = await pool.start(['--data-dir', dataDir]);
  clusterId = /cluster: ([^,]+),/.exec(broker.readyLine)![1];
  modules = (await kp('versions', {})).modules;
});
afterAll(() => pool.cleanup());

const bootstrap = () => broker.bootstrap;

async function createTopic(name: string, partitions: number, config: Record<string, string> = {}) {
  const res = await kp('create_topics', { bootstrap: bootstrap(), topics: [{ name, partitions, config }] });
  expect(res.results[name], JSON.stringify(res)).toEqual({ ok: true, response: [[name, 0]] });
}

async function produce(topic: string, records: PyRecord[], codec: string | null = null, extra: object = {}): Promise<Report[]> {
  const res = await kp<{ reports: Report[] }>('produce', { bootstrap: bootstrap(), topic, codec, records: records.map(encodeRecord), ...extra });
  for (const r of res.reports) expect(r, JSON.stringify(r)).not.toHaveProperty('error');
  return res.reports;
}

const decode = (m: Json): Consumed => ({
  ...m,
  key: unb64(m.key),
  value: unb64(m.value),
  headers: m.headers === null ? null : m.headers.map(([k, v]: [string, string | null]) => [k, unb64(v)]),
});

async function consume(topic: string, partitions: number[], count: number, extra: object = {}): Promise<Consumed[]> {
  const res = await kp<{ messages: Json[] }>('consume', { bootstrap: bootstrap(), topic, partitions, count, ...extra });
  return res.messages.map(decode);
}

function sampleRecords(n: number, tag: string): PyRecord[] {
  const binary = Buffer.from(Array.from({ length: 256 }, (_, i) => 255 - i)).toString('latin1');
  return Array.from({ length: n }, (_, i) => ({
    // kafka-python refuses a record with both key and value null, so null keys come with values.
    key: i % 11 === 5 ? null : `key-${i % 6}`,
    value: i % 11 === 5 ? `keyless-${i}` : i % 9 === 4 ? null : i % 9 === 7 ? '' : i % 13 === 3 ? binary : `${tag}-value-${i}-${'dolor sit amet '.repeat(8)}`,
    headers:
      i % 4 === 0
        ? []
        : [
            ['trace', `t${i}`],
            ['dup', 'a'],
            ['dup', 'b'],
            ['empty', ''],
          ],
    timestamp: 1_650_000_000_000 + i * 1000,
  }));
}

function requireCodec(codec: string) {
  if (codec in MODULE_FOR) {
    expect(modules[MODULE_FOR[codec].split(' ')[0]], `kafka-python needs the python module ${MODULE_FOR[codec]} for ${codec}`).toBe(true);
  }
}

describe('kafka-python: metadata and admin', () => {
  it(
    'describe_cluster and list_topics/describe_topics',
    async () => {
      await createTopic('kp-md', 3);
      const res = await kp('describe', { bootstrap: bootstrap(), describe: ['kp-md', 'kp-missing'] });
      expect(res.cluster).toMatchObject({
        cluster_id: clusterId,
        controller_id: 1,
        brokers: [{ node_id: 1, host: '127.0.0.1', port: broker.port, rack: null }],
      });
      expect(res.topics).toContain('kp-md');
      const [md, missing] = res.described;
      expect(md).toMatchObject({ error_code: 0, topic: 'kp-md', is_internal: false });
      expect(md.partitions.map((p: Json) => [p.partition, p.error_code, p.leader, p.replicas, p.isr])).toEqual([0, 1, 2].map((p) => [p, 0, 1, [1], [1]]));
      // describe_topics asks without auto-creation: the unknown topic stays unknown.
      expect(missing).toMatchObject({ error_code: 3, topic: 'kp-missing', partitions: [] });
      const again = await kp('describe', { bootstrap: bootstrap() });
      expect(again.topics).not.toContain('kp-missing');
    },
    TEST_TIMEOUT,
  );

  it(
    'create_topics: configs, validate_only, and the error codes',
    async () => {
      const res = await kp('create_topics', {
        bootstrap: bootstrap(),
        topics: [
          { name: 'kp-cfg', partitions: 2, config: { 'segment.bytes': '1024', 'compression.type': 'producer' } },
          { name: 'kp-cfg', partitions: 2 },
          { name: 'bad/name', partitions: 1 },
          { name: 'x'.repeat(250), partitions: 1 },
          { name: 'kp-zero', partitions: 0 },
          { name: 'kp-rf', partitions: 1, replication_factor: 2 },
          { name: 'kp-badcfg', partitions: 1, config: { 'segment.bytes': 'lots' } },
        ],
      });
      const summary = Object.fromEntries(
        Object.entries(res.results).map(([k, v]: [string, Json]) => [k.length > 40 ? 'long' : k, v.ok ? 'ok' : `${v.error}/${v.errno}`]),
      );
      // 'kp-cfg' appears twice in the list, so its entry records the second (duplicate) attempt.
      expect(summary).toEqual({
        'kp-cfg': 'TopicAlreadyExistsError/36',
        'bad/name': 'InvalidTopicError/17',
        long: 'InvalidTopicError/17',
        'kp-zero': 'InvalidPartitionsError/37',
        'kp-rf': 'InvalidReplicationFactorError/38',
        'kp-badcfg': 'InvalidConfigurationError/40',
      });
      const stored = JSON.parse(fs.readFileSync(path.join(dataDir, 'krill-topics.json'), 'utf8'));
      expect(stored.topics.find((t: Json) => t.name === 'kp-cfg')).toMatchObject({ partitions: 2, configs: { 'segment.bytes': '1024' } });

      const vo = await kp('create_topics', {
        bootstrap: bootstrap(),
        validate_only: true,
        topics: [
          { name: 'kp-vo', partitions: 2 },
          { name: 'kp-cfg', partitions: 1 },
        ],
      });
      expect(vo.results['kp-vo']).toEqual({ ok: true, response: [['kp-vo', 0]] });
      expect(vo.results['kp-cfg']).toMatchObject({ ok: false, errno: 36 });
      const listed = await kp('describe', { bootstrap: bootstrap() });
      expect(listed.topics).toContain('kp-cfg');
      expect(listed.topics).not.toContain('kp-vo');
      expect(fs.existsSync(path.join(dataDir, 'kp-vo-0'))).toBe(false);
    },
    TEST_TIMEOUT,
  );

  it(
    'delete_topics: gone from metadata and disk; unknown topic is UnknownTopicOrPartitionError',
    async () => {
      await createTopic('kp-del', 2);
      await produce('kp-del', [{ key: 'k', value: 'v' }]);
      const res = await kp('delete_topics', { bootstrap: bootstrap(), topics: ['kp-del', 'kp-never'] });
      expect(res.results['kp-del']).toEqual({ ok: true, response: [['kp-del', 0]] });
      expect(res.results['kp-never']).toMatchObject({ ok: false, error: 'UnknownTopicOrPartitionError', errno: 3 });
      const listed = await kp('describe', { bootstrap: bootstrap() });
      expect(listed.topics).not.toContain('kp-del');
      expect(fs.existsSync(path.join(dataDir, 'kp-del-0'))).toBe(false);
      expect(fs.existsSync(path.join(dataDir, 'kp-del-1'))).toBe(false);
    },
    TEST_TIMEOUT,
  );
});

describe('kafka-python: produce and consume', () => {
  for (const codec of CODECS) {
    it(
      `compression_type=${codec}: keys, headers, null/empty values, explicit timestamps round-trip exactly; stored in that codec; librdkafka reads it too`,
      async () => {
        requireCodec(codec);
        const topic = `kp-rt-${codec}`;
        await createTopic(topic, 3);
        const records = sampleRecords(120, codec);
        const reports = await produce(topic, records, codec === 'none' ? null : codec);
        const msgs = await consume(topic, [0, 1, 2], records.length);
        expect(msgs.filter((m) => m.extra)).toEqual([]);
        expect(msgs).toHaveLength(records.length);
        const byPos = new Map(msgs.map((m) => [`${m.partition}/${m.offset}`, m]));
        records.forEach((r, i) => {
          const rep = reports[i];
          expect(rep.timestamp).toBe(r.timestamp);
          const m = byPos.get(`${rep.partition}/${rep.offset}`);
          expect(m, `record ${i} at ${rep.partition}/${rep.offset}`).toBeTruthy();
          expect([m!.key, m!.value, m!.headers, m!.timestamp, m!.tstype]).toEqual([r.key, r.value, r.headers, r.timestamp, 0]);
        });
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

        // On disk: every batch is magic 2 in the producer's codec.
        let stored = 0;
        for (let p = 0; p < 3; p++) {
          const log = path.join(dataDir, `${topic}-${p}`, '00000000000000000000.log');
          if (!fs.existsSync(log)) continue;
          for (const h of readBatchHeaders(log)) {
            expect([h.magic, h.codec], `${log} @${h.baseOffset}`).toEqual([2, CODEC_ID[codec]]);
            stored += h.records;
          }
        }
        expect(stored).toBe(records.length);

        // Cross-client: librdkafka decodes what kafka-python compressed, with the same content.
        const ck = await py<{ messages: Json[]; errors: string[] }>('ck_client.py', 'consume', {
          bootstrap: bootstrap(),
          topic,
          partitions: [0, 1, 2],
          count: records.length,
        });
        expect(ck.errors).toEqual([]);
        const fromCk = ck.messages.map((m) => [m.partition, m.offset, unb64(m.key), unb64(m.value), m.timestamp]).sort();
        expect(fromCk).toEqual(msgs.map((m) => [m.partition, m.offset, m.key, m.value, m.timestamp]).sort());
      },
      TEST_TIMEOUT,
    );
  }

  it(
    '5,000 records over many fetches (small max_partition_fetch_bytes) and rolled segments read back in order',
    async () => {
      const topic = 'kp-cfg-roll';
      await createTopic(topic, 1, { 'segment.bytes': '8192' });
      const N = 5000;
      const records: PyRecord[] = Array.from({ length: N }, (_, i) => ({ key: `k${i % 50}`, value: `record-${i}` }));
      await produce(topic, records, 'gzip', { conf: { batch_size: 2048 } });
      const logs = partitionFiles(dataDir, topic, 0).filter((f) => f.endsWith('.log'));
      expect(logs.length).toBeGreaterThan(1);
      const msgs = await consume(topic, [0], N, { conf: { max_partition_fetch_bytes: 4096, fetch_max_bytes: 8192 } });
      expect(msgs.filter((m) => m.extra)).toEqual([]);
      expect(msgs.map((m) => [m.offset, m.key, m.value])).toEqual(records.map((r, i) => [i, r.key, r.value]));
    },
    TEST_TIMEOUT,
  );

  it(
    'seek to an offset, and a LogAppendTime topic reports timestamp_type 1 with the broker time',
    async () => {
      await createTopic('kp-lat', 1, { 'message.timestamp.type': 'LogAppendTime' });
      const before = Date.now();
      await produce(
        'kp-lat',
        [0, 1, 2, 3].map((i) => ({ key: `k${i}`, value: `v${i}`, timestamp: 1_000_000_000_000 + i })),
      );
      const after = Date.now();
      const msgs = await consume('kp-lat', [0], 2, { from: 2 });
      expect(msgs.map((m) => [m.offset, m.value, m.tstype])).toEqual([
        [2, 'v2', 1],
        [3, 'v3', 1],
      ]);
      for (const m of msgs) {
        expect(m.timestamp).toBeGreaterThanOrEqual(before - 1000);
        expect(m.timestamp).toBeLessThanOrEqual(after + 1000);
      }
    },
    TEST_TIMEOUT,
  );
});

describe('kafka-python: ListOffsets', () => {
  it(
    'beginning_offsets, end_offsets and offsets_for_times',
    async () => {
      const topic = 'kp-offsets';
      await createTopic(topic, 2);
      const ts = [1_700_000_010_000, 1_700_000_020_000, 1_700_000_020_000, 1_700_000_030_000];
      await produce(
        topic,
        ts.map((t, i) => ({ key: `k${i}`, value: `v${i}`, timestamp: t, partition: 1 })),
        'gzip',
      );
      const res = await kp('offsets', { bootstrap: bootstrap(), topic, partitions: [0, 1], times: [0, ts[0], ts[0] + 1, ts[1], ts[3], ts[3] + 1] });
      expect(res.beginning).toEqual({ '0': 0, '1': 0 });
      expect(res.end).toEqual({ '0': 0, '1': 4 });
      const p1 = Object.fromEntries(Object.entries(res.by_time).map(([t, v]: [string, Json]) => [t, v['1']]));
      expect(p1).toEqual({
        '0': { offset: 0, timestamp: ts[0] },
        [ts[0]]: { offset: 0, timestamp: ts[0] },
        [ts[0] + 1]: { offset: 1, timestamp: ts[1] },
        [ts[1]]: { offset: 1, timestamp: ts[1] }, // the first of two records with that timestamp
        [ts[3]]: { offset: 3, timestamp: ts[3] },
        [ts[3] + 1]: null, // no record that late
      });
      for (const v of Object.values(res.by_time) as Json[]) expect(v['0']).toBeNull(); // empty partition
    },
    TEST_TIMEOUT,
  );
});
