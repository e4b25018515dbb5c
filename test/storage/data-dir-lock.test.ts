// The data directory lock, both ways: the kernel lock on .lock, and the pid file where its addon cannot load.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DataDirLock, DataDirLockedError, LOCK_FILE, isAlive, isExiting } from '../../src/storage/data-dir-lock.js';
import { rmDir, tempDir } from './batches.js';

let dir: string;
const held: DataDirLock[] = [];
beforeEach(() => {
  dir = tempDir('krill-lock-');
});
afterEach(async () => {
  for (const l of held.splice(0)) await l.release();
  rmDir(dir);
});

async function acquire(d: string, kernelLock: boolean): Promise<DataDirLock> {
  const l = await DataDirLock.acquire(d, { kernelLock });
  held.push(l);
  return l;
}

const OWNER = `${process.pid}\n${os.hostname()}\n`;

/** The built module, for a holder in another process. */
const LOCK_MODULE = path.resolve('dist/src/storage/data-dir-lock.js');

/** Resolves once /proc says `pid` is in `state` (Linux's Z: a zombie, dead and not yet reaped). */
async function waitForState(pid: number, state: string): Promise<void> {
  for (;;) {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    if (stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === state) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A pid that no process has (a child that has exited). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(r.stdout.toString());
}

describe('the kernel lock on .lock', () => {
  it('is refused to a second taker, also through another path to the directory, and free again once released', async () => {
    const first = await acquire(dir, true);
    first.recordOwner();
    expect(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8')).toBe(OWNER);
    const link = `${dir}-link`;
    fs.symlinkSync(dir, link);
    try {
      for (const d of [dir, link]) {
        const err = await DataDirLock.acquire(d, { kernelLock: true }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(DataDirLockedError);
        expect((err as Error).message).toContain(`cannot lock the data directory ${d} (.lock): another krill (pid ${process.pid}) is using it`);
      }
    } finally {
      fs.rmSync(link);
    }
    await first.release();
    expect(fs.existsSync(path.join(dir, LOCK_FILE))).toBe(false);
    await acquire(dir, true);
  });

  it('writes nothing into an existing .lock until recordOwner(), whatever pid or host it names', async () => {
    for (const content of [`${deadPid()}\n`, `${process.ppid}\n${os.hostname()}\n`, '1\nanother-container\n']) {
      fs.writeFileSync(path.join(dir, LOCK_FILE), content);
      const lock = await acquire(dir, true);
      expect(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8')).toBe(content);
      lock.recordOwner();
      expect(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8')).toBe(OWNER);
      await lock.release();
    }
  });

  it('a failed start removes the .lock it created and leaves one it found as it was', async () => {
    const created = await acquire(dir, true);
    expect(fs.existsSync(path.join(dir, LOCK_FILE))).toBe(true);
    await created.release();
    expect(fs.existsSync(path.join(dir, LOCK_FILE))).toBe(false);
    fs.writeFileSync(path.join(dir, LOCK_FILE), `${deadPid()}\n`);
    const found = await acquire(dir, true);
    await found.release();
    expect(fs.existsSync(path.join(dir, LOCK_FILE))).toBe(true);
  });

  it('is held by another process until it dies, and free at once when it is killed, reaped or not', async () => {
    // A holder in another process, killed while its parent (perl, which never reaps) lives on: a zombie.
    const holder = `const { DataDirLock } = await import(${JSON.stringify(pathToFileURL(LOCK_MODULE).href)}); const l = await DataDirLock.acquire(process.argv[1]); l.recordOwner(); console.log('locked'); setInterval(() => {}, 1000);`;
    const parent = spawn(
      'perl',
      ['-e', 'my $pid = fork(); if ($pid == 0) { exec @ARGV } $| = 1; print "$pid\\n"; sleep 60', process.execPath, '--input-type=module', '-e', holder, dir],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      const out = await new Promise<string>((resolve) => {
        let text = '';
        parent.stdout.on('data', (d) => {
          text += d;
          if (text.includes('locked')) resolve(text);
        });
      });
      const pid = Number(out.split('\n')[0]);
      expect(isExiting(pid)).toBe(false);
      const err = await DataDirLock.acquire(dir, { kernelLock: true }).catch((e: unknown) => e);
      expect((err as Error).message).toContain(`another krill (pid ${pid}) is using it`);
      process.kill(pid, 'SIGKILL');
      await waitForState(pid, 'Z');
      expect(() => process.kill(pid, 0)).not.toThrow(); // what made a zombie look alive
      expect(isAlive(pid)).toBe(false);
      // its other threads may still hold the lock a moment: the start waits for them, not for a lease
      expect(isExiting(pid)).toBe(true);
      await acquire(dir, true);
      // the pid file too takes the zombie's lock over
      await held.pop()!.release();
      fs.writeFileSync(path.join(dir, LOCK_FILE), `${pid}\\n`);
      await acquire(dir, false);
    } finally {
      parent.kill('SIGKILL');
    }
  });
});

describe('the pid-file lock (other platforms)', () => {
  it('is refused while its holder lives, in this process too, and free again once released', async () => {
    const first = await acquire(dir, false);
    expect(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8')).toBe(OWNER);
    await expect(DataDirLock.acquire(dir, { kernelLock: false })).rejects.toThrow(DataDirLockedError);
    await first.release();
    expect(fs.existsSync(path.join(dir, LOCK_FILE))).toBe(false);
    await acquire(dir, false);
  });

  it('is refused when another live process holds it, naming the file to remove if that is no krill', async () => {
    fs.writeFileSync(path.join(dir, LOCK_FILE), `${process.ppid}\n`);
    const err = await DataDirLock.acquire(dir, { kernelLock: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DataDirLockedError);
    expect((err as Error).message).toContain(
      `another krill (pid ${process.ppid}) is using it (if that process is no krill, remove ${path.join(dir, LOCK_FILE)})`,
    );
    expect(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8')).toBe(`${process.ppid}\n`);
  });

  it('takes over a stale lock: a dead pid, an empty file, or this pid from an earlier life', async () => {
    for (const content of [`${deadPid()}\n`, '', `${process.pid}\n`]) {
      fs.writeFileSync(path.join(dir, LOCK_FILE), content);
      const lock = await acquire(dir, false);
      expect(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8')).toBe(OWNER);
      await lock.release();
    }
  });
});
