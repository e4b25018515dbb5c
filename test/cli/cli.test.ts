// The built CLI (dist/src/bin/krill.cjs; run `npm run build` first) and the embedded startBroker() lifecycle.
import { afterAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { CLI, ROOT, runCli, spawnCli, tempDir, type CliBroker } from '../helpers.js';
import { TestClient, encodeRequest } from '../server/client.js';
import { API, metadataBody, uniqueTopic } from '../server/kafka.js';
import { startBroker } from '../../src/index.js';

const dirs: string[] = [];
function dir(): string {
  const d = tempDir('krill-cli-');
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

async function stop(b: CliBroker, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | string> {
  b.proc.kill(signal);
  return b.exited;
}

describe('krill CLI', () => {
  it('prints the ready line and listens on the port it names (--port 0)', async () => {
    const d = dir();
    const b = await spawnCli(['--port', '0', '--data-dir', d, '--set', 'node.id=5']);
    try {
      expect(b.readyLine).toMatch(/^krill ready on 127\.0\.0\.1:(\d+) \(data: (.+), cluster: ([A-Za-z0-9_-]+), node: 5\)$/);
      expect(b.port).toBeGreaterThan(0);
      expect(b.port).not.toBe(9092);
      expect(path.resolve(b.dataDir)).toBe(path.resolve(d));
      const c = await TestClient.connect(b.port);
      const md = await c.request(API.Metadata, 12, metadataBody(null));
      c.close();
      expect(md.brokers).toEqual([{ nodeId: 5, host: '127.0.0.1', port: b.port, rack: null }]);
      const clusterId = /cluster: ([^,]+),/.exec(b.readyLine)![1];
      expect(md.clusterId).toBe(clusterId);
    } finally {
      expect(await stop(b)).toBe(0);
    }
  });

  it('an unknown --set name exits 2 naming it', async () => {
    const r = await runCli(['--port', '0', '--data-dir', dir(), '--set', 'foo.bar=1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('foo.bar');
    expect(r.stdout).not.toContain('krill ready');
  });

  it('a bad value exits 2 naming the config', async () => {
    const r = await runCli(['--port', '0', '--data-dir', dir(), '--set', 'num.partitions=abc']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('num.partitions');
    expect(r.stderr).toContain('abc');
  });

  it('an unknown argument exits 2 with the usage', async () => {
    const r = await runCli(['--bogus']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--bogus');
    expect(r.stderr).toContain('usage: krill');
  });

  it('a bad config in a --config file exits 2', async () => {
    const d = dir();
    const file = path.join(d, 'bad.properties');
    fs.writeFileSync(file, 'auto.create.topics.enable=maybe\n');
    const r = await runCli(['--port', '0', '--data-dir', d, '--config', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('auto.create.topics.enable');
    const missing = await runCli(['--port', '0', '--data-dir', d, '--config', path.join(d, 'nope.properties')]);
    expect(missing.code).toBe(2);
  });

  it('honours a --config properties file (num.partitions=4), with --set applied after it', async () => {
    const d = dir();
    const file = path.join(d, 'server.properties');
    fs.writeFileSync(file, ['# a Kafka server.properties', 'num.partitions=4', 'node.id: 9', 'auto.create.topics.enable = true', ''].join('\n'));
    const b = await spawnCli(['--port', '0', '--data-dir', d, '--config', file, '--set', 'node.id=11']);
    try {
      expect(b.readyLine).toMatch(/node: 11\)$/);
      const c = await TestClient.connect(b.port);
      const name = uniqueTopic('cfgfile');
      const md = await c.request(API.Metadata, 9, metadataBody([name]));
      c.close();
      expect(md.topics[0].errorCode).toBe(0);
      expect(md.topics[0].partitions).toHaveLength(4);
      expect(md.controllerId).toBe(11);
    } finally {
      expect(await stop(b)).toBe(0);
    }
  });

  it('SIGTERM exits 0 after a clean shutdown', async () => {
    const d = dir();
    const b = await spawnCli(['--port', '0', '--data-dir', d]);
    const c = await TestClient.connect(b.port);
    await c.request(API.Metadata, 9, metadataBody([uniqueTopic('term')]));
    expect(await stop(b, 'SIGTERM')).toBe(0);
    c.close();
    expect(fs.existsSync(path.join(d, '.kafka_cleanshutdown'))).toBe(true);
  });

  it('SIGINT exits 0', async () => {
    const b = await spawnCli(['--port', '0', '--data-dir', dir()]);
    expect(await stop(b, 'SIGINT')).toBe(0);
  });

  it('a signal sent the moment the ready line appears still closes cleanly (handlers exist before it)', async () => {
    const d = dir();
    for (let i = 0; i < 6; i++) {
      const b = await spawnCli(['--port', '0', '--data-dir', d]);
      expect(await stop(b, i % 2 ? 'SIGINT' : 'SIGTERM')).toBe(0);
    }
  }, 20_000);

  it('a port in use is reported and exits non-zero', async () => {
    const b = await spawnCli(['--port', '0', '--data-dir', dir()]);
    try {
      const r = await runCli(['--port', String(b.port), '--data-dir', dir()]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('already in use');
    } finally {
      await stop(b);
    }
  });
});

describe('embedded startBroker()', () => {
  it('without dataDir uses a temporary folder and removes it on close', async () => {
    const b = await startBroker({ port: 0, host: '127.0.0.1' });
    const c = await TestClient.connect(b.port);
    await c.request(API.Metadata, 9, metadataBody([uniqueTopic('tmp')]));
    c.close();
    expect(fs.existsSync(b.dataDir)).toBe(true);
    await b.close();
    expect(fs.existsSync(b.dataDir)).toBe(false);
    await b.close(); // idempotent
  });

  it('with dataDir keeps the folder and its data', async () => {
    const d = dir();
    const name = uniqueTopic('keep');
    const b = await startBroker({ port: 0, host: '127.0.0.1', dataDir: d });
    expect(path.resolve(b.dataDir)).toBe(path.resolve(d));
    const c = await TestClient.connect(b.port);
    await c.request(API.Metadata, 9, metadataBody([name]));
    c.close();
    await b.close();
    expect(fs.existsSync(d)).toBe(true);
    expect(fs.existsSync(path.join(d, `${name}-0`))).toBe(true);
  });
});

describe('the CLI loader and its code cache', () => {
  const report = { ...process.env, KRILL_CODE_CACHE_REPORT: '1' };

  async function startsAndAnswers(cli: string): Promise<string> {
    const b = await spawnCli(['--port', '0', '--data-dir', dir()], { cli, env: report });
    try {
      const c = await TestClient.connect(b.port);
      const md = await c.request(API.Metadata, 12, metadataBody(null));
      c.close();
      expect(md.brokers.map((x: { port: number }) => x.port)).toEqual([b.port]);
    } finally {
      b.proc.kill('SIGTERM');
      expect(await b.exited).toBe(0);
    }
    return /code cache: (\w+)/.exec(b.stderr())?.[1] ?? 'no report';
  }

  /** A copy of the built CLI's two files, laid out as in dist/, with `cache` as its code cache. */
  function copyCli(cache: Buffer | null): string {
    const root = dir();
    const dist = path.join(ROOT, 'dist');
    fs.mkdirSync(path.join(root, 'src', 'bin'), { recursive: true });
    fs.copyFileSync(CLI, path.join(root, 'src', 'bin', 'krill.cjs'));
    fs.copyFileSync(path.join(dist, 'krill-cli.cjs'), path.join(root, 'krill-cli.cjs'));
    if (cache) fs.writeFileSync(path.join(root, 'krill-cli.cjs.cache'), cache);
    return path.join(root, 'src', 'bin', 'krill.cjs');
  }

  it('runs with the cache the build wrote, which V8 accepts', async () => {
    expect(fs.statSync(path.join(ROOT, 'dist', 'krill-cli.cjs.cache')).size).toBeGreaterThan(0);
    expect(await startsAndAnswers(CLI)).toBe('accepted');
  });

  it('runs from source when the cache is missing or unusable', async () => {
    expect(await startsAndAnswers(copyCli(null))).toBe('missing');
    const real = fs.readFileSync(path.join(ROOT, 'dist', 'krill-cli.cjs.cache'));
    expect(await startsAndAnswers(copyCli(real.subarray(0, real.length >> 1)))).toBe('rejected');
    expect(await startsAndAnswers(copyCli(Buffer.from('not a code cache')))).toBe('rejected');
  });
});

describe('the package entry', () => {
  it("import from 'krill' loads the bundled embedded API, which starts, serves and removes its data", async () => {
    const script = `
import fs from 'node:fs';
import net from 'node:net';
import * as krill from 'krill';
const b = await krill.startBroker({ port: 0, host: '127.0.0.1' });
const existed = fs.existsSync(b.dataDir);
const answer = await new Promise((resolve, reject) => {
  const s = net.connect(b.port, '127.0.0.1', () => s.write(Buffer.from('${encodeRequest(API.ApiVersions, 0, {}, 7, null).toString('hex')}', 'hex')));
  s.once('data', (d) => { s.destroy(); resolve(d.readInt32BE(4)); });
  s.once('error', reject);
});
await b.close();
console.log(JSON.stringify({
  entry: import.meta.resolve('krill'),
  exports: Object.keys(krill).sort(),
  existed, removed: !fs.existsSync(b.dataDir), correlationId: answer, bootstrap: b.bootstrap,
}));`;
    const out = await new Promise<string>((resolve, reject) => {
      const p = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      p.stdout.on('data', (d) => (stdout += d));
      p.stderr.on('data', (d) => (stderr += d));
      p.on('exit', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`exit ${code}: ${stderr}`))));
    });
    const r = JSON.parse(out.trim());
    expect(r.entry.endsWith('/dist/krill.mjs')).toBe(true);
    expect(r.exports).toEqual([
      'BrokerConfig',
      'ConfigError',
      'DataDirError',
      'DataDirLockedError',
      'FaultSpecError',
      'startBroker',
      'startCluster',
      'startZooKeeper',
      'zookeeperInstalled',
    ]);
    expect(r).toMatchObject({ existed: true, removed: true, correlationId: 7 });
    expect(r.bootstrap).toMatch(/^127\.0\.0\.1:\d+$/);
  });
});
