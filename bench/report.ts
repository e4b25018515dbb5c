// The benchmark's statistics and its table: medians, a cell from a workload's runs, the aligned table
// with every figure's ratio to Kafka and to the mock, and the whole report main() prints around the rows
// report-rows.ts builds.

import os from 'node:os';
import { HOST, KCAT_PRODUCER_SETTINGS, REPEAT, SCALE, START_RUNS } from './settings.js';
import type { ServerKind, StartSample } from './servers.js';
import type { Outcome, Workload, WorkloadRun } from './workloads.js';
import type { LatencyRun, PerfToolsRun } from './tool-workloads.js';

export const fmtInt = (n: number) => Math.round(n).toLocaleString('en-US');
const sizeLabel = (size: number) => (size >= 1024 ? `${size / 1024} KB` : `${size} B`);
export const isReplicated = (w: Workload) => (w.brokers ?? 1) > 1;
export const workloadLabel = (w: Workload) =>
  `${fmtInt(w.records)} × ${sizeLabel(w.size)}${w.codec === 'none' ? '' : `, ${w.codec}`}${w.idempotent ? ', idempotent' : ''}` +
  `${w.transactional ? ', one transaction' : ''}${w.tls ? ', over TLS' : ''}${isReplicated(w) ? `, ${w.brokers} brokers RF ${w.brokers}` : ''}`;

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export interface Summary {
  cell: string;
  value?: number; // records/s (throughput), or the row's figure (ms, MB, s/GB)
  bad?: 'error' | 'mismatch' | 'na';
  detail?: string;
}

export function summarizeThroughput(outcomes: Outcome[] | string): Summary {
  if (typeof outcomes === 'string') return { cell: outcomes, bad: 'na' };
  if (outcomes.length === 0) return { cell: 'n/a', bad: 'na' };
  const failed = outcomes.find((o): o is Extract<Outcome, { ok: false }> => !o.ok);
  if (failed?.error.startsWith('n/a (')) return { cell: failed.error, bad: 'na' };
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
  // Per broker: the run at the median total (the lower middle one of an even count), so the shares add up to it.
  const byBroker = ok.filter((o) => o.brokerCpuSeconds !== undefined).sort((a, b) => a.serverCpuSeconds! - b.serverCpuSeconds!);
  const mid = byBroker[(byBroker.length - 1) >> 1]?.brokerCpuSeconds;
  if (cpu.length)
    notes.push(
      `server CPU ${median(cpu).toFixed(2)} s per run${mid ? ` (brokers ${mid.map((_, i) => i + 1).join(' / ')}: ${mid.map((x) => x.toFixed(2)).join(' / ')})` : ''}`,
    );
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
  return { cell: `${fmtRate(rate)} rec/s  ${mb.toFixed(1)} MB/s`, value: rate, detail: notes.join('; ') };
}

/** The median of `values` (none: n/a), shown by `show`; `why` (a server's 'n/a (...)') wins. */
export function summarizeValues(why: string | null | undefined, values: (number | undefined | null)[], show: (v: number) => string): Summary {
  if (why) return { cell: why, bad: 'na' };
  const ok = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  if (ok.length === 0) return { cell: 'n/a', bad: 'na' };
  const value = median(ok);
  return { cell: show(value), value, detail: ok.length > 1 ? `runs ${ok.map(show).join(', ')}` : undefined };
}

export function fmtRate(r: number): string {
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

/** One line of the table: a figure per server, and how krill's is judged (absent: a reference, 'ref'). */
export interface Row {
  label: string;
  cells: Record<ServerKind, Summary>;
  target?: { text: string; ok: (krill: number, kafka: number | undefined) => boolean | null };
}

const ratioCell = (a: Summary, b: Summary) => (a.value !== undefined && b.value !== undefined && b.value > 0 ? `${(a.value / b.value).toFixed(2)}×` : '—');

function verdict(row: Row, kind: 'krill' | 'krill-memory'): string {
  const c = row.cells;
  if (Object.values(c).some((s) => s.bad === 'mismatch')) return 'MISMATCH';
  if (!row.target) return 'ref';
  const v = c[kind].value;
  const ok = v === undefined ? null : row.target.ok(v, c.kafka.value);
  return ok === null ? '—' : ok ? 'ok' : 'MISS';
}

function tableLine(row: Row): string[] {
  const c = row.cells;
  return [
    row.label,
    c.krill.cell,
    c['krill-memory'].cell,
    c.kafka.cell,
    c.mock.cell,
    ratioCell(c.krill, c.kafka),
    ratioCell(c.krill, c.mock),
    ratioCell(c['krill-memory'], c.kafka),
    ratioCell(c['krill-memory'], c.mock),
    row.target?.text ?? 'ref',
    verdict(row, 'krill'),
    verdict(row, 'krill-memory'),
  ];
}

/** Everything one benchmark run measured, as main() gathered it. */
export interface Measurements {
  began: number;
  /** The 1-minute load average at the start. */
  load: number;
  tools: { kcat: string | null; python: string | null; problems: string[] };
  workloads: Workload[];
  /** The throughput workloads and tool workloads (perf-tools, latency) this run measured, by id. */
  selected: (id: string) => boolean;
  results: Record<ServerKind, Record<string, WorkloadRun[]>>;
  perfTools: Record<ServerKind, PerfToolsRun[]>;
  /** Why Kafka's perf tools could not run at all ('n/a (client missing)'), or null. */
  toolProblem: string | null;
  latency: Record<ServerKind, LatencyRun[]>;
  /** Why a server's column has no figures ('n/a (...)'), or null. */
  unavailable: Record<ServerKind, string | null>;
  /** Workloads whose krill columns were not measured, by id: why ('n/a (...)'). */
  krillSkipped: Record<string, string>;
  krillFailure: string | null;
  kafkaFailure: string | null;
  mockBuildError: string | null;
  /** Details noted while measuring, listed first. */
  details0: string[];
  /** Page-cache write times of the large workload's payload, ms: after 5 s idle, and at once. */
  probe: { idle: number[]; reused: number[] };
  krillStarts: StartSample[];
  plainStarts: StartSample[];
  kafkaStarts: StartSample[];
  mockStarts: StartSample[];
  embedded: { runs: number[]; importMs: number } | { error: string } | null;
  /** `node -e 0` medians, taken when krill's starts were measured (and again without NODE_EXTRA_CA_CERTS). */
  nodeStartMs: number | null;
  nodeStartWithoutCertsMs: number | null;
}

/** The printed report: the table of `rows`, its notes and the details (`details` first). */
export function renderReport(m: Measurements, rows: Row[], details: string[]): string {
  const { began, load, tools, workloads, krillFailure, kafkaFailure, mockBuildError, probe } = m;
  const headers = [
    'benchmark',
    'krill',
    'krill memory',
    'kafka',
    'mock',
    'krill/kafka',
    'krill/mock',
    'memory/kafka',
    'memory/mock',
    'target',
    'result',
    'memory',
  ];
  const right = [false, true, true, true, true, true, true, true, true, false, false, false];
  if (krillFailure) details.push(`krill failed to start: ${krillFailure}`);
  if (kafkaFailure) details.push(`Kafka failed to start: ${kafkaFailure}`);
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
  out.push(`clients: produce kcat ${tools.kcat ?? 'n/a'} (-P -l file, ${KCAT_PRODUCER_SETTINGS.join(' ')}); ` + `fetch ${tools.python ?? 'n/a'}`);
  out.push(
    `scale ${SCALE} (KRILL_BENCH_SCALE), throughput = median of ${REPEAT} runs (KRILL_BENCH_REPEAT), ` +
      `start = median of ${START_RUNS} runs; 1 partition, fresh server per run, all on ${HOST}`,
  );
  out.push(
    "kafka: Apache Kafka 4.4 in KRaft mode (each node broker + controller), -Xmx1G -Xms1G and kafka-run-class.sh's " +
      'G1 flags, its defaults otherwise (see bench/kafka.ts)',
  );
  if (workloads.some(isReplicated)) {
    out.push(
      'replicated rows: krill brokers as separate processes joined through a fresh ZooKeeper per run, Kafka as ' +
        'three KRaft nodes (three voters), the topic with replication factor = brokers and min.insync.replicas 2; ' +
        'the mock with as many brokers',
    );
  }
  out.push('');
  out.push(renderTable(headers, rows.map(tableLine), right));
  out.push('');
  out.push('MB/s = 10^6 payload bytes per second; RSS MB = 2^20 bytes; s/GB = server CPU seconds per 10^9 payload bytes.');
  out.push(
    "Ratios divide krill's figure by Kafka's or the mock's, whatever the unit: above 1 is better for rates, below 1 " +
      'for times, memory and CPU. Targets are against Kafka (issue 27): rates at least its, latency at most its, ' +
      'start at most 1/20 of it, idle RSS at most 1/5 of it.',
  );
  out.push(
    'The mock keeps only the last ~5 MB of a partition, so kcat fetch rows read every server in passes of the same ' +
      'number of records (~4.5 MB each), re-reading what the mock keeps (see bench/rdkafka_client.py).',
  );
  if (workloads.some(isReplicated)) {
    out.push(
      'Against the mock, replicated rows compare with nothing real: its replicas are bookkeeping only (one log per ' +
        "partition, acks=all waits for nobody). Server CPU there is all brokers' together (ZooKeeper not counted).",
    );
  }
  out.push('TLS rows: krill and Kafka on an SSL listener; the mock has no TLS and runs them in PLAINTEXT.');
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
  return out.join('\n') + '\n';
}
