// Kafka's DelayedOperationPurgatory: where a request that cannot be answered yet waits for something to
// happen to what it watches (a partition), or for its deadline.
//
// An operation watches one or more keys. Whoever changes the state behind a key (an append, a move of the
// high watermark, a member joining) calls checkAndComplete(key); each operation watching it is asked
// tryComplete(), and one that can complete is completed exactly once and leaves every key it watched. An
// operation that never completes expires at its deadline (onExpiration, then onComplete), or when its
// abort signal fires (the client's connection closed). Fetch's wait for min_bytes and acks=all produce's
// wait for followers use it (ReplicaManager's two purgatories); a rebalance waits on the group's own timers.

export interface DelayedOperationSpec {
  /** Whether the operation can complete now; called on every checkAndComplete of a watched key. */
  tryComplete(): boolean;
  /** Called once, after tryComplete() said yes, or the operation expired or was aborted. */
  onComplete(): void;
  /** Called before onComplete() when the deadline passed (or the wait was aborted) first. */
  onExpiration?(): void;
}

export class DelayedOperation {
  private done = false;
  private timer: NodeJS.Timeout | null = null;
  private abortSignal: AbortSignal | null = null;
  private readonly abort = () => this.expire();
  /** Takes the operation out of each watcher set it sits in (and drops sets left empty), on completion. */
  readonly leaveWatchers: (() => void)[] = [];

  constructor(private readonly spec: DelayedOperationSpec) {}

  get completed(): boolean {
    return this.done;
  }

  /** Completes the operation if it has not completed yet; true when this call did it. */
  forceComplete(): boolean {
    if (this.done) return false;
    this.done = true;
    if (this.timer) clearTimeout(this.timer);
    this.abortSignal?.removeEventListener('abort', this.abort);
    for (const leave of this.leaveWatchers) leave();
    this.leaveWatchers.length = 0;
    this.spec.onComplete();
    return true;
  }

  /** Asks the operation whether it can complete and completes it if so. */
  maybeTryComplete(): boolean {
    return !this.done && this.spec.tryComplete() && this.forceComplete();
  }

  /** @internal Arms the deadline and the abort signal. */
  arm(timeoutMs: number, signal: AbortSignal | undefined): void {
    if (this.done) return;
    this.timer = setTimeout(() => this.expire(), Math.max(0, Math.min(timeoutMs, 2_147_483_647)));
    if (signal) {
      this.abortSignal = signal;
      if (signal.aborted) this.expire();
      else signal.addEventListener('abort', this.abort, { once: true });
    }
  }

  private expire(): void {
    if (this.done) return;
    this.spec.onExpiration?.();
    this.forceComplete();
  }
}

export class DelayedOperationPurgatory<K> {
  private readonly watchers = new Map<K, Set<DelayedOperation>>();

  constructor(readonly name: string) {}

  /**
   * Completes `op` at once when it can; otherwise it watches `keys` until it can, until `timeoutMs`
   * passes, or until `signal` aborts. Returns whether it completed at once.
   */
  tryCompleteElseWatch(op: DelayedOperation, keys: readonly K[], timeoutMs: number, signal?: AbortSignal): boolean {
    if (op.maybeTryComplete()) return true;
    for (const key of keys) {
      let set = this.watchers.get(key);
      if (!set) {
        set = new Set();
        this.watchers.set(key, set);
      }
      const watchers = set;
      watchers.add(op);
      op.leaveWatchers.push(() => {
        watchers.delete(op);
        if (watchers.size === 0 && this.watchers.get(key) === watchers) this.watchers.delete(key);
      });
    }
    // Checked again once watching, as Kafka does, so a change between the two checks is not missed.
    if (op.maybeTryComplete()) return true;
    op.arm(timeoutMs, signal);
    return op.completed;
  }

  /** Something changed behind `key`: completes the operations watching it that can now complete. */
  checkAndComplete(key: K): number {
    const set = this.watchers.get(key);
    if (!set) return 0;
    let completed = 0;
    for (const op of [...set]) if (op.maybeTryComplete()) completed++;
    return completed;
  }

  /** Completes every operation watching `key` whatever its state (the key's partition went away). */
  completeAll(key: K): number {
    const set = this.watchers.get(key);
    if (!set) return 0;
    let completed = 0;
    for (const op of [...set]) if (op.forceComplete()) completed++;
    return completed;
  }

  /** Operations waiting on `key` (for tests and metrics). */
  watched(key: K): number {
    return this.watchers.get(key)?.size ?? 0;
  }

  /**
   * Kafka's PurgatorySize: the operations watching each key, summed over the keys (an operation watching
   * three partitions counts three times). Counted when asked (a scrape), not kept up on the request path.
   */
  watchedCount(): number {
    let n = 0;
    for (const set of this.watchers.values()) n += set.size;
    return n;
  }

  /** Kafka's NumDelayedOperations: the operations waiting, each once. */
  delayedCount(): number {
    const ops = new Set<DelayedOperation>();
    for (const set of this.watchers.values()) for (const op of set) ops.add(op);
    return ops.size;
  }

  /** Keys with at least one waiting operation (an operation that completes leaves every key it watched). */
  get size(): number {
    return this.watchers.size;
  }
}

/**
 * The common use: wait until `ready()` holds after a change to one of `keys`, or until the deadline or
 * the abort signal. Resolves true when ready, false on expiry or abort.
 */
export function awaitDelayed<K>(
  purgatory: DelayedOperationPurgatory<K>,
  keys: readonly K[],
  timeoutMs: number,
  signal: AbortSignal | undefined,
  ready: () => boolean,
): Promise<boolean> {
  return new Promise((resolve) => {
    let expired = false;
    const op = new DelayedOperation({
      tryComplete: ready,
      onExpiration: () => {
        expired = true;
      },
      onComplete: () => resolve(!expired),
    });
    purgatory.tryCompleteElseWatch(op, keys, timeoutMs, signal);
  });
}
