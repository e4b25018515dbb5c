// krill stops cleanly however it was started: SIGTERM through `npx krill` (npm does not pass the signal on)
// and the death of the process that started it both end with the port free and the logs checkpointed,
// while a parent that stays alive keeps it running.
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { CLI, portFreed, projectWithKrill, useTempDirs } from '../helpers.js';
import { TestClient } from '../server/client.js';
import { API, metadataBody } from '../server/kafka.js';

const dir = useTempDirs('krill-stop-');

/** Starts `command` (which starts krill somewhere below it) and resolves with krill's port once it is ready. */
function startReady(command: string, args: string[], cwd?: string): Promise<{ proc: ChildProcess; port: number; stdout: () => string }> {
  const proc = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stderr!.on('data', (d) => (err += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`krill did not become ready: ${err}`)), 20_000);
    proc.stdout!.on('data', (d) => {
      out += d;
      const m = /krill ready on [^\s]+:(\d+) /.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ proc, port: Number(m[1]), stdout: () => out });
      }
    });
    proc.on('exit', (code) => reject(new Error(`${command} exited with ${code} before krill was ready: ${err}`)));
  });
}

async function serves(port: number): Promise<boolean> {
  const c = await TestClient.connect(port);
  const md = await c.request(API.Metadata, 12, metadataBody(null));
  c.close();
  return md.brokers[0].port === port;
}

/**
 * Sends `signal` to `target` (krill or a process above it) and expects krill to stop cleanly: its port free,
 * and Kafka's clean-shutdown marker, written after the checkpoints, in its data dir.
 */
async function expectStopAfter(target: { kill(signal: NodeJS.Signals): unknown }, signal: NodeJS.Signals, port: number, dataDir: string): Promise<void> {
  target.kill(signal);
  expect(await portFreed(port)).toBe(true);
  const marker = path.join(dataDir, '.kafka_cleanshutdown');
  for (let i = 0; i < 100 && !fs.existsSync(marker); i++) await new Promise((r) => setTimeout(r, 50));
  expect(fs.existsSync(marker)).toBe(true);
}

describe('stopping krill', () => {
  it('SIGTERM to `npx krill` stops the broker: the port is free afterwards', async () => {
    // A project with krill installed, as `npm install krill` leaves it; npx then runs its bin through a shell.
    const project = projectWithKrill();
    const data = dir();
    const { proc, port } = await startReady('npx', ['--offline', 'krill', '--port', '0', '--data-dir', data], project);
    expect(await serves(port)).toBe(true);
    await expectStopAfter(proc, 'SIGTERM', port, data);
  }, 30_000);

  it('SIGHUP (a closed terminal) stops krill cleanly, as Kafka does', async () => {
    const data = dir();
    const { proc, port } = await startReady(process.execPath, [CLI, '--port', '0', '--data-dir', data]);
    const exited = new Promise((resolve) => proc.once('exit', (code) => resolve(code)));
    await expectStopAfter(proc, 'SIGHUP', port, data);
    expect(await exited).toBe(0);
  }, 30_000);

  it('krill exits when the process that started it dies (SIGKILL), but not while it lives', async () => {
    const data = dir();
    const parent = `"${process.execPath}" "${CLI}" --port 0 --data-dir "${data}" & wait`;
    const { proc, port } = await startReady('bash', ['-c', parent]);
    // Several of krill's parent checks go by with the parent alive: krill keeps serving.
    await new Promise((r) => setTimeout(r, 1500));
    expect(await serves(port)).toBe(true);
    await expectStopAfter(proc, 'SIGKILL', port, data);
  }, 30_000);

  it('with --detached krill outlives the process that started it', async () => {
    const data = dir();
    const parent = `"${process.execPath}" "${CLI}" --port 0 --data-dir "${data}" --detached & echo "pid $!"; wait`;
    const { proc, port, stdout } = await startReady('bash', ['-c', parent]);
    const pid = Number(/pid (\d+)/.exec(stdout())![1]);
    proc.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 1500)); // several of the parent checks it would otherwise make
    expect(await serves(port)).toBe(true);
    await expectStopAfter({ kill: (signal) => process.kill(pid, signal) }, 'SIGTERM', port, data);
  }, 30_000);

  it('krill exits when a supervisor that read its output dies: logging to the broken pipe does not hold it up', async () => {
    const data = dir();
    // The supervisor holds the only read ends of krill's stdout and stderr; at debug krill logs as it stops.
    const supervisor = `
const { spawn } = require('node:child_process');
const krill = spawn(process.execPath, process.argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
krill.stdout.on('data', (d) => process.stdout.write(d));
krill.stderr.resume();
setInterval(() => {}, 1000);`;
    const { proc, port } = await startReady(process.execPath, ['-e', supervisor, CLI, '--port', '0', '--data-dir', data, '--log-level', 'debug']);
    const c = await TestClient.connect(port); // one more thing to log about on the way out
    expect(await serves(port)).toBe(true);
    await expectStopAfter(proc, 'SIGKILL', port, data);
    c.close();
  }, 30_000);
});
