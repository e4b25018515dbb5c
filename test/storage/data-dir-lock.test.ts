// The data directory lock, both ways: the kernel-held one (Linux) and the pid file (elsewhere).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DataDirLock, DataDirLockedError, LEASE_EXPIRY_MS, LOCK_FILE } from '../../src/storage/data-dir-lock.js';
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

/** A pid that no process has (a child that has exited). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(r.stdout.toString());
}

describe.runIf(process.platform === 'linux')('the kernel-held lock (Linux)', () => {
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

  it('writes nothing until recordOwner(), and a .lock left by a dead broker does not hold it', async () => {
    fs.writeFileSync(path.join(dir, LOCK_FILE), `${deadPid()}\n`);
    const lock = await acquire(dir, true);
    expect(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8')).not.toBe(OWNER);
    lock.recordOwner();
    expect(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8')).toBe(OWNER);
  });
});

describe.runIf(process.platform === 'linux')('the lease in .lock (another network namespace or host)', () => {
  const lockFile = () => path.join(dir, LOCK_FILE);

  it('refuses a start while .lock names another host and is fresh, saying when it expires', async () => {
    fs.writeFileSync(lockFile(), '1\nanother-container\n');
    const err = await DataDirLock.acquire(dir, { kernelLock: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DataDirLockedError);
    expect((err as Error).message).toMatch(/another krill \(pid 1\) is using it on host another-container, which renewed its lease 0 s ago \(if it is gone, the lease expires in 30 s\)/);
    expect(fs.readFileSync(lockFile(), 'utf8')).toBe('1\nanother-container\n');
  });

  it('lets a start through once that lease has expired, and takes it over', async () => {
    fs.writeFileSync(lockFile(), '1\nanother-container\n');
    const past = (Date.now() - LEASE_EXPIRY_MS - 1000) / 1000;
    fs.utimesSync(lockFile(), past, past);
    const lock = await acquire(dir, true);
    lock.recordOwner();
    expect(fs.readFileSync(lockFile(), 'utf8')).toBe(OWNER);
  });

  it('refuses while a live process of this host holds a fresh lease (a broker in another network namespace)', async () => {
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 20000)']);
    try {
      fs.writeFileSync(lockFile(), `${other.pid}\n${os.hostname()}\n`);
      const err = await DataDirLock.acquire(dir, { kernelLock: true }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DataDirLockedError);
      expect((err as Error).message).toContain(`another krill (pid ${other.pid}) is using it on host ${os.hostname()}`);
    } finally {
      other.kill('SIGKILL');
    }
  });

  it('does not keep a restart on this host waiting after kill -9: a dead pid of this host frees it', async () => {
    fs.writeFileSync(lockFile(), `${deadPid()}\n${os.hostname()}\n`);
    await acquire(dir, true);
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
    expect((err as Error).message).toContain(`another krill (pid ${process.ppid}) is using it (if that process is no krill, remove ${path.join(dir, LOCK_FILE)})`);
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
