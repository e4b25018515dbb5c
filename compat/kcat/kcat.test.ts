// kcat (librdkafka) against a real krill CLI process: metadata, produce/consume round trips in every
// codec, key partitioning, durability across SIGTERM and SIGKILL restarts, the on-disk layout,
// volume, and segment rolling. kcat is run unmodified as a child process.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BrokerPool, describeRun, partitionFiles, readBatchHeaders, run } from '../util.js';
import type { CliBroker } from '../../test/helpers.js';

const KCAT = 'kcat';
const TEST_TIMEOUT = 60_000;
const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;
const CODEC_ID: Record<(typeof CODECS)[number], number> = { none: 0, gzip: 1, snappy: 2, lz4: 3, zstd: 4 };

interface JsonMsg {
  topic: string;
  partition: number;
  offset: number;
  tstype: string;
  ts: number;
  broker: number;
  headers?: string[];
  key: string | null;
  payload: string | null;
}

const common = (b: CliBroker) => ['-b', b.bootstrap, '-X', 'socket.timeout.ms=10000', '-X', 'broker.address.family=v4'];

/** kcat -P; returns only when kcat exits (it exits 0 only after every message was delivered). */
async function produce(b: CliBroker, topic: string, lines: string[], extra: string[] = [], timeoutMs = 30_000) {
  const args = ['-P', ...common(b), '-t', topic, '-X', 'acks=all', '-X', 'message.timeout.ms=20000', ...extra];
  const r = await run(KCAT, args, { input: lines.map((l) => l + '\n').join(''), timeoutMs });
  expect(r.code, `kcat ${args.join(' ')}\n${describeRun(r)}`).toBe(0);
  return r;
}

/** kcat -C -e -o beginning -J over all partitions; returns the messages. */
async function consumeJson(b: CliBroker, topic: string, extra: string[] = [], timeoutMs = 30_000): Promise<JsonMsg[]> {
  const args = ['-C', ...common(b), '-t', topic, '-e', '-o', 'beginning', '-J', '-q', ...extra];
  const r = await run(KCAT, args, { timeoutMs });
  expect(r.code, `kcat ${args.join(' ')}\n${describeRun(r)}`).toBe(0);
  return r.stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as JsonMsg);
}

/** kcat -C with a -f format; returns the output lines. */
async function consumeFormat(b: CliBroker, topic: string, format: string, extra: string[] = []): Promise<string[]> {
  const args = ['-C', ...common(b), '-t', topic, '-e', '-o', 'beginning', '-q', '-f', format, ...extra];
  const r = await run(KCAT, args, { timeoutMs: 30_000 });
  expect(r.code, `kcat ${args.join(' ')}\n${describeRun(r)}`).toBe(0);
  return r.stdout.split('\n').filter((l) => l !== '');
}

const byPartitionOffset = (a: JsonMsg, b: JsonMsg) => a.partition - b.partition || a.offset - b.offset;

const pool = new BrokerPool();
afterAll(() => pool.cleanup());

describe('kcat: metadata', () => {
  let broker: CliBroker;
  beforeAll(async () => {
    broker = await pool.start(['--data-dir', pool.dir('krill-kcat-md-')]);
  });
  afterAll(() => pool.stopAll());

  it(
    'kcat -L lists the single broker as controller',
    async () => {
      const r = await run(KCAT, ['-L', ...common(broker)], { timeoutMs: 20_000 });
      expect(r.code, describeRun(r)).toBe(0);
      expect(r.stdout).toContain('1 brokers:');
      expect(r.stdout).toContain(`broker 1 at 127.0.0.1:${broker.port} (controller)`);
    },
    TEST_TIMEOUT,
  );

  it(
    'kcat -L -J reports broker id 1 on the right port and auto-created topics',
    async () => {
      await produce(broker, 'md-topic', ['hello']);
      const r = await run(KCAT, ['-L', '-J', ...common(broker)], { timeoutMs: 20_000 });
      expect(r.code, describeRun(r)).toBe(0);
      const md = JSON.parse(r.stdout);
      expect(md.controllerid).toBe(1);
      expect(md.brokers).toEqual([{ id: 1, name: `127.0.0.1:${broker.port}` }]);
      expect(md.originating_broker.id).toBe(1);
      const t = md.topics.find((x: { topic: string }) => x.topic === 'md-topic');
      expect(t, r.stdout).toBeTruthy();
      expect(t.partitions).toHaveLength(1); // num.partitions defaults to 1
      expect(t.partitions[0]).toMatchObject({ partition: 0, leader: 1, replicas: [{ id: 1 }], isrs: [{ id: 1 }] });
    },
    TEST_TIMEOUT,
  );

  it(
    'kcat -L -t for one topic only reports that topic',
    async () => {
      await produce(broker, 'md-other', ['x']);
      const r = await run(KCAT, ['-L', '-J', '-t', 'md-other', ...common(broker)], { timeoutMs: 20_000 });
      expect(r.code, describeRun(r)).toBe(0);
      const md = JSON.parse(r.stdout);
      expect(md.topics.map((t: { topic: string }) => t.topic)).toEqual(['md-other']);
    },
    TEST_TIMEOUT,
  );
});

describe('kcat: produce/consume round trips (3 partitions)', () => {
  let broker: CliBroker;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = pool.dir('krill-kcat-rt-');
    broker = await pool.start(['--data-dir', dataDir, '--set', 'num.partitions=3']);
  });
  afterAll(() => pool.stopAll());

  for (const codec of CODECS) {
    it(
      `round trip with -z ${codec}: keys, headers, null values, timestamps`,
      async () => {
        const topic = `rt-${codec}`;
        const before = Date.now();
        // Compressible payloads so librdkafka does not fall back to sending uncompressed.
        const records: { key: string; value: string | null }[] = [];
        for (let i = 0; i < 60; i++) {
          records.push({ key: `key-${i % 7}`, value: i % 10 === 9 ? null : `value-${i}-${'abcdefgh'.repeat(16)}` });
        }
        const lines = records.map((r) => `${r.key}\t${r.value ?? ''}`);
        // -z codec -X compression.codec=codec: both spellings; -Z: empty value -> NULL.
        await produce(broker, topic, lines, [
          '-K',
          '\t',
          '-Z',
          '-z',
          codec,
          '-X',
          `compression.codec=${codec}`,
          '-H',
          'trace=abc',
          '-H',
          'codec=' + codec,
          '-X',
          'linger.ms=50',
        ]);
        const after = Date.now();

        const msgs = await consumeJson(broker, topic);
        expect(msgs).toHaveLength(records.length);
        // Within a partition, the order is the production order; across partitions, compare as multisets.
        const got = msgs.map((m) => ({ key: m.key, value: m.payload })).sort((a, b) => (a.key! + a.value).localeCompare(b.key! + b.value));
        const want = records.map((r) => ({ key: r.key, value: r.value })).sort((a, b) => (a.key + a.value).localeCompare(b.key + b.value));
        expect(got).toEqual(want);
        for (const m of msgs) {
          expect(m.topic).toBe(topic);
          expect(m.broker).toBe(1);
          expect(m.headers).toEqual(['trace', 'abc', 'codec', codec]);
          expect(m.tstype).toBe('create');
          expect(m.ts).toBeGreaterThanOrEqual(before - 1000);
          expect(m.ts).toBeLessThanOrEqual(after + 1000);
        }
        // Per partition: offsets are 0..n-1 without gaps, and each key's records keep their order.
        for (let p = 0; p < 3; p++) {
          const inP = msgs.filter((m) => m.partition === p).sort(byPartitionOffset);
          expect(inP.map((m) => m.offset)).toEqual(inP.map((_, i) => i));
          const expectedOrder = records.filter((r) => inP.some((m) => m.key === r.key)).map((r) => r.value);
          expect(inP.map((m) => m.payload)).toEqual(expectedOrder);
        }
        // Each key lands in exactly one partition.
        const keyPart = new Map<string, Set<number>>();
        for (const m of msgs) keyPart.set(m.key!, (keyPart.get(m.key!) ?? new Set()).add(m.partition));
        for (const [k, ps] of keyPart) expect(ps.size, `key ${k}`).toBe(1);
      },
      TEST_TIMEOUT,
    );
  }

  for (const codec of CODECS) {
    // Guards lz4 in particular: librdkafka only compresses with lz4 when the broker has its "LZ4" feature,
    // which it infers from ApiVersions advertising FindCoordinator (rdkafka_feature.c). Without it, kcat
    // logs "Broker does not support compression type lz4: not compressing batch" and silently sends the
    // batches uncompressed (this failed until FindCoordinator was added to ApiVersions).
    it(
      `-z ${codec}: the batches on disk carry the producer's codec (compression.type=producer)`,
      async () => {
        const topic = `disk-${codec}`;
        const lines = Array.from({ length: 50 }, (_, i) => `k${i % 5}:${'compressible-'.repeat(20)}${i}`);
        await produce(broker, topic, lines, ['-K', ':', '-z', codec, '-X', 'linger.ms=50']);
        let batches = 0;
        let records = 0;
        for (let p = 0; p < 3; p++) {
          const log = path.join(dataDir, `${topic}-${p}`, '00000000000000000000.log');
          if (!fs.existsSync(log)) continue;
          for (const h of readBatchHeaders(log)) {
            batches++;
            records += h.records;
            expect(h.magic).toBe(2);
            expect(h.codec, `${log} batch @${h.baseOffset}`).toBe(CODEC_ID[codec]);
          }
        }
        expect(batches).toBeGreaterThan(0);
        expect(records).toBe(lines.length);
        const msgs = await consumeJson(broker, topic);
        expect(msgs.map((m) => `${m.key}:${m.payload}`).sort()).toEqual([...lines].sort());
      },
      TEST_TIMEOUT,
    );
  }

  it(
    'the -f format shows key, value, timestamp, headers, partition, offset and size (NULL value size -1)',
    async () => {
      const topic = 'fmt';
      await produce(broker, topic, ['k1:v1', 'k1:', 'k1:third'], ['-K', ':', '-Z', '-H', 'h1=x', '-H', 'h2=y', '-p', '1']);
      const lines = await consumeFormat(broker, topic, '%k|%s|%T|%h|%p|%o|%S\\n');
      expect(lines).toHaveLength(3);
      const rows = lines.map((l) => l.split('|'));
      expect(rows.map((r) => [r[0], r[1], r[3], r[4], r[5], r[6]])).toEqual([
        ['k1', 'v1', 'h1=x,h2=y', '1', '0', '2'],
        ['k1', '', 'h1=x,h2=y', '1', '1', '-1'],
        ['k1', 'third', 'h1=x,h2=y', '1', '2', '5'],
      ]);
      for (const r of rows) expect(Number(r[2])).toBeGreaterThan(1_600_000_000_000);
    },
    TEST_TIMEOUT,
  );

  it(
    'null keys and null values read back as null (-Z), without headers',
    async () => {
      const topic = 'nullkeys';
      await produce(broker, topic, [':only-value', 'k:'], ['-K', ':', '-Z', '-p', '0']);
      const msgs = await consumeJson(broker, topic);
      expect(msgs.map((m) => [m.key, m.payload])).toEqual([
        [null, 'only-value'],
        ['k', null],
      ]);
      expect(msgs[0].headers).toBeUndefined();
    },
    TEST_TIMEOUT,
  );

  it(
    'the same key always goes to the same partition, across separate producers and codecs',
    async () => {
      const topic = 'keyed';
      const keys = Array.from({ length: 24 }, (_, i) => `user-${i}`);
      for (const codec of ['none', 'lz4', 'zstd']) {
        await produce(
          broker,
          topic,
          keys.map((k) => `${k}:${codec}`),
          ['-K', ':', '-z', codec],
        );
      }
      const msgs = await consumeJson(broker, topic);
      expect(msgs).toHaveLength(keys.length * 3);
      const parts = new Map<string, number[]>();
      for (const m of msgs) parts.set(m.key!, [...(parts.get(m.key!) ?? []), m.partition]);
      expect([...parts.keys()].sort()).toEqual([...keys].sort());
      for (const [k, ps] of parts) {
        expect(ps, `key ${k}`).toHaveLength(3);
        expect(new Set(ps).size, `key ${k} in ${ps}`).toBe(1);
      }
      // 24 keys over 3 partitions: all partitions get used.
      expect(new Set(msgs.map((m) => m.partition))).toEqual(new Set([0, 1, 2]));
      // And the metadata agrees that the auto-created topic has 3 partitions.
      const r = await run(KCAT, ['-L', '-J', '-t', topic, ...common(broker)], { timeoutMs: 20_000 });
      expect(JSON.parse(r.stdout).topics[0].partitions).toHaveLength(3);
    },
    TEST_TIMEOUT,
  );

  it(
    'consumes from an offset, from the end (-o -N) and from a timestamp (-o s@ts), and -Q queries offsets by time',
    async () => {
      const topic = 'positions';
      await produce(broker, topic, ['a', 'b', 'c', 'd', 'e'], ['-p', '2']);
      const fromTwo = await consumeJson(broker, topic, ['-p', '2', '-o', '2']);
      expect(fromTwo.map((m) => [m.offset, m.payload])).toEqual([
        [2, 'c'],
        [3, 'd'],
        [4, 'e'],
      ]);
      const lastTwo = await consumeJson(broker, topic, ['-p', '2', '-o', '-2']);
      expect(lastTwo.map((m) => [m.offset, m.payload])).toEqual([
        [3, 'd'],
        [4, 'e'],
      ]);

      const all = await consumeJson(broker, topic, ['-p', '2']);
      const ts = all[0].ts;
      const byTime = await consumeJson(broker, topic, ['-p', '2', '-o', `s@${ts}`]);
      expect(byTime[0].offset).toBe(0);
      expect(byTime).toHaveLength(5);

      // One -Q per query: librdkafka merges two queries for the same partition into one.
      const query = async (spec: string) => {
        const q = await run(KCAT, ['-Q', ...common(broker), '-t', spec], { timeoutMs: 20_000 });
        expect(q.code, describeRun(q)).toBe(0);
        return q.stdout.trim();
      };
      expect(await query(`${topic}:2:${ts}`)).toBe(`${topic} [2] offset 0`);
      expect(await query(`${topic}:2:${ts + 3_600_000}`)).toBe(`${topic} [2] offset -1`); // after the last record
      expect(await query(`${topic}:0:${ts}`)).toBe(`${topic} [0] offset -1`); // empty partition
    },
    TEST_TIMEOUT,
  );
});

describe('kcat: idempotent producer (-X enable.idempotence=true)', () => {
  afterEach(() => pool.stopAll());

  it(
    'every record is stored exactly once and in order, across runs and a kill -9; batches carry producer id and sequences',
    async () => {
      const dataDir = pool.dir('krill-kcat-idem-');
      const topic = 'idempotent';
      const idem = ['-K', ':', '-X', 'enable.idempotence=true', '-X', 'linger.ms=5', '-X', 'batch.num.messages=100'];
      let broker = await pool.start(['--data-dir', dataDir, '--set', 'num.partitions=3']);
      const runs = Array.from({ length: 3 }, (_, run) => Array.from({ length: 1000 }, (_, i) => `key-${i % 31}:run${run}-${i}`));
      await produce(broker, topic, runs[0], [...idem, '-z', 'lz4']);
      await produce(broker, topic, runs[1], idem);
      expect(await pool.stop(broker, 'SIGKILL')).toBe('SIGKILL');
      broker = await pool.start(['--data-dir', dataDir, '--set', 'num.partitions=3']);
      await produce(broker, topic, runs[2], [...idem, '-z', 'zstd']);

      const all = runs.flat();
      const msgs = await consumeJson(broker, topic);
      expect(msgs).toHaveLength(all.length);
      expect(msgs.map((m) => `${m.key}:${m.payload}`).sort()).toEqual([...all].sort());
      for (let p = 0; p < 3; p++) {
        const inP = msgs.filter((m) => m.partition === p).sort(byPartitionOffset);
        expect(inP.map((m) => m.offset)).toEqual(inP.map((_, i) => i));
        // each key's records in the order they were produced
        const keys = new Set(inP.map((m) => m.key));
        expect(inP.map((m) => `${m.key}:${m.payload}`)).toEqual(all.filter((l) => keys.has(l.slice(0, l.indexOf(':')))));

        // each kcat run is one producer: its own id, epoch 0, sequences from 0 without a gap on the partition
        const batches = partitionFiles(dataDir, topic, p)
          .filter((f) => f.endsWith('.log'))
          .flatMap((f) => readBatchHeaders(path.join(dataDir, `${topic}-${p}`, f)));
        const ids = [...new Set(batches.map((b) => b.producerId))];
        expect(ids).toHaveLength(3);
        for (const id of ids) {
          expect(id >= 0n).toBe(true);
          let next = 0;
          for (const b of batches.filter((x) => x.producerId === id)) {
            expect(b.producerEpoch).toBe(0);
            expect(b.baseSequence, `batch @${b.baseOffset}`).toBe(next);
            next += b.records;
          }
        }
      }
    },
    TEST_TIMEOUT,
  );
});

describe('kcat: durability across restarts and the on-disk layout', () => {
  afterEach(() => pool.stopAll());

  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    it(
      `every acked record survives a ${signal} and restart on the same data dir`,
      async () => {
        const dataDir = pool.dir('krill-kcat-dur-');
        const topic = `durable-${signal.toLowerCase()}`;
        const N = 500;
        let broker = await pool.start(['--data-dir', dataDir]);
        const lines = Array.from({ length: N }, (_, i) => `k${i}:v${i}`);
        // Several producer runs, so there are several batches; kcat exits 0 only when all are acked.
        for (let chunk = 0; chunk < 5; chunk++) {
          await produce(broker, topic, lines.slice(chunk * 100, chunk * 100 + 100), ['-K', ':', '-z', chunk % 2 ? 'lz4' : 'none']);
        }
        const code = await pool.stop(broker, signal);
        expect(code).toBe(signal === 'SIGTERM' ? 0 : 'SIGKILL');

        broker = await pool.start(['--data-dir', dataDir]);
        const msgs = await consumeJson(broker, topic);
        expect(msgs.map((m) => `${m.key}:${m.payload}`)).toEqual(lines);
        expect(msgs.map((m) => m.offset)).toEqual(lines.map((_, i) => i));

        // Appends continue at the right offset after the restart.
        await produce(broker, topic, ['after:restart'], ['-K', ':']);
        const again = await consumeJson(broker, topic, ['-o', String(N)]);
        expect(again.map((m) => [m.offset, m.key, m.payload])).toEqual([[N, 'after', 'restart']]);

        const files = partitionFiles(dataDir, topic, 0);
        expect(files).toEqual(
          expect.arrayContaining(['00000000000000000000.log', '00000000000000000000.index', '00000000000000000000.timeindex', 'partition.metadata']),
        );
        expect(fs.statSync(path.join(dataDir, `${topic}-0`, '00000000000000000000.log')).size).toBeGreaterThan(0);
        expect(fs.existsSync(path.join(dataDir, 'meta.properties'))).toBe(true);
      },
      TEST_TIMEOUT,
    );
  }

  it(
    'after kill -9, a torn tail on the active segment is truncated and appends continue at the right offset',
    async () => {
      const dataDir = pool.dir('krill-kcat-torn-');
      const topic = 'torn';
      let broker = await pool.start(['--data-dir', dataDir]);
      const lines = Array.from({ length: 200 }, (_, i) => `k${i}:v${i}`);
      await produce(broker, topic, lines.slice(0, 100), ['-K', ':']);
      await produce(broker, topic, lines.slice(100), ['-K', ':', '-z', 'gzip']);
      expect(await pool.stop(broker, 'SIGKILL')).toBe('SIGKILL');

      // Simulate a write cut short: the first 40 bytes of a copy of the last batch header, appended.
      const log = path.join(dataDir, `${topic}-0`, '00000000000000000000.log');
      const intact = fs.readFileSync(log);
      const before = readBatchHeaders(log);
      const last = before.at(-1)!;
      expect(Number(last.baseOffset) + last.records).toBe(200);
      const torn = Buffer.alloc(40, 0xab);
      torn.writeBigInt64BE(200n, 0);
      torn.writeInt32BE(500, 8); // claims 500 more bytes that are not there
      fs.appendFileSync(log, torn);

      broker = await pool.start(['--data-dir', dataDir]);
      const msgs = await consumeJson(broker, topic);
      expect(msgs.map((m) => `${m.key}:${m.payload}`)).toEqual(lines);
      await produce(broker, topic, ['after:tear'], ['-K', ':']);
      const tail = await consumeJson(broker, topic, ['-o', '199']);
      expect(tail.map((m) => [m.offset, m.key, m.payload])).toEqual([
        [199, 'k199', 'v199'],
        [200, 'after', 'tear'],
      ]);
      // The torn bytes are gone: the file is the intact prefix followed by the new batch.
      const now = fs.readFileSync(log);
      expect(now.subarray(0, intact.length).equals(intact)).toBe(true);
      expect(readBatchHeaders(log).map((h) => Number(h.baseOffset))).toEqual([...before.map((h) => Number(h.baseOffset)), 200]);
    },
    TEST_TIMEOUT,
  );

  it(
    'the restarted broker keeps its cluster id and the topic partition count',
    async () => {
      const dataDir = pool.dir('krill-kcat-id-');
      let broker = await pool.start(['--data-dir', dataDir, '--set', 'num.partitions=3']);
      const cluster1 = /cluster: ([^,]+),/.exec(broker.readyLine)![1];
      await produce(broker, 'three', ['a:1', 'b:2', 'c:3'], ['-K', ':']);
      expect(await pool.stop(broker, 'SIGTERM')).toBe(0);
      broker = await pool.start(['--data-dir', dataDir]); // num.partitions back to its default of 1
      expect(/cluster: ([^,]+),/.exec(broker.readyLine)![1]).toBe(cluster1);
      const r = await run(KCAT, ['-L', '-J', '-t', 'three', ...common(broker)], { timeoutMs: 20_000 });
      expect(r.code, describeRun(r)).toBe(0);
      expect(JSON.parse(r.stdout).topics[0].partitions).toHaveLength(3);
      const msgs = await consumeJson(broker, 'three');
      expect(msgs.map((m) => `${m.key}:${m.payload}`).sort()).toEqual(['a:1', 'b:2', 'c:3']);
    },
    TEST_TIMEOUT,
  );
});

describe('kcat: volume and segment rolling', () => {
  afterEach(() => pool.stopAll());

  it(
    '20,000 small records round-trip exactly, in order',
    async () => {
      const dataDir = pool.dir('krill-kcat-vol-');
      const broker = await pool.start(['--data-dir', dataDir]);
      const N = 20_000;
      const lines = Array.from({ length: N }, (_, i) => `k${i % 100}|r${i}`);
      await produce(broker, 'volume', lines, ['-K', '|', '-X', 'batch.num.messages=500', '-X', 'linger.ms=20', '-z', 'snappy'], 50_000);
      const msgs = await consumeJson(broker, 'volume', [], 50_000);
      expect(msgs.length).toBe(N);
      expect(msgs.map((m) => `${m.key}|${m.payload}`)).toEqual(lines);
      expect(msgs.every((m, i) => m.offset === i)).toBe(true);
      // Several batches were written (batch.num.messages=500).
      const batches = readBatchHeaders(path.join(dataDir, 'volume-0', '00000000000000000000.log'));
      expect(batches.length).toBeGreaterThanOrEqual(N / 500);
      expect(batches.reduce((s, b) => s + b.records, 0)).toBe(N);
    },
    TEST_TIMEOUT,
  );

  it(
    'small log.segment.bytes rolls segments; every record still reads back, across a restart too',
    async () => {
      const dataDir = pool.dir('krill-kcat-roll-');
      let broker = await pool.start(['--data-dir', dataDir, '--set', 'log.segment.bytes=4096']);
      const N = 2000;
      const lines = Array.from({ length: N }, (_, i) => `key-${i}:payload-${i}-${'x'.repeat(20)}`);
      await produce(broker, 'rolling', lines, ['-K', ':', '-X', 'batch.num.messages=40']);

      const check = async () => {
        const msgs = await consumeJson(broker, 'rolling');
        expect(msgs.length).toBe(N);
        expect(msgs.map((m) => `${m.key}:${m.payload}`)).toEqual(lines);
        expect(msgs.every((m, i) => m.offset === i)).toBe(true);
      };
      await check();

      const files = partitionFiles(dataDir, 'rolling', 0);
      const logs = files.filter((f) => f.endsWith('.log'));
      expect(logs.length, files.join(' ')).toBeGreaterThan(1);
      const bases = logs.map((f) => {
        expect(f).toMatch(/^\d{20}\.log$/);
        return Number(f.slice(0, 20));
      });
      expect(bases[0]).toBe(0);
      for (let i = 1; i < bases.length; i++) expect(bases[i]).toBeGreaterThan(bases[i - 1]);
      // Each segment's name is its first batch's base offset; sizes stay near the limit; every segment
      // has its indexes; the batches of all segments together hold exactly N records.
      let total = 0;
      for (const f of logs) {
        const base = f.slice(0, 20);
        expect(files).toContain(`${base}.index`);
        expect(files).toContain(`${base}.timeindex`);
        const headers = readBatchHeaders(path.join(dataDir, 'rolling-0', f));
        expect(headers.length).toBeGreaterThan(0);
        expect(Number(headers[0].baseOffset)).toBe(Number(base));
        total += headers.reduce((s, h) => s + h.records, 0);
      }
      expect(total).toBe(N);

      expect(await pool.stop(broker, 'SIGTERM')).toBe(0);
      broker = await pool.start(['--data-dir', dataDir, '--set', 'log.segment.bytes=4096']);
      await check();
    },
    TEST_TIMEOUT,
  );

  it(
    'the broker-wide log.segment.bytes applies to auto-created multi-partition topics',
    async () => {
      // kcat cannot create topics with configs; the broker default applies to auto-created topics.
      const dataDir = pool.dir('krill-kcat-roll2-');
      const broker = await pool.start(['--data-dir', dataDir, '--set', 'log.segment.bytes=1024', '--set', 'num.partitions=2']);
      const lines = Array.from({ length: 300 }, (_, i) => `k${i}:${'y'.repeat(50)}${i}`);
      await produce(broker, 'roll2', lines, ['-K', ':', '-X', 'batch.num.messages=10']);
      const msgs = await consumeJson(broker, 'roll2');
      expect(msgs.map((m) => `${m.key}:${m.payload}`).sort()).toEqual([...lines].sort());
      const logs = [0, 1].flatMap((p) => partitionFiles(dataDir, 'roll2', p).filter((f) => f.endsWith('.log')));
      expect(logs.length).toBeGreaterThan(2);
    },
    TEST_TIMEOUT,
  );
});

describe('kcat: transactional producer (-X transactional.id)', () => {
  // kcat >= 1.6 runs a whole -P invocation as one transaction: init_transactions, begin, produce, commit
  // at the end of input. A read_committed consumer (librdkafka's default) sees it once committed.
  it(
    'two kcat -P runs with the same transactional.id: both committed, read back read_committed and read_uncommitted, one marker per partition per run',
    async () => {
      const dataDir = pool.dir('krill-kcat-txn-');
      const broker = await pool.start(['--data-dir', dataDir, '--set', 'num.partitions=2']);
      const txn = ['-X', 'transactional.id=kcat-txn-id'];
      const first = Array.from({ length: 10 }, (_, i) => `k${i}:first-${i}`);
      const second = Array.from({ length: 6 }, (_, i) => `k${i}:second-${i}`);
      await produce(broker, 'txn', first, ['-K', ':', ...txn]);
      await produce(broker, 'txn', second, ['-K', ':', ...txn]);

      const payloads = (ms: JsonMsg[]) => ms.sort(byPartitionOffset).map((m) => m.payload);
      const committed = await consumeJson(broker, 'txn', ['-X', 'isolation.level=read_committed']);
      const uncommitted = await consumeJson(broker, 'txn', ['-X', 'isolation.level=read_uncommitted']);
      expect(payloads(committed).sort()).toEqual([...first, ...second].map((l) => l.split(':')[1]).sort());
      expect(payloads(uncommitted)).toEqual(payloads(committed));
      // per partition, the order of each run is kept
      for (const p of [0, 1]) {
        const vals = committed.filter((m) => m.partition === p).map((m) => m.payload!);
        const firstVals = vals.filter((v) => v.startsWith('first-'));
        expect(vals).toEqual([...firstVals, ...vals.filter((v) => v.startsWith('second-'))]);
        expect(firstVals.map((v) => Number(v.split('-')[1]))).toEqual(firstVals.map((v) => Number(v.split('-')[1])).sort((a, b) => a - b));
      }

      // on disk: transactional data batches of one producer id (epoch 0 then 1: each run re-inits the id)
      // and a one-record control batch (baseSequence -1) after each run's data in every partition it touched
      for (const p of [0, 1]) {
        const log = partitionFiles(dataDir, 'txn', p).find((f) => f.endsWith('.log'))!;
        const batches = readBatchHeaders(path.join(dataDir, `txn-${p}`, log));
        const markers = batches.filter((b) => b.baseSequence === -1);
        expect(markers.map((b) => b.producerEpoch)).toEqual([0, 1]);
        expect(new Set(batches.map((b) => b.producerId)).size).toBe(1);
        const dataRecords = batches.filter((b) => b.baseSequence !== -1).reduce((n, b) => n + b.records, 0);
        expect(dataRecords).toBe(committed.filter((m) => m.partition === p).length);
      }
    },
    TEST_TIMEOUT,
  );
});
