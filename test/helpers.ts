// Shared test helpers: a real krill on a real TCP port, torn down after each suite.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { startBroker, type RunningBroker, type StartOptions } from '../src/index.js';
import { TestClient } from './server/client.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const CLI = path.join(ROOT, 'dist', 'src', 'bin', 'krill.cjs');

export async function withBroker(options: StartOptions = {}): Promise<RunningBroker> {
  return startBroker({ port: 0, host: '127.0.0.1', ...options });
}

/**
 * One broker and one TestClient connected to it for the whole test file (the hooks are registered here):
 * read them as `live.broker` and `live.client` inside tests and later hooks.
 */
export function useBrokerAndClient(options: StartOptions = {}): { broker: RunningBroker; client: TestClient } {
  const live = {} as { broker: RunningBroker; client: TestClient };
  beforeAll(async () => {
    live.broker = await withBroker(options);
    live.client = await TestClient.connect(live.broker.port);
  });
  afterAll(async () => {
    live.client?.close();
    await live.broker?.close();
  });
  return live;
}

export function tempDir(prefix = 'krill-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Returns a maker of fresh temporary directories, all removed once the calling test file is done. */
export function useTempDirs(prefix: string): () => string {
  const made: string[] = [];
  afterAll(() => {
    for (const d of made) fs.rmSync(d, { recursive: true, force: true });
  });
  return () => {
    const d = tempDir(prefix);
    made.push(d);
    return d;
  };
}

export interface CliBroker {
  /** The process started: krill itself, or npm when started through npx. */
  proc: ChildProcess;
  /** krill's own pid. */
  pid: number;
  port: number;
  bootstrap: string;
  dataDir: string;
  readyLine: string;
  stderr: () => string;
  /**
   * Stops krill as a user would: SIGKILL goes to the whole process group (a test runner or supervisor
   * killing what it started), any other signal to krill itself.
   */
  kill(signal: NodeJS.Signals): void;
  /** Resolves with the exit code (or signal name) of the process started, once krill has exited too. */
  exited: Promise<number | string>;
}

/** A project with krill installed, as `npm install krill` leaves it (`npx krill` then runs `cli`). */
const projects = new Map<string, string>();
export function projectWithKrill(cli = CLI): string {
  let project = projects.get(cli);
  if (!project) {
    project = tempDir('krill-project-');
    fs.writeFileSync(path.join(project, 'package.json'), '{"name":"uses-krill","version":"1.0.0","private":true}\n');
    fs.mkdirSync(path.join(project, 'node_modules', '.bin'), { recursive: true });
    fs.symlinkSync(cli, path.join(project, 'node_modules', '.bin', 'krill'));
    if (projects.size === 0) process.once('exit', () => projects.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
    projects.set(cli, project);
  }
  return project;
}

/**
 * Starts the built CLI (dist/src/bin/krill.cjs) and waits for its ready line: as `node krill.cjs`, or with
 * `npx: true` as users start it, `npx --offline krill` in a project that has it installed, in a process
 * group of its own (`project`: that project, else one whose krill is `cli`). `openFileLimit` runs it under
 * `ulimit -n` (through sh, which then execs).
 */
export function spawnCli(
  args: string[],
  opts: { timeoutMs?: number; cli?: string; env?: NodeJS.ProcessEnv; openFileLimit?: number; npx?: boolean; project?: string } = {},
): Promise<CliBroker> {
  const argv = opts.npx ? ['npx', '--offline', 'krill', ...args] : [process.execPath, opts.cli ?? CLI, ...args];
  const [cmd, ...cmdArgs] = opts.openFileLimit === undefined ? argv : ['/bin/sh', '-c', `ulimit -n ${opts.openFileLimit} && exec "$0" "$@"`, ...argv];
  const proc = spawn(cmd, cmdArgs, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: opts.env ?? process.env,
    detached: opts.npx,
    cwd: opts.npx ? (opts.project ?? projectWithKrill(opts.cli)) : undefined,
  });
  const killGroup = () => {
    try {
      process.kill(-proc.pid!, 'SIGKILL');
    } catch {
      // the group is gone already
    }
  };
  let out = '';
  let err = '';
  const exited = new Promise<number | string>((resolve) => proc.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  proc.stderr!.on('data', (d) => (err += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      if (opts.npx) killGroup();
      else proc.kill('SIGKILL');
      reject(new Error(`krill did not become ready: ${err}`));
    }, opts.timeoutMs ?? 15_000);
    proc.stdout!.on('data', (d) => {
      out += d;
      const m = /krill ready on ([^\s]+):(\d+) \(data: (.*?), cluster/.exec(out);
      if (m) {
        clearTimeout(timer);
        // Under npx the process started is npm; krill wrote its own pid into .lock before its ready line
        // (in memory there is no .lock: krill is then the one process of the group without a child in it).
        const pid = !opts.npx
          ? proc.pid!
          : m[3].startsWith('memory:')
            ? leafOfGroup(proc.pid!)
            : Number(fs.readFileSync(path.join(m[3], '.lock'), 'utf8').split('\n')[0]);
        const kill = (signal: NodeJS.Signals) => {
          if (!opts.npx) proc.kill(signal);
          else if (signal === 'SIGKILL') killGroup();
          else process.kill(pid, signal); // npm then exits with krill's code
        };
        resolve({ proc, pid, port: Number(m[2]), bootstrap: `127.0.0.1:${m[2]}`, dataDir: m[3], readyLine: out.trim(), stderr: () => err, kill, exited });
      }
    });
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`krill exited with ${code} before ready: ${err}`));
    });
  });
}

/** The process of process group `pgid` that is no other one's parent (Linux /proc). */
function leafOfGroup(pgid: number): number {
  const members = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // pid (comm) state ppid pgrp ...: comm may hold spaces, so the fields are read after its ')'.
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [, ppid, pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === pgid) members.set(Number(entry), Number(ppid));
    } catch {
      // gone meanwhile
    }
  }
  const parents = new Set(members.values());
  const leaves = [...members.keys()].filter((pid) => !parents.has(pid));
  if (leaves.length !== 1) throw new Error(`process group ${pgid} has ${leaves.length} processes without children`);
  return leaves[0];
}

/** Sends one raw frame and returns the raw response frame (without its size prefix), or null on close. */
export function rawRequest(port: number, frame: Buffer, timeoutMs = 5000): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    let buf = Buffer.alloc(0);
    const timer = setTimeout(() => {
      sock.destroy();
      reject(new Error('raw request timed out'));
    }, timeoutMs);
    sock.on('connect', () => sock.write(frame));
    sock.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      if (buf.length >= 4 && buf.length >= 4 + buf.readInt32BE(0)) {
        clearTimeout(timer);
        sock.destroy();
        resolve(buf.subarray(4, 4 + buf.readInt32BE(0)));
      }
    });
    sock.on('error', () => {});
    sock.on('close', () => {
      clearTimeout(timer);
      resolve(null);
    });
  });
}

/** Every file and directory under dir with its size and mtime: equal snapshots mean nothing was written. */
export function dirSnapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const st = fs.statSync(path.join(dir, f));
    out[f] = st.isDirectory() ? 'dir' : `${st.size}@${st.mtimeMs}`;
  }
  return out;
}

/** Runs the built CLI to completion (for argument errors, --version). */
export function runCli(args: string[], timeoutMs = 10_000): Promise<{ code: number | string; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d) => (stdout += d));
    proc.stderr.on('data', (d) => (stderr += d));
    const t = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`krill did not exit: ${stdout} ${stderr}`));
    }, timeoutMs);
    proc.on('exit', (code, signal) => {
      clearTimeout(t);
      resolve({ code: code ?? signal ?? -1, stdout, stderr });
    });
  });
}

/** Polls until `port` on 127.0.0.1 refuses connections; false if it still accepts after `timeoutMs`. */
export async function portFreed(port: number, timeoutMs = 10_000): Promise<boolean> {
  const refused = () =>
    new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(false);
      });
      s.once('error', () => resolve(true));
    });
  for (const end = Date.now() + timeoutMs; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
    if (await refused()) return true;
  }
  return false;
}

/** The value of a call that may return a promise but must not have here (it completed synchronously). */
export function settled<T>(value: T | Promise<T>): T {
  if (value instanceof Promise) throw new Error('expected a result at once, got a promise');
  return value;
}
