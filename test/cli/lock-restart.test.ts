// The data dir's lock as users meet it: krill started with `npx krill` (and with node), its whole process
// group killed with SIGKILL as a test runner or supervisor does, and started again at once: the lock died
// with the broker (its npm parent died too, so the broker may linger as an unreaped zombie) and every
// acknowledged record is there. Two brokers racing for one directory, and two in different network
// namespaces sharing it, get one winner.
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { CLI, projectWithKrill, useTempDirs } from '../helpers.js';
import { TestClient } from '../server/client.js';
import { createTopic, fetchOne, produceOk, recordsOf } from '../server/kafka.js';

const dir = useTempDirs('krill-lock-restart-');

interface Started {
  proc: ChildProcess;
  /** Resolves with krill's port once it printed its ready line, or rejects with its stderr if it exited. */
  ready: Promise<number>;
  exited: Promise<number | string>;
  stderr: () => string;
}

/** Runs `command` in a process group of its own (as a supervisor or `setsid` starts it). */
function start(command: string, args: string[], opts: { cwd?: string } = {}): Started {
  const proc = spawn(command, args, { cwd: opts.cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | string>((resolve) => proc.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  const ready = new Promise<number>((resolve, reject) => {
    proc.stdout!.on('data', (d) => {
      out += d;
      const m = /krill ready on [^\s]+:(\d+) /.exec(out);
      if (m) resolve(Number(m[1]));
    });
    exited.then((code) => reject(new Error(`${command} exited with ${code} before krill was ready: ${err}`)));
  });
  ready.catch(() => {});
  return { proc, ready, exited, stderr: () => err };
}

const STARTS = {
  npx: (data: string, project: string) => start('npx', ['--offline', 'krill', '--port', '0', '--data-dir', data], { cwd: project }),
  node: (data: string) => start(process.execPath, [CLI, '--port', '0', '--data-dir', data]),
};

async function killGroup(s: Started): Promise<void> {
  process.kill(-s.proc.pid!, 'SIGKILL');
  await s.exited;
}

async function keysOf(port: number, topic: string): Promise<string[]> {
  const c = await TestClient.connect(port);
  try {
    const keys: string[] = [];
    for (let offset = 0; ;) {
      const got = recordsOf((await fetchOne(c, topic, 0, offset)).records).filter((r) => r.offset >= offset);
      if (got.length === 0) return keys;
      keys.push(...got.map((r) => String(r.key)));
      offset = got[got.length - 1].offset + 1;
    }
  } finally {
    c.close();
  }
}

describe('a restart right after the process group is killed', () => {
  for (const how of ['npx', 'node'] as const) {
    it(`through ${how}: SIGKILL to the group, started again at once, every acknowledged record there`, async () => {
      const project = projectWithKrill();
      const data = path.join(dir(), 'data');
      const expected: string[] = [];
      for (let round = 0; round < 3; round++) {
        const broker = STARTS[how](data, project);
        const port = await broker.ready;
        const c = await TestClient.connect(port);
        if (round === 0) await createTopic(c, 'kept');
        for (let i = 0; i < 20; i++) {
          await produceOk(c, 'kept', 0, [{ key: `r${round}-${i}`, value: `value-${i}` }]);
          expected.push(`r${round}-${i}`);
        }
        c.close();
        await killGroup(broker);
        // The next start comes before anyone reaps what is left of the old one.
      }
      const last = STARTS[how](data, project);
      try {
        expect(await keysOf(await last.ready, 'kept')).toEqual(expected);
      } finally {
        await killGroup(last);
      }
    }, 60_000);
  }

  it('through npx: a group killed during a graceful stop leaves no lock behind', async () => {
    const project = projectWithKrill();
    const data = path.join(dir(), 'data');
    const first = STARTS.npx(data, project);
    const c = await TestClient.connect(await first.ready);
    await createTopic(c, 'stopping');
    await produceOk(c, 'stopping', 0, [{ key: 'k', value: 'v' }]);
    c.close();
    process.kill(-first.proc.pid!, 'SIGTERM');
    process.kill(-first.proc.pid!, 'SIGKILL');
    await first.exited;
    const next = STARTS.npx(data, project);
    try {
      expect(await keysOf(await next.ready, 'stopping')).toEqual(['k']);
    } finally {
      await killGroup(next);
    }
  }, 60_000);
});

describe('one winner for one directory', () => {
  it('two brokers started at the same instant: one serves, the other is refused naming it', async () => {
    const data = path.join(dir(), 'data');
    fs.mkdirSync(data);
    const both = [STARTS.node(data), STARTS.node(data)];
    const outcomes = await Promise.allSettled(both.map((b) => b.ready));
    try {
      expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
      const winner = both[outcomes.findIndex((o) => o.status === 'fulfilled')];
      const loser = both[outcomes.findIndex((o) => o.status === 'rejected')];
      expect(loser.stderr()).toContain(`cannot lock the data directory ${data} (.lock): another krill`);
      expect(await loser.exited).toBe(1);
      expect(fs.readFileSync(path.join(data, '.lock'), 'utf8').split('\n')[0]).toBe(String(winner.proc.pid));
    } finally {
      for (const b of both) if (b.proc.exitCode === null && b.proc.signalCode === null) await killGroup(b);
    }
  }, 30_000);

  // Two containers sharing a volume, each with a network of its own: the same kernel, so the same lock.
  const netns = process.platform === 'linux' && process.getuid?.() === 0 && spawnSync('ip', ['netns', 'list']).status === 0;
  it.runIf(netns || process.env.CI === 'true')(
    'two network namespaces sharing one directory: the second is refused until the first dies',
    async () => {
      const names = [`krill-a-${process.pid}`, `krill-b-${process.pid}`];
      for (const n of names) {
        expect(spawnSync('ip', ['netns', 'add', n]).status).toBe(0);
        expect(spawnSync('ip', ['-n', n, 'link', 'set', 'lo', 'up']).status).toBe(0);
      }
      const data = path.join(dir(), 'data');
      const inNs = (n: string) => start('ip', ['netns', 'exec', n, process.execPath, CLI, '--port', '0', '--data-dir', data]);
      const started: Started[] = [];
      try {
        const first = inNs(names[0]);
        started.push(first);
        await first.ready;
        const second = inNs(names[1]);
        started.push(second);
        await expect(second.ready).rejects.toThrow(`cannot lock the data directory ${data} (.lock): another krill`);
        await killGroup(first);
        const third = inNs(names[1]);
        started.push(third);
        expect(await third.ready).toBeGreaterThan(0);
      } finally {
        for (const b of started) if (b.proc.exitCode === null && b.proc.signalCode === null) await killGroup(b);
        for (const n of names) spawnSync('ip', ['netns', 'del', n]);
      }
    },
    30_000,
  );
});
