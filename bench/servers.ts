// The servers the benchmark compares, krill's CLI (on its durable log, and with --storage memory) and
// Apache Kafka (KRaft, bench/kafka.ts) and librdkafka's mock cluster (compiled on demand):
// started fresh for a workload, and timed from spawn to their first Metadata answer; and krill embedded
// (embedded-start.ts, in a process of its own). For the replicated workloads, a krill cluster: a fresh
// ZooKeeper (Debian's, src/cluster/zookeeper-server.ts) and N krill CLI processes joined through it, each
// its own process, so their CPU time is theirs and not the benchmark's; N Kafka nodes (each broker and
// controller, RF N, min.insync.replicas 2); and the mock with N brokers.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { waitForMetadata, type MetadataAnswer } from './metadata-probe.js';
import { CLI, EMBEDDED, HOST, MOCK_BIN, MOCK_SRC, ROOT } from './settings.js';
import { describeExit, freePort, lastLines, launch, makeTempDir, removeTempDir, runToEnd, sleep, stopProc, waitForStdoutLine, type Proc } from './processes.js';
import { readRssKb } from './machine.js';
import { startKafka } from './kafka.js';
import { benchTls } from './tls-certs.js';
import { median } from './report.js';
import { startZooKeeper, zookeeperInstalled } from '../src/cluster/zookeeper-server.js';

/** The servers compared: krill on its durable log, krill with krill.storage=memory, Apache Kafka, librdkafka's mock. */
export const SERVER_KINDS = ['krill', 'krill-memory', 'kafka', 'mock'] as const;
export type ServerKind = (typeof SERVER_KINDS)[number];

export interface Server {
  kind: ServerKind;
  /** host:port of every broker, comma-separated. */
  bootstrap: string;
  /** The server's processes, one per broker (ZooKeeper not included): their CPU time is the server's. */
  procs: Proc[];
  stop(): Promise<void>;
}

/** One krill CLI process, in a temporary data dir or `memory`; `sets` are --set key=value broker configs. */
async function startKrillProcess(memory: boolean, sets: Record<string, string | number> = {}): Promise<{ proc: Proc; port: number; stop(): Promise<void> }> {
  const dataDir = memory ? null : makeTempDir('krill-bench-data-');
  const args = [CLI, '--host', HOST, '--port', '0', ...(dataDir ? ['--data-dir', dataDir] : ['--storage', 'memory']), '--log-level', 'warn'];
  for (const [name, value] of Object.entries(sets)) args.push('--set', `${name}=${value}`);
  const proc = launch(process.execPath, args);
  const stop = async () => {
    await stopProc(proc);
    if (dataDir) removeTempDir(dataDir);
  };
  try {
    // A cluster member prints it once it has registered in ZooKeeper, which can take longer.
    const { match } = await waitForStdoutLine(proc, /on ([\d.]+):(\d+)/, 60_000);
    if (match[1] !== HOST) throw new Error(`krill listens on ${match[1]}, the benchmark only talks to ${HOST}`);
    return { proc, port: Number(match[2]), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** One krill; `sets`: extra broker configs (the SSL rows' listener and keystore). */
export async function startKrill(memory = false, sets: Record<string, string> = {}): Promise<Server> {
  const b = await startKrillProcess(memory, sets);
  return { kind: memory ? 'krill-memory' : 'krill', bootstrap: `${HOST}:${b.port}`, procs: [b.proc], stop: b.stop };
}

/** Why a krill cluster cannot be started here (no ZooKeeper or java), or null. */
export function krillClusterProblem(): string | null {
  return zookeeperInstalled() ? null : "ZooKeeper or java not installed (Debian's zookeeper package: /usr/share/java/zookeeper.jar)";
}

/**
 * `brokers` krill CLI processes (ids 1..n) joined through a fresh ZooKeeper; topics they auto-create get
 * `brokers` replicas and min.insync.replicas 2 (or fewer, with fewer brokers). Resolves once every broker
 * is listed in Metadata, so placement sees them all.
 */
export async function startKrillCluster(brokers: number, memory = false): Promise<Server> {
  const zookeeper = await startZooKeeper();
  const members: Awaited<ReturnType<typeof startKrillProcess>>[] = [];
  const stop = async () => {
    // Together: one by one, each would wait for a controller that is itself stopping.
    await Promise.all(members.map((m) => m.stop()));
    await zookeeper.stop();
  };
  try {
    const sets = {
      'zookeeper.connect': zookeeper.connect,
      'default.replication.factor': brokers,
      'min.insync.replicas': Math.min(2, brokers),
      'offsets.topic.replication.factor': Math.min(3, brokers),
      'transaction.state.log.replication.factor': Math.min(3, brokers),
    };
    // One after the other, as startCluster() does: the first becomes the controller.
    for (let id = 1; id <= brokers; id++) members.push(await startKrillProcess(memory, { ...sets, 'broker.id': id }));
    const port = members[0].port;
    const deadline = performance.now() + 30_000;
    const dead = () => members.map((m) => m.proc).find((p) => p.exitInfo);
    for (;;) {
      const { answer } = await waitForMetadata(HOST, port, deadline, () => (dead() ? `krill ${describeExit(dead()!)}` : null), 50);
      if (answer.brokers.length >= brokers) break;
      if (performance.now() > deadline) throw new Error(`Metadata lists ${answer.brokers.length} of ${brokers} brokers after 30 s`);
      await sleep(100);
    }
    return { kind: memory ? 'krill-memory' : 'krill', bootstrap: members.map((m) => `${HOST}:${m.port}`).join(','), procs: members.map((m) => m.proc), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Kafka with `brokers` nodes; topics it auto-creates get one partition, `brokers` replicas, min.insync.replicas 2. */
export async function startKafkaServer(brokers: number, tls: boolean): Promise<Server> {
  const replicated: Record<string, string> = brokers > 1 ? { 'default.replication.factor': String(brokers), 'min.insync.replicas': '2' } : {};
  const k = await startKafka({ nodes: brokers, overrides: replicated, pemKeystore: tls ? benchTls().broker['ssl.keystore.location'] : undefined });
  return { kind: 'kafka', bootstrap: k.bootstrap, procs: k.procs, stop: k.stop };
}

/** One Kafka start (spawn -> first Metadata naming itself, the format before it untimed), and its RSS 1 s later. */
export async function measureKafkaStart(): Promise<StartSample> {
  const k = await startKafka();
  try {
    await sleep(1000);
    const rssKb = k.procs[0].exitInfo ? null : readRssKb(k.procs[0].child.pid!);
    return { startMs: k.startMs, readyLineMs: null, rssKb };
  } finally {
    await k.stop();
  }
}

/** The mock with `brokers` brokers; its topics are created up front with one partition and `brokers` replicas. */
export async function startMock(topics: string[], brokers = 1): Promise<Server> {
  const args = [...(brokers > 1 ? ['--brokers', String(brokers)] : []), ...topics.map((t) => `${t}:1:${brokers}`)];
  const proc = launch(MOCK_BIN, args, 'pipe');
  const stop = () => stopProc(proc, true);
  try {
    const { match } = await waitForStdoutLine(proc, /^[\d.]+:\d+(,[\d.]+:\d+)*\s*$/, 10_000);
    const bootstrap = match[0].trim();
    const elsewhere = bootstrap.split(',').find((hp) => !hp.startsWith(`${HOST}:`));
    if (elsewhere) throw new Error(`mock cluster listens on ${elsewhere}, the benchmark only talks to ${HOST}`);
    return { kind: 'mock', bootstrap, procs: [proc], stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

export function ensureMockBinary(): string | null {
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

export interface StartSample {
  startMs: number;
  readyLineMs: number | null;
  rssKb: number | null;
}

/** The environment without NODE_EXTRA_CA_CERTS, which makes Node itself load certificates at start. */
export function envWithoutExtraCerts(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NODE_EXTRA_CA_CERTS;
  return env;
}

/** How long the bare runtime takes to start and exit here: the floor under krill's start time. */
export function nodeBaselineMs(env: NodeJS.ProcessEnv = process.env): number {
  const runs: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    spawnSync(process.execPath, ['-e', '0'], { env });
    runs.push(performance.now() - t0);
  }
  return median(runs);
}

export async function measureKrillStart(env: NodeJS.ProcessEnv = process.env): Promise<StartSample> {
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
      const { at, answer } = await waitForMetadata(HOST, port, t0 + 20_000, () => (proc.exitInfo ? `krill ${describeExit(proc)}` : null));
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

export async function measureMockStart(): Promise<StartSample> {
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

export async function measureEmbedded(runs: number): Promise<{ runs: number[]; importMs: number } | { error: string }> {
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
