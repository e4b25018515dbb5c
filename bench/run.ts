// krill benchmark: `npm run bench` (after `npm run build`) = node dist/bench/run.js
//
// One run prints one table comparing krill with librdkafka's in-memory mock cluster
// (bench/mock-cluster.c, compiled on demand into bench/build/mock-cluster):
//   - produce and fetch throughput, 1,000,000 x 100 B records and 10,000 x 100 KB (102,400 B) records,
//     one-partition topics on both servers, the same client and settings on both, ratio krill/mock;
//   - krill CLI start time: process spawn -> first Metadata answer, raw-socket client retrying every 1 ms;
//   - embedded start: `await startBroker({ port: 0 })` in a fresh Node process;
//   - idle RSS of the krill CLI process, 1 s after it answered Metadata.
// For each produce run the details also give the server's CPU time and how busy all the machine's
// cores were meanwhile (/proc): when the client and the server together keep every core busy, the
// produce rate is the machine's, and a server that does more per byte (a durable log) gets less of it.
// Environment: KRILL_BENCH_SCALE (default 1; 0.1 = a tenth of the records, for a quick run),
//              KRILL_BENCH_REPEAT (throughput repetitions, default 5; the table shows medians),
//              KRILL_BENCH_START_RUNS (start-time runs, default 7; the table shows medians),
//              KRILL_BENCH_CODECS (codecs of the compressed produce rows, default gzip,snappy,lz4,zstd;
//              empty for none).
// All traffic is to 127.0.0.1. Every server (krill or mock) is a fresh process with fresh state for
// each repetition of each workload; krill and mock alternate so slow drifts of the machine hit both.
//
// The client, and why:
//   Produce: kcat -P -l <file>, one record per line of a pre-generated file (page cache). kcat is
//   librdkafka's own C tool, so its produce loop costs ~0.5 us/record. In our measurements
//   confluent-kafka-python's tight produce() loop ran at about half kcat's rate and varied by +-20 %
//   from run to run; against a fast broker the Python loop, not the broker, would be the ceiling. kcat
//   is timed as a whole process, so the median wall time of producing a single record (process start,
//   connect, metadata, one round trip, exit) is measured on the same server and subtracted.
//   librdkafka producer settings are its defaults, spelled out below: linger.ms=5, batch.size=1000000,
//   batch.num.messages=10000, acks=all, no compression (the compressed rows set compression.codec).
//   Fetch: confluent-kafka-python (bench/rdkafka_client.py) on the same system librdkafka. The mock
//   keeps only the last ~5 MB of a partition (hard-coded in rdkafka_mock.c), so fetching N records from
//   it means re-reading the retained range several times (seek back = assign again), which only an
//   in-process client can do without paying a process start per pass. The consumer is identical
//   against both servers, and both are read in passes over the same last records of the partition
//   (fetchWindow: what fits in ~4.5 MB, inside the mock's retention), so the access pattern, including the
//   consumer's read-ahead up to the end of the log, is identical. Each pass is
//   timed from assign() to its last record; see rdkafka_client.py for the details.
//   Counts are verified: after producing N records the partition's high watermark must be N, and the
//   consumer must receive exactly the expected contiguous offsets with the expected payload sizes;
//   otherwise the table reports the mismatch instead of a figure.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitForMetadata, type MetadataAnswer } from './metadata-probe.js';

const HERE = path.dirname(fileURLToPath(import.meta.url)); // <root>/dist/bench
const ROOT = path.resolve(HERE, '..', '..');
const BENCH_SRC = path.join(ROOT, 'bench');
const CLI = path.join(ROOT, 'dist', 'src', 'bin', 'krill.cjs');
const INDEX = path.join(ROOT, 'dist', 'krill.mjs'); // the package's entry
const EMBEDDED = path.join(HERE, 'embedded-start.js');
const MOCK_SRC = path.join(BENCH_SRC, 'mock-cluster.c');
const MOCK_BIN = path.join(BENCH_SRC, 'build', 'mock-cluster');
const PY_CLIENT = path.join(BENCH_SRC, 'rdkafka_client.py');
const PYTHON = process.env.KRILL_BENCH_PYTHON ?? '/usr/bin/python3';
const KCAT = process.env.KRILL_BENCH_KCAT ?? 'kcat';
const HOST = '127.0.0.1';
const WARMUP_TOPIC = 'bench-warmup';

const TARGETS = {
  throughputRatio: 1.0,
  startMs: 120,
  embeddedMs: 30,
  idleRssMB: 80,
};

const KCAT_PRODUCER_SETTINGS = [
  'linger.ms=5',
  'batch.size=1000000',
  'batch.num.messages=10000',
  'acks=all',
];

// ---------------------------------------------------------------------------------------------
// configuration

function envNumber(name: string, fallback: number, valid: (n: number) => boolean): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || !valid(n)) {
    process.stderr.write(`bench: ignoring ${name}=${raw} (invalid), using ${fallback}\n`);
    return fallback;
  }
  return n;
}

const SCALE = envNumber('KRILL_BENCH_SCALE', 1, (n) => n > 0 && n <= 10);
const REPEAT = Math.round(envNumber('KRILL_BENCH_REPEAT', 5, (n) => n >= 1 && n <= 20));
const START_RUNS = Math.round(envNumber('KRILL_BENCH_START_RUNS', 7, (n) => n >= 1 && n <= 50));
const PROBE_RUNS = 3;
const CODECS = (process.env.KRILL_BENCH_CODECS ?? 'gzip,snappy,lz4,zstd').split(',').map((c) => c.trim()).filter((c) => c && c !== 'none');

interface Workload {
  id: string;
  records: number;
  size: number;
  /** librdkafka's compression.codec for the produce: the broker inflates and checks every compressed batch. */
  codec: string;
  topic: string;
  file: string; // records, one per line
  oneFile: string; // a single record, for the kcat fixed-cost baseline
}

const fmtInt = (n: number) => Math.round(n).toLocaleString('en-US');
const sizeLabel = (size: number) => (size >= 1024 ? `${size / 1024} KB` : `${size} B`);
const workloadLabel = (w: Workload) => `${fmtInt(w.records)} × ${sizeLabel(w.size)}${w.codec === 'none' ? '' : `, ${w.codec}`}`;

// ---------------------------------------------------------------------------------------------
// child processes

const live = new Set<ChildProcess>();
const tempDirs = new Set<string>();

function cleanup(): void {
  for (const child of live) {
    try {
      child.kill('SIGKILL');
    } catch {
      /* already gone */
    }
  }
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
}
process.on('exit', cleanup);
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    process.stderr.write(`\nbench: ${sig}, cleaning up\n`);
    cleanup();
    process.exit(130);
  });
}

interface Proc {
  child: ChildProcess;
  spawnedAt: number;
  /** Resolves when the process has exited and its output is drained. */
  closed: Promise<{ code: number | null; signal: NodeJS.Signals | null; exitedAt: number }>;
  exitInfo: { code: number | null; signal: NodeJS.Signals | null; exitedAt: number } | null;
  stdout(): string;
  stderr(): string;
  onStdoutLine(fn: (line: string, at: number) => void): void;
}

const TAIL = 16 * 1024;

function launch(cmd: string, args: string[], stdin: 'pipe' | 'ignore' = 'ignore', env: NodeJS.ProcessEnv = process.env): Proc {
  const spawnedAt = performance.now();
  const child = spawn(cmd, args, { stdio: [stdin, 'pipe', 'pipe'], env });
  live.add(child);
  let out = '';
  let err = '';
  let partial = '';
  const lineListeners: ((line: string, at: number) => void)[] = [];
  child.stdout!.setEncoding('utf8');
  child.stderr!.setEncoding('utf8');
  child.stdout!.on('data', (d: string) => {
    const at = performance.now();
    out = (out + d).slice(-1024 * 1024);
    partial += d;
    let nl: number;
    while ((nl = partial.indexOf('\n')) >= 0) {
      const line = partial.slice(0, nl);
      partial = partial.slice(nl + 1);
      for (const fn of lineListeners) fn(line, at);
    }
  });
  child.stderr!.on('data', (d: string) => {
    err = (err + d).slice(-TAIL);
  });
  const proc: Proc = {
    child,
    spawnedAt,
    exitInfo: null,
    closed: null as never,
    stdout: () => out,
    stderr: () => err,
    onStdoutLine: (fn) => lineListeners.push(fn),
  };
  child.on('exit', (code, signal) => {
    proc.exitInfo = { code, signal, exitedAt: performance.now() };
  });
  proc.closed = new Promise((resolve) => {
    const done = () => {
      live.delete(child);
      resolve(proc.exitInfo ?? { code: null, signal: null, exitedAt: performance.now() });
    };
    child.on('close', done);
    child.on('error', (e) => {
      err += `\n${e.message}`;
      done();
    });
  });
  return proc;
}

function describeExit(p: Proc): string {
  const e = p.exitInfo;
  const tail = lastLines(p.stderr(), 3);
  const how = e ? (e.signal ? `signal ${e.signal}` : `code ${e.code}`) : 'unknown status';
  return `exited (${how})${tail ? `: ${tail}` : ''}`;
}

function lastLines(text: string, n: number): string {
  return text.trim().split('\n').filter(Boolean).slice(-n).join(' | ').slice(0, 400);
}

/** Records per fetch pass, on both servers: what fits in ~4.5 MB, inside the mock's ~5 MB retention. */
function fetchWindow(recordSize: number): number {
  return Math.max(1, Math.floor(4_500_000 / (recordSize + 30)));
}

async function runToEnd(cmd: string, args: string[], timeoutMs: number): Promise<{ proc: Proc; seconds: number; timedOut: boolean }> {
  const p = launch(cmd, args);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    p.child.kill('SIGKILL');
  }, timeoutMs);
  const { exitedAt } = await p.closed;
  clearTimeout(timer);
  return { proc: p, seconds: (exitedAt - p.spawnedAt) / 1000, timedOut };
}

function waitForStdoutLine(p: Proc, re: RegExp, timeoutMs: number): Promise<{ match: RegExpMatchArray; at: number }> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
    };
    const timer = setTimeout(() => settle(() => reject(new Error(`no ready line within ${timeoutMs} ms`))), timeoutMs);
    p.onStdoutLine((line, at) => {
      const m = line.match(re);
      if (m) settle(() => resolve({ match: m, at }));
    });
    void p.closed.then(() => settle(() => reject(new Error(describeExit(p)))));
  });
}

async function stopProc(p: Proc, closeStdin = false): Promise<void> {
  if (p.exitInfo) return void (await p.closed);
  if (closeStdin) p.child.stdin?.end();
  p.child.kill('SIGTERM');
  const timer = setTimeout(() => p.child.kill('SIGKILL'), 10_000);
  await p.closed;
  clearTimeout(timer);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, HOST, () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function makeTempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

function removeTempDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
  tempDirs.delete(dir);
}

/** utime + stime of a process in seconds (/proc/<pid>/stat, USER_HZ = 100 on Linux), or null. */
function processCpuSeconds(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields from the 3rd on
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** The machine's CPU time so far, all cores, in ticks: busy and total (/proc/stat), or null. */
function machineCpuTicks(): { busy: number; total: number } | null {
  try {
    const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0];
    const t = line.trim().split(/\s+/).slice(1).map(Number); // user nice system idle iowait irq softirq steal ...
    const total = t.slice(0, 8).reduce((a, b) => a + b, 0);
    return { busy: total - t[3] - t[4], total };
  } catch {
    return null;
  }
}

function busyShare(a: { busy: number; total: number }, b: { busy: number; total: number }): number | undefined {
  return b.total > a.total ? (b.busy - a.busy) / (b.total - a.total) : undefined;
}

function readRssKb(pid: number): number | null {
  try {
    const m = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+)\s+kB/m);
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------------------------
// servers

interface Server {
  kind: 'krill' | 'mock';
  bootstrap: string;
  port: number;
  proc: Proc;
  stop(): Promise<void>;
}

async function startKrill(port = 0): Promise<Server> {
  const dataDir = makeTempDir('krill-bench-data-');
  const proc = launch(process.execPath, [CLI, '--host', HOST, '--port', String(port), '--data-dir', dataDir, '--log-level', 'warn']);
  const stop = async () => {
    await stopProc(proc);
    removeTempDir(dataDir);
  };
  try {
    const { match } = await waitForStdoutLine(proc, /on ([\d.]+):(\d+)/, 20_000);
    if (match[1] !== HOST) throw new Error(`krill listens on ${match[1]}, the benchmark only talks to ${HOST}`);
    const p = Number(match[2]);
    return { kind: 'krill', bootstrap: `${HOST}:${p}`, port: p, proc, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

async function startMock(topics: string[]): Promise<Server> {
  const proc = launch(MOCK_BIN, topics.map((t) => `${t}:1`), 'pipe');
  const stop = () => stopProc(proc, true);
  try {
    const { match } = await waitForStdoutLine(proc, /^([\d.]+):(\d+)\s*$/, 10_000);
    if (match[1] !== HOST) throw new Error(`mock cluster listens on ${match[1]}, the benchmark only talks to ${HOST}`);
    const p = Number(match[2]);
    return { kind: 'mock', bootstrap: `${HOST}:${p}`, port: p, proc, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

function ensureMockBinary(): string | null {
  try {
    const src = fs.statSync(MOCK_SRC);
    const bin = fs.existsSync(MOCK_BIN) ? fs.statSync(MOCK_BIN) : null;
    if (bin && bin.mtimeMs >= src.mtimeMs) return null;
  } catch (err) {
    return `cannot read ${MOCK_SRC}: ${(err as Error).message}`;
  }
  fs.mkdirSync(path.dirname(MOCK_BIN), { recursive: true });
  process.stderr.write(`bench: compiling ${path.relative(ROOT, MOCK_SRC)}\n`);
  const r = spawnSync('gcc', ['-O2', '-o', MOCK_BIN, MOCK_SRC, '-lrdkafka'], { encoding: 'utf8' });
  if (r.error) return `gcc: ${r.error.message}`;
  if (r.status !== 0) return `gcc failed: ${lastLines(r.stderr, 3)}`;
  return null;
}

// ---------------------------------------------------------------------------------------------
// record files

function writeRecordFile(file: string, records: number, size: number): void {
  // Printable, newline-free records: a 10-digit sequence number, then a repeating a..z filler.
  const line = Buffer.alloc(size + 1);
  for (let i = 0; i < size; i++) line[i] = 97 + (i % 26);
  line[size] = 10;
  const perChunk = Math.max(1, Math.floor((8 * 1024 * 1024) / line.length));
  const chunk = Buffer.alloc(perChunk * line.length);
  for (let i = 0; i < perChunk; i++) line.copy(chunk, i * line.length);
  const fd = fs.openSync(file, 'w');
  try {
    for (let base = 0; base < records; base += perChunk) {
      const n = Math.min(perChunk, records - base);
      for (let i = 0; i < n; i++) {
        const seq = String(base + i).padStart(10, '0');
        chunk.write(seq.slice(-Math.min(10, size)), i * line.length, 'latin1');
      }
      fs.writeSync(fd, chunk, 0, n * line.length);
    }
    // Flush now, so the kernel's writeback of this file does not compete with the measurements.
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

// ---------------------------------------------------------------------------------------------
// one workload against one server

type Outcome =
  | {
      ok: true;
      records: number;
      bytes: number;
      seconds: number;
      /** produce: kcat's fixed cost, subtracted from its wall time */
      fixedMs?: number;
      /** produce: CPU seconds the server used, and the share of all cores busy (any process), meanwhile */
      serverCpuSeconds?: number;
      machineBusy?: number;
      /** fetch: passes over the retained range, and its size in records */
      passes?: number;
      window?: number;
    }
  | { ok: false; error: string; mismatch?: boolean };

interface WorkloadRun {
  produce: Outcome;
  fetch: Outcome;
}

async function pyClient(args: string[], timeoutMs: number): Promise<Record<string, unknown>> {
  const { proc, timedOut } = await runToEnd(PYTHON, [PY_CLIENT, ...args], timeoutMs);
  if (timedOut) return { ok: false, error: `rdkafka_client.py ${args[0]} timed out after ${timeoutMs / 1000} s` };
  const line = proc.stdout().trim().split('\n').pop() ?? '';
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return { ok: false, error: `rdkafka_client.py ${args[0]} ${describeExit(proc)}` };
  }
}

async function kcatProduce(bootstrap: string, topic: string, file: string, codec: string, timeoutMs: number): Promise<{ seconds: number } | { error: string }> {
  const args = ['-b', bootstrap, '-P', '-t', topic, '-p', '0'];
  for (const s of [...KCAT_PRODUCER_SETTINGS, `compression.codec=${codec}`]) args.push('-X', s);
  args.push('-l', file);
  const { proc, seconds, timedOut } = await runToEnd(KCAT, args, timeoutMs);
  if (timedOut) return { error: `kcat produce timed out after ${timeoutMs / 1000} s` };
  if (proc.exitInfo?.code !== 0) return { error: `kcat produce ${describeExit(proc)}` };
  return { seconds };
}

async function runWorkload(kind: 'krill' | 'mock', w: Workload): Promise<WorkloadRun> {
  const fail = (error: string, mismatch = false): WorkloadRun => ({
    produce: { ok: false, error, mismatch },
    fetch: { ok: false, error: mismatch ? 'not measured (produce count mismatch)' : error },
  });
  let server: Server;
  try {
    server = kind === 'krill' ? await startKrill() : await startMock([w.topic, WARMUP_TOPIC]);
  } catch (err) {
    return fail(`${kind} did not start: ${(err as Error).message}`);
  }
  const crashed = () => (server.proc.exitInfo ? `${kind} ${describeExit(server.proc)}` : null);
  try {
    const prep = await pyClient(['prepare', server.bootstrap, w.topic, WARMUP_TOPIC], 60_000);
    if (!prep.ok) return fail(crashed() ?? `topic setup: ${prep.error}`);

    // Fixed cost of a kcat produce run (start, connect, metadata, one record, exit) on this server.
    const fixed: number[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await kcatProduce(server.bootstrap, WARMUP_TOPIC, w.oneFile, w.codec, 30_000);
      if ('error' in r) return fail(crashed() ?? `warm-up: ${r.error}`);
      fixed.push(r.seconds);
    }
    const overhead = median(fixed);

    const timeoutMs = Math.max(120_000, (w.records * w.size) / 1e6 * 1000); // >= 1 MB/s
    const cpu0 = { server: processCpuSeconds(server.proc.child.pid), machine: machineCpuTicks() };
    const prod = await kcatProduce(server.bootstrap, w.topic, w.file, w.codec, timeoutMs);
    if ('error' in prod) return fail(crashed() ?? prod.error);
    const cpu1 = { server: processCpuSeconds(server.proc.child.pid), machine: machineCpuTicks() };
    const produceSeconds = Math.max(prod.seconds - overhead, 1e-6);

    const f = await pyClient(['fetch', server.bootstrap, w.topic, String(w.records), String(w.size), String(fetchWindow(w.size))], timeoutMs);
    const produced: Outcome = {
      ok: true,
      records: w.records,
      bytes: w.records * w.size,
      seconds: produceSeconds,
      fixedMs: overhead * 1000,
      serverCpuSeconds: cpu0.server !== null && cpu1.server !== null ? cpu1.server - cpu0.server : undefined,
      machineBusy: cpu0.machine && cpu1.machine ? busyShare(cpu0.machine, cpu1.machine) : undefined,
    };
    if (!f.ok) {
      const error = crashed() ?? String(f.error);
      if (/^count mismatch: produced/.test(String(f.error))) return fail(error, true);
      return { produce: produced, fetch: { ok: false, error } };
    }
    return {
      produce: produced,
      fetch: {
        ok: true,
        records: Number(f.records),
        bytes: Number(f.bytes),
        seconds: Number(f.seconds),
        passes: Number(f.passes),
        window: Number(f.high) - Number(f.low),
      },
    };
  } finally {
    await server.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// start-up measurements

interface StartSample {
  startMs: number;
  readyLineMs: number | null;
  rssKb: number | null;
}

/** The environment without NODE_EXTRA_CA_CERTS, which makes Node itself load certificates at start. */
function envWithoutExtraCerts(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NODE_EXTRA_CA_CERTS;
  return env;
}

/** How long the bare runtime takes to start and exit here: the floor under krill's start time. */
function nodeBaselineMs(env: NodeJS.ProcessEnv = process.env): number {
  const runs: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    spawnSync(process.execPath, ['-e', '0'], { env });
    runs.push(performance.now() - t0);
  }
  return median(runs);
}

async function measureKrillStart(env: NodeJS.ProcessEnv = process.env): Promise<StartSample> {
  let lastErr: Error | null = null;
  for (let attempt = 0; attempt < 2; attempt++) {
    const port = await freePort();
    const dataDir = makeTempDir('krill-bench-start-');
    const t0 = performance.now();
    const proc = launch(process.execPath, [CLI, '--host', HOST, '--port', String(port), '--data-dir', dataDir, '--log-level', 'warn'], 'ignore', env);
    let readyAt: number | null = null;
    proc.onStdoutLine((line, at) => {
      if (readyAt === null && /on ([\d.]+):(\d+)/.test(line)) readyAt = at;
    });
    try {
      const { at, answer } = await waitForMetadata(HOST, port, t0 + 20_000, () =>
        proc.exitInfo ? `krill ${describeExit(proc)}` : null,
      );
      checkBrokerListed(answer, port, 'krill');
      await sleep(1000);
      const rssKb = proc.exitInfo ? null : readRssKb(proc.child.pid!);
      return { startMs: at - t0, readyLineMs: readyAt === null ? null : readyAt - t0, rssKb };
    } catch (err) {
      lastErr = err as Error;
      // A port race (someone took the port between freePort() and krill's bind) is worth one retry.
      if (!/in use|EADDRINUSE/i.test(lastErr.message)) break;
    } finally {
      await stopProc(proc);
      removeTempDir(dataDir);
    }
  }
  throw lastErr ?? new Error('krill did not start');
}

async function measureMockStart(): Promise<StartSample> {
  const t0 = performance.now();
  const proc = launch(MOCK_BIN, [], 'pipe');
  try {
    const { match, at: lineAt } = await waitForStdoutLine(proc, /^([\d.]+):(\d+)\s*$/, 10_000);
    if (match[1] !== HOST) throw new Error(`mock listens on ${match[1]}`);
    const port = Number(match[2]);
    const { at, answer } = await waitForMetadata(HOST, port, t0 + 10_000, () => (proc.exitInfo ? `mock ${describeExit(proc)}` : null));
    checkBrokerListed(answer, port, 'mock');
    await sleep(1000);
    return { startMs: at - t0, readyLineMs: lineAt - t0, rssKb: readRssKb(proc.child.pid!) };
  } finally {
    await stopProc(proc, true);
  }
}

function checkBrokerListed(answer: MetadataAnswer, port: number, who: string): void {
  if (!answer.brokers.some((b) => b.port === port)) {
    throw new Error(`${who} answered Metadata without listing itself on port ${port}`);
  }
}

async function measureEmbedded(runs: number): Promise<{ runs: number[]; importMs: number } | { error: string }> {
  const { proc, timedOut } = await runToEnd(process.execPath, [EMBEDDED, ROOT, String(runs)], 120_000);
  if (timedOut) return { error: 'embedded start timed out' };
  const line = proc.stdout().trim().split('\n').pop() ?? '';
  try {
    const r = JSON.parse(line) as { ok: boolean; runs?: number[]; importMs?: number; error?: string };
    if (!r.ok) return { error: r.error ?? 'failed' };
    return { runs: r.runs!, importMs: r.importMs! };
  } catch {
    return { error: `embedded-start ${describeExit(proc)}` };
  }
}

// ---------------------------------------------------------------------------------------------
// the machine's page cache, without any broker

/**
 * Wall time of writing `bytes` of new data to a fresh file in `dir` with 1 MB write() calls, no fsync:
 * what any broker that keeps the records on disk pays at least, and the mock does not (it keeps them in
 * memory). Taken after `idleMs` without allocating: on a virtual machine that hands freed memory back to
 * its host, page-cache pages touched after an idle spell cost several times more than pages just freed
 * and reused, and the gap varies from machine to machine, so both states are measured and reported.
 */
async function pageCacheWriteMs(dir: string, bytes: number, idleMs: number): Promise<number> {
  await sleep(idleMs);
  const chunk = Buffer.alloc(1 << 20, 0x61);
  const file = path.join(dir, 'page-cache-probe');
  const fd = fs.openSync(file, 'w');
  const t0 = performance.now();
  try {
    for (let done = 0; done < bytes; done += chunk.length) fs.writeSync(fd, chunk, 0, Math.min(chunk.length, bytes - done));
  } finally {
    fs.closeSync(fd);
  }
  const ms = performance.now() - t0;
  fs.rmSync(file, { force: true });
  return ms;
}

// ---------------------------------------------------------------------------------------------
// statistics and output

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

interface Summary {
  cell: string;
  rate?: number; // records/s (throughput) or the value (start rows)
  bad?: 'error' | 'mismatch' | 'na';
  detail?: string;
}

function summarizeThroughput(outcomes: Outcome[] | string): Summary {
  if (typeof outcomes === 'string') return { cell: outcomes, bad: 'na' };
  if (outcomes.length === 0) return { cell: 'n/a', bad: 'na' };
  const failed = outcomes.find((o): o is Extract<Outcome, { ok: false }> => !o.ok);
  if (failed) {
    return {
      cell: failed.mismatch ? 'COUNT MISMATCH' : 'ERROR',
      bad: failed.mismatch ? 'mismatch' : 'error',
      detail: `${outcomes.filter((o) => !o.ok).length} of ${outcomes.length} runs failed, first: ${failed.error}`,
    };
  }
  const ok = outcomes as Extract<Outcome, { ok: true }>[];
  const rates = ok.map((o) => o.records / o.seconds);
  const rate = median(rates);
  const mb = median(ok.map((o) => o.bytes / o.seconds / 1e6));
  const notes: string[] = [];
  if (rates.length > 1) notes.push(`runs ${rates.map(fmtRate).join(' / ')} rec/s`);
  const fixed = ok.map((o) => o.fixedMs).filter((x): x is number => x !== undefined);
  if (fixed.length) notes.push(`kcat wall time minus its fixed cost (~${median(fixed).toFixed(0)} ms)`);
  const cpu = ok.map((o) => o.serverCpuSeconds).filter((x): x is number => x !== undefined);
  const busy = ok.map((o) => o.machineBusy).filter((x): x is number => x !== undefined);
  if (cpu.length) notes.push(`server CPU ${median(cpu).toFixed(2)} s per run`);
  if (busy.length) notes.push(`all ${os.cpus().length} cores ${(100 * median(busy)).toFixed(0)} % busy meanwhile`);
  const passes = ok.map((o) => o.passes).filter((x): x is number => x !== undefined);
  const windows = ok.map((o) => o.window).filter((x): x is number => x !== undefined);
  if (passes.some((p) => p > 1)) {
    const lo = Math.min(...passes);
    const hi = Math.max(...passes);
    notes.push(`${lo === hi ? lo : `${lo}–${hi}`} passes over the ~${fmtInt(median(windows))} records it keeps`);
  } else if (passes.length) {
    notes.push('one pass over the log');
  }
  return { cell: `${fmtRate(rate)} rec/s  ${mb.toFixed(1)} MB/s`, rate, detail: notes.join('; ') };
}

function fmtRate(r: number): string {
  return fmtInt(r);
}

function renderTable(headers: string[], rows: string[][], rightAlign: boolean[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const fmt = (cells: string[]) =>
    cells
      .map((c, i) => (rightAlign[i] ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '─'.repeat(w)).join('  ');
  return [fmt(headers), rule, ...rows.map((r) => (r.length === 1 ? r[0] : fmt(r)))].join('\n');
}

function verdict(ok: boolean | null): string {
  return ok === null ? '—' : ok ? 'ok' : 'MISS';
}

// ---------------------------------------------------------------------------------------------
// main

async function toolVersions(): Promise<{ kcat: string | null; python: string | null; problems: string[] }> {
  const problems: string[] = [];
  let kcat: string | null = null;
  let python: string | null = null;
  const k = spawnSync(KCAT, ['-V'], { encoding: 'utf8' });
  if (k.error || k.status !== 0) problems.push(`kcat not usable (${k.error?.message ?? `exit ${k.status}`})`);
  else kcat = (k.stdout.match(/Version (\S+).*?librdkafka (\S+)/) ?? []).slice(1).join(' / librdkafka ') || 'unknown';
  const p = spawnSync(PYTHON, ['-c', 'import confluent_kafka as c; print(c.version()[0], c.libversion()[0])'], { encoding: 'utf8' });
  if (p.error || p.status !== 0) problems.push(`${PYTHON} with confluent_kafka not usable (${p.error?.message ?? lastLines(p.stderr, 1)})`);
  else {
    const [ck, lib] = p.stdout.trim().split(/\s+/);
    python = `confluent-kafka-python ${ck} / librdkafka ${lib}`;
  }
  return { kcat, python, problems };
}

async function main(): Promise<void> {
  const began = performance.now();
  const load = os.loadavg()[0];
  const log = (msg: string) => process.stderr.write(`bench: ${msg}\n`);
  const details0: string[] = [];
  if (load >= 1) log(`warning: load average ${load.toFixed(2)}, other work on this machine will skew the figures`);

  const tools = await toolVersions();
  const clientProblem = tools.problems.length ? 'n/a (client missing)' : null;
  const mockBuildError = ensureMockBinary();
  const mockProblem = mockBuildError ? 'n/a (mock not built)' : null;
  let krillProblem: string | null = fs.existsSync(CLI) ? null : 'n/a (krill not built)';
  let krillFailure: string | null = null;

  // --- start-up, while the machine is quiet -------------------------------------------------
  /** START_RUNS starts of the CLI in `env`; stops at the first failure, returning it with the samples so far. */
  const measureStarts = async (what: string, env: NodeJS.ProcessEnv) => {
    log(`krill CLI start time${what}, ${START_RUNS} runs`);
    const samples: StartSample[] = [];
    for (let i = 0; i < START_RUNS; i++) {
      try {
        samples.push(await measureKrillStart(env));
      } catch (err) {
        return { samples, failure: (err as Error).message.slice(0, 400) };
      }
    }
    return { samples, failure: null };
  };
  let krillStarts: StartSample[] = [];
  if (!krillProblem) {
    const r = await measureStarts('', process.env);
    krillStarts = r.samples;
    if (r.failure !== null) {
      krillProblem = 'n/a (krill failed to start)';
      krillFailure = r.failure;
    }
  }
  // NODE_EXTRA_CA_CERTS makes Node parse a certificate bundle before any of krill runs (~60-90 ms here);
  // when it is set, the start is measured a second time without it, reported on its own row (a failure
  // there is left to the main row, which reports start failures).
  let plainStarts: StartSample[] = [];
  if (!krillProblem && process.env.NODE_EXTRA_CA_CERTS) {
    plainStarts = (await measureStarts(' without NODE_EXTRA_CA_CERTS', envWithoutExtraCerts())).samples;
  }
  const mockStarts: StartSample[] = [];
  if (!mockProblem) {
    log('mock start time, 3 runs (reference)');
    for (let i = 0; i < 3; i++) {
      try {
        mockStarts.push(await measureMockStart());
      } catch (err) {
        log(`mock start failed: ${(err as Error).message}`);
        break;
      }
    }
  }
  let embedded: { runs: number[]; importMs: number } | { error: string } | null = null;
  if (fs.existsSync(INDEX)) {
    log(`embedded start, ${START_RUNS} runs`);
    embedded = await measureEmbedded(START_RUNS);
  }

  // --- throughput -------------------------------------------------------------------------
  const workDir = makeTempDir('krill-bench-');
  const small = { records: Math.max(1, Math.round(1_000_000 * SCALE)), size: 100, file: 'small' };
  const workloads: Workload[] = [
    { id: 'small', ...small, codec: 'none' },
    { id: 'large', records: Math.max(1, Math.round(10_000 * SCALE)), size: 100 * 1024, codec: 'none', file: 'large' },
    // The small records again in each codec: what the broker's inflate-and-check of compressed batches costs.
    ...CODECS.map((codec) => ({ id: `small-${codec}`, ...small, codec })),
  ].map((w) => ({
    ...w,
    topic: `bench-${w.id}`,
    file: path.join(workDir, `${w.file}.txt`),
    oneFile: path.join(workDir, `${w.file}-one.txt`),
  }));

  const results = {
    krill: Object.fromEntries(workloads.map((w) => [w.id, [] as WorkloadRun[]])),
    mock: Object.fromEntries(workloads.map((w) => [w.id, [] as WorkloadRun[]])),
  };
  const kinds: ('krill' | 'mock')[] = [];
  if (!clientProblem && !krillProblem) kinds.push('krill');
  if (!clientProblem && !mockProblem) kinds.push('mock');

  let fileProblem: string | null = null;
  try {
    for (const w of kinds.length ? workloads : []) {
      if (w.codec !== 'none') continue; // shares the uncompressed workload's file
      log(`writing ${workloadLabel(w)} records to ${w.file}`);
      writeRecordFile(w.file, w.records, w.size);
      writeRecordFile(w.oneFile, 1, w.size);
    }
  } catch (err) {
    fileProblem = `cannot write the record files: ${(err as Error).message}`;
    details0.push(fileProblem);
    for (const w of workloads) {
      for (const kind of kinds) {
        results[kind][w.id].push({ produce: { ok: false, error: fileProblem }, fetch: { ok: false, error: fileProblem } });
      }
    }
  }
  if (kinds.length && !fileProblem) {
    for (let rep = 0; rep < REPEAT; rep++) {
      for (const w of workloads) {
        const order = rep % 2 === 0 ? kinds : [...kinds].reverse();
        for (const kind of order) {
          const r = await runWorkload(kind, w);
          results[kind][w.id].push(r);
          const show = (o: Outcome) => (o.ok ? `${fmtRate(o.records / o.seconds)} rec/s` : `FAILED: ${o.error}`);
          log(`${kind} ${w.id} run ${rep + 1}/${REPEAT}: produce ${show(r.produce)}, fetch ${show(r.fetch)}`);
        }
      }
    }
  }
  // --- the page cache alone, after the servers (so it cannot warm their memory) ---------------
  const large = workloads.find((w) => w.id === 'large')!;
  const probeBytes = large.records * large.size;
  const probe = { idle: [] as number[], reused: [] as number[] };
  if (kinds.length && !fileProblem) {
    log(`page-cache write of ${fmtInt(probeBytes / 1e6)} MB, ${PROBE_RUNS} runs each after 5 s idle and at once`);
    for (let i = 0; i < PROBE_RUNS; i++) {
      probe.idle.push(await pageCacheWriteMs(workDir, probeBytes, 5000));
      probe.reused.push(await pageCacheWriteMs(workDir, probeBytes, 0));
    }
  }
  removeTempDir(workDir);

  // --- report -----------------------------------------------------------------------------
  const headers = ['benchmark', 'krill', 'mock', 'krill/mock', 'target', 'result'];
  const right = [false, true, true, true, false, false];
  const rows: string[][] = [];
  const details: string[] = [...details0];

  for (const op of ['produce', 'fetch'] as const) {
    for (const w of workloads) {
      const label = `${op} ${workloadLabel(w)}`;
      const k = summarizeThroughput(krillProblem ?? clientProblem ?? results.krill[w.id].map((r) => r[op]));
      const m = summarizeThroughput(mockProblem ?? clientProblem ?? results.mock[w.id].map((r) => r[op]));
      const ratio = k.rate !== undefined && m.rate !== undefined ? k.rate / m.rate : null;
      rows.push([
        label,
        k.cell,
        m.cell,
        ratio === null ? '—' : `${ratio.toFixed(2)}×`,
        `≥ ${TARGETS.throughputRatio.toFixed(1)}×`,
        k.bad === 'mismatch' || m.bad === 'mismatch' ? 'MISMATCH' : verdict(ratio === null ? null : ratio >= TARGETS.throughputRatio),
      ]);
      if (op === 'produce' && w.id === 'large' && probe.idle.length) {
        // Records/s of a "broker" that did nothing but write the payload to a file, against the mock's
        // whole produce: how much of the produce target the machine's page cache leaves.
        const idleSeconds = median(probe.idle) / 1000;
        const idleRate = large.records / idleSeconds;
        rows.push([
          `  page-cache write alone, ${fmtInt(probeBytes / 1e6)} MB`,
          `${fmtRate(idleRate)} rec/s  ${(probeBytes / 1e6 / idleSeconds).toFixed(1)} MB/s`,
          '—',
          m.rate === undefined ? '—' : `${(idleRate / m.rate).toFixed(2)}×`,
          'ref',
          'ref',
        ]);
        details.push(
          `page-cache write of the large workload's payload (1 MB write() calls to a new file, no broker): ` +
            `after 5 s idle ${probe.idle.map((x) => x.toFixed(0)).join(', ')} ms; ` +
            `at once after freeing the same amount ${probe.reused.map((x) => x.toFixed(0)).join(', ')} ms`,
        );
      }
      if (k.detail) details.push(`${label}, krill: ${k.detail}`);
      if (m.detail) details.push(`${label}, mock: ${m.detail}`);
    }
  }

  const okStarts = krillStarts.length > 0 && !krillProblem;
  const startMed = okStarts ? median(krillStarts.map((s) => s.startMs)) : null;
  const mockStartMed = mockStarts.length ? median(mockStarts.map((s) => s.startMs)) : null;
  rows.push([
    'start: spawn → first Metadata answer',
    startMed === null ? krillProblem ?? 'n/a' : `${startMed.toFixed(1)} ms`,
    mockStartMed === null ? 'n/a' : `${mockStartMed.toFixed(1)} ms (ref)`,
    '—',
    `< ${TARGETS.startMs} ms`,
    verdict(startMed === null ? null : startMed < TARGETS.startMs),
  ]);
  if (okStarts) {
    const readies = krillStarts.map((s) => s.readyLineMs).filter((x): x is number => x !== null);
    details.push(
      `start, krill: runs ${krillStarts.map((s) => s.startMs.toFixed(1)).join(', ')} ms` +
        (readies.length ? `; ready line printed after ${median(readies).toFixed(1)} ms (median)` : ''),
    );
    details.push(
      `start, node itself: \`node -e 0\` takes ${nodeBaselineMs().toFixed(1)} ms (median) in this environment` +
        (process.env.NODE_EXTRA_CA_CERTS ? '; NODE_EXTRA_CA_CERTS is set, which makes node load extra CA certificates at start' : ''),
    );
  }
  if (plainStarts.length) {
    const plainMed = median(plainStarts.map((s) => s.startMs));
    rows.push([
      '  the same, NODE_EXTRA_CA_CERTS unset',
      `${plainMed.toFixed(1)} ms`,
      '—',
      '—',
      `< ${TARGETS.startMs} ms`,
      verdict(plainMed < TARGETS.startMs),
    ]);
    details.push(
      `start without NODE_EXTRA_CA_CERTS, krill: runs ${plainStarts.map((s) => s.startMs.toFixed(1)).join(', ')} ms; ` +
        `\`node -e 0\` without it takes ${nodeBaselineMs(envWithoutExtraCerts()).toFixed(1)} ms (median)`,
    );
  }

  let embMed: number | null = null;
  let embCell = krillProblem === 'n/a (krill not built)' || !embedded ? 'n/a (krill not built)' : 'n/a';
  if (embedded && 'runs' in embedded) {
    embMed = median(embedded.runs);
    embCell = `${embMed.toFixed(1)} ms`;
    details.push(
      `embedded, krill: runs ${embedded.runs.map((x) => x.toFixed(1)).join(', ')} ms; ` +
        `importing dist/krill.mjs (the package entry) took ${embedded.importMs.toFixed(1)} ms (once, not included)`,
    );
  } else if (embedded && 'error' in embedded) {
    embCell = 'ERROR';
    details.push(`embedded, krill: ${embedded.error}`);
  }
  rows.push(['embedded: await startBroker({ port: 0 })', embCell, '—', '—', `< ${TARGETS.embeddedMs} ms`, verdict(embMed === null ? null : embMed < TARGETS.embeddedMs)]);

  const rssList = krillStarts.map((s) => s.rssKb).filter((x): x is number => x !== null);
  const rssMed = okStarts && rssList.length ? median(rssList) / 1024 : null;
  const mockRss = mockStarts.map((s) => s.rssKb).filter((x): x is number => x !== null);
  rows.push([
    'idle RSS (1 s after ready)',
    rssMed === null ? krillProblem ?? 'n/a' : `${rssMed.toFixed(1)} MB`,
    mockRss.length ? `${(median(mockRss) / 1024).toFixed(1)} MB (ref)` : 'n/a',
    '—',
    `< ${TARGETS.idleRssMB} MB`,
    verdict(rssMed === null ? null : rssMed < TARGETS.idleRssMB),
  ]);
  if (okStarts && rssList.length) details.push(`idle RSS, krill: runs ${rssList.map((x) => (x / 1024).toFixed(1)).join(', ')} MB`);

  if (krillFailure) details.push(`krill failed to start: ${krillFailure}`);
  if (mockBuildError) details.push(`mock cluster not built: ${mockBuildError}`);
  for (const p of tools.problems) details.push(`client missing: ${p}`);

  const cpu = os.cpus();
  const out: string[] = [];
  out.push('');
  out.push(`krill benchmark — ${new Date().toISOString()}`);
  out.push(
    `machine: ${cpu.length} × ${cpu[0]?.model.trim() ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GB RAM, ` +
      `Node ${process.version}, ${os.type()} ${os.release()}, load average ${load.toFixed(2)} at start` +
      (load >= 1 ? ' (busy machine: figures are unreliable)' : ''),
  );
  out.push(
    `clients: produce kcat ${tools.kcat ?? 'n/a'} (-P -l file, ${KCAT_PRODUCER_SETTINGS.join(' ')}); ` +
      `fetch ${tools.python ?? 'n/a'}`,
  );
  out.push(
    `scale ${SCALE} (KRILL_BENCH_SCALE), throughput = median of ${REPEAT} runs (KRILL_BENCH_REPEAT), ` +
      `start = median of ${START_RUNS} runs; 1 partition, fresh server per run, all on ${HOST}`,
  );
  out.push('');
  out.push(renderTable(headers, rows, right));
  out.push('');
  out.push('MB/s = 10^6 payload bytes per second; RSS MB = 2^20 bytes. Ratios compare records/s (= MB/s ratio).');
  out.push(
    "The mock keeps only the last ~5 MB of a partition, so fetch rows read both servers in passes of the same " +
      'number of records (~4.5 MB each), re-reading what the mock keeps (see bench/rdkafka_client.py).',
  );
  if (probe.idle.length) {
    out.push(
      '"page-cache write alone" runs no broker: it is the time this machine takes to put the large workload\'s ' +
        'payload into the page cache (after 5 s idle, as a broker meets it); a broker that keeps records on disk ' +
        'cannot produce them faster here, and the mock keeps them in memory instead.',
    );
  }
  if (details.length) {
    out.push('');
    out.push('details:');
    for (const d of details) out.push(`  ${d}`);
  }
  out.push('');
  out.push(`total bench time ${((performance.now() - began) / 1000).toFixed(1)} s`);
  process.stdout.write(out.join('\n') + '\n');
}

main().catch((err) => {
  process.stderr.write(`bench: ${(err as Error)?.stack ?? err}\n`);
  cleanup();
  process.exit(1);
});
