// What the group coordinator and its offsets depend on from outside: where its records go
// (__consumer_offsets, or nothing in unit tests), when they are replicated, and the clock and timers (fake
// ones in tests).

export interface Timers {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Looks the global timer functions up at call time, so vi.useFakeTimers() takes effect. */
export const realTimers: Timers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    (t as { unref?: () => void }).unref?.();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

export interface StoreRecord {
  key: Buffer;
  value: Buffer | null;
}

/** The transaction a write belongs to (TxnOffsetCommit): its records are pending until the marker. */
export interface StoreTxn {
  producerId: number;
  producerEpoch: number;
}

export interface CoordinatorStore {
  /** Durably appends the records to the group's __consumer_offsets partition; throws on failure. */
  append(groupId: string, records: StoreRecord[], txn?: StoreTxn): void;
  /**
   * Right after an append: how the group's records come to be replicated (see replicated-write.ts). Null
   * (or no such method) when they already are; else a promise of ReplicaManager.awaitReplicated's outcome.
   */
  replicated?(groupId: string): Promise<number> | null;
}
