// Shared helpers for the compatibility suites: run a real client as a child process with a hard
// timeout, and keep track of spawned brokers so every test can tear them down.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { spawnCli, tempDir, type CliBroker } from '../test/helpers.js';

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** Runs `cmd args`, feeding `input` on stdin; SIGKILLs it after `timeoutMs`. Never rejects. */
export function run(cmd: string, args: string[], opts: { input?: string | Buffer; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'], env: opts.env ?? process.env });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, opts.timeoutMs ?? 30_000);
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.stdin.on('error', () => {});
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve({ code: -1, signal: null, stdout: '', stderr: String(e), timedOut });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), timedOut });
    });
    child.stdin.end(opts.input ?? '');
  });
}

/** Formats a failed run for an assertion message. */
export function describeRun(r: RunResult): string {
  return `exit=${r.code} signal=${r.signal} timedOut=${r.timedOut}\n--- stderr ---\n${r.stderr.slice(-4000)}\n--- stdout ---\n${r.stdout.slice(-2000)}`;
}

/**
 * Runs a driver program, the way every non-npm client's suite talks to its client: `input` as JSON on stdin,
 * the result as the last line of stdout, one JSON object. Throws, naming `label`, with the driver's
 * `exception` and its trace (`trace`, or Python's `traceback`) and the run's output when the driver prints
 * no JSON, reports an exception or exits non-zero.
 */
export async function runDriver<T = Json>(
  label: string,
  cmd: string,
  args: string[],
  input: object,
  opts: { timeoutMs: number; env?: NodeJS.ProcessEnv },
): Promise<T> {
  const r = await run(cmd, args, { input: JSON.stringify(input), timeoutMs: opts.timeoutMs, env: opts.env });
  const line = r.stdout.trim().split('\n').pop() ?? '';
  let parsed: Json;
  try {
    parsed = JSON.parse(line);
  } catch {
    throw new Error(`${label}: no JSON on stdout\n${describeRun(r)}`);
  }
  if (r.code !== 0 || parsed.exception) {
    throw new Error(`${label} failed: ${parsed.exception ?? ''}\n${parsed.trace ?? parsed.traceback ?? ''}\n${describeRun(r)}`);
  }
  return parsed as T;
}

/** Brokers started by a suite; `stopAll()` SIGKILLs whatever is still running (use in afterEach/afterAll). */
export class BrokerPool {
  private live = new Set<CliBroker>();
  private dirs: string[] = [];

  /** A fresh temporary data dir, removed by cleanup() (kept when KRILL_KEEP_DATA is set, for debugging). */
  dir(prefix: string): string {
    const d = tempDir(prefix);
    this.dirs.push(d);
    return d;
  }

  /** Stops every broker still running and removes the data dirs made with dir(). */
  async cleanup(): Promise<void> {
    await this.stopAll();
    if (!process.env.KRILL_KEEP_DATA) for (const d of this.dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  }

  async start(args: string[]): Promise<CliBroker> {
    const b = await spawnCli(['--port', '0', ...args], { timeoutMs: 20_000 });
    this.live.add(b);
    b.exited.then(() => this.live.delete(b));
    return b;
  }

  /** Sends `signal` and waits (bounded) for the exit; returns the exit code or signal name. */
  async stop(b: CliBroker, signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 15_000): Promise<number | string> {
    b.proc.kill(signal);
    const res = await Promise.race([b.exited, new Promise<string>((r) => setTimeout(() => r('timeout'), timeoutMs))]);
    if (res === 'timeout') b.proc.kill('SIGKILL');
    this.live.delete(b);
    return res;
  }

  async stopAll(): Promise<void> {
    const all = [...this.live];
    this.live.clear();
    await Promise.all(
      all.map(async (b) => {
        if (b.proc.exitCode === null && b.proc.signalCode === null) {
          b.proc.kill('SIGKILL');
          await Promise.race([b.exited, new Promise((r) => setTimeout(r, 5000))]);
        }
      }),
    );
  }
}

/** Lists `<dataDir>/<topic>-<partition>/` sorted by name. */
export function partitionFiles(dataDir: string, topic: string, partition: number): string[] {
  const dir = path.join(dataDir, `${topic}-${partition}`);
  return fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [];
}

export interface StoredBatchHeader {
  baseOffset: bigint;
  codec: number;
  records: number;
  magic: number;
  /** -1 unless the batch came from an idempotent or transactional producer. */
  producerId: bigint;
  producerEpoch: number;
  baseSequence: number;
}

/**
 * Walks a segment file and returns the attributes' codec (attributes & 7), record count and producer
 * fields of each record batch — a light, independent reading of Kafka's on-disk batch header.
 */
export function readBatchHeaders(file: string): StoredBatchHeader[] {
  const buf = fs.readFileSync(file);
  const out: StoredBatchHeader[] = [];
  let pos = 0;
  while (pos + 61 <= buf.length) {
    const baseOffset = buf.readBigInt64BE(pos);
    const batchLength = buf.readInt32BE(pos + 8);
    if (batchLength <= 0 || pos + 12 + batchLength > buf.length) break;
    const magic = buf.readInt8(pos + 16);
    const attributes = buf.readInt16BE(pos + 21);
    const records = buf.readInt32BE(pos + 57);
    const producerId = buf.readBigInt64BE(pos + 43);
    const producerEpoch = buf.readInt16BE(pos + 51);
    const baseSequence = buf.readInt32BE(pos + 53);
    out.push({ baseOffset, codec: attributes & 7, records, magic, producerId, producerEpoch, baseSequence });
    pos += 12 + batchLength;
  }
  return out;
}

/** Polls `check` every `intervalMs` until it returns something other than undefined; throws naming `what` after `timeoutMs`. */
export async function eventually<T>(what: string, check: () => Promise<T | undefined> | T | undefined, timeoutMs = 20_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * What a client script prints as JSON, or what ZooKeeper holds: untyped by nature, so read as the test reads it
 * (the assertions are its types).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;
