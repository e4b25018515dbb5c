// The benchmark's statistics and its table: medians, a throughput cell from a workload's runs, the
// aligned table, and the whole report main() prints.

import os from 'node:os';
import { HOST, KCAT_PRODUCER_SETTINGS, REPEAT, SCALE, START_RUNS, TARGETS } from './settings.js';
import type { ServerKind, StartSample } from './servers.js';
import type { Outcome, Workload, WorkloadRun } from './workloads.js';

export const fmtInt = (n: number) => Math.round(n).toLocaleString('en-US');
const sizeLabel = (size: number) => (size >= 1024 ? `${size / 1024} KB` : `${size} B`);
const isReplicated = (w: Workload) => (w.brokers ?? 1) > 1;
export const workloadLabel = (w: Workload) =>
  `${fmtInt(w.records)} × ${sizeLabel(w.size)}${w.codec === 'none' ? '' : `, ${w.codec}`}${w.idempotent ? ', idempotent' : ''}` +
  `${w.transactional ? ', one transaction' : ''}${w.tls ? ', over TLS (krill)' : ''}${isReplicated(w) ? `, ${w.brokers} brokers RF ${w.brokers}` : ''}`;

export function median(xs: number[]): number {
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

export function summarizeThroughput(outcomes: Outcome[] | string): Summary {
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
  return { cell: `${fmtRate(rate)} rec/s  ${mb.toFixed(1)} MB/s`, rate, detail: notes.join('; ') };
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

function verdict(ok: boolean | null): string {
  return ok === null ? '—' : ok ? 'ok' : 'MISS';
}

/** Everything one benchmark run measured, as main() gathered it. */
export interface Measurements {
  began: number;
  /** The 1-minute load average at the start. */
  load: number;
  tools: { kcat: string | null; python: string | null; problems: string[] };
  workloads: Workload[];
  results: Record<ServerKind, Record<string, WorkloadRun[]>>;
  /** Why a column has no figures ('n/a (...)'), or null. */
  krillProblem: string | null;
  clientProblem: string | null;
  mockProblem: string | null;
  /** Workloads whose krill column was not measured, by id: why ('n/a (...)'). */
  krillSkipped: Record<string, string>;
  krillFailure: string | null;
  mockBuildError: string | null;
  /** Details noted while measuring, listed first. */
  details0: string[];
  /** Page-cache write times of the large workload's payload, ms: after 5 s idle, and at once. */
  probe: { idle: number[]; reused: number[] };
  krillStarts: StartSample[];
  plainStarts: StartSample[];
  mockStarts: StartSample[];
  embedded: { runs: number[]; importMs: number } | { error: string } | null;
  /** `node -e 0` medians, taken when krill's starts were measured (and again without NODE_EXTRA_CA_CERTS). */
  nodeStartMs: number | null;
  nodeStartWithoutCertsMs: number | null;
}

/** The printed report: the table, its notes and the details. */
export function renderReport(m: Measurements): string {
  const {
    began,
    load,
    tools,
    workloads,
    results,
    krillProblem,
    clientProblem,
    mockProblem,
    krillSkipped,
    krillFailure,
    mockBuildError,
    details0,
    probe,
    krillStarts,
    plainStarts,
    mockStarts,
    embedded,
  } = m;
  const large = workloads.find((w) => w.id === 'large')!;
  const probeBytes = large.records * large.size;
  const headers = ['benchmark', 'krill', 'krill memory', 'mock', 'krill/mock', 'memory/mock', 'target', 'result', 'memory'];
  const right = [false, true, true, true, true, true, false, false, false];
  const rows: string[][] = [];
  const details: string[] = [...details0];

  const summaries = (op: 'produce' | 'fetch', w: Workload) => ({
    k: summarizeThroughput(krillProblem ?? clientProblem ?? krillSkipped[w.id] ?? results.krill[w.id].map((r) => r[op])),
    km: summarizeThroughput(krillProblem ?? clientProblem ?? krillSkipped[w.id] ?? results['krill-memory'][w.id].map((r) => r[op])),
    m: summarizeThroughput(mockProblem ?? clientProblem ?? results.mock[w.id].map((r) => r[op])),
  });
  for (const op of ['produce', 'fetch'] as const) {
    for (const w of workloads) {
      const label = `${op} ${workloadLabel(w)}`;
      const { k, km, m } = summaries(op, w);
      const ratio = k.rate !== undefined && m.rate !== undefined ? k.rate / m.rate : null;
      const memoryRatio = km.rate !== undefined && m.rate !== undefined ? km.rate / m.rate : null;
      // The mock's replicas copy nothing, so against it a replicated row is a reference, not a target.
      // Nor is a TLS row: the mock speaks PLAINTEXT only, so its figure there is its PLAINTEXT one.
      const judged = !isReplicated(w) && !w.tls;
      const judge = (a: Summary, r: number | null) =>
        a.bad === 'mismatch' || m.bad === 'mismatch' ? 'MISMATCH' : judged ? verdict(r === null ? null : r >= TARGETS.throughputRatio) : 'ref';
      rows.push([
        label,
        k.cell,
        km.cell,
        m.cell,
        ratio === null ? '—' : `${ratio.toFixed(2)}×`,
        memoryRatio === null ? '—' : `${memoryRatio.toFixed(2)}×`,
        judged ? `≥ ${TARGETS.throughputRatio.toFixed(1)}×` : 'ref',
        judge(k, ratio),
        judge(km, memoryRatio),
      ]);
      const single = isReplicated(w)
        ? workloads.find((x) => x.records === w.records && x.size === w.size && x.codec === w.codec && !x.idempotent && !x.transactional && !isReplicated(x))
        : undefined;
      if (single) {
        // What replication costs each server: its replicated rate against its own single-broker one.
        const one = summaries(op, single);
        const cost = (a: Summary, b: Summary) => (a.rate !== undefined && b.rate !== undefined ? `${(a.rate / b.rate).toFixed(2)}×` : 'n/a');
        details.push(`${label}: replicated ÷ single-broker rate, krill ${cost(k, one.k)}, krill memory ${cost(km, one.km)}, mock ${cost(m, one.m)}`);
      }
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
      if (km.detail) details.push(`${label}, krill memory: ${km.detail}`);
      if (m.detail) details.push(`${label}, mock: ${m.detail}`);
    }
  }

  const okStarts = krillStarts.length > 0 && !krillProblem;
  const startMed = okStarts ? median(krillStarts.map((s) => s.startMs)) : null;
  const mockStartMed = mockStarts.length ? median(mockStarts.map((s) => s.startMs)) : null;
  rows.push([
    'start: spawn → first Metadata answer',
    startMed === null ? (krillProblem ?? 'n/a') : `${startMed.toFixed(1)} ms`,
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
      `start, node itself: \`node -e 0\` takes ${m.nodeStartMs!.toFixed(1)} ms (median) in this environment` +
        (process.env.NODE_EXTRA_CA_CERTS ? '; NODE_EXTRA_CA_CERTS is set, which makes node load extra CA certificates at start' : ''),
    );
  }
  if (plainStarts.length) {
    const plainMed = median(plainStarts.map((s) => s.startMs));
    rows.push(['  the same, NODE_EXTRA_CA_CERTS unset', `${plainMed.toFixed(1)} ms`, '—', '—', `< ${TARGETS.startMs} ms`, verdict(plainMed < TARGETS.startMs)]);
    details.push(
      `start without NODE_EXTRA_CA_CERTS, krill: runs ${plainStarts.map((s) => s.startMs.toFixed(1)).join(', ')} ms; ` +
        `\`node -e 0\` without it takes ${m.nodeStartWithoutCertsMs!.toFixed(1)} ms (median)`,
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
  rows.push([
    'embedded: await startBroker({ port: 0 })',
    embCell,
    '—',
    '—',
    `< ${TARGETS.embeddedMs} ms`,
    verdict(embMed === null ? null : embMed < TARGETS.embeddedMs),
  ]);

  const rssList = krillStarts.map((s) => s.rssKb).filter((x): x is number => x !== null);
  const rssMed = okStarts && rssList.length ? median(rssList) / 1024 : null;
  const mockRss = mockStarts.map((s) => s.rssKb).filter((x): x is number => x !== null);
  rows.push([
    'idle RSS (1 s after ready)',
    rssMed === null ? (krillProblem ?? 'n/a') : `${rssMed.toFixed(1)} MB`,
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
  out.push(`clients: produce kcat ${tools.kcat ?? 'n/a'} (-P -l file, ${KCAT_PRODUCER_SETTINGS.join(' ')}); ` + `fetch ${tools.python ?? 'n/a'}`);
  out.push(
    `scale ${SCALE} (KRILL_BENCH_SCALE), throughput = median of ${REPEAT} runs (KRILL_BENCH_REPEAT), ` +
      `start = median of ${START_RUNS} runs; 1 partition, fresh server per run, all on ${HOST}`,
  );
  if (workloads.some(isReplicated)) {
    out.push(
      'replicated rows: krill brokers as separate processes joined through a fresh ZooKeeper per run, the topic ' +
        'with replication factor = brokers and min.insync.replicas 2; the mock with as many brokers',
    );
  }
  out.push('');
  // Rows of krill alone (start, memory) and of the page cache have no memory-storage cells.
  const cells = rows.map((r) => (r.length === 6 ? [r[0], r[1], '—', r[2], r[3], '—', r[4], r[5], '—'] : r));
  out.push(renderTable(headers, cells, right));
  out.push('');
  out.push('MB/s = 10^6 payload bytes per second; RSS MB = 2^20 bytes. Ratios compare records/s (= MB/s ratio).');
  out.push(
    'The mock keeps only the last ~5 MB of a partition, so fetch rows read both servers in passes of the same ' +
      'number of records (~4.5 MB each), re-reading what the mock keeps (see bench/rdkafka_client.py).',
  );
  if (workloads.some(isReplicated)) {
    out.push(
      "Replicated rows are a reference (ref), not judged: the mock's replicas are bookkeeping only (one log per " +
        'partition, acks=all waits for nobody), while krill copies every batch to the followers before acks=all ' +
        "answers. Server CPU there is all krill brokers' together (ZooKeeper not counted).",
    );
  }
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
