// The broker's open connections, with Kafka's connection quotas and idle timeout:
// - max.connections.per.ip (with max.connections.per.ip.overrides) and max.connections are checked when a
//   connection is accepted; one over the limit is closed at once. Kafka does that for the per-IP limit;
//   for max.connections its acceptor instead waits for a free slot, which Node's server cannot do (it has no
//   way to stop accepting for a while), so krill closes that connection too and the client retries.
// - connections.max.idle.ms: one timer per broker sweeps the connections, as Kafka's selector checks
//   them periodically, instead of a timer per connection or per request. A connection marks itself active
//   on every read and write (a boolean store), the sweep notes when it last found it active, and closes it
//   once it has been found idle for the configured time; a connection waiting on a request it is serving
//   (a long-poll Fetch, a JoinGroup) or still sending a response is never idle. So a connection is closed
//   no earlier than connections.max.idle.ms after its last activity, and at most a sweep interval or two later.
// The timer runs only while there are connections, and is unref'd.
import type { Logger } from '../logger.js';

/** What the registry needs of a connection. */
export interface TrackedConnection {
  /** The peer's IP address ('' when the socket does not say). */
  readonly address: string;
  /** Set by the connection on every read and write; cleared by the sweep. */
  active: boolean;
  /** True while a request is being served or a response is still being sent. */
  readonly busy: boolean;
  close(): void;
}

export interface ConnectionLimits {
  maxConnections: number;
  maxPerIp: number;
  perIpOverrides: ReadonlyMap<string, number>;
  /** Negative: never close idle connections. */
  idleMs: number;
}

/** IPv4 peers of a dual-stack server are reported as ::ffff:a.b.c.d; quotas are by the IPv4 address. */
export function normaliseAddress(address: string | undefined): string {
  if (!address) return '';
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

export class ConnectionRegistry {
  private readonly all = new Set<TrackedConnection>();
  private readonly perIp = new Map<string, number>();
  /** When the sweep last found each connection active (or when it was added), on the monotonic clock. */
  private readonly lastSeenActive = new Map<TrackedConnection, number>();
  private sweepTimer: NodeJS.Timeout | null = null;
  private readonly sweepIntervalMs: number;

  constructor(
    private limits: ConnectionLimits,
    private readonly log: Logger,
  ) {
    this.sweepIntervalMs = Math.max(10, Math.min(Math.floor(limits.idleMs / 4), 30_000));
  }

  /** New quotas (dynamic max.connections*), for connections accepted from now on; open ones stay, as in Kafka. */
  setQuotas(quotas: Pick<ConnectionLimits, 'maxConnections' | 'maxPerIp' | 'perIpOverrides'>): void {
    this.limits = { ...this.limits, ...quotas };
  }

  get size(): number {
    return this.all.size;
  }

  [Symbol.iterator](): IterableIterator<TrackedConnection> {
    return this.all.values();
  }

  /** Whether a new connection from `address` fits the quotas; logs why not (as Kafka does, at info). */
  admits(address: string): boolean {
    if (this.all.size >= this.limits.maxConnections) {
      this.log.info({ client: address, maxConnections: this.limits.maxConnections }, 'refusing connection: max.connections reached');
      return false;
    }
    const limit = this.limits.perIpOverrides.get(address) ?? this.limits.maxPerIp;
    if ((this.perIp.get(address) ?? 0) >= limit) {
      this.log.info({ client: address, limit }, 'refusing connection: max.connections.per.ip reached for this address');
      return false;
    }
    return true;
  }

  add(connection: TrackedConnection): void {
    this.all.add(connection);
    this.perIp.set(connection.address, (this.perIp.get(connection.address) ?? 0) + 1);
    if (this.limits.idleMs < 0) return;
    this.lastSeenActive.set(connection, performance.now());
    if (!this.sweepTimer) {
      this.sweepTimer = setInterval(() => this.sweep(), this.sweepIntervalMs);
      this.sweepTimer.unref();
    }
  }

  delete(connection: TrackedConnection): void {
    if (!this.all.delete(connection)) return;
    const n = (this.perIp.get(connection.address) ?? 1) - 1;
    if (n === 0) this.perIp.delete(connection.address);
    else this.perIp.set(connection.address, n);
    this.lastSeenActive.delete(connection);
    if (this.all.size === 0) this.stopSweeping();
  }

  /** Closes every connection (the broker is closing). */
  closeAll(): void {
    this.stopSweeping();
    for (const c of [...this.all]) c.close();
  }

  private stopSweeping(): void {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.sweepTimer = null;
  }

  private sweep(): void {
    const now = performance.now();
    for (const [c, seen] of this.lastSeenActive) {
      if (c.active || c.busy) {
        c.active = false;
        this.lastSeenActive.set(c, now);
      } else if (now - seen >= this.limits.idleMs) {
        this.log.debug({ client: c.address, idleMs: Math.round(now - seen) }, 'closing idle connection (connections.max.idle.ms)');
        c.close();
      }
    }
  }
}
