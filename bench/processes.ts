// Child processes of the benchmark (servers, clients, probes): started with their output captured,
// waited for, stopped, and all killed (with every temporary directory removed) when the benchmark exits
// or is interrupted.

import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { HOST } from './settings.js';

const live = new Set<ChildProcess>();
const tempDirs = new Set<string>();

export function cleanup(): void {
  for (const child of live) {
    try {
      child.kill('SIGKILL');
    } catch {
      /* already gone */
    }
  }
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
}
process.on('exit', cleanup);
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    process.stderr.write(`\nbench: ${sig}, cleaning up\n`);
    cleanup();
    process.exit(130);
  });
}

export interface Proc {
  child: ChildProcess;
  spawnedAt: number;
  /** Resolves when the process has exited and its output is drained. */
  closed: Promise<{ code: number | null; signal: NodeJS.Signals | null; exitedAt: number }>;
  exitInfo: { code: number | null; signal: NodeJS.Signals | null; exitedAt: number } | null;
  stdout(): string;
  stderr(): string;
  onStdoutLine(fn: (line: string, at: number) => void): void;
}

const TAIL = 16 * 1024;

export function launch(cmd: string, args: string[], stdin: 'pipe' | 'ignore' = 'ignore', env: NodeJS.ProcessEnv = process.env): Proc {
  const spawnedAt = performance.now();
  const child = spawn(cmd, args, { stdio: [stdin, 'pipe', 'pipe'], env });
  live.add(child);
  let out = '';
  let err = '';
  let partial = '';
  const lineListeners: ((line: string, at: number) => void)[] = [];
  child.stdout!.setEncoding('utf8');
  child.stderr!.setEncoding('utf8');
  child.stdout!.on('data', (d: string) => {
    const at = performance.now();
    out = (out + d).slice(-1024 * 1024);
    partial += d;
    let nl: number;
    while ((nl = partial.indexOf('\n')) >= 0) {
      const line = partial.slice(0, nl);
      partial = partial.slice(nl + 1);
      for (const fn of lineListeners) fn(line, at);
    }
  });
  child.stderr!.on('data', (d: string) => {
    err = (err + d).slice(-TAIL);
  });
  const proc: Proc = {
    child,
    spawnedAt,
    exitInfo: null,
    closed: null as never,
    stdout: () => out,
    stderr: () => err,
    onStdoutLine: (fn) => lineListeners.push(fn),
  };
  child.on('exit', (code, signal) => {
    proc.exitInfo = { code, signal, exitedAt: performance.now() };
  });
  proc.closed = new Promise((resolve) => {
    const done = () => {
      live.delete(child);
      resolve(proc.exitInfo ?? { code: null, signal: null, exitedAt: performance.now() });
    };
    child.on('close', done);
    child.on('error', (e) => {
      err += `\n${e.message}`;
      done();
    });
  });
  return proc;
}

export function describeExit(p: Proc): string {
  const e = p.exitInfo;
  const tail = lastLines(p.stderr(), 3);
  const how = e ? (e.signal ? `signal ${e.signal}` : `code ${e.code}`) : 'unknown status';
  return `exited (${how})${tail ? `: ${tail}` : ''}`;
}

export function lastLines(text: string, n: number): string {
  return text.trim().split('\n').filter(Boolean).slice(-n).join(' | ').slice(0, 400);
}

export async function runToEnd(
  cmd: string,
  args: string[],
  timeoutMs: number,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ proc: Proc; seconds: number; timedOut: boolean }> {
  const p = launch(cmd, args, 'ignore', env);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    p.child.kill('SIGKILL');
  }, timeoutMs);
  const { exitedAt } = await p.closed;
  clearTimeout(timer);
  return { proc: p, seconds: (exitedAt - p.spawnedAt) / 1000, timedOut };
}

export function waitForStdoutLine(p: Proc, re: RegExp, timeoutMs: number): Promise<{ match: RegExpMatchArray; at: number }> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
    };
    const timer = setTimeout(() => settle(() => reject(new Error(`no ready line within ${timeoutMs} ms`))), timeoutMs);
    p.onStdoutLine((line, at) => {
      const m = line.match(re);
      if (m) settle(() => resolve({ match: m, at }));
    });
    void p.closed.then(() => settle(() => reject(new Error(describeExit(p)))));
  });
}

export async function stopProc(p: Proc, closeStdin = false): Promise<void> {
  if (p.exitInfo) return void (await p.closed);
  if (closeStdin) p.child.stdin?.end();
  p.child.kill('SIGTERM');
  const timer = setTimeout(() => p.child.kill('SIGKILL'), 10_000);
  await p.closed;
  clearTimeout(timer);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, HOST, () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export function makeTempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

export function removeTempDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
  tempDirs.delete(dir);
}
