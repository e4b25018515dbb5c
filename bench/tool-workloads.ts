// The workloads that are not kcat's: Kafka's own perf tools (kafka-producer-perf-test and
// kafka-consumer-perf-test, the figures Kafka users quote) and the end-to-end latency driver
// (rdkafka_client.py latency), each against one fresh single-broker server.
//
// The perf tools run as bin/kafka-producer-perf-test.sh and bin/kafka-consumer-perf-test.sh run them:
// -Xmx512M with kafka-run-class.sh's performance flags, the tools' own defaults otherwise (acks=all,
// linger.ms=5, batch.size=16384 in Kafka 4.x), --throughput -1 (unthrottled).

import { PYTHON, PY_CLIENT, SCALE, WARMUP_TOPIC } from './settings.js';
import { describeExit, lastLines, runToEnd } from './processes.js';
import { processCpuSeconds } from './machine.js';
import { KAFKA_PERFORMANCE_FLAGS, kafkaJava, kafkaMissing } from './kafka.js';
import { startKafkaServer, startKrill, startMock, type Server, type ServerKind } from './servers.js';
import type { Outcome } from './workloads.js';

/** The ids of these workloads, for KRILL_BENCH_WORKLOADS. */
export const TOOL_WORKLOADS = ['perf-tools', 'latency'] as const;
export type ToolWorkloadId = (typeof TOOL_WORKLOADS)[number];

const PERF_TOPIC = 'bench-perf-tools';
const LATENCY_TOPIC = 'bench-latency';
export const PERF_RECORDS = Math.max(1, Math.round(1_000_000 * SCALE));
export const PERF_SIZE = 100;
/** End-to-end latency: records sent at a fixed rate (after 2 s of uncounted warm-up at that rate). */
export const LATENCY_RATE = 1000;
export const LATENCY_RECORDS = Math.max(1000, Math.round(10_000 * SCALE));
const TOOL_FLAGS = ['-Xmx512M', ...KAFKA_PERFORMANCE_FLAGS];

export interface PerfToolsRun {
  produce: Outcome;
  fetch: Outcome;
}

export type LatencyRun = { ok: true; avg: number; p50: number; p99: number; p999: number } | { ok: false; error: string };

async function startSingle(kind: ServerKind, topics: string[]): Promise<Server> {
  if (kind === 'mock') return startMock(topics);
  if (kind === 'kafka') return startKafkaServer(1, false);
  return startKrill(kind === 'krill-memory');
}

async function py(args: string[], timeoutMs: number): Promise<Record<string, unknown>> {
  const { proc, timedOut } = await runToEnd(PYTHON, [PY_CLIENT, ...args], timeoutMs);
  if (timedOut) return { ok: false, error: `rdkafka_client.py ${args[0]} timed out` };
  try {
    return JSON.parse(proc.stdout().trim().split('\n').pop() ?? '') as Record<string, unknown>;
  } catch {
    return { ok: false, error: `rdkafka_client.py ${args[0]} ${describeExit(proc)}` };
  }
}

/** Starts a server of `kind`, makes `topic`, runs `body`, stops the server; a start failure is `fail`'s. */
async function withServer<T>(kind: ServerKind, topic: string, fail: (error: string) => T, body: (s: Server) => Promise<T>): Promise<T> {
  let server: Server;
  try {
    server = await startSingle(kind, [topic, WARMUP_TOPIC]);
  } catch (err) {
    return fail(`${kind} did not start: ${(err as Error).message}`);
  }
  try {
    const prep = await py(['prepare', server.bootstrap, topic], 60_000);
    if (!prep.ok) return fail(`topic setup: ${String(prep.error)}`);
    return await body(server);
  } finally {
    await server.stop();
  }
}

async function javaTool(mainClass: string, args: string[], timeoutMs: number): Promise<{ out: string } | { error: string }> {
  const [java, ...jvm] = kafkaJava(mainClass, TOOL_FLAGS);
  const { proc, timedOut } = await runToEnd(java, [...jvm, ...args], timeoutMs);
  const name = mainClass.split('.').pop();
  if (timedOut) return { error: `${name} timed out after ${timeoutMs / 1000} s` };
  if (proc.exitInfo?.code !== 0) return { error: `${name} ${describeExit(proc)} ${lastLines(proc.stdout(), 2)}` };
  return { out: proc.stdout() };
}

/** The mock's perf-tools cell; the report's details say why. */
export const MOCK_UNSUPPORTED = 'n/a (Java client unserved)';

/** kafka-producer-perf-test, then kafka-consumer-perf-test over what it produced. */
export async function runPerfTools(kind: ServerKind): Promise<PerfToolsRun> {
  const fail = (error: string): PerfToolsRun => ({ produce: { ok: false, error }, fetch: { ok: false, error } });
  const missing = kafkaMissing();
  if (missing) return fail(missing);
  // Measured: Kafka 4.4's Java producer never gets a Metadata answer it can use from the mock (it waits in
  // KafkaProducer.waitOnMetadata, max.block.ms per record), so the tools are not run against it.
  if (kind === 'mock') return fail(MOCK_UNSUPPORTED);
  return withServer(kind, PERF_TOPIC, fail, async (server) => {
    const timeoutMs = Math.max(120_000, PERF_RECORDS / 10); // >= 10,000 records/s
    const cpu0 = server.procs.map((p) => processCpuSeconds(p.child.pid));
    const prod = await javaTool(
      'org.apache.kafka.tools.ProducerPerformance',
      [
        '--bootstrap-server',
        server.bootstrap,
        '--topic',
        PERF_TOPIC,
        '--num-records',
        String(PERF_RECORDS),
        '--record-size',
        String(PERF_SIZE),
        '--throughput',
        '-1',
      ],
      timeoutMs,
    );
    const cpu1 = server.procs.map((p) => processCpuSeconds(p.child.pid));
    if ('error' in prod) return fail(prod.error);
    // "<n> records sent, <r> records/sec (<m> MB/sec), <a> ms avg latency, ..."
    const m = prod.out
      .match(/(\d+) records sent, ([\d.]+) records\/sec/g)
      ?.pop()
      ?.match(/(\d+) records sent, ([\d.]+) records\/sec/);
    if (!m || Number(m[1]) !== PERF_RECORDS) return fail(`ProducerPerformance: no summary for ${PERF_RECORDS} records in: ${lastLines(prod.out, 2)}`);
    const cpu = cpu0.every((x) => x !== null) && cpu1.every((x) => x !== null) ? cpu1.reduce((a, b, i) => a! + b! - cpu0[i]!, 0)! : undefined;
    const produce: Outcome = {
      ok: true,
      records: PERF_RECORDS,
      bytes: PERF_RECORDS * PERF_SIZE,
      seconds: PERF_RECORDS / Number(m[2]),
      serverCpuSeconds: cpu,
    };
    const cons = await javaTool(
      'org.apache.kafka.tools.ConsumerPerformance',
      ['--bootstrap-server', server.bootstrap, '--topic', PERF_TOPIC, '--num-records', String(PERF_RECORDS), '--timeout', '30000'],
      timeoutMs,
    );
    if ('error' in cons) return { produce, fetch: { ok: false, error: cons.error } };
    // A header line "start.time, end.time, ..., fetch.time.ms, ..." and one line of values under it.
    const lines = cons.out.split('\n').map((l) => l.split(',').map((c) => c.trim()));
    const at = lines.findIndex((l) => l.includes('data.consumed.in.nMsg'));
    const values = lines[at + 1];
    const field = (name: string) => Number(values?.[lines[at]?.indexOf(name) ?? -1]);
    const consumed = field('data.consumed.in.nMsg');
    const fetchMs = field('fetch.time.ms');
    if (at < 0 || !Number.isFinite(consumed) || !(fetchMs > 0))
      return { produce, fetch: { ok: false, error: `ConsumerPerformance: no summary in: ${lastLines(cons.out, 3)}` } };
    if (consumed !== PERF_RECORDS) return { produce, fetch: { ok: false, error: `count mismatch: consumed ${consumed} of ${PERF_RECORDS}`, mismatch: true } };
    return { produce, fetch: { ok: true, records: consumed, bytes: consumed * PERF_SIZE, seconds: fetchMs / 1000 } };
  });
}

/** End-to-end latency at LATENCY_RATE records/s (rdkafka_client.py latency). */
export async function runLatency(kind: ServerKind): Promise<LatencyRun> {
  const fail = (error: string): LatencyRun => ({ ok: false, error });
  return withServer(kind, LATENCY_TOPIC, fail, async (server) => {
    const timeoutMs = 60_000 + (LATENCY_RECORDS / LATENCY_RATE) * 2000;
    const r = await py(['latency', server.bootstrap, LATENCY_TOPIC, String(LATENCY_RECORDS), String(LATENCY_RATE), String(PERF_SIZE)], timeoutMs);
    if (!r.ok) return fail(String(r.error));
    return { ok: true, avg: Number(r.avg), p50: Number(r.p50), p99: Number(r.p99), p999: Number(r.p999) };
  });
}
