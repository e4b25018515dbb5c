// Runs the Go compat driver (compat/go/bin/krill-go-compat, built by compat/go/install.sh from main.go,
// franz.go, kadm.go and sarama.go with the versions go.mod pins) and parses its one JSON line. KRILL_GO_DEBUG=1
// in the environment makes franz-go and Sarama log to the driver's stderr.
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { builtBy } from '../toolchain.js';
import { describeRun, runDriver } from '../util.js';
import type { Json } from '../util.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const DRIVER = path.join(HERE, 'bin', 'krill-go-compat');

/** For describeWithToolchain: null when the driver is built. */
export const goMissing = builtBy('compat/go/install.sh', DRIVER);

function parseLast(stdout: string): Json {
  const line = stdout.trim().split('\n').pop() ?? '';
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

/** Runs one scenario with `input` on stdin; rejects with the driver's output when it fails. */
export function go<T = Json>(scenario: string, input: object, timeoutMs = 110_000): Promise<T> {
  return runDriver<T>(`krill-go-compat ${scenario}`, DRIVER, [scenario], input, { timeoutMs });
}

/**
 * Runs a scenario that prints {"progress": ...} lines before its result, calling `onProgress` for each as it
 * arrives (the test steers the run from there, e.g. kills a broker); resolves with the final line.
 */
export function goSteered<T = Json>(scenario: string, input: object, onProgress: (p: Json) => Promise<void>, timeoutMs = 110_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(DRIVER, [scenario], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let pending = '';
    const steps: Promise<void>[] = [];
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString('utf8');
      pending += d.toString('utf8');
      for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        const msg = parseLast(line);
        if (msg?.progress !== undefined) steps.push(onProgress(msg));
      }
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.on('close', async (code, signal) => {
      clearTimeout(timer);
      try {
        await Promise.all(steps);
      } catch (err) {
        reject(err);
        return;
      }
      const parsed = parseLast(stdout);
      if (code !== 0 || parsed === undefined || parsed.exception || parsed.progress !== undefined) {
        const r = { code, signal, stdout, stderr, timedOut: signal === 'SIGKILL' };
        reject(new Error(`krill-go-compat ${scenario} failed: ${parsed?.exception ?? ''}\n${describeRun(r)}`));
      } else {
        resolve(parsed as T);
      }
    });
    child.stdin.end(JSON.stringify(input));
  });
}

export interface GoRecord {
  topic?: string;
  partition?: number;
  offset?: number;
  key: string | null;
  value: string | null;
  headers: { key: string; value: string | null }[];
  timestamp: number;
}

export interface Acked {
  partition: number;
  offset: number;
}

let seq = 0;
/** A name unique to this test process. */
export const unique = (label: string): string => `go-${label}-${process.pid}-${++seq}`;

/** Sample records: keys (some null), values (some null, some empty), headers (a null value, duplicates) and explicit timestamps. */
export function sampleRecords(n: number, tag: string): GoRecord[] {
  return Array.from({ length: n }, (_, i) => ({
    key: i % 7 === 3 ? null : `key-${i % 5}`,
    value: i % 9 === 4 ? null : i % 9 === 7 ? '' : `${tag}-value-${i}-${'lorem ipsum '.repeat(6)}`,
    headers:
      i % 4 === 0
        ? []
        : [
            { key: 'trace', value: `t${i}` },
            { key: 'dup', value: 'a' },
            { key: 'dup', value: 'b' },
            { key: 'none', value: null },
          ],
    timestamp: 1_650_000_000_000 + i * 1000,
  }));
}

const phaseValues = (perPhase: number, phases: string[]): string[] =>
  phases.flatMap((ph) => Array.from({ length: perPhase }, (_, i) => `${ph}-${String(i).padStart(3, '0')}`)).sort();

/**
 * franz_group on topics of replication factor `rf`, asserted: a alone owns all four partitions; b joins and
 * the cooperative-sticky rebalance revokes from a only what moves to b; b leaves and a gets those back;
 * every record of the three phases consumed exactly once; the committed offsets are the end offsets.
 */
export async function franzGroupRun(bootstrap: string, rf: number): Promise<void> {
  const perPhase = 60;
  const res = await go('franz_group', { bootstrap, topic: unique('franz-group'), group: unique('franz-g'), partitions: 4, rf, perPhase });
  expect(res.phase1).toEqual({ a: [0, 1, 2, 3] });
  expect(res.phase2.a).toHaveLength(2);
  expect([...res.phase2.a, ...res.phase2.b].sort()).toEqual([0, 1, 2, 3]);
  expect(res.phase3).toEqual({ a: [0, 1, 2, 3] });
  const moved = res.phase2.b.join(' ');
  expect(res.a.events.slice(0, 3)).toEqual(['assigned [0 1 2 3]', `revoked [${moved}]`, `assigned [${moved}]`]);
  expect(res.a.errors).toBeNull();
  expect(res.b.errors).toBeNull();
  expect([...res.a.values, ...res.b.values].sort()).toEqual(phaseValues(perPhase, ['p1', 'p2', 'p3']));
  // Phase 2 was split between the two members; b consumed nothing else.
  expect(res.b.values.length).toBeGreaterThan(0);
  expect(res.b.values.every((v: string) => v.startsWith('p2-'))).toBe(true);
  // Committed offsets (OffsetFetch through kadm) are the end offsets.
  expect(res.committed).toEqual(res.ends);
  expect(Object.values(res.ends as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(3 * perPhase);
}

/**
 * franz_txn on topics of replication factor `rf`, asserted: read_committed sees each input once in the
 * output and nothing of the aborted transaction; read_uncommitted sees the aborted attempt too; the
 * offsets committed in the transactions are the input's end offsets.
 */
export async function franzTxnRun(bootstrap: string, rf: number): Promise<void> {
  const count = 50;
  const res = await go('franz_txn', {
    bootstrap,
    input: unique('franz-txn-in'),
    output: unique('franz-txn-out'),
    group: unique('franz-txn-g'),
    txnId: unique('franz-txn'),
    partitions: 2,
    rf,
    count,
  });
  const inputs = Array.from({ length: count }, (_, i) => `out-in-${String(i).padStart(3, '0')}`);
  expect(res.aborted).toBeGreaterThan(0);
  expect(res.commits).toBeGreaterThan(0);
  expect(res.readCommitted).toEqual(inputs.map((v) => `${v}/committed`));
  const uncommitted: string[] = res.readUncommitted;
  expect(uncommitted.filter((v) => v.endsWith('/aborted'))).toHaveLength(res.aborted);
  expect(uncommitted.filter((v) => v.endsWith('/committed'))).toEqual(res.readCommitted);
  expect(res.committed).toEqual(res.inputEnds);
}

/**
 * sarama_group (config.Version `version`) on topics of replication factor `rf`, asserted: a alone owns all
 * four partitions, b joins and takes two, b leaves and a owns all four again; every record once; the
 * committed offsets add up to everything produced.
 */
export async function saramaGroupRun(bootstrap: string, version: string, rf: number): Promise<void> {
  const perPhase = 40;
  const res = await go('sarama_group', { bootstrap, version, topic: unique('sarama-g'), group: unique('sarama-grp'), partitions: 4, rf, perPhase });
  expect(res.phase1).toEqual({ a: [0, 1, 2, 3] });
  expect(res.phase2.a).toHaveLength(2);
  expect([...res.phase2.a, ...res.phase2.b].sort()).toEqual([0, 1, 2, 3]);
  expect(res.phase3).toEqual({ a: [0, 1, 2, 3] });
  expect(res.a.errors).toBeNull();
  expect(res.b.errors).toBeNull();
  expect([...res.a.values, ...res.b.values].sort()).toEqual(phaseValues(perPhase, ['p1', 'p2', 'p3']));
  expect(res.b.values.length).toBeGreaterThan(0);
  const committed = Object.values(res.committed as Record<string, number>);
  expect(committed).toHaveLength(4);
  expect(committed.reduce((a, b) => a + b, 0)).toBe(3 * perPhase);
}

export interface SweepResult {
  key: number;
  name: string;
  version: number;
  outcome: string;
  errorCode: number;
}

/** kmsg_sweep's report: every advertised API known to kmsg, and every version of each answered "ok". */
export function expectSweepClean(res: { results: SweepResult[]; unknownToKmsg: number[] }): void {
  expect(res.unknownToKmsg).toEqual([]);
  expect(res.results.length).toBeGreaterThan(100);
  expect(res.results.filter((r) => r.outcome !== 'ok')).toEqual([]);
  // The APIs every client here relies on are among them.
  const names = new Set(res.results.map((r) => r.name));
  for (const name of [
    'Produce',
    'Fetch',
    'ListOffsets',
    'Metadata',
    'OffsetCommit',
    'OffsetFetch',
    'FindCoordinator',
    'JoinGroup',
    'InitProducerID',
    'ApiVersions',
  ])
    expect(names, name).toContain(name);
  // kmsg's defaults leave the group id empty: Kafka's group coordinator answers INVALID_GROUP_ID to each of
  // these before looking for the group.
  const groupCalls = res.results.filter((r) => ['JoinGroup', 'SyncGroup', 'Heartbeat', 'LeaveGroup'].includes(r.name));
  expect(groupCalls.length).toBeGreaterThan(0);
  expect(groupCalls.filter((r) => r.errorCode !== INVALID_GROUP_ID).map((r) => `${r.name} v${r.version}: ${r.errorCode}`)).toEqual([]);
}

const INVALID_GROUP_ID = 24;
