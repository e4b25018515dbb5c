// Runs the Go compat driver (compat/go/bin/krill-go-compat, built by compat/go/install.sh from main.go,
// franz.go, kadm.go and sarama.go with the versions go.mod pins) and parses its one JSON line. KRILL_GO_DEBUG=1
// in the environment makes franz-go and Sarama log to the driver's stderr.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describeRun, run } from '../util.js';
import type { Json } from '../util.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const DRIVER = path.join(HERE, 'bin', 'krill-go-compat');

/** For describeWithToolchain: null when the driver is built. */
export const goMissing = (): string | null =>
  fs.existsSync(DRIVER) ? null : `${path.relative(process.cwd(), DRIVER)} is not built: run bash compat/go/install.sh`;

function parseLast(stdout: string): Json {
  const line = stdout.trim().split('\n').pop() ?? '';
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

/** Runs one scenario with `input` on stdin; rejects with the driver's output when it fails. */
export async function go<T = Json>(scenario: string, input: object, timeoutMs = 110_000): Promise<T> {
  const r = await run(DRIVER, [scenario], { input: JSON.stringify(input), timeoutMs });
  const parsed = parseLast(r.stdout);
  if (r.code !== 0 || parsed === undefined || parsed.exception) {
    throw new Error(`krill-go-compat ${scenario} failed: ${parsed?.exception ?? ''}\n${describeRun(r)}`);
  }
  return parsed as T;
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
