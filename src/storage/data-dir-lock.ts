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

import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export const LOCK_FILE = '.lock';

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

/** The pid recorded in <dir>/.lock, or null. */
function readHolder(lockFile: string): number | null {
  try {
    const pid = Number(fs.readFileSync(lockFile, 'utf8').trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
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
        resolve(new DataDirLock(dataDir, server));
      });
    });
  }

  private static async acquireFile(dataDir: string): Promise<DataDirLock> {
    const lockFile = path.join(dataDir, LOCK_FILE);
    for (let attempt = 0; ; attempt++) {
      try {
        fs.writeFileSync(lockFile, `${process.pid}\n`, { flag: 'wx' });
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

  /** Writes this process's pid into <dir>/.lock (Linux; the pid file already holds it elsewhere). */
  recordOwner(): void {
    if (this.socket) fs.writeFileSync(this.lockFile, `${process.pid}\n`);
  }

  /** Removes <dir>/.lock when it is this process's and drops the lock. Idempotent. */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    if (readHolder(this.lockFile) === process.pid) fs.rmSync(this.lockFile, { force: true });
    heldByThisProcess.delete(this.lockFile);
    const socket = this.socket;
    if (socket) await new Promise<void>((resolve) => socket.close(() => resolve()));
  }
}
