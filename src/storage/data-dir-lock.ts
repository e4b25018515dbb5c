// The exclusive lock on a data directory. Kafka takes a FileChannel lock (fcntl) on <log.dir>/.lock before
// it touches a log dir and refuses to start without it: two brokers on one directory truncate each other's
// records and overwrite each other's topic list.
//
// krill takes the same kind of lock: an exclusive record lock on <dir>/.lock, through fs-native-extensions
// (F_OFD_SETLK on Linux, flock on macOS and BSD, LockFileEx on Windows; Node has no flock of its own). The
// kernel holds it for the open file, so it is released when the process ends, however it ends: a process
// killed with SIGKILL drops it before it becomes a zombie, whoever reaps it and whenever. It is seen through
// every path to the file (symlinks, bind mounts), in every network and pid namespace of the same kernel
// (containers sharing a volume), by a second open in this very process (an open-file-description lock, not a
// per-process POSIX one), and on NFS, where the client forwards it to the server as a byte-range lock.
//
// A holder killed with SIGKILL is seen dead by its parent (and its main thread turns zombie) a little before
// its last thread has exited and the kernel has dropped the lock; a start that finds the lock held by a
// holder on this host that is exiting waits for that, up to 10 s. A live holder is refused at once.
//
// .lock is removed on release, while still locked. A start that opened the file just before that removal
// may be granted the lock on the unlinked inode, so a granted lock counts only if the path still names the
// locked inode; otherwise the start opens the path again.
//
// Where the native addon has no build for the platform, <dir>/.lock is instead created exclusively (O_EXCL)
// holding the pid: a lock whose pid is dead (or a zombie) is stale and taken over; two starts taking over the
// same stale lock at the same instant may both win, and a pid reused by an unrelated live process keeps it
// held (the message names the file to remove). That is the narrow race a pid file cannot close, and why the
// kernel lock is the default.
//
// Either way <dir>/.lock holds the owner's pid and host name while it runs (what people see, and what a
// refusal names); with the kernel lock it is written once the broker's port is bound.

import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

export const LOCK_FILE = '.lock';

/** fs-native-extensions' lock call (true once locked, false if another holds it), or null where its addon cannot be loaded. */
type TryLock = (fd: number) => boolean;
/** The addon's own call: throws EAGAIN (EWOULDBLOCK) when another holds the lock. */
type Binding = { tryLock(fd: number, offset: number, length: number, exclusive: boolean): void };
let tryLockFn: TryLock | null | undefined;
function kernelTryLock(): TryLock | null {
  if (tryLockFn === undefined) tryLockFn = loadTryLock();
  return tryLockFn;
}

function loadTryLock(): TryLock | null {
  const require = createRequire(import.meta.url);
  let entry: string;
  try {
    entry = require.resolve('fs-native-extensions');
  } catch {
    return null;
  }
  // The prebuilt addon itself loads in ~2 ms; the package's entry finds it through require-addon, which
  // costs 10-25 ms of every start. The entry stays the fallback for platforms it names differently (musl).
  try {
    const binding = require(path.join(path.dirname(entry), 'prebuilds', `${process.platform}-${process.arch}`, 'fs-native-extensions.node')) as Binding;
    return (fd) => {
      try {
        binding.tryLock(fd, 0, 0, true);
        return true;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EAGAIN' || (err as NodeJS.ErrnoException).code === 'EWOULDBLOCK') return false;
        throw err;
      }
    };
  } catch {
    // fall through to the package entry
  }
  try {
    return (require(entry) as { tryLock: TryLock }).tryLock;
  } catch {
    return null;
  }
}

/** Whether this platform has the kernel lock (the fs-native-extensions addon loads). */
export function kernelLockAvailable(): boolean {
  return kernelTryLock() !== null;
}

/**
 * Lock files this process holds. A lock file naming this process's pid is stale (left by an earlier
 * process that had the same pid) unless it is in here.
 */
const heldByThisProcess = new Set<string>();

/** How often a start opens .lock again after finding its inode unlinked under a granted lock. */
const REOPEN_ATTEMPTS = 10;

export class DataDirLockedError extends Error {}

function lockedMessage(dataDir: string, holder: number | null, hint = ''): string {
  const who = holder === null ? 'another krill' : `another krill (pid ${holder})`;
  return `cannot lock the data directory ${dataDir} (${LOCK_FILE}): ${who} is using it${hint}. Two brokers on one directory would destroy each other's records: stop the other one or use another data directory.`;
}

/** The pid recorded in <dir>/.lock (its first line), or null. */
function readHolder(lockFile: string): number | null {
  try {
    const pid = Number(fs.readFileSync(lockFile, 'utf8').split('\n')[0].trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** The host recorded in <dir>/.lock (its second line), or null. */
function readHost(lockFile: string): string | null {
  try {
    return fs.readFileSync(lockFile, 'utf8').split('\n')[1]?.trim() || null;
  } catch {
    return null;
  }
}

function ownerText(): string {
  return `${process.pid}\n${os.hostname()}\n`;
}

/**
 * Whether `pid` is a running process. kill(pid, 0) succeeds on a zombie too (a dead process whose parent
 * has not reaped it, as when the parent died with it and PID 1 does not reap), so on Linux /proc tells.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: it exists, owned by someone else.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (process.platform !== 'linux') return true;
  try {
    // "pid (comm) S ...": the state follows the last ')', since comm may hold one.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/**
 * Whether `pid` on this host is dead or on its way out: a zombie (Z/X), a process in exit (the kernel's
 * PF_EXITING flag on its main thread), or one with SIGKILL pending. The kernel drops a dead holder's lock
 * only once its last thread has exited, which can be a little after its parent saw it die (the main thread
 * becomes a zombie while the others still tear down), so a start right after a kill -9 waits for that.
 * Linux only; elsewhere a refused lock is refused at once.
 */
export function isExiting(pid: number): boolean {
  if (process.platform !== 'linux') return false;
  try {
    // status first: a pending SIGKILL is dequeued just before the exit flag is set, so one of the two shows.
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const pending = (name: string) => BigInt(`0x${new RegExp(`^${name}:\\s*([0-9a-f]+)`, 'm').exec(status)?.[1] ?? '0'}`);
    const SIGKILL = 1n << 8n;
    if ((pending('SigPnd') | pending('ShdPnd')) & SIGKILL) return true;
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid pgrp session tty_nr tpgid flags ...": comm may hold ')' or spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const PF_EXITING = 0x4;
    return fields[0] === 'Z' || fields[0] === 'X' || (Number(fields[6]) & PF_EXITING) !== 0;
  } catch {
    return true; // gone already
  }
}

/** How long a start waits for the lock of a holder that is exiting, before refusing. */
const EXITING_HOLDER_WAIT_MS = 10_000;

/** Whether `fd` is still the file at `file` (not unlinked or replaced since it was opened). */
function sameFile(fd: number, file: string): boolean {
  const opened = fs.fstatSync(fd, { bigint: true });
  try {
    const named = fs.statSync(file, { bigint: true });
    return opened.ino === named.ino && opened.dev === named.dev;
  } catch {
    return false;
  }
}

/** Opens `file` for reading and writing, creating it if absent; whether this call created it. */
function openOrCreate(file: string): { fd: number; created: boolean } {
  for (;;) {
    try {
      return { fd: fs.openSync(file, fs.constants.O_RDWR), created: false };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    try {
      return { fd: fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_EXCL), created: true };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

export class DataDirLock {
  private released = false;
  private ownerRecorded = false;

  private constructor(
    readonly dataDir: string,
    /** The open .lock holding the kernel lock, or null when the pid file is the lock. */
    private readonly fd: number | null,
    /** Whether this start created .lock (a failed start then removes it, leaving the directory as it was). */
    private readonly created: boolean,
  ) {}

  get lockFile(): string {
    return path.join(this.dataDir, LOCK_FILE);
  }

  /**
   * Locks `dataDir` (which must exist) or throws DataDirLockedError. With the kernel lock nothing is written
   * into an existing .lock here; call recordOwner() once the start may write.
   */
  static async acquire(dataDir: string, options: { kernelLock?: boolean } = {}): Promise<DataDirLock> {
    const tryLock = kernelTryLock();
    const kernelLock = options.kernelLock ?? tryLock !== null;
    if (kernelLock && !tryLock) throw new Error('the kernel lock needs the fs-native-extensions addon, which does not load here');
    return kernelLock ? DataDirLock.acquireKernelLock(dataDir, tryLock!) : DataDirLock.acquireFile(dataDir);
  }

  private static async acquireKernelLock(dataDir: string, tryLock: TryLock): Promise<DataDirLock> {
    const lockFile = path.join(dataDir, LOCK_FILE);
    for (let attempt = 0; attempt < REOPEN_ATTEMPTS; attempt++) {
      const { fd, created } = openOrCreate(lockFile);
      let locked = false;
      try {
        locked = tryLock(fd) || (await DataDirLock.outlastExitingHolder(fd, lockFile, tryLock));
      } finally {
        if (!locked) fs.closeSync(fd);
      }
      if (!locked) {
        const holder = readHolder(lockFile);
        const hint = holder !== null && isExiting(holder) ? ` (it is exiting, but held the lock for ${EXITING_HOLDER_WAIT_MS / 1000} s more)` : '';
        throw new DataDirLockedError(lockedMessage(dataDir, holder, hint));
      }
      // The holder released (and removed) the file between our open and our lock: the lock is on nothing.
      if (sameFile(fd, lockFile)) return new DataDirLock(dataDir, fd, created);
      fs.closeSync(fd);
    }
    throw new DataDirLockedError(
      lockedMessage(dataDir, readHolder(lockFile), ` (${LOCK_FILE} was removed and recreated ${REOPEN_ATTEMPTS} times while this start tried to lock it)`),
    );
  }

  /**
   * When .lock names a holder on this host that is exiting, waits (bounded) for the kernel to drop its lock;
   * whether this start got it. A live holder is refused at once, as Kafka refuses.
   */
  private static async outlastExitingHolder(fd: number, lockFile: string, tryLock: TryLock): Promise<boolean> {
    const holder = readHolder(lockFile);
    if (holder === null || readHost(lockFile) !== os.hostname() || !isExiting(holder)) return false;
    for (const deadline = Date.now() + EXITING_HOLDER_WAIT_MS; Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (tryLock(fd)) return true;
    }
    return false;
  }

  private static async acquireFile(dataDir: string): Promise<DataDirLock> {
    const lockFile = path.join(dataDir, LOCK_FILE);
    for (let attempt = 0; ; attempt++) {
      try {
        fs.writeFileSync(lockFile, ownerText(), { flag: 'wx' });
        heldByThisProcess.add(lockFile);
        return new DataDirLock(dataDir, null, true);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const holder = readHolder(lockFile);
      const live = holder !== null && isAlive(holder) && (holder !== process.pid || heldByThisProcess.has(lockFile));
      if (live || attempt > 0) {
        throw new DataDirLockedError(lockedMessage(dataDir, holder, ` (if that process is no krill, remove ${lockFile})`));
      }
      // Left by a broker that died without releasing it.
      fs.rmSync(lockFile, { force: true });
    }
  }

  /** Writes this process's pid and host into <dir>/.lock (the pid file already holds them). */
  recordOwner(): void {
    if (this.fd === null) return;
    const text = Buffer.from(ownerText());
    fs.ftruncateSync(this.fd, 0);
    fs.writeSync(this.fd, text, 0, text.length, 0);
    this.ownerRecorded = true;
  }

  /**
   * Drops the lock. .lock is removed (while still locked) if this broker wrote it; one found left by a
   * broker that died, by a start that then failed, stays as it was. Idempotent.
   */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    heldByThisProcess.delete(this.lockFile);
    if (this.fd === null) {
      if (readHolder(this.lockFile) === process.pid) fs.rmSync(this.lockFile, { force: true });
      return;
    }
    if (this.ownerRecorded || this.created) fs.rmSync(this.lockFile, { force: true });
    fs.closeSync(this.fd);
  }
}
