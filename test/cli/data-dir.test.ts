// The data directory at start-up, through the built CLI and startBroker(): one broker per directory (the
// .lock), a refused start writes nothing, and a lost or broken krill-topics.json costs no record.
import { afterAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dirSnapshot, spawnCli, tempDir, type CliBroker } from '../helpers.js';
import { TestClient } from '../server/client.js';
import { API, createTopic, fetchOne, metadataBody, produceOk, recordsOf, type FetchedRecord } from '../server/kafka.js';
import { DataDirLockedError, startBroker } from '../../src/index.js';

const dirs: string[] = [];
function dir(): string {
  const d = tempDir('krill-datadir-');
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

async function stop(b: CliBroker, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  b.kill(signal);
  expect(await b.exited).toBe(signal === 'SIGKILL' ? 'SIGKILL' : 0);
}

/** Starts the CLI expecting it to fail before ready; its exit code and stderr. */
async function failedStart(args: string[]): Promise<{ code: number; stderr: string }> {
  const err = await spawnCli(args).then(
    (b) => {
      b.kill('SIGKILL');
      throw new Error(`krill started: ${b.readyLine}`);
    },
    (e: Error) => e,
  );
  const m = /^krill exited with (\d+) before ready: ([\s\S]*)$/.exec(err.message);
  if (!m) throw err;
  return { code: Number(m[1]), stderr: m[2] };
}

/** Every record of a partition, fetched from offset 0 (by name, or by topic id with Fetch v13). */
async function readAll(c: TestClient, topic: string | Buffer, partition: number): Promise<FetchedRecord[]> {
  const out: FetchedRecord[] = [];
  for (let offset = 0; ;) {
    const p = await fetchOne(c, topic, partition, offset, Buffer.isBuffer(topic) ? 13 : 11);
    expect(p.errorCode).toBe(0);
    const got = recordsOf(p.records).filter((r) => r.offset >= offset);
    if (got.length === 0) return out;
    out.push(...got);
    offset = got[got.length - 1].offset + 1;
  }
}

/** Topic name → [topic id (hex), partition count], from Metadata v12. */
async function topicsOf(c: TestClient, names: string[]): Promise<Record<string, [string, number]>> {
  const md = await c.request(API.Metadata, 12, metadataBody(names, false));
  const out: Record<string, [string, number]> = {};
  for (const t of md.topics) {
    expect(t.errorCode, t.name).toBe(0);
    out[t.name] = [t.topicId.toString('hex'), t.partitions.length];
  }
  return out;
}

async function produceSome(c: TestClient, topic: string, partition: number, n: number, tag: string): Promise<void> {
  for (let i = 0; i < n; i++) await produceOk(c, topic, partition, [{ key: `${tag}-${i}`, value: `${tag}-value-${i}-${'x'.repeat(200)}` }]);
}

describe('one broker per data directory', () => {
  it('a second broker on a locked dir exits with a clear message and the first keeps its data', async () => {
    const d = dir();
    const first = await spawnCli(['--port', '0', '--data-dir', d], { npx: true });
    let c = await TestClient.connect(first.port);
    await createTopic(c, 'locked');
    await produceSome(c, 'locked', 0, 5, 'a');
    const before = dirSnapshot(d);

    // another port, or the same one: refused by the lock before anything else
    for (const port of ['0', String(first.port)]) {
      const r = await failedStart(['--port', port, '--data-dir', d]);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain(`cannot lock the data directory ${d} (.lock): another krill (pid ${first.pid}) is using it`);
    }
    expect(dirSnapshot(d)).toEqual(before);
    const served = await readAll(c, 'locked', 0);
    expect(served.map((r) => r.key)).toEqual(['a-0', 'a-1', 'a-2', 'a-3', 'a-4']);

    // the embedded broker is refused too
    const err = await startBroker({ port: 0, dataDir: d }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DataDirLockedError);
    expect((err as Error).message).toContain(`cannot lock the data directory ${d}`);
    expect(dirSnapshot(d)).toEqual(before);

    // kill -9 leaves .lock behind, which does not stop the next start
    c.close();
    await stop(first, 'SIGKILL');
    expect(fs.readFileSync(path.join(d, '.lock'), 'utf8')).toBe(`${first.pid}\n${os.hostname()}\n`);
    const next = await spawnCli(['--port', '0', '--data-dir', d], { npx: true });
    c = await TestClient.connect(next.port);
    expect((await readAll(c, 'locked', 0)).map((r) => r.key)).toEqual(['a-0', 'a-1', 'a-2', 'a-3', 'a-4']);
    expect(fs.readFileSync(path.join(d, '.lock'), 'utf8')).toBe(`${next.pid}\n${os.hostname()}\n`);
    c.close();
    await stop(next);
    expect(fs.existsSync(path.join(d, '.lock'))).toBe(false);
  }, 30_000);

  it('a start that fails because the port is in use writes nothing into its dir', async () => {
    const d = dir();
    const earlier = await spawnCli(['--port', '0', '--data-dir', d], { npx: true });
    const c = await TestClient.connect(earlier.port);
    await createTopic(c, 'stopped');
    await produceSome(c, 'stopped', 0, 3, 's');
    c.close();
    await stop(earlier);
    const before = dirSnapshot(d);
    expect(Object.keys(before)).toContain('.kafka_cleanshutdown');

    const other = await spawnCli(['--port', '0', '--data-dir', dir()], { npx: true });
    try {
      const r = await failedStart(['--port', String(other.port), '--data-dir', d]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`address 127.0.0.1:${other.port} is already in use`);
      expect(dirSnapshot(d)).toEqual(before);
    } finally {
      await stop(other);
    }
  }, 30_000);

  it('two embedded brokers on one dir in one process: the second is refused until the first closes', async () => {
    const d = dir();
    const first = await startBroker({ port: 0, dataDir: d });
    try {
      await expect(startBroker({ port: 0, dataDir: d })).rejects.toThrow(`cannot lock the data directory ${d} (.lock): another krill (pid ${process.pid})`);
    } finally {
      await first.close();
    }
    const again = await startBroker({ port: 0, dataDir: d });
    expect(again.clusterId).toBe(first.clusterId);
    await again.close();
  });
});

describe('the topic list (krill-topics.json)', () => {
  it('a deleted topics file loses no record: topics, partitions, ids and configs come back from the directories', async () => {
    const d = dir();
    let b = await spawnCli(['--port', '0', '--data-dir', d], { npx: true });
    let c = await TestClient.connect(b.port);
    await createTopic(c, 'multi', 3, { 'segment.bytes': '1024' });
    await c.request(API.Metadata, 12, metadataBody(['auto'], true)); // auto-created, 1 partition
    for (const p of [0, 1, 2]) await produceSome(c, 'multi', p, 4 + p, `m${p}`);
    await produceSome(c, 'auto', 0, 3, 'auto');
    const ids = await topicsOf(c, ['multi', 'auto']);
    const records: Record<string, FetchedRecord[]> = {};
    for (const [t, p] of [
      ['multi', 0],
      ['multi', 1],
      ['multi', 2],
      ['auto', 0],
    ] as const)
      records[`${t}-${p}`] = await readAll(c, t, p);
    c.close();
    await stop(b);
    expect(fs.readdirSync(path.join(d, 'multi-2')).filter((f) => f.endsWith('.log')).length).toBeGreaterThan(1);

    fs.rmSync(path.join(d, 'krill-topics.json'));
    b = await spawnCli(['--port', '0', '--data-dir', d], { npx: true });
    c = await TestClient.connect(b.port);
    try {
      expect(await topicsOf(c, ['multi', 'auto'])).toEqual(ids);
      for (const [t, p] of [
        ['multi', 0],
        ['multi', 1],
        ['multi', 2],
        ['auto', 0],
      ] as const) {
        expect(await readAll(c, t, p)).toEqual(records[`${t}-${p}`]);
      }
      expect(await readAll(c, Buffer.from(ids.multi[0], 'hex'), 2)).toEqual(records['multi-2']);
      // a produce appends after the old records (no auto-create wiping the directory)
      expect(await produceOk(c, 'auto', 0, [{ key: 'after', value: 'restart' }])).toBe(3);
      expect((await readAll(c, 'auto', 0)).map((r) => r.key)).toEqual(['auto-0', 'auto-1', 'auto-2', 'after']);
      const doc = JSON.parse(fs.readFileSync(path.join(d, 'krill-topics.json'), 'utf8'));
      expect(doc.topics.find((t: { name: string }) => t.name === 'multi').configs).toEqual({ 'segment.bytes': '1024' });
    } finally {
      c.close();
      await stop(b);
    }
  }, 30_000);

  it('a corrupt topics file stops the start with exit 2, naming the file, and nothing is written', async () => {
    const d = dir();
    const b = await spawnCli(['--port', '0', '--data-dir', d], { npx: true });
    const c = await TestClient.connect(b.port);
    await createTopic(c, 'kept');
    await produceSome(c, 'kept', 0, 2, 'k');
    c.close();
    await stop(b);
    const file = path.join(d, 'krill-topics.json');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').slice(0, 60));
    const before = dirSnapshot(d);
    const r = await failedStart(['--port', '0', '--data-dir', d]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file} is unusable`);
    expect(dirSnapshot(d)).toEqual(before);
  }, 30_000);
});
