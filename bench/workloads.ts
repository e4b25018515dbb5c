// The workloads: N records of one size, produced by kcat from a pre-generated file and fetched back by
// rdkafka_client.py, against one fresh server (or, for a replicated workload, a fresh cluster); each run's
// outcome is verified counts and timings.

import fs from 'node:fs';
import path from 'node:path';
import { CODECS, KCAT, KCAT_PRODUCER_SETTINGS, PYTHON, PY_CLIENT, SCALE, WARMUP_TOPIC } from './settings.js';
import { describeExit, runToEnd } from './processes.js';
import { busyShare, machineCpuTicks, processCpuSeconds, readRssKb } from './machine.js';
import { startKafkaServer, startKrill, startKrillCluster, startMock, type Server, type ServerKind } from './servers.js';
import { median } from './report.js';
import { benchTls } from './tls-certs.js';

export interface Workload {
  id: string;
  records: number;
  size: number;
  /** librdkafka's compression.codec for the produce: the broker inflates and checks every compressed batch. */
  codec: string;
  /** Produce with enable.idempotence=true: the broker checks every batch's producer sequence. */
  idempotent?: boolean;
  /** Produce all records in one transaction (kcat -X transactional.id): markers, the coordinator, the LSO. */
  transactional?: boolean;
  /**
   * A cluster of this many brokers, the topic with as many replicas (min.insync.replicas 2): acks=all then
   * waits for the followers to copy each batch. Absent: one broker.
   */
  brokers?: number;
  /** krill on an SSL listener, the clients over TLS (the mock has no TLS: it runs PLAINTEXT). */
  tls?: boolean;
  topic: string;
  file: string; // records, one per line
  oneFile: string; // a single record, for the kcat fixed-cost baseline
}

/** The workloads of a run, scaled by KRILL_BENCH_SCALE, their record files in `workDir`. */
export function benchWorkloads(workDir: string): Workload[] {
  const small = { records: Math.max(1, Math.round(1_000_000 * SCALE)), size: 100, file: 'small' };
  return [
    { id: 'small', ...small, codec: 'none' },
    // The small records again, replicated: what copying to two followers before acks=all answers costs.
    { id: 'small-replicated', ...small, codec: 'none', brokers: 3 },
    // The small records from an idempotent producer: what the broker's sequence checks cost.
    { id: 'small-idempotent', ...small, codec: 'none', idempotent: true },
    { id: 'small-transactional', ...small, codec: 'none', transactional: true },
    { id: 'large', records: Math.max(1, Math.round(10_000 * SCALE)), size: 100 * 1024, codec: 'none', file: 'large' },
    // Both again over TLS, next to their PLAINTEXT rows: what encryption costs krill.
    { id: 'small-ssl', ...small, codec: 'none', tls: true },
    { id: 'large-ssl', records: Math.max(1, Math.round(10_000 * SCALE)), size: 100 * 1024, codec: 'none', file: 'large', tls: true },
    // The small records again in each codec: what the broker's inflate-and-check of compressed batches costs.
    ...CODECS.map((codec) => ({ id: `small-${codec}`, ...small, codec })),
  ].map((w) => ({
    ...w,
    topic: `bench-${w.id}`,
    file: path.join(workDir, `${w.file}.txt`),
    oneFile: path.join(workDir, `${w.file}-one.txt`),
  }));
}

/** Records per fetch pass, on both servers: what fits in ~4.5 MB, inside the mock's ~5 MB retention. */
function fetchWindow(recordSize: number): number {
  return Math.max(1, Math.floor(4_500_000 / (recordSize + 30)));
}

export function writeRecordFile(file: string, records: number, size: number): void {
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

export type Outcome =
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
      /** produce on a cluster: each broker's share of serverCpuSeconds, broker 1 first */
      brokerCpuSeconds?: number[];
      /** produce: the server's RSS right after it (all brokers' together), kB */
      serverRssKb?: number;
      /** fetch: passes over the retained range, and its size in records */
      passes?: number;
      window?: number;
    }
  | { ok: false; error: string; mismatch?: boolean };

export interface WorkloadRun {
  produce: Outcome;
  fetch: Outcome;
}

async function pyClient(args: string[], timeoutMs: number, clientConf: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const env = { ...process.env, KRILL_BENCH_CLIENT_CONF: JSON.stringify(clientConf) };
  const { proc, timedOut } = await runToEnd(PYTHON, [PY_CLIENT, ...args], timeoutMs, env);
  if (timedOut) return { ok: false, error: `rdkafka_client.py ${args[0]} timed out after ${timeoutMs / 1000} s` };
  const line = proc.stdout().trim().split('\n').pop() ?? '';
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return { ok: false, error: `rdkafka_client.py ${args[0]} ${describeExit(proc)}` };
  }
}

async function kcatProduce(
  bootstrap: string,
  topic: string,
  file: string,
  w: Workload,
  timeoutMs: number,
  clientConf: Record<string, string>,
): Promise<{ seconds: number } | { error: string }> {
  const args = ['-b', bootstrap, '-P', '-t', topic, '-p', '0'];
  const settings = [
    ...Object.entries(clientConf).map(([k, v]) => `${k}=${v}`),
    ...KCAT_PRODUCER_SETTINGS,
    `compression.codec=${w.codec}`,
    ...(w.idempotent ? ['enable.idempotence=true'] : []),
    ...(w.transactional ? [`transactional.id=bench-${topic}-${process.pid}`] : []),
  ];
  for (const s of settings) args.push('-X', s);
  args.push('-l', file);
  const { proc, seconds, timedOut } = await runToEnd(KCAT, args, timeoutMs);
  if (timedOut) return { error: `kcat produce timed out after ${timeoutMs / 1000} s` };
  if (proc.exitInfo?.code !== 0) return { error: `kcat produce ${describeExit(proc)}` };
  return { seconds };
}

/** The server's CPU seconds between two readings of its brokers' (all of them, and each one of several). */
function cpuUsed(before: number[] | null, after: number[] | null): { serverCpuSeconds?: number; brokerCpuSeconds?: number[] } {
  if (before === null || after === null) return {};
  const each = after.map((x, i) => x - before[i]);
  const serverCpuSeconds = each.reduce((a, b) => a + b, 0);
  return each.length > 1 ? { serverCpuSeconds, brokerCpuSeconds: each } : { serverCpuSeconds };
}

export async function runWorkload(kind: ServerKind, w: Workload): Promise<WorkloadRun> {
  const fail = (error: string, mismatch = false): WorkloadRun => ({
    produce: { ok: false, error, mismatch },
    fetch: { ok: false, error: mismatch ? 'not measured (produce count mismatch)' : error },
  });
  let server: Server;
  try {
    const brokers = w.brokers ?? 1;
    if (kind === 'mock') server = await startMock([w.topic, WARMUP_TOPIC], brokers);
    else if (kind === 'kafka') server = await startKafkaServer(brokers, w.tls === true);
    else if (brokers > 1) server = await startKrillCluster(brokers, kind === 'krill-memory');
    else server = await startKrill(kind === 'krill-memory', w.tls ? benchTls().broker : {});
  } catch (err) {
    return fail(`${kind} did not start: ${(err as Error).message}`);
  }
  const crashed = () => {
    const dead = server.procs.find((p) => p.exitInfo);
    return dead ? `${kind} ${describeExit(dead)}` : null;
  };
  // Each broker's CPU seconds so far; null when a reading failed.
  const serverCpu = () => {
    const each = server.procs.map((p) => processCpuSeconds(p.child.pid));
    return each.some((x) => x === null) ? null : (each as number[]);
  };
  const clientConf = w.tls && kind !== 'mock' ? benchTls().client : {};
  try {
    const replicas = w.brokers && w.brokers > 1 ? ['--replicas', String(w.brokers)] : [];
    const prep = await pyClient(['prepare', ...replicas, server.bootstrap, w.topic, WARMUP_TOPIC], 60_000, clientConf);
    if (!prep.ok) return fail(crashed() ?? `topic setup: ${prep.error}`);

    // Fixed cost of a kcat produce run (start, connect, metadata, one record, exit) on this server.
    const fixed: number[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await kcatProduce(server.bootstrap, WARMUP_TOPIC, w.oneFile, w, 30_000, clientConf);
      if ('error' in r) return fail(crashed() ?? `warm-up: ${r.error}`);
      fixed.push(r.seconds);
    }
    const overhead = median(fixed);

    const timeoutMs = Math.max(120_000, ((w.records * w.size) / 1e6) * 1000); // >= 1 MB/s
    const cpu0 = { server: serverCpu(), machine: machineCpuTicks() };
    const prod = await kcatProduce(server.bootstrap, w.topic, w.file, w, timeoutMs, clientConf);
    if ('error' in prod) return fail(crashed() ?? prod.error);
    const cpu1 = { server: serverCpu(), machine: machineCpuTicks() };
    const rss = server.procs.map((p) => readRssKb(p.child.pid!));
    const produceSeconds = prod.seconds - overhead;

    const trailing = w.transactional ? '1' : '0'; // the transaction's commit marker follows the records
    const f = await pyClient(
      ['fetch', server.bootstrap, w.topic, String(w.records), String(w.size), String(fetchWindow(w.size)), trailing],
      timeoutMs,
      clientConf,
    );
    // A run too small to time (at a small KRILL_BENCH_SCALE): the produce took no longer than kcat's fixed cost.
    const tooShort: Outcome = { ok: false, error: `n/a (< kcat's ${(overhead * 1000).toFixed(0)} ms fixed cost)` };
    const produced: Outcome =
      produceSeconds <= 0
        ? tooShort
        : {
            ok: true,
            records: w.records,
            bytes: w.records * w.size,
            seconds: produceSeconds,
            fixedMs: overhead * 1000,
            ...cpuUsed(cpu0.server, cpu1.server),
            machineBusy: cpu0.machine && cpu1.machine ? busyShare(cpu0.machine, cpu1.machine) : undefined,
            serverRssKb: rss.some((x) => x === null) ? undefined : (rss as number[]).reduce((a, b) => a + b, 0),
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
