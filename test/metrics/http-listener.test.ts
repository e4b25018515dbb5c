// The HTTP listener (krill.http.listener): off by default and then not even loaded; on, it serves /health,
// /ready and /metrics on the address given (port 0: a free one, on the embedded handle), refuses other
// methods, paths and request bodies, and holds a bounded number of connections; what it serves is what the
// README's metric table lists, labels included. The text format itself:
// label escaping and histogram layout. Metric values against real clients and a real Prometheus parser are
// compat/pypi/metrics.test.ts's.
import fs from 'node:fs';
import net from 'node:net';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, spawnCli, tempDir, withBroker } from '../helpers.js';
import type { RunningBroker } from '../../src/index.js';
import { Exposition } from '../../src/metrics/exposition.js';
import { TestClient } from '../server/client.js';
import { commitOffset, createTopic, produceOk, values } from '../server/kafka.js';

const HTTP = { 'krill.http.listener': '127.0.0.1:0' };

/** One raw HTTP/1.1 exchange: what the server wrote before closing or resetting the connection (a response, or nothing). */
function rawHttp(address: string, request: string): Promise<string> {
  const [host, port] = address.split(':');
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), host, () => socket.write(request));
    let out = '';
    socket.on('data', (d) => (out += d));
    socket.on('close', () => resolve(out));
    // A connection the server resets has answered nothing more than what was read.
    socket.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' ? resolve(out) : reject(err)));
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer')));
  });
}

describe('krill.http.listener', () => {
  let broker: RunningBroker;
  beforeAll(async () => {
    broker = await withBroker({ config: HTTP });
  });
  afterAll(() => broker?.close());

  it('binds port 0 to a free port and puts the address on the handle', () => {
    expect(broker.http).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(broker.http).not.toBe('127.0.0.1:0');
  });

  it('/health and /ready answer 200 with JSON once the broker serves', async () => {
    const health = await fetch(`http://${broker.http}/health`);
    expect([health.status, health.headers.get('content-type'), await health.json()]).toEqual([200, 'application/json', { status: 'alive' }]);
    const ready = await fetch(`http://${broker.http}/ready`);
    expect([ready.status, await ready.json()]).toEqual([200, { status: 'ready' }]);
  });

  it('/metrics is Prometheus text format 0.0.4', async () => {
    const res = await fetch(`http://${broker.http}/metrics?name=ignored`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await res.text();
    expect(text).toMatch(/^# HELP kafka_server_replicamanager_partitioncount /);
    expect(text).toContain('\nkafka_controller_kafkacontroller_activecontrollercount 1\n');
  });

  it("serves exactly the metrics the README's table lists, with the labels it names", async () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Metrics and health'), readme.indexOf('\n## ', readme.indexOf('## Metrics and health') + 1));
    const documented = [...section.matchAll(/^\| `(\w+)(?:\{(\w+(?:,\w+)*)\})?`/gm)].map((m) => `${m[1]}{${m[2] ?? ''}}`);
    // Traffic, so that the per-topic, per-request and per-group families have samples to show their labels.
    const client = await TestClient.connect(broker.port);
    try {
      await createTopic(client, 'readme-table');
      await produceOk(client, 'readme-table', 0, values(3));
      await commitOffset(broker.port, 'readme-group', 'readme-table', 1);
    } finally {
      client.close();
    }
    const text = await (await fetch(`http://${broker.http}/metrics`)).text();
    expect(text).toContain('kafka_consumergroup_lag{consumergroup="readme-group",topic="readme-table",partition="0"} 2\n');
    const served = [...text.matchAll(/^# TYPE (\w+) /gm)].map(([, name]) => {
      // The label names of its first sample (le is a histogram's own).
      const sample = new RegExp(`^${name}(?:_bucket|_sum|_count)?\\{([^}]*)\\}`, 'm').exec(text)?.[1];
      const labels = sample
        ?.split(/,(?=\w+=")/)
        .map((l) => l.slice(0, l.indexOf('=')))
        .filter((l) => l !== 'le');
      return `${name}{${labels?.join(',') ?? ''}}`;
    });
    const withoutLabels = (names: string[]) => names.map((n) => n.slice(0, n.indexOf('{'))).sort();
    expect(withoutLabels(served)).toEqual(withoutLabels(documented));
    expect(served.sort()).toEqual(documented.sort());
  });

  it('answers 405 to other methods, 404 to other paths, 413 to a request with a body', async () => {
    const post = await fetch(`http://${broker.http}/metrics`, { method: 'DELETE' });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET']);
    expect((await fetch(`http://${broker.http}/`)).status).toBe(404);
    expect((await fetch(`http://${broker.http}/metrics/x`)).status).toBe(404);
    const withBody = await rawHttp(broker.http!, 'GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello');
    expect(withBody).toMatch(/^HTTP\/1\.1 413 /);
    const chunked = await rawHttp(broker.http!, 'GET /health HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n');
    expect(chunked).toMatch(/^HTTP\/1\.1 413 /);
  });

  it('answers 431 to oversized headers', async () => {
    const res = await rawHttp(broker.http!, `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(10_000)}\r\n\r\n`);
    expect(res).toMatch(/^HTTP\/1\.1 431 /);
  });

  it('holds at most 16 connections: the 17th is closed unanswered, and a slot freed is usable again', async () => {
    // Connections fetch() keeps alive count too: of these 16, the server may already have closed some.
    const [host, port] = broker.http!.split(':');
    const open = await Promise.all(
      Array.from(
        { length: 16 },
        () =>
          new Promise<net.Socket>((resolve, reject) => {
            const s = net.connect(Number(port), host, () => resolve(s));
            s.on('error', reject);
          }),
      ),
    );
    try {
      const refused = await rawHttp(broker.http!, 'GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
      expect(refused).toBe('');
    } finally {
      await Promise.all(open.map((s) => (s.closed ? null : new Promise((r) => s.once('close', r).destroy()))));
    }
    expect((await fetch(`http://${broker.http}/health`)).status).toBe(200);
  });
});

describe('krill.http.listener configuration', () => {
  it('is off by default: no address on the handle, and neither the listener nor node:http is loaded', () => {
    // A fresh process, so that what this test file loaded does not count.
    const script = `
      const { startBroker } = await import(${JSON.stringify(path.join(ROOT, 'dist', 'src', 'index.js'))});
      const off = await startBroker({ port: 0 });
      const loadedOff = process.moduleLoadList.includes('NativeModule http');
      const httpOff = off.http;
      await off.close();
      const on = await startBroker({ port: 0, config: ${JSON.stringify(HTTP)} });
      console.log(JSON.stringify({ loadedOff, httpOff, loadedOn: process.moduleLoadList.includes('NativeModule http'), httpOn: on.http !== null }));
      await on.close();`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ loadedOff: false, httpOff: null, loadedOn: true, httpOn: true });
  });

  it('refuses a value that is not host:port', async () => {
    for (const value of ['9644', 'localhost', '127.0.0.1:99999', '[zz]:1']) {
      await expect(withBroker({ config: { 'krill.http.listener': value } })).rejects.toThrow(/krill.http.listener: .* is not of the form host:port/);
    }
  });

  it('refuses to start when the HTTP port is taken, and frees the Kafka port and data dir', async () => {
    const first = await withBroker({ config: HTTP });
    try {
      await expect(withBroker({ config: { 'krill.http.listener': first.http! } })).rejects.toThrow(
        `krill.http.listener: cannot listen on ${first.http}: address already in use (EADDRINUSE)`,
      );
      const again = await withBroker({ config: HTTP });
      await again.close();
    } finally {
      await first.close();
    }
  });
});

describe('krill.http.listener on the command line', () => {
  it('puts the bound address in the ready line; without it the ready line has none', async () => {
    const dirs = [tempDir('krill-http-cli-'), tempDir('krill-http-cli-')];
    const on = await spawnCli(['--port', '0', '--data-dir', dirs[0], '--set', 'krill.http.listener=127.0.0.1:0']);
    const off = await spawnCli(['--port', '0', '--data-dir', dirs[1]]);
    try {
      const http = /, node: 1, http: (127\.0\.0\.1:\d+)\)$/.exec(on.readyLine)?.[1];
      expect(http, on.readyLine).toBeDefined();
      expect(await (await fetch(`http://${http}/ready`)).json()).toEqual({ status: 'ready' });
      expect(off.readyLine).toMatch(/, node: 1\)$/);
    } finally {
      on.kill('SIGTERM');
      off.kill('SIGTERM');
      expect([await on.exited, await off.exited]).toEqual([0, 0]);
      for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
    }
  });
});

describe('the text exposition format', () => {
  it('escapes label values and HELP text, and writes histograms cumulatively with +Inf, _sum and _count', () => {
    const out = new Exposition();
    out.family('x_total', 'counter', 'a \\ help\nline').sample(3, { topic: 'a"b\\c\nd' });
    out.family('t_ms', 'histogram', 'times').histogram([1, 5], [2, 0, 1], 9.5, { request: 'Produce' });
    out.family('g', 'gauge', 'g').sample(NaN).sample(Infinity, { k: 'v' });
    expect(out.render()).toBe(
      [
        '# HELP x_total a \\\\ help\\nline',
        '# TYPE x_total counter',
        'x_total{topic="a\\"b\\\\c\\nd"} 3',
        '# HELP t_ms times',
        '# TYPE t_ms histogram',
        't_ms_bucket{request="Produce",le="1"} 2',
        't_ms_bucket{request="Produce",le="5"} 2',
        't_ms_bucket{request="Produce",le="+Inf"} 3',
        't_ms_sum{request="Produce"} 9.5',
        't_ms_count{request="Produce"} 3',
        '# HELP g g',
        '# TYPE g gauge',
        'g NaN',
        'g{k="v"} +Inf',
        '',
      ].join('\n'),
    );
  });
});
