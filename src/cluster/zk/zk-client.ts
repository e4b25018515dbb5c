// A ZooKeeper session as promises, over node-zookeeper-client (loaded lazily: only cluster mode, with
// zookeeper.connect set, loads this folder and that package).
//
// The connect string is Kafka's `host1:port1,host2:port2/chroot`. As Kafka does at start, a chroot that does
// not exist yet is created first, through a session without the chroot.
//
// Errors: every ZooKeeper failure becomes a ZkError with the server's code name (NODE_EXISTS, NO_NODE,
// BAD_VERSION, NOT_EMPTY, CONNECTION_LOSS, SESSION_EXPIRED, ...) and the path it concerns.
//
// Watches are ZooKeeper's: one-shot, and set again by the caller when it reads again. A watch on a node that
// does not exist is set with exists(), so it fires when the node is created. Every read with a watch adds
// one callback, so a caller watches a path once until its watch has fired.
//
// Session lifecycle: while the connection drops and comes back within the session timeout, the session, its
// ephemeral nodes and its watches survive ('disconnected', then 'connected'). Once the server has expired the
// session, 'expired' is emitted and this client is dead for good: its ephemeral nodes are gone, its watches
// never fire, every call fails with SESSION_EXPIRED. The owner must then ZkClient.connect() a new session and
// register everything again, as Kafka's KafkaZkClient does on its session-expiry handler.

import { createRequire } from 'node:module';
import type * as ZooKeeper from 'node-zookeeper-client';

type ZkLib = typeof ZooKeeper;
let zkLib: ZkLib | undefined;
function lib(): ZkLib {
  zkLib ??= createRequire(import.meta.url)('node-zookeeper-client') as ZkLib;
  return zkLib;
}

/** A failed ZooKeeper operation; `code` is ZooKeeper's name of the error. */
export class ZkError extends Error {
  constructor(
    readonly code: 'NODE_EXISTS' | 'NO_NODE' | 'BAD_VERSION' | 'NOT_EMPTY' | 'CONNECTION_LOSS' | 'SESSION_EXPIRED' | string,
    message: string,
    readonly path?: string,
    /** For a failed multi: the index of the operation that failed. */
    readonly opIndex?: number,
  ) {
    super(message);
    this.name = 'ZkError';
  }
}

export interface ZkClientOptions {
  /** Kafka's zookeeper.connect: `host1:port1,host2:port2[/chroot]`. */
  connect: string;
  sessionTimeoutMs: number;
  /** How long connect() waits for a first connection before it gives up (zookeeper.connection.timeout.ms). */
  connectionTimeoutMs: number;
  log: { info(o: object, m?: string): void; warn(o: object, m?: string): void };
}

export type ZkCreateMode = 'persistent' | 'ephemeral' | 'persistent_sequential';

export type ZkOp =
  | { op: 'check'; path: string; version: number }
  | { op: 'create'; path: string; data: Buffer | null; mode: ZkCreateMode }
  | { op: 'set'; path: string; data: Buffer; version?: number }
  | { op: 'delete'; path: string; version?: number };

export interface ZkNodeData {
  data: Buffer | null;
  /** The node's data version, for conditional writes. */
  version: number;
  /** The zxid of the transaction that created the node (Kafka's broker epoch for /brokers/ids/<id>). */
  czxid: bigint;
  /** For an ephemeral node, the owning session as sessionId() prints it; null for a persistent one. */
  ephemeralOwner: string | null;
  /** When the node was created, in ms since the epoch (ZooKeeper's ctime). */
  ctime: number;
}

/** The shortest wait for a server's answer before a stuck reconnection is started again. */
const MIN_HANDSHAKE_WAIT_MS = 1000;
/** Any version: ZooKeeper's -1. */
const ANY_VERSION = -1;

/** Splits Kafka's connect string into the servers and the chroot ('' when there is none). */
export function splitConnectString(connect: string): { servers: string; chroot: string } {
  const slash = connect.indexOf('/');
  if (slash < 0) return { servers: connect, chroot: '' };
  const chroot = connect.slice(slash).replace(/\/+$/, '');
  return { servers: connect.slice(0, slash), chroot };
}

export class ZkClient {
  /** Set on 'expired': from then on every call fails with SESSION_EXPIRED (the library says CONNECTION_LOSS). */
  private expired = false;
  /** Set by close(): the disconnection that follows is ours, not news. */
  private closing = false;
  private reconnectWatch: NodeJS.Timeout | null = null;

  private constructor(
    private readonly client: ZooKeeper.Client,
    private readonly connectString: string,
  ) {
    client.on('expired', () => {
      this.expired = true;
    });
  }

  /**
   * A connected session. Rejects after connectionTimeoutMs when no server answered, with the connect string
   * in the message; that attempt's client is closed, so nothing keeps the process alive.
   */
  static async connect(opts: ZkClientOptions): Promise<ZkClient> {
    const { servers, chroot } = splitConnectString(opts.connect);
    if (chroot !== '') {
      const root = await ZkClient.open(servers, opts);
      try {
        await root.createIfMissing(chroot);
        opts.log.info({ chroot }, 'ZooKeeper chroot ready');
      } finally {
        await root.close();
      }
    }
    return ZkClient.open(opts.connect, opts);
  }

  private static open(connect: string, opts: ZkClientOptions): Promise<ZkClient> {
    const client = lib().createClient(connect, { sessionTimeout: opts.sessionTimeoutMs, spinDelay: 500 });
    return new Promise<ZkClient>((resolve, reject) => {
      const timer = setTimeout(() => {
        client.removeListener('connected', onConnected);
        closeQuietly(client);
        reject(new Error(`could not connect to ZooKeeper at ${connect} within ${opts.connectionTimeoutMs} ms (zookeeper.connect)`));
      }, opts.connectionTimeoutMs);
      const onConnected = (): void => {
        clearTimeout(timer);
        const zk = new ZkClient(client, connect);
        opts.log.info({ connect, sessionId: zk.sessionId() }, 'connected to ZooKeeper');
        client.on('disconnected', () => {
          if (zk.closing) return;
          opts.log.warn({ connect }, 'ZooKeeper connection lost');
          zk.watchReconnection(Math.max(MIN_HANDSHAKE_WAIT_MS, Math.floor(opts.sessionTimeoutMs / 3)));
        });
        client.on('connected', () => {
          zk.stopWatchingReconnection();
          opts.log.info({ connect, sessionId: zk.sessionId() }, 'ZooKeeper connection restored');
        });
        client.on('expired', () => {
          zk.stopWatchingReconnection();
          opts.log.warn({ connect, sessionId: zk.sessionId() }, 'ZooKeeper session expired');
        });
        resolve(zk);
      };
      client.once('connected', onConnected);
      client.connect();
    });
  }

  /**
   * node-zookeeper-client waits for a server's answer to its connect request without a timeout: a server
   * that accepted the connection while still starting (a ZooKeeper restarting on its port) leaves the
   * client waiting for good, neither connected nor expired. While disconnected, this drops the library's
   * socket every `everyMs` so that it connects again, with the same session (which ZooKeeper resumes, or
   * reports expired).
   */
  private watchReconnection(everyMs: number): void {
    if (this.reconnectWatch) return;
    this.reconnectWatch = setInterval(() => {
      if (this.closing) return this.stopWatchingReconnection();
      (this.client as unknown as { connectionManager?: { socket?: { destroy(): void } } }).connectionManager?.socket?.destroy();
    }, everyMs);
    this.reconnectWatch.unref();
  }

  private stopWatchingReconnection(): void {
    if (this.reconnectWatch) clearInterval(this.reconnectWatch);
    this.reconnectWatch = null;
  }

  /** The session id, as ZooKeeper's tools print it (0x...). */
  sessionId(): string {
    return `0x${this.client.getSessionId().readBigUInt64BE(0).toString(16)}`;
  }

  /** 'expired' is final: see the file comment. */
  on(event: 'expired' | 'disconnected' | 'connected', cb: () => void): void {
    this.client.on(event, cb);
  }

  create(path: string, data: Buffer | null, mode: ZkCreateMode): Promise<string> {
    return this.request<string>(path, (cb) => {
      if (data === null) this.client.create(path, createMode(mode), cb);
      else this.client.create(path, data, createMode(mode), cb);
    });
  }

  /** Creates the node and its missing parents; a node already there is left as it is. */
  async createIfMissing(path: string, data: Buffer | null = null): Promise<void> {
    await this.request<string>(path, (cb) => {
      if (data === null) this.client.mkdirp(path, cb);
      else this.client.mkdirp(path, data, cb);
    });
  }

  /** The node's data and version; null when there is no such node. */
  async getData(path: string, watch?: () => void): Promise<ZkNodeData | null> {
    const fire = watch && once(watch);
    // Bounded: each turn means the node was created or deleted between our two reads.
    for (let attempt = 0; attempt < 10; attempt++) {
      const read = await this.request<ZkNodeData | null>(path, (cb) => {
        const done = (err: unknown, data: Buffer, stat: ZooKeeper.Stat): void => {
          if (isCode(err, 'NO_NODE')) cb(null, null);
          else if (err) cb(err);
          else {
            const owner = stat.ephemeralOwner.readBigUInt64BE(0);
            cb(null, {
              data: data ?? null,
              version: stat.version,
              czxid: stat.czxid.readBigInt64BE(0),
              ephemeralOwner: owner === 0n ? null : `0x${owner.toString(16)}`,
              ctime: Number(stat.ctime.readBigInt64BE(0)),
            });
          }
        };
        if (fire) this.client.getData(path, fire, done);
        else this.client.getData(path, done);
      });
      if (read !== null || !fire) return read;
      if (!(await this.existsWatch(path, fire))) return null;
    }
    throw new ZkError('CONNECTION_LOSS', `${path} keeps appearing and disappearing`, path);
  }

  setData(path: string, data: Buffer, version = ANY_VERSION): Promise<number> {
    return this.request<number>(path, (cb) => this.client.setData(path, data, version, (err, stat) => cb(err, stat?.version)));
  }

  /** The children's names; [] when there is no such node (a watch then fires on its creation). */
  async getChildren(path: string, watch?: () => void): Promise<string[]> {
    const fire = watch && once(watch);
    for (let attempt = 0; attempt < 10; attempt++) {
      const read = await this.request<string[] | null>(path, (cb) => {
        const done = (err: unknown, children: string[]): void => (isCode(err, 'NO_NODE') ? cb(null, null) : cb(err, children));
        if (fire) this.client.getChildren(path, fire, done);
        else this.client.getChildren(path, done);
      });
      if (read !== null) return read;
      if (!fire || !(await this.existsWatch(path, fire))) return [];
    }
    throw new ZkError('CONNECTION_LOSS', `${path} keeps appearing and disappearing`, path);
  }

  delete(path: string, version = ANY_VERSION): Promise<void> {
    return this.request<void>(path, (cb) => this.client.remove(path, version, (err) => cb(err)));
  }

  /** Deletes the node and everything under it; nothing when it is not there. */
  async deleteRecursive(path: string): Promise<void> {
    for (const child of await this.getChildren(path)) await this.deleteRecursive(childPath(path, child));
    try {
      await this.delete(path);
    } catch (err) {
      if (isCode(err, 'NO_NODE')) return;
      // A child created meanwhile: go round once more.
      if (isCode(err, 'NOT_EMPTY')) return this.deleteRecursive(path);
      throw err;
    }
  }

  /** All the operations or none. A failure is the ZkError of the failing operation, with its opIndex. */
  multi(ops: ZkOp[]): Promise<void> {
    if (this.expired) return Promise.reject(sessionExpired(ops[0]?.path));
    const tx = this.client.transaction();
    for (const o of ops) {
      if (o.op === 'check') tx.check(o.path, o.version);
      else if (o.op === 'create') {
        if (o.data === null) tx.create(o.path, createMode(o.mode));
        else tx.create(o.path, o.data, createMode(o.mode));
      } else if (o.op === 'set') tx.setData(o.path, o.data, o.version ?? ANY_VERSION);
      else tx.remove(o.path, o.version ?? ANY_VERSION);
      // node-zookeeper-client 1.1.3's Transaction reads a version of 0 as "any" (`version || -1`), which would
      // make a check of a znode's first version always pass: put the version back.
      if (o.op !== 'create') (tx as unknown as { ops: { version: number }[] }).ops.at(-1)!.version = o.version ?? ANY_VERSION;
    }
    return new Promise((resolve, reject) => {
      tx.commit((err, results: unknown) => {
        if (!err) return resolve();
        // The op that failed reports its code; those before it report OK (0), those after it
        // RUNTIME_INCONSISTENCY (-2).
        const list = Array.isArray(results) ? (results as { err?: number }[]) : [];
        const index = list.findIndex((r) => typeof r.err === 'number' && r.err !== 0 && r.err !== -2);
        const path = index >= 0 ? ops[index].path : undefined;
        const base = this.expired ? sessionExpired(path) : toZkError(err, path);
        reject(new ZkError(base.code, base.message, path, index >= 0 ? index : undefined));
      });
    });
  }

  /** Ends the session: its ephemeral nodes go at once. */
  close(): Promise<void> {
    this.closing = true;
    this.stopWatchingReconnection();
    return new Promise((resolve) => {
      const state = this.client.getState();
      if (state === lib().State.EXPIRED || state === lib().State.DISCONNECTED) {
        closeQuietly(this.client);
        return resolve();
      }
      // The library reports the end of the session as 'disconnected' once the server closed it.
      const timer = setTimeout(resolve, 5_000);
      this.client.once('disconnected', () => {
        clearTimeout(timer);
        resolve();
      });
      closeQuietly(this.client);
    });
  }

  /** Sets a watch with exists(); true when the node exists after all (created between two reads). */
  private existsWatch(path: string, fire: () => void): Promise<boolean> {
    return this.request<boolean>(path, (cb) => this.client.exists(path, fire, (err, stat) => cb(err, Boolean(stat))));
  }

  /** Runs one library call: SESSION_EXPIRED at once on a dead session, the library's errors as ZkErrors. */
  private request<T>(path: string, start: (cb: (err: unknown, value?: T) => void) => void): Promise<T> {
    if (this.expired) return Promise.reject(sessionExpired(path));
    return new Promise<T>((resolve, reject) => {
      start((err, value) => {
        if (!err) resolve(value as T);
        else reject(this.expired ? sessionExpired(path) : toZkError(err, path));
      });
    });
  }

  toString(): string {
    return `ZkClient(${this.connectString})`;
  }
}

export function childPath(parent: string, child: string): string {
  return parent === '/' ? `/${child}` : `${parent}/${child}`;
}

function createMode(mode: ZkCreateMode): number {
  const m = lib().CreateMode;
  return mode === 'ephemeral' ? m.EPHEMERAL : mode === 'persistent_sequential' ? m.PERSISTENT_SEQUENTIAL : m.PERSISTENT;
}

/** A watch callback that runs the caller's function once, whatever event and however often it is called. */
function once(watch: () => void): () => void {
  let fired = false;
  return () => {
    if (fired) return;
    fired = true;
    watch();
  };
}

function closeQuietly(client: ZooKeeper.Client): void {
  try {
    client.close();
  } catch {
    // Already closed.
  }
}

function sessionExpired(path?: string): ZkError {
  return new ZkError('SESSION_EXPIRED', `SESSION_EXPIRED${path === undefined ? '' : ` on ${path}`}: connect a new session`, path);
}

export function isCode(err: unknown, code: string): boolean {
  if (err instanceof ZkError) return err.code === code;
  return err instanceof lib().Exception && err.getName() === code;
}

function toZkError(err: unknown, path?: string): ZkError {
  if (err instanceof ZkError) return err;
  if (err instanceof lib().Exception) {
    const code = err.getName();
    return new ZkError(code, path === undefined ? code : `${code} on ${path}`, path);
  }
  return new ZkError('SYSTEM_ERROR', `${(err as Error)?.message ?? String(err)}${path === undefined ? '' : ` (${path})`}`, path);
}
