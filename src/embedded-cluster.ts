// The embedded API for a whole cluster: several brokers joined through ZooKeeper, for test suites that
// exercise what one broker cannot show (placement, controller failover, a broker going away).
//   const cluster = await startCluster({ brokers: 3, processes: true });
//   ... new Kafka({ brokers: cluster.bootstrap.split(',') }) ...
//   await cluster.brokers[0].kill();   // kill -9 (child processes only)
//   await cluster.brokers[0].start();  // back, same id, port and data (once ZooKeeper let the old session go)
//   await cluster.close();
// Without zookeeperConnect, Debian's ZooKeeper is started for the cluster (and stopped by close()). Each
// cluster gets its own chroot, so that several can share one ensemble. Brokers run in this process, or as
// child processes of the krill CLI (`processes: true`), which is what a kill -9 needs. Data lives in a fresh
// temporary folder that close() removes, or with `storage: 'memory'` in each broker's memory (a broker
// stopped and started again comes back empty and copies its replicas from their leaders).
// ZooKeeper, when started here, keeps its own data in a temporary folder of its own.

import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { startBroker, type RunningBroker } from './embedded-broker.js';
import type { ConfigValue } from './config.js';
import { startZooKeeper, zookeeperInstalled, type ZooKeeperServer } from './cluster/zookeeper-server.js';
import { randomKafkaUuid } from './storage/meta-properties.js';

export interface ClusterStartOptions {
  /** How many brokers, with ids 1..n. Default 3. */
  brokers?: number;
  /** An ensemble to join (a chroot is added when it has none); absent: Debian's ZooKeeper is started. */
  zookeeperConnect?: string;
  /** Run each broker as a child process of the krill CLI (needed for kill()); default: in this process. */
  processes?: boolean;
  /** 'memory': every broker with krill.storage=memory; default 'disk'. */
  storage?: 'disk' | 'memory';
  /** Broker configs for every broker, by Kafka name (broker.id and zookeeper.connect are set per broker). */
  config?: Record<string, ConfigValue>;
  /** pino level; default 'warn'. */
  logLevel?: string;
}

export interface ClusterBroker {
  readonly id: number;
  /** The port, chosen at the first start and kept across restarts. */
  readonly port: number;
  readonly bootstrap: string;
  /** Its data dir; 'memory' with storage: 'memory'. */
  readonly dataDir: string;
  /** host:port of its HTTP listener (krill.http.listener in config; port 0 is a new free port at each start), else null. */
  readonly http: string | null;
  readonly running: boolean;
  /** Stops the broker gracefully (a controlled shutdown first, as SIGTERM does). */
  stop(): Promise<void>;
  /** Kills it at once (SIGKILL): no controlled shutdown, ZooKeeper notices when its session times out. Child processes only. */
  kill(): Promise<void>;
  /** Freezes it (SIGSTOP), as a stalled process or disk would: it keeps its connections and answers nothing. Child processes only. */
  pause(): void;
  /** Lets a paused broker run again (SIGCONT). */
  resume(): void;
  /** Starts it again, with its id, port and data dir. */
  start(): Promise<void>;
}

export interface RunningCluster {
  /** Every broker's host:port, comma-separated. */
  bootstrap: string;
  brokers: ClusterBroker[];
  /** The connect string the brokers use, chroot included. */
  zookeeperConnect: string;
  close(): Promise<void>;
}

const HOST = '127.0.0.1';
const READY_TIMEOUT_MS = 60_000;
/** How often start() tries again while the broker's id is still registered by its killed predecessor. */
const REGISTRATION_RETRY_MS = 500;

/**
 * The CLI loader, beside this module whether it runs from the bundle (dist/) or from dist/src; from the
 * sources (src/, as this repository's tests run it), the built one in dist/.
 */
function cliPath(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [
    path.join(here, 'src', 'bin', 'krill.cjs'),
    path.join(here, 'bin', 'krill.cjs'),
    path.join(here, '..', 'dist', 'src', 'bin', 'krill.cjs'),
  ];
  for (const candidate of candidates) {
    if (fs.existsSync(candidate)) return candidate;
  }
  throw new Error('the krill CLI (dist/src/bin/krill.cjs) is not built: run npm run build');
}

export async function startCluster(options: ClusterStartOptions = {}): Promise<RunningCluster> {
  const count = options.brokers ?? 3;
  if (!Number.isInteger(count) || count < 1) throw new Error(`brokers: ${count} is not a positive count`);
  let zookeeper: ZooKeeperServer | null = null;
  if (options.zookeeperConnect === undefined) {
    if (!zookeeperInstalled()) throw new Error("startCluster needs zookeeperConnect, or Debian's zookeeper package and java to start one");
    // Short ticks let tests use short session timeouts (ZooKeeper allows 2 to 20 ticks).
    zookeeper = await startZooKeeper({ tickTimeMs: 500 });
  }
  const base = options.zookeeperConnect ?? zookeeper!.connect;
  const chroot = `/krill-${randomKafkaUuid()
    .text.replace(/[^A-Za-z0-9]/g, '')
    .slice(0, 12)}`;
  const zookeeperConnect = base.includes('/') ? base : `${base}${chroot}`;
  const root = options.storage === 'memory' ? null : fs.mkdtempSync(path.join(os.tmpdir(), 'krill-cluster-'));
  const removeRoot = () => root && fs.rmSync(root, { recursive: true, force: true });
  const brokers = Array.from({ length: count }, (_, i) => new Member(i + 1, root ? path.join(root, `broker-${i + 1}`) : 'memory', zookeeperConnect, options));
  try {
    // One after the other: the first becomes the controller, and start-up stays predictable.
    for (const b of brokers) await b.start();
  } catch (err) {
    await Promise.all(brokers.map((b) => b.stop().catch(() => undefined)));
    await zookeeper?.stop();
    removeRoot();
    throw err;
  }
  let closing: Promise<void> | null = null;
  return {
    bootstrap: brokers.map((b) => b.bootstrap).join(','),
    brokers,
    zookeeperConnect,
    close() {
      closing ??= (async () => {
        // Together: one by one, each would wait for a controller that is itself stopping.
        await Promise.all(brokers.map((b) => b.stop()));
        await zookeeper?.stop();
        removeRoot();
      })();
      return closing;
    },
  };
}

/** One broker of the cluster, in this process or as a child process. */
class Member implements ClusterBroker {
  port = 0;
  http: string | null = null;
  private embedded: RunningBroker | null = null;
  private child: { proc: ChildProcess; exited: Promise<void> } | null = null;

  constructor(
    readonly id: number,
    readonly dataDir: string,
    private readonly zookeeperConnect: string,
    private readonly options: ClusterStartOptions,
  ) {}

  get bootstrap(): string {
    return `${HOST}:${this.port}`;
  }

  get running(): boolean {
    return this.embedded !== null || this.child !== null;
  }

  private configs(): Record<string, ConfigValue> {
    return { ...this.options.config, 'broker.id': this.id, 'zookeeper.connect': this.zookeeperConnect };
  }

  /**
   * Starts the broker. After kill() its old registration stays in ZooKeeper until its session expires
   * (zookeeper.session.timeout.ms), and a broker refuses to start while its id is registered (NODE_EXISTS,
   * as Kafka does): start() tries again until then.
   */
  async start(): Promise<void> {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      try {
        return await this.startOnce();
      } catch (err) {
        if (!/NODE_EXISTS/.test((err as Error).message) || Date.now() > deadline) throw err;
        await sleep(REGISTRATION_RETRY_MS);
      }
    }
  }

  private async startOnce(): Promise<void> {
    if (this.running) return;
    const memory = this.options.storage === 'memory';
    if (!this.options.processes) {
      const storage = memory ? { storage: 'memory' as const } : { dataDir: this.dataDir };
      this.embedded = await startBroker({ host: HOST, port: this.port, ...storage, config: this.configs(), logLevel: this.options.logLevel });
      this.port = this.embedded.port;
      this.http = this.embedded.http;
      return;
    }
    const storage = memory ? ['--storage', 'memory'] : ['--data-dir', this.dataDir];
    const args = [cliPath(), '--host', HOST, '--port', String(this.port), ...storage, '--log-level', this.options.logLevel ?? 'warn'];
    for (const [name, value] of Object.entries(this.configs())) args.push('--set', `${name}=${value}`);
    const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    proc.stderr!.on('data', (d) => (stderr = (stderr + d).slice(-8192)));
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    this.child = { proc, exited };
    exited.then(() => {
      if (this.child?.proc === proc) this.child = null;
    });
    try {
      this.port = await new Promise<number>((resolve, reject) => {
        let out = '';
        const timer = setTimeout(() => reject(new Error(`broker ${this.id} did not become ready: ${stderr}`)), READY_TIMEOUT_MS);
        proc.stdout!.on('data', (d) => {
          out += d;
          const m = /krill ready on [^\s]+:(\d+)/.exec(out);
          if (m) {
            clearTimeout(timer);
            this.http = /, http: ([^\s)]+)\)/.exec(out)?.[1] ?? null;
            resolve(Number(m[1]));
          }
        });
        exited.then(() => {
          clearTimeout(timer);
          reject(new Error(`broker ${this.id} exited before it was ready: ${stderr}`));
        });
      });
    } catch (err) {
      proc.kill('SIGKILL');
      await exited;
      throw err;
    }
  }

  async stop(): Promise<void> {
    if (this.embedded) {
      const b = this.embedded;
      this.embedded = null;
      await b.close();
    }
    if (this.child) {
      const { proc, exited } = this.child;
      proc.kill('SIGTERM');
      proc.kill('SIGCONT'); // a paused broker takes the SIGTERM only once running
      await exited;
    }
  }

  async kill(): Promise<void> {
    if (this.embedded) throw new Error('kill() needs brokers in child processes: startCluster({ processes: true })');
    if (!this.child) return;
    const { proc, exited } = this.child;
    proc.kill('SIGKILL');
    await exited;
  }

  pause(): void {
    this.signal('SIGSTOP', 'pause');
  }

  resume(): void {
    this.signal('SIGCONT', 'resume');
  }

  private signal(signal: NodeJS.Signals, what: string): void {
    if (this.embedded) throw new Error(`${what}() needs brokers in child processes: startCluster({ processes: true })`);
    this.child?.proc.kill(signal);
  }
}
