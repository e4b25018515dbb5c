// The exclusive lock on a data directory. Kafka takes a FileLock on <log.dir>/.lock before it touches a log
// dir and refuses to start without it: two brokers on one directory truncate each other's records and
// overwrite each other's topic list. Node has no flock, so krill locks in one of two ways:
//
//   Linux: it listens on an abstract-namespace Unix socket named after the directory's device and inode
//     ("\0krill-data-dir:<dev>:<ino>"). Binding a name is atomic and the kernel drops it when the process
//     dies, however it dies: no stale lock after kill -9, no pid reuse to get wrong, and every path to the
//     directory (symlinks, bind mounts) names the same inode. Abstract names are per network namespace:
//     containers with their own network that share one volume do not see each other's lock.
//   elsewhere: <dir>/.lock is created exclusively (O_EXCL) holding the pid. A lock whose pid is not alive
//     is stale and taken over (two starts taking over the same stale lock at the same instant may both
//     win: the narrow race a pid file cannot close). A pid reused by an unrelated live process keeps a
//     stale lock held: the message names the file to remove.
//
// Either way <dir>/.lock holds the owner's pid (what people see, and what the refusal names); it is
// written once the broker's port is bound (Linux) and removed by release().
//
// On Linux `.lock` is also a lease, for what the socket cannot see: a broker in another network namespace
// (two containers of one image sharing a volume, both pid 1) or on another host (a network file system).
// The owner rewrites it every LEASE_REFRESH_MS with its host name; a start that got the socket still
// refuses while `.lock` names another host, or a live process of this host other than itself, and was written
// less than LEASE_EXPIRY_MS ago. On the same host a dead pid frees it at once, so a restart after kill -9 is
// not kept waiting.

import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const LOCK_FILE = '.lock';
export const LEASE_REFRESH_MS = 5_000;
export const LEASE_EXPIRY_MS = 30_000;

/**
 * Lock files this process holds. A lock file naming this process's pid is stale (left by an earlier
 * process that had the same pid) unless it is in here.
 */
const heldByThisProcess = new Set<string>();

export class DataDirLockedError extends Error {}

function lockedMessage(dataDir: string, holder: number | null, hint = ''): string {
  const who = holder === null ? 'another krill' : `another krill (pid ${holder})`;
  return `cannot lock the data directory ${dataDir} (${LOCK_FILE}): ${who} is using it${hint}. Two brokers on one directory would destroy each other's records: stop the other one or use another data directory.`;
}

interface Holder {
  pid: number | null;
  host: string | null;
  writtenAt: number;
}

/** What <dir>/.lock says: the owner's pid (first line) and host (second line), and when it was written. */
function readLockFile(lockFile: string): Holder | null {
  try {
    const [pidLine = '', host = ''] = fs.readFileSync(lockFile, 'utf8').split('\n');
    const pid = Number(pidLine.trim());
    return {
      pid: Number.isSafeInteger(pid) && pid > 0 ? pid : null,
      host: host.trim() || null,
      writtenAt: fs.statSync(lockFile).mtimeMs,
    };
  } catch {
    return null;
  }
}

/** The pid recorded in <dir>/.lock, or null. */
function readHolder(lockFile: string): number | null {
  return readLockFile(lockFile)?.pid ?? null;
}

function ownerText(): string {
  return `${process.pid}\n${os.hostname()}\n`;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, owned by someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export class DataDirLock {
  private released = false;

  private constructor(
    readonly dataDir: string,
    /** The abstract socket holding the lock (Linux), or null when the pid file is the lock. */
    private readonly socket: net.Server | null,
  ) {}

  get lockFile(): string {
    return path.join(this.dataDir, LOCK_FILE);
  }

  /**
   * Locks `dataDir` (which must exist) or throws DataDirLockedError. On Linux nothing is written here; call
   * recordOwner() once the start may write.
   */
  static async acquire(dataDir: string, options: { kernelLock?: boolean } = {}): Promise<DataDirLock> {
    const kernelLock = options.kernelLock ?? process.platform === 'linux';
    return kernelLock ? DataDirLock.acquireSocket(dataDir) : DataDirLock.acquireFile(dataDir);
  }

  private static acquireSocket(dataDir: string): Promise<DataDirLock> {
    const { dev, ino } = fs.statSync(dataDir, { bigint: true });
    const name = `\0krill-data-dir:${dev}:${ino}`;
    return new Promise((resolve, reject) => {
      // Nobody is meant to connect; whoever does is turned away.
      const server = net.createServer((socket) => socket.destroy());
      server.once('error', (err: NodeJS.ErrnoException) => {
        if (err.code !== 'EADDRINUSE') return reject(err);
        const holder = readHolder(path.join(dataDir, LOCK_FILE));
        reject(new DataDirLockedError(lockedMessage(dataDir, holder)));
      });
      server.listen(name, () => {
        server.unref();
        server.on('error', () => {}); // nothing connects on purpose; an error later must not crash the broker
        const lease = readLockFile(path.join(dataDir, LOCK_FILE));
        const age = lease ? Date.now() - lease.writtenAt : Infinity;
        // Another host, or a live broker of this host in another network namespace (`ip netns exec`).
        const elsewhere = lease?.host && (lease.host !== os.hostname() || (lease.pid !== null && lease.pid !== process.pid && isAlive(lease.pid)));
        if (lease && elsewhere && age < LEASE_EXPIRY_MS) {
          server.close();
          const wait = Math.ceil((LEASE_EXPIRY_MS - age) / 1000);
          reject(new DataDirLockedError(lockedMessage(dataDir, lease.pid, ` on host ${lease.host}, which renewed its lease ${Math.round(age / 1000)} s ago (if it is gone, the lease expires in ${wait} s)`)));
          return;
        }
        resolve(new DataDirLock(dataDir, server));
      });
    });
  }

  private static async acquireFile(dataDir: string): Promise<DataDirLock> {
    const lockFile = path.join(dataDir, LOCK_FILE);
    for (let attempt = 0; ; attempt++) {
      try {
        fs.writeFileSync(lockFile, ownerText(), { flag: 'wx' });
        heldByThisProcess.add(lockFile);
        return new DataDirLock(dataDir, null);
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

  private leaseTimer: NodeJS.Timeout | null = null;

  /**
   * Writes this process's pid and host into <dir>/.lock (Linux; the pid file already holds them elsewhere),
   * and renews that lease from now on.
   */
  recordOwner(): void {
    if (!this.socket) return;
    fs.writeFileSync(this.lockFile, ownerText());
    this.leaseTimer = setInterval(() => {
      try {
        fs.writeFileSync(this.lockFile, ownerText());
      } catch {
        // A full disk or a vanished directory: the next renewal tries again; the socket still holds the lock here.
      }
    }, LEASE_REFRESH_MS);
    this.leaseTimer.unref();
  }

  /** Removes <dir>/.lock when it is this process's and drops the lock. Idempotent. */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    if (this.leaseTimer) clearInterval(this.leaseTimer);
    if (readHolder(this.lockFile) === process.pid) fs.rmSync(this.lockFile, { force: true });
    heldByThisProcess.delete(this.lockFile);
    const socket = this.socket;
    if (socket) await new Promise<void>((resolve) => socket.close(() => resolve()));
  }
}
