// krill produce and krill consume against a real krill: what produce writes is read back by kafkajs, what
// kafkajs writes is what consume prints; --group commits offsets kafkajs's admin then reads.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, useTempDirs, withBroker } from '../helpers.js';
import type { RunningBroker } from '../../src/index.js';
import { KafkajsReader, simplify } from '../../compat/kafkajs-reader.js';
import { codecCalls, registerKafkajsCodecs } from '../../compat/kafkajs-codecs.js';
import { json, krillAgainst } from './run.js';
import { run } from '../../compat/util.js';

const require = createRequire(import.meta.url);
/* eslint-disable @typescript-eslint/no-explicit-any */
const { Kafka, logLevel, Partitioners, CompressionTypes } = require('kafkajs');

registerKafkajsCodecs();

describe('krill produce|consume', { timeout: 60_000 }, () => {
  let broker: RunningBroker;
  let admin: any;
  let producer: any;
  let reader: KafkajsReader;
  const krill = krillAgainst(() => broker.bootstrap);
  const dirs = useTempDirs('krill-cli-records-');

  beforeAll(async () => {
    broker = await withBroker();
    const kafka = new Kafka({ clientId: 'cli-test', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
    admin = kafka.admin();
    producer = kafka.producer({ allowAutoTopicCreation: false, createPartitioner: Partitioners.DefaultPartitioner });
    reader = new KafkajsReader(broker.bootstrap);
    await admin.connect();
    await producer.connect();
    await admin.createTopics({
      topics: [
        { topic: 'in', numPartitions: 3 },
        { topic: 'out', numPartitions: 2 },
      ],
    });
  });
  afterAll(async () => {
    await reader?.close();
    await producer?.disconnect();
    await admin?.disconnect();
    await broker?.close();
  });

  it('produces values from arguments with a key, headers and a partition', async () => {
    const r = await krill(['produce', 'in', '--value', 'one', '--value', 'two', '--key', 'k', '--header', 'h1=a', '--header', 'h2=b', '--partition', '2']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^TOPIC\s+PARTITION\s+RECORDS\s+FIRST-OFFSET\s+LAST-OFFSET\nin\s+2\s+2\s+0\s+1\n$/);
    const read = await reader.readPartition('in', 2, { minCount: 2 });
    expect(read.records.map(simplify).map(({ key, value, headers }) => ({ key, value, headers }))).toEqual([
      { key: 'k', value: 'one', headers: { h1: 'a', h2: 'b' } },
      { key: 'k', value: 'two', headers: { h1: 'a', h2: 'b' } },
    ]);
  });

  it("puts stdin lines' keys in the partitions Kafka's default partitioner picks", async () => {
    const keys = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta'];
    const sent = await json(krill, ['produce', 'out', '--key-separator', ':'], keys.map((k) => `${k}:v-${k}\n`).join(''));
    expect(sent.reduce((n: number, s: any) => n + s.records, 0)).toBe(keys.length);
    // kafkajs's DefaultPartitioner is the Java client's murmur2: the same key, the same partition.
    const expected = new Map<number, string[]>();
    for (const k of keys) {
      const [meta] = await producer.send({ topic: 'out', messages: [{ key: k, value: 'probe' }] });
      expected.set(meta.partition, [...(expected.get(meta.partition) ?? []), k]);
    }
    for (const [partition, ks] of expected) {
      const read = await reader.readPartition('out', partition, { minCount: ks.length * 2 });
      const fromKrill = read.records.map(simplify).filter((r) => r.value !== 'probe');
      expect(fromKrill.map((r) => [r.key, r.value])).toEqual(ks.map((k) => [k, `v-${k}`]));
    }
  });

  it('compresses batches with the codec asked for', async () => {
    const before = codecCalls.decompress.get(CompressionTypes.ZSTD) ?? 0;
    expect((await krill(['produce', 'in', '--partition', '1', '--compression', 'zstd', '--acks', '1', '--value', 'squeezed'])).code).toBe(0);
    const read = await reader.readPartition('in', 1, { minCount: 1 });
    expect(read.records.map(simplify).map((r) => r.value)).toContain('squeezed');
    // kafkajs decompressed a zstd batch to read it: the batch travelled compressed.
    expect(codecCalls.decompress.get(CompressionTypes.ZSTD) ?? 0).toBeGreaterThan(before);
    const bad = await krill(['produce', 'in', '--acks', '0', '--value', 'x']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.split('\n')[0]).toBe("krill produce: --acks must be all or 1, got '0'");
  });

  it('produces whole files as values', async () => {
    const dir = dirs();
    fs.writeFileSync(path.join(dir, 'a.json'), '{"a":1,\n"b":2}');
    fs.writeFileSync(path.join(dir, 'b.bin'), Buffer.from([0, 1, 2]));
    expect((await krill(['produce', 'in', '--partition', '0', '--file', path.join(dir, 'a.json'), '--file', path.join(dir, 'b.bin')])).code).toBe(0);
    const read = await reader.readPartition('in', 0, { minCount: 2 });
    expect(read.records.map((r) => r.value)).toEqual([Buffer.from('{"a":1,\n"b":2}'), Buffer.from([0, 1, 2])]);
    const missing = await krill(['produce', 'in', '--file', path.join(dir, 'nope')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^krill produce: cannot read .*nope: ENOENT/);
  });

  it('consumes what another client produced, as text and as JSON lines', async () => {
    await admin.createTopics({ topics: [{ topic: 'c', numPartitions: 1 }] });
    const t0 = Date.now() - 60_000;
    await producer.send({
      topic: 'c',
      messages: [0, 1, 2, 3].map((i) => ({ key: `k${i}`, value: `v${i}`, headers: { n: String(i) }, timestamp: String(t0 + i * 1000) })),
    });
    const text = await krill(['consume', 'c']);
    expect(text.code).toBe(0);
    expect(text.stdout).toBe('v0\nv1\nv2\nv3\n');
    expect((await krill(['consume', 'c', '--print-key', '--from', '1', '--to', '3'])).stdout).toBe('k1\tv1\nk2\tv2\n');
    const lines = (await krill(['consume', 'c', '--format', 'json', '--max-messages', '2'])).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([
      { topic: 'c', partition: 0, offset: 0, timestamp: t0, key: 'k0', value: 'v0', headers: { n: '0' } },
      { topic: 'c', partition: 0, offset: 1, timestamp: t0 + 1000, key: 'k1', value: 'v1', headers: { n: '1' } },
    ]);
    const fromTime = await krill(['consume', 'c', '--from', new Date(t0 + 2000).toISOString()]);
    expect(fromTime.stdout).toBe('v2\nv3\n');
    expect((await krill(['consume', 'c', '--from', `@${t0 + 2500}`])).stdout).toBe('v3\n');
    expect((await krill(['consume', 'c', '--from', 'latest'])).stdout).toBe('');
  });

  it('starts at a group’s committed offsets and commits what it read', async () => {
    const first = await krill(['consume', 'c', '--group', 'reader', '--max-messages', '3']);
    expect(first.stdout).toBe('v0\nv1\nv2\n');
    const offsets = await admin.fetchOffsets({ groupId: 'reader', topics: ['c'] });
    expect(offsets[0].partitions.map((p: any) => [p.partition, p.offset])).toEqual([[0, '3']]);
    expect((await krill(['consume', 'c', '--group', 'reader'])).stdout).toBe('v3\n');
    expect((await admin.fetchOffsets({ groupId: 'reader', topics: ['c'] }))[0].partitions[0].offset).toBe('4');
  });

  it('follows a partition until interrupted, with no progress line when stdout is no terminal', async () => {
    await admin.createTopics({ topics: [{ topic: 'f', numPartitions: 2 }] });
    const proc = spawn(process.execPath, [CLI, 'consume', 'f', '--follow', '--format', 'json', '--bootstrap-server', broker.bootstrap], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    proc.stderr.on('data', (d) => (err += d));
    const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
    const waiters: (() => void)[] = [];
    proc.stdout.on('data', (d) => {
      out += d;
      waiters.splice(0).forEach((w) => w());
    });
    const lines = () => out.split('\n').filter(Boolean).length;
    const seen = (n: number) =>
      new Promise<void>((resolve) => {
        const check = () => (lines() >= n ? resolve() : waiters.push(check));
        check();
      });
    await producer.send({ topic: 'f', messages: [{ value: 'a', partition: 0 }] });
    await seen(1);
    // Produced once consume has printed: only a consume that follows prints it.
    await producer.send({ topic: 'f', messages: [{ value: 'b', partition: 1 }] });
    await seen(2);
    expect(proc.exitCode).toBe(null);
    proc.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(
      out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).value)
        .sort(),
    ).toEqual(['a', 'b']);
    expect(err).toBe('');
  });

  it('shows a progress line when stdout and stderr are a terminal', async () => {
    // script(1) runs the command on a pseudo-terminal; its stdin stays a pipe from seq.
    const command = `seq 1 3000 | "${process.execPath}" "${CLI}" produce in --partition 1 --bootstrap-server ${broker.bootstrap}`;
    const r = await run('script', ['-qec', command, '/dev/null']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\rproduced \d+ records, \d+\.\d MiB/);
    expect(r.stdout).toMatch(/in\s+1\s+3000\s+\d+\s+\d+/);
  });

  it('stops quietly when its reader goes away', async () => {
    // Half a megabyte: more than a pipe holds, so krill is still writing when head has gone.
    await producer.send({ topic: 'out', messages: Array.from({ length: 5000 }, (_, i) => ({ value: `many-${i}-`.padEnd(100, 'x'), partition: 0 })) });
    const command = `"${process.execPath}" "${CLI}" consume out --partition 0 --bootstrap-server ${broker.bootstrap} | head -1; exit \${PIPESTATUS[0]}`;
    const r = await run('bash', ['-c', command]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')).toHaveLength(2);
  });

  it('refuses bad usage with exit code 2 and says why', async () => {
    const r = await krill(['consume', 'c', '--follow', '--to', '3']);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe('krill consume: give --to or --follow, not both');
    const p = await krill(['produce', 'in', '--partition', '9', '--value', 'x']);
    expect(p.code).toBe(2);
    expect(p.stderr.split('\n')[0]).toBe("krill produce: --partition 9: topic 'in' has 3 partitions");
    const unknown = await krill(['consume', 'c', '--bogus']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.split('\n')[0]).toMatch(/^krill consume: Unknown option '--bogus'/);
  });
});
