// krill benchmark: `npm run bench` (after `npm run build`) = node dist/bench/run.js
//
// One run prints one table comparing krill with Apache Kafka 4.4 (KRaft, bench/kafka.ts) and librdkafka's
// in-memory mock cluster (bench/mock-cluster.c, compiled on demand into bench/build/mock-cluster); every
// figure is shown with its ratio to Kafka and to the mock, and judged against Kafka (issue 27's targets:
// rates at least Kafka's, latency at most its, start at most 1/20 of it, idle RSS at most 1/5 of it):
//   - produce and fetch throughput, 1,000,000 x 100 B records and 10,000 x 100 KB (102,400 B) records,
//     one-partition topics on every server, the same client and settings on all; krill twice, on its
//     durable log and with --storage memory (its own columns and verdict);
//   - under each produce row, the server's CPU seconds per GB produced (/proc/<pid>/stat, all brokers);
//   - the same small records on a replicated topic: three krill brokers (separate CLI processes) joined
//     through a fresh ZooKeeper, three Kafka KRaft nodes (three voters, each broker + controller), RF 3,
//     min.insync.replicas 2, acks=all as on every row; the mock with three brokers (whose replicas are
//     bookkeeping only: it copies nothing). krill's cells say why when ZooKeeper or java is missing;
//   - the small and the large records again over TLS: krill and Kafka on an SSL listener (keys made by
//     openssl for the run, bench/tls-certs.ts; Kafka reads the same PEM file), kcat and the consumer over
//     TLS; the mock has no TLS and runs those rows in PLAINTEXT;
//   - perf-tools: Kafka's kafka-producer-perf-test and kafka-consumer-perf-test (ProducerPerformance and
//     ConsumerPerformance from the classpath, the tools' defaults, 1 M x 100 B) against each server
//     (bench/tool-workloads.ts; not against the mock, whose Metadata the Java 4.4 producer cannot use);
//   - latency: end to end (produce -> consume) avg/p50/p99/p99.9 at a fixed 1,000 records/s
//     (rdkafka_client.py latency);
//   - start time: process spawn -> first Metadata answer naming the server itself, raw-socket client
//     retrying (krill's CLI, Kafka's node, its log dir formatted beforehand, untimed; the mock);
//   - embedded start: `await startBroker({ port: 0 })` in a fresh Node process;
//   - idle RSS, 1 s after the server answered Metadata, and RSS right after producing 1 M x 100 B.
// For each produce run the details also give the server's CPU time and how busy all the machine's
// cores were meanwhile (/proc): when the client and the server together keep every core busy, the
// produce rate is the machine's, and a server that does more per byte (a durable log) gets less of it.
// Apache Kafka runs from compat/kafka-tools/target/classpath.txt (compat/kafka-tools/install.sh); without
// it Kafka's cells and the perf-tools rows say n/a (client missing).
// Environment: KRILL_BENCH_SCALE (default 1; 0.1 = a tenth of the records, for a quick run),
//              KRILL_BENCH_REPEAT (throughput repetitions, default 5; the table shows medians),
//              KRILL_BENCH_START_RUNS (start-time runs, default 7; the table shows medians),
//              KRILL_BENCH_WORKLOADS (ids of the rows to run, e.g. small-ssl,large-ssl,perf-tools,latency;
//              default all),
//              KRILL_BENCH_SERVERS (servers to run: krill, krill-memory, kafka, mock; default all),
//              KRILL_BENCH_CODECS (codecs of the compressed produce rows, default gzip,snappy,lz4,zstd;
//              empty for none).
// All traffic is to 127.0.0.1. Every server is a fresh process with fresh state for each repetition of
// each workload; the servers' order reverses every repetition so slow drifts of the machine hit all.
//
// The client, and why:
//   Produce: kcat -P -l <file>, one record per line of a pre-generated file (page cache). kcat is
//   librdkafka's own C tool, so its produce loop costs ~0.5 us/record. In our measurements
//   confluent-kafka-python's tight produce() loop ran at about half kcat's rate and varied by +-20 %
//   from run to run; against a fast broker the Python loop, not the broker, would be the ceiling. kcat
//   is timed as a whole process, so the median wall time of producing a single record (process start,
//   connect, metadata, one round trip, exit) is measured on the same server and subtracted.
//   librdkafka producer settings are its defaults, spelled out below: linger.ms=5, batch.size=1000000,
//   batch.num.messages=10000, acks=all, no compression (the compressed rows set compression.codec, the
//   idempotent row enable.idempotence=true, the transactional one a transactional.id: all in one transaction).
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
//
// This file runs the measurements in order; the parts live beside it: settings.ts (paths, knobs, targets),
// processes.ts (child processes and temporary directories), machine.ts (/proc readings, the page-cache
// probe), kafka.ts (Apache Kafka's launcher), servers.ts (krill, Kafka and the mock: started, and their
// start timed), workloads.ts (one kcat workload against one server), tool-workloads.ts (the perf tools and
// the latency driver), report.ts (statistics and the printed table), report-rows.ts (the table's rows).

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { CLI, INDEX, KCAT, ONLY_SERVERS, ONLY_WORKLOADS, PROBE_RUNS, PYTHON, REPEAT, START_RUNS } from './settings.js';
import { cleanup, lastLines, makeTempDir, removeTempDir } from './processes.js';
import { pageCacheWriteMs } from './machine.js';
import {
  ensureMockBinary,
  envWithoutExtraCerts,
  krillClusterProblem,
  measureEmbedded,
  measureKafkaStart,
  measureKrillStart,
  measureMockStart,
  nodeBaselineMs,
  SERVER_KINDS,
  type ServerKind,
  type StartSample,
} from './servers.js';
import { benchWorkloads, runWorkload, writeRecordFile, type Outcome, type WorkloadRun } from './workloads.js';
import { fmtInt, fmtRate, renderReport, workloadLabel, type Measurements } from './report.js';
import { buildRows } from './report-rows.js';
import { kafkaMissing } from './kafka.js';
import { runLatency, runPerfTools, TOOL_WORKLOADS, type LatencyRun, type PerfToolsRun } from './tool-workloads.js';

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
  const kafkaAbsent = kafkaMissing();
  let kafkaProblem: string | null = kafkaAbsent ? 'n/a (client missing)' : null;
  if (kafkaAbsent) details0.push(`kafka: ${kafkaAbsent}`);
  let kafkaFailure: string | null = null;
  const unknownServers = ONLY_SERVERS.filter((k) => !(SERVER_KINDS as readonly string[]).includes(k));
  if (unknownServers.length) log(`KRILL_BENCH_SERVERS: ignoring ${unknownServers.join(', ')} (servers: ${SERVER_KINDS.join(', ')})`);
  const wanted = (k: ServerKind) => ONLY_SERVERS.length === 0 || ONLY_SERVERS.includes(k);
  const notSelected = 'n/a (not run)'; // left out by KRILL_BENCH_SERVERS
  if (!wanted('kafka')) kafkaProblem = notSelected;
  const selected = (id: string) => ONLY_WORKLOADS.length === 0 || ONLY_WORKLOADS.includes(id);

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
  if (!krillProblem && wanted('krill')) {
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
  if (!krillProblem && wanted('krill') && process.env.NODE_EXTRA_CA_CERTS) {
    plainStarts = (await measureStarts(' without NODE_EXTRA_CA_CERTS', envWithoutExtraCerts())).samples;
  }
  const kafkaStarts: StartSample[] = [];
  if (!kafkaProblem) {
    log(`Kafka start time, ${START_RUNS} runs`);
    for (let i = 0; i < START_RUNS; i++) {
      try {
        kafkaStarts.push(await measureKafkaStart());
      } catch (err) {
        kafkaProblem = 'n/a (Kafka failed to start)';
        kafkaFailure = (err as Error).message.slice(0, 400);
        break;
      }
    }
  }
  const mockStarts: StartSample[] = [];
  if (!mockProblem && wanted('mock')) {
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
  if (fs.existsSync(INDEX) && wanted('krill')) {
    log(`embedded start, ${START_RUNS} runs`);
    embedded = await measureEmbedded(START_RUNS);
  }

  // --- throughput -------------------------------------------------------------------------
  const workDir = makeTempDir('krill-bench-');
  const workloads = benchWorkloads(workDir);
  const ids = [...workloads.map((w) => w.id), ...TOOL_WORKLOADS];
  const unknownWorkloads = ONLY_WORKLOADS.filter((id) => !ids.includes(id));
  if (unknownWorkloads.length) log(`KRILL_BENCH_WORKLOADS: no workload ${unknownWorkloads.join(', ')} (workloads: ${ids.join(', ')})`);

  const runsOf = () => Object.fromEntries(workloads.map((w) => [w.id, [] as WorkloadRun[]]));
  const byServer = <T>(f: () => T) => Object.fromEntries(SERVER_KINDS.map((k) => [k, f()])) as Record<ServerKind, T>;
  const results = byServer(runsOf);
  const perfTools = byServer((): PerfToolsRun[] => []);
  const latency = byServer((): LatencyRun[] => []);
  const unavailable: Record<ServerKind, string | null> = {
    krill: clientProblem ?? krillProblem,
    'krill-memory': clientProblem ?? krillProblem,
    kafka: clientProblem ?? kafkaProblem,
    mock: clientProblem ?? mockProblem,
  };
  for (const k of SERVER_KINDS) if (!wanted(k)) unavailable[k] = notSelected;
  const kinds = SERVER_KINDS.filter((k) => !unavailable[k]);
  // Replicated workloads need a ZooKeeper for krill; without one their krill column says why.
  const clusterProblem = workloads.some((w) => (w.brokers ?? 1) > 1) ? krillClusterProblem() : null;
  const krillSkipped: Record<string, string> = {};
  if (clusterProblem) {
    for (const w of workloads) if ((w.brokers ?? 1) > 1) krillSkipped[w.id] = 'n/a (no ZooKeeper)';
    details0.push(`replicated rows, krill: skipped, ${clusterProblem}`);
  }

  let fileProblem: string | null = null;
  try {
    for (const w of kinds.length ? workloads : []) {
      if (w.codec !== 'none' || w.idempotent || w.transactional || w.brokers || w.tls) continue; // shares the plain workload's file
      if (!workloads.some((x) => x.file === w.file && selected(x.id))) continue;
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
          if ((kind === 'krill' || kind === 'krill-memory') && krillSkipped[w.id]) continue;
          if (!selected(w.id)) continue;
          const r = await runWorkload(kind, w);
          results[kind][w.id].push(r);
          const show = (o: Outcome) => (o.ok ? `${fmtRate(o.records / o.seconds)} rec/s` : `FAILED: ${o.error}`);
          log(`${kind} ${w.id} run ${rep + 1}/${REPEAT}: produce ${show(r.produce)}, fetch ${show(r.fetch)}`);
        }
      }
    }
  }
  // --- Kafka's perf tools and the latency driver, on single brokers ------------------------------
  const toolProblem = kafkaAbsent ? 'n/a (client missing)' : null;
  if (kinds.length && !fileProblem) {
    for (let rep = 0; rep < REPEAT; rep++) {
      const order = rep % 2 === 0 ? kinds : [...kinds].reverse();
      for (const kind of selected('perf-tools') && !toolProblem ? order : []) {
        const r = await runPerfTools(kind);
        perfTools[kind].push(r);
        const show = (o: Outcome) => (o.ok ? `${fmtRate(o.records / o.seconds)} rec/s` : `FAILED: ${o.error}`);
        log(`${kind} perf-tools run ${rep + 1}/${REPEAT}: producer ${show(r.produce)}, consumer ${show(r.fetch)}`);
      }
      for (const kind of selected('latency') ? order : []) {
        const r = await runLatency(kind);
        latency[kind].push(r);
        log(`${kind} latency run ${rep + 1}/${REPEAT}: ${r.ok ? `p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms` : `FAILED: ${r.error}`}`);
      }
    }
  }

  // --- the page cache alone, after the servers (so it cannot warm their memory) ---------------
  const large = workloads.find((w) => w.id === 'large')!;
  const probeBytes = large.records * large.size;
  const probe = { idle: [] as number[], reused: [] as number[] };
  if (kinds.length && !fileProblem && selected('large')) {
    log(`page-cache write of ${fmtInt(probeBytes / 1e6)} MB, ${PROBE_RUNS} runs each after 5 s idle and at once`);
    for (let i = 0; i < PROBE_RUNS; i++) {
      probe.idle.push(await pageCacheWriteMs(workDir, probeBytes, 5000));
      probe.reused.push(await pageCacheWriteMs(workDir, probeBytes, 0));
    }
  }
  removeTempDir(workDir);

  // --- report -----------------------------------------------------------------------------
  // The bare runtime's start, for the details, is timed after everything else, with no server running.
  const okStarts = krillStarts.length > 0 && !krillProblem;
  const nodeStartMs = okStarts ? nodeBaselineMs() : null;
  const nodeStartWithoutCertsMs = plainStarts.length ? nodeBaselineMs(envWithoutExtraCerts()) : null;
  const measured: Measurements = {
    began,
    load,
    tools,
    workloads,
    selected,
    results,
    perfTools,
    toolProblem,
    latency,
    unavailable,
    krillSkipped,
    krillFailure,
    kafkaFailure,
    mockBuildError,
    details0,
    probe,
    krillStarts,
    plainStarts,
    kafkaStarts,
    mockStarts,
    embedded,
    nodeStartMs,
    nodeStartWithoutCertsMs,
  };
  const { rows, details } = buildRows(measured);
  process.stdout.write(renderReport(measured, rows, details));
}

main().catch((err) => {
  process.stderr.write(`bench: ${(err as Error)?.stack ?? err}\n`);
  cleanup();
  process.exit(1);
});
