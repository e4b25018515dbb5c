// Which partitions of its internal topic a coordinator serves (Kafka's ownedPartitions and
// loadingPartitions, with the coordinator epoch of each): on a single broker all of them, loaded at start
// and never given up; in a cluster those this broker was elected leader of. An election loads the
// partition from the local log in a task of its own (setImmediate: after the controller's request is
// answered, as Kafka schedules its loads), the partition being "loading" meanwhile; a resignation forgets
// it, and makes a load still to run moot. The group and the transaction coordinators both keep one.

interface Served {
  /** The leader epoch the partition was elected in (the transaction markers' coordinator epoch). */
  epoch: number;
  /** The load task while it has not run yet; null once the partition is loaded. */
  loading: symbol | null;
}

export class ServedPartitions {
  /** Null on a single broker: every partition served, in epoch 0. */
  private readonly partitions: Map<number, Served> | null;

  private constructor(partitions: Map<number, Served> | null) {
    this.partitions = partitions;
  }

  /** A single broker's coordinator: every partition, served from the start in epoch 0. */
  static all(): ServedPartitions {
    return new ServedPartitions(null);
  }

  /** A cluster broker's coordinator: the partitions it is elected leader of, none until then. */
  static byElection(): ServedPartitions {
    return new ServedPartitions(new Map());
  }

  /** Whether the partition is served and loaded (always on a single broker). */
  serves(p: number): boolean {
    return this.partitions === null || this.partitions.get(p)?.loading === null;
  }

  isLoading(p: number): boolean {
    return !!this.partitions?.get(p)?.loading;
  }

  /** Whether some partition is still loading (the list APIs say so, as Kafka's). */
  anyLoading(): boolean {
    for (const served of this.partitions?.values() ?? []) if (served.loading) return true;
    return false;
  }

  /** The epoch the partition is served in (0 on a single broker). */
  epoch(p: number): number {
    return this.partitions?.get(p)?.epoch ?? 0;
  }

  /**
   * Elected leader of `p` in `epoch`: `load` runs in a task of its own, and the promise says whether it ran
   * (false: the partition was already served, which only takes the newer epoch, or resigned before the load
   * ran, or this is a single broker). A load that throws has reported its failure itself; as Kafka, the
   * partition is then served with what was read.
   */
  elect(p: number, epoch: number, load: () => void): Promise<boolean> {
    if (this.partitions === null) return Promise.resolve(false);
    const served = this.partitions.get(p);
    if (served) {
      served.epoch = Math.max(served.epoch, epoch);
      return Promise.resolve(false);
    }
    const entry: Served = { epoch, loading: Symbol(`load-${p}`) };
    this.partitions.set(p, entry);
    return new Promise((resolve) => {
      setImmediate(() => {
        if (this.partitions!.get(p) !== entry) return resolve(false); // resigned meanwhile
        try {
          load();
        } catch {
          // reported by `load` itself (the broker logs it)
        }
        entry.loading = null;
        resolve(true);
      });
    });
  }

  /** No longer leader of `p`: whether it was served (its state must then leave memory). */
  resign(p: number): boolean {
    return this.partitions !== null && this.partitions.delete(p);
  }

  /** Forgets every partition (the coordinator closes): loads still to run are moot. */
  clear(): void {
    this.partitions?.clear();
  }
}
