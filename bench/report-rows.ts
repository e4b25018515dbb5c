// The rows of the benchmark's table, from what main() measured: kcat throughput (with the server's CPU
// per GB under each produce row), Kafka's perf tools, end-to-end latency, start and memory. Each row holds
// one summary per server; report.ts adds the ratios and the verdicts.

import { TARGETS } from './settings.js';
import { SERVER_KINDS, type ServerKind, type StartSample } from './servers.js';
import type { Outcome, Workload } from './workloads.js';
import { LATENCY_RATE, LATENCY_RECORDS, MOCK_UNSUPPORTED, PERF_RECORDS, PERF_SIZE } from './tool-workloads.js';
import {
  fmtInt,
  fmtRate,
  isReplicated,
  median,
  summarizeThroughput,
  summarizeValues,
  workloadLabel,
  type Measurements,
  type Row,
  type Summary,
} from './report.js';

const ATLEAST_KAFKA: Row['target'] = {
  text: `≥ ${TARGETS.throughputRatio.toFixed(1)}× kafka`,
  ok: (k, kafka) => (kafka === undefined ? null : k >= kafka * TARGETS.throughputRatio),
};
const ATMOST_KAFKA: Row['target'] = { text: '≤ kafka', ok: (k, kafka) => (kafka === undefined ? null : k <= kafka) };
const ms = (v: number) => `${v.toFixed(v < 10 ? 2 : 1)} ms`;
const mb = (kb: number) => `${(kb / 1024).toFixed(1)} MB`;

/** A row's cells: `f(kind)` for each server that ran, its reason for each that did not. */
function perServer(m: Measurements, f: (kind: ServerKind) => Summary): Record<ServerKind, Summary> {
  return Object.fromEntries(SERVER_KINDS.map((k) => [k, m.unavailable[k] ? { cell: m.unavailable[k]!, bad: 'na' } : f(k)])) as Record<ServerKind, Summary>;
}

/** A row with a figure in the first column only (krill's, or the machine's). */
const krillOnly = (krill: Summary): Record<ServerKind, Summary> => ({ krill, 'krill-memory': { cell: '—' }, kafka: { cell: '—' }, mock: { cell: '—' } });

function addDetails(details: string[], row: Row): void {
  for (const k of SERVER_KINDS) if (row.cells[k].detail) details.push(`${row.label.trim()}, ${k}: ${row.cells[k].detail}`);
}

/** Server CPU seconds per 10^9 payload bytes, over the produce runs. */
function cpuPerGb(outcomes: Outcome[]): (number | undefined)[] {
  return outcomes.map((o) => (o.ok && o.serverCpuSeconds !== undefined ? o.serverCpuSeconds / (o.bytes / 1e9) : undefined));
}

/** A rate row judged against Kafka, and under a produce row the servers' CPU per GB. */
function rateRows(m: Measurements, details: string[], rows: Row[], label: string, produce: boolean, runs: (k: ServerKind) => Outcome[] | string): Row {
  const row: Row = { label, cells: perServer(m, (k) => summarizeThroughput(runs(k))), target: ATLEAST_KAFKA };
  rows.push(row);
  addDetails(details, row);
  if (produce) {
    rows.push({
      label: '  server CPU per GB produced',
      cells: perServer(m, (k) => {
        const r = runs(k);
        return summarizeValues(typeof r === 'string' ? r : null, typeof r === 'string' ? [] : cpuPerGb(r), (v) => `${v.toFixed(1)} s/GB`);
      }),
    });
  }
  return row;
}

function throughputRows(m: Measurements, details: string[], rows: Row[]): void {
  const { workloads, results, krillSkipped, probe } = m;
  const large = workloads.find((w) => w.id === 'large')!;
  const probeBytes = large.records * large.size;
  const outcomes = (kind: ServerKind, w: Workload, op: 'produce' | 'fetch') => results[kind][w.id].map((r) => r[op]);
  const skipped = (kind: ServerKind, w: Workload) => (kind === 'krill' || kind === 'krill-memory' ? krillSkipped[w.id] : undefined);
  for (const op of ['produce', 'fetch'] as const) {
    for (const w of workloads.filter((x) => m.selected(x.id))) {
      const label = `${op} ${workloadLabel(w)}`;
      const row = rateRows(m, details, rows, label, op === 'produce', (k) => skipped(k, w) ?? outcomes(k, w, op));
      const single = isReplicated(w)
        ? workloads.find(
            (x) => x.records === w.records && x.size === w.size && x.codec === w.codec && !x.idempotent && !x.transactional && !isReplicated(x) && !x.tls,
          )
        : undefined;
      if (single) {
        // What replication costs each server: its replicated rate against its own single-broker one.
        const one = perServer(m, (k) => summarizeThroughput(outcomes(k, single, op)));
        const cost = (k: ServerKind) => {
          const a = row.cells[k].value;
          const b = one[k].value;
          return a !== undefined && b !== undefined ? `${(a / b).toFixed(2)}×` : 'n/a';
        };
        details.push(`${label}: replicated ÷ single-broker rate, ${SERVER_KINDS.map((k) => `${k} ${cost(k)}`).join(', ')}`);
      }
      if (op === 'produce' && w.id === 'large' && probe.idle.length) {
        // Records/s of a "broker" that did nothing but write the payload to a file: how much of the
        // produce rate the machine's page cache leaves.
        const idleSeconds = median(probe.idle) / 1000;
        const cell: Summary = {
          cell: `${fmtRate(large.records / idleSeconds)} rec/s  ${(probeBytes / 1e6 / idleSeconds).toFixed(1)} MB/s`,
          value: large.records / idleSeconds,
        };
        // Its ratios compare it with Kafka's and the mock's whole produce: how much of their rate the page
        // cache alone leaves (their cells stay empty, their figures are in the row above).
        const against = (k: ServerKind): Summary => ({ cell: '—', value: row.cells[k].value });
        rows.push({
          label: `  page-cache write alone, ${fmtInt(probeBytes / 1e6)} MB`,
          cells: { ...krillOnly(cell), kafka: against('kafka'), mock: against('mock') },
        });
        details.push(
          `page-cache write of the large workload's payload (1 MB write() calls to a new file, no broker): ` +
            `after 5 s idle ${probe.idle.map((x) => x.toFixed(0)).join(', ')} ms; ` +
            `at once after freeing the same amount ${probe.reused.map((x) => x.toFixed(0)).join(', ')} ms`,
        );
      }
    }
  }
}

function toolRows(m: Measurements, details: string[], rows: Row[]): void {
  if (m.selected('perf-tools')) {
    for (const op of ['produce', 'fetch'] as const) {
      const tool = op === 'produce' ? 'kafka-producer-perf-test' : 'kafka-consumer-perf-test';
      rateRows(
        m,
        details,
        rows,
        `${tool}, ${fmtInt(PERF_RECORDS)} × ${PERF_SIZE} B`,
        op === 'produce',
        (k) => m.toolProblem ?? m.perfTools[k].map((r) => r[op]),
      );
    }
    details.push(
      `perf tools: the tools' defaults (Kafka 4.4: acks=all, linger.ms=5, batch.size=16384), --throughput -1; mock ${MOCK_UNSUPPORTED}: ` +
        "Kafka 4.4's Java producer never gets Metadata it can use from the mock (it waits in KafkaProducer.waitOnMetadata)",
    );
  }
  if (m.selected('latency')) {
    const metrics = [
      ['avg', 'avg'],
      ['p50', 'p50'],
      ['p99', 'p99'],
      ['p99.9', 'p999'],
    ] as const;
    for (const [name, key] of metrics) {
      const row: Row = {
        label: `latency end to end ${name}, ${fmtInt(LATENCY_RATE)} rec/s × ${PERF_SIZE} B`,
        cells: perServer(m, (k) => {
          const runs = m.latency[k];
          const failed = runs.find((r): r is Extract<typeof r, { ok: false }> => !r.ok);
          if (failed) return { cell: 'ERROR', bad: 'error', detail: failed.error };
          return summarizeValues(
            null,
            runs.map((r) => (r.ok ? r[key] : undefined)),
            ms,
          );
        }),
        target: ATMOST_KAFKA,
      };
      rows.push(row);
      addDetails(details, row);
    }
    details.push(
      `latency: rdkafka_client.py latency, ${fmtInt(LATENCY_RECORDS)} records at a fixed ${LATENCY_RATE} rec/s after 2 s uncounted, ` +
        'producer linger.ms=0 acks=all max.in.flight.requests.per.connection=5, consumer (fetch.wait.max.ms=100) in the same process; send -> arrival on one clock. ' +
        'The mock answers a Fetch at the end of the log only when fetch.wait.max.ms has passed, new records or not, ' +
        'hence its ~50 ms average',
    );
  }
}

function startRows(m: Measurements, details: string[], rows: Row[]): void {
  const starts: Record<ServerKind, StartSample[]> = { krill: m.krillStarts, 'krill-memory': [], kafka: m.kafkaStarts, mock: m.mockStarts };
  const none: Summary = { cell: '—' };
  const startCells = (f: (s: StartSample) => number | null, show: (v: number) => string) =>
    // krill's start is its CLI's, one column: --storage memory starts the same code.
    ({ ...perServer(m, (k) => summarizeValues(null, starts[k].map(f), show)), 'krill-memory': none });
  const start: Row = {
    label: 'start: spawn → first Metadata answer',
    cells: startCells((s) => s.startMs, ms),
    target: {
      text: `≤ kafka/20, < ${TARGETS.startMs} ms`,
      ok: (k, kafka) => k < TARGETS.startMs && (kafka === undefined || k <= kafka / 20),
    },
  };
  rows.push(start);
  addDetails(details, start);
  const readies = m.krillStarts.map((s) => s.readyLineMs).filter((x): x is number => x !== null);
  if (readies.length) details.push(`start, krill: ready line printed after ${median(readies).toFixed(1)} ms (median)`);
  if (m.nodeStartMs !== null) {
    details.push(
      `start, node itself: \`node -e 0\` takes ${m.nodeStartMs.toFixed(1)} ms (median) in this environment` +
        (process.env.NODE_EXTRA_CA_CERTS ? '; NODE_EXTRA_CA_CERTS is set, which makes node load extra CA certificates at start' : ''),
    );
  }
  if (m.kafkaStarts.length) details.push("start, kafka: its log dir formatted with kafka-storage's StorageTool beforehand, not timed");
  if (m.plainStarts.length) {
    const plain = summarizeValues(
      null,
      m.plainStarts.map((s) => s.startMs),
      ms,
    );
    const row: Row = { label: '  the same, NODE_EXTRA_CA_CERTS unset', cells: krillOnly(plain), target: start.target };
    rows.push(row);
    details.push(
      `start without NODE_EXTRA_CA_CERTS, krill: ${plain.detail ?? plain.cell}; \`node -e 0\` without it takes ${m.nodeStartWithoutCertsMs!.toFixed(1)} ms`,
    );
  }

  let emb: Summary = { cell: m.unavailable.krill ?? 'n/a (krill not built)', bad: 'na' };
  if (m.embedded && 'runs' in m.embedded) {
    emb = summarizeValues(null, m.embedded.runs, ms);
    details.push(`embedded, krill: importing dist/krill.mjs (the package entry) took ${m.embedded.importMs.toFixed(1)} ms (once, not included)`);
  } else if (m.embedded) emb = { cell: 'ERROR', bad: 'error', detail: m.embedded.error };
  const embedded: Row = {
    label: 'embedded: await startBroker({ port: 0 })',
    cells: krillOnly(emb),
    target: { text: `< ${TARGETS.embeddedMs} ms`, ok: (k) => k < TARGETS.embeddedMs },
  };
  rows.push(embedded);
  addDetails(details, embedded);

  const idle: Row = {
    label: 'idle RSS (1 s after ready)',
    cells: startCells((s) => s.rssKb, mb),
    target: { text: `≤ kafka/5, < ${TARGETS.idleRssMB} MB`, ok: (k, kafka) => k < TARGETS.idleRssMB * 1024 && (kafka === undefined || k <= kafka / 5) },
  };
  rows.push(idle);
  addDetails(details, idle);

  const small = m.workloads.find((w) => w.id === 'small');
  if (small && m.selected('small')) {
    const after: Row = {
      label: `RSS after producing ${fmtInt(small.records)} × ${small.size} B`,
      cells: perServer(m, (k) =>
        summarizeValues(
          null,
          m.results[k].small.map((r) => (r.produce.ok ? r.produce.serverRssKb : undefined)),
          mb,
        ),
      ),
    };
    rows.push(after);
    addDetails(details, after);
  }
}

/** The rows in the table's order, and the details: the measuring's notes (m.details0), then the rows'. */
export function buildRows(m: Measurements): { rows: Row[]; details: string[] } {
  const rows: Row[] = [];
  const details = [...m.details0];
  throughputRows(m, details, rows);
  toolRows(m, details, rows);
  startRows(m, details, rows);
  return { rows, details };
}
