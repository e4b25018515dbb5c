// Kafka's transaction coordinator (KIP-98, the classic protocol every client krill serves runs; see
// ApiVersions: no transaction.version feature): one TransactionMetadata per transactional id, its state
// machine, and the markers that end a transaction on each of its partitions. Every state change is written
// to __transaction_state (state-topic.ts) before it is answered. Markers of partitions this broker leads are
// written synchronously before EndTxn is answered; in a cluster, those of partitions other brokers lead go to
// them (WriteTxnMarkers) and the transaction stays prepared until they have written them. A load after a
// crash completes what was prepared.
//
// Which transactional ids: a single broker coordinates them all, loaded at start. In a cluster (ServedPartitions.byElection())
// the coordinator serves the ids of the __transaction_state partitions this broker leads, as Kafka's
// TransactionStateManager: elected, a partition is replayed from the local log in a task of its own
// (COORDINATOR_LOAD_IN_PROGRESS meanwhile) and what it left prepared is completed; resigned, its ids leave
// memory. The coordinator epoch of the markers is the partition's leader epoch, so that the markers of a
// deposed coordinator are fenced by the partitions' producer state.

import { ErrorCode } from '../../protocol/errors.js';
import { ServedPartitions } from '../group/served-partitions.js';

export type TxnState = 'Empty' | 'Ongoing' | 'PrepareCommit' | 'PrepareAbort' | 'CompleteCommit' | 'CompleteAbort' | 'Dead' | 'PrepareEpochFence';

/** Kafka's TransactionState ids, as stored in TransactionLogValue.transactionStatus. */
export const TXN_STATE_IDS: Readonly<Record<TxnState, number>> = {
  Empty: 0,
  Ongoing: 1,
  PrepareCommit: 2,
  PrepareAbort: 3,
  CompleteCommit: 4,
  CompleteAbort: 5,
  Dead: 6,
  PrepareEpochFence: 7,
};
export const TXN_STATES_BY_ID = Object.fromEntries(Object.entries(TXN_STATE_IDS).map(([k, v]) => [v, k])) as Record<number, TxnState>;

export interface TransactionMetadata {
  transactionalId: string;
  producerId: number;
  producerEpoch: number;
  timeoutMs: number;
  state: TxnState;
  /** topic → partitions in the current transaction. */
  partitions: Map<string, Set<number>>;
  startTimestamp: number;
  lastUpdateTimestamp: number;
}

/** What the coordinator needs of the broker around it. */
export interface TxnCoordinatorHost {
  generateProducerId(): number;
  /** Durably records the transaction's state (a __transaction_state record); throws on failure. */
  persist(meta: TransactionMetadata): void;
  /** Durably forgets an expired transactional id (a tombstone); throws on failure. */
  forget(transactionalId: string): void;
  /**
   * Writes the marker ending the transaction on one partition; throws when the partition is gone. Returns
   * false when the marker is on its way to another broker (the partition's leader, in a cluster): the
   * transaction then stays prepared, and retryPrepared() completes it once the broker has written it.
   */
  writeMarker(topic: string, partition: number, producerId: number, producerEpoch: number, commit: boolean, coordinatorEpoch: number): boolean | void;
  partitionExists(topic: string, partition: number): boolean;
  now(): number;
}

export interface TxnCoordinatorOptions {
  /** transaction.max.timeout.ms */
  maxTimeoutMs: number;
  /** transactional.id.expiration.ms: an id without a transaction for this long is forgotten. */
  idExpirationMs?: number;
  /** The __transaction_state partition of a transactional id; default: all in one. */
  partitionOf?: (transactionalId: string) => number;
  /**
   * Which partitions of its topic it serves: default ServedPartitions.all() (a single broker); a broker of a
   * cluster gives ServedPartitions.byElection(), the partitions it was elected for (onElection).
   */
  served?: ServedPartitions;
}

const MAX_EPOCH = 32766; // Short.MaxValue - 1: the epoch after it needs a new producer id, as in Kafka

export type InitResult = { errorCode: number; producerId: number; producerEpoch: number };

export class TransactionCoordinator {
  private readonly txns = new Map<string, TransactionMetadata>();
  /** The __transaction_state partitions served: all on a single broker (coordinator epoch 0), those it leads in a cluster. */
  private readonly served: ServedPartitions;
  private readonly partitionOf: (transactionalId: string) => number;

  constructor(
    private readonly host: TxnCoordinatorHost,
    private readonly options: TxnCoordinatorOptions,
  ) {
    this.served = options.served ?? ServedPartitions.all();
    this.partitionOf = options.partitionOf ?? (() => 0);
  }

  // --- the partitions served (a cluster) -------------------------------------------------------------

  /** Whether this coordinator serves the id now (its partition loaded; always on a single broker). */
  coordinates(transactionalId: string): boolean {
    return this.served.serves(this.partitionOf(transactionalId));
  }

  /** Whether the id's partition is being loaded (requests for it: COORDINATOR_LOAD_IN_PROGRESS). */
  isLoading(transactionalId: string): boolean {
    return this.served.isLoading(this.partitionOf(transactionalId));
  }

  /** Whether some partition's ids are still being loaded (ListTransactions: COORDINATOR_LOAD_IN_PROGRESS). */
  isLoadingAny(): boolean {
    return this.served.anyLoading();
  }

  /** The coordinator epoch the id's markers carry: its partition's leader epoch (0 on a single broker). */
  coordinatorEpoch(transactionalId: string): number {
    return this.served.epoch(this.partitionOf(transactionalId));
  }

  /**
   * This broker now leads __transaction_state partition `p` in leader epoch `coordinatorEpoch` (Kafka's
   * loadTransactionsForTxnTopicPartition): `load` replays it in a task of its own, then the transactions it
   * left prepared get their markers (again), under the new epoch. A partition already served only takes the
   * newer epoch. The promise settles when the load has run.
   */
  async onElection(p: number, coordinatorEpoch: number, load: () => void): Promise<void> {
    if (await this.served.elect(p, coordinatorEpoch, load)) this.retryPrepared();
  }

  /** This broker no longer leads partition `p` (Kafka's removeTransactionsForTxnTopicPartition): its ids leave memory. */
  onResignation(p: number): void {
    if (!this.served.resign(p)) return;
    for (const id of [...this.txns.keys()]) if (this.partitionOf(id) === p) this.txns.delete(id);
  }

  get(transactionalId: string): TransactionMetadata | undefined {
    return this.txns.get(transactionalId);
  }

  all(): TransactionMetadata[] {
    return [...this.txns.values()];
  }

  /** Replay of __transaction_state (null value: the id expired). */
  load(meta: TransactionMetadata | null, transactionalId: string): void {
    if (meta) this.txns.set(transactionalId, meta);
    else this.txns.delete(transactionalId);
  }

  /** After a load: a transaction caught between its prepare record and its markers is completed now. */
  completePrepared(): void {
    this.retryPrepared();
  }

  initProducerId(transactionalId: string, timeoutMs: number, producerId: number, producerEpoch: number): InitResult {
    const fail = (errorCode: number): InitResult => ({ errorCode, producerId: -1, producerEpoch: -1 });
    if (timeoutMs <= 0 || timeoutMs > this.options.maxTimeoutMs) return fail(ErrorCode.INVALID_TRANSACTION_TIMEOUT);
    const now = this.host.now();
    let meta = this.txns.get(transactionalId);
    if (!meta) {
      meta = {
        transactionalId,
        producerId: this.host.generateProducerId(),
        producerEpoch: 0,
        timeoutMs,
        state: 'Empty',
        partitions: new Map(),
        startTimestamp: -1,
        lastUpdateTimestamp: now,
      };
      this.host.persist(meta);
      this.txns.set(transactionalId, meta);
      return { errorCode: ErrorCode.NONE, producerId: meta.producerId, producerEpoch: meta.producerEpoch };
    }
    // KIP-360: a producer recovering with its id and epoch must still be the current one.
    if (producerId !== -1 && (producerId !== meta.producerId || producerEpoch !== meta.producerEpoch)) return fail(ErrorCode.PRODUCER_FENCED);
    if (meta.state === 'PrepareCommit' || meta.state === 'PrepareAbort' || meta.state === 'PrepareEpochFence') return fail(ErrorCode.CONCURRENT_TRANSACTIONS);
    if (meta.state === 'Ongoing') {
      // As Kafka: a transaction left open by an earlier incarnation is aborted under the bumped epoch that
      // fences it, and the caller is told to retry (CONCURRENT_TRANSACTIONS); its retry bumps the epoch again.
      this.fenceEpoch(meta);
      this.writeMarkersAndComplete(meta, false);
      return fail(ErrorCode.CONCURRENT_TRANSACTIONS);
    }
    this.bumpEpoch(meta);
    meta.timeoutMs = timeoutMs;
    meta.state = 'Empty';
    meta.partitions = new Map();
    meta.startTimestamp = -1;
    meta.lastUpdateTimestamp = now;
    this.host.persist(meta);
    return { errorCode: ErrorCode.NONE, producerId: meta.producerId, producerEpoch: meta.producerEpoch };
  }

  /**
   * The epoch that fences the producer for the markers of its open transaction: always under the same
   * producer id (up to Short.MAX_VALUE), so the markers close the transaction its batches opened; a new
   * producer id comes at the next bumpEpoch.
   */
  private fenceEpoch(meta: TransactionMetadata): void {
    meta.producerEpoch = Math.min(meta.producerEpoch + 1, MAX_EPOCH + 1);
  }

  private bumpEpoch(meta: TransactionMetadata): void {
    if (meta.producerEpoch >= MAX_EPOCH) {
      meta.producerId = this.host.generateProducerId();
      meta.producerEpoch = 0;
    } else meta.producerEpoch++;
  }

  /** The checks every request of a transaction's producer goes through; an error code or null. */
  private check(meta: TransactionMetadata | undefined, producerId: number, producerEpoch: number): number | null {
    if (!meta || meta.producerId !== producerId) return ErrorCode.INVALID_PRODUCER_ID_MAPPING;
    if (producerEpoch !== meta.producerEpoch) return ErrorCode.PRODUCER_FENCED;
    if (meta.state === 'PrepareCommit' || meta.state === 'PrepareAbort' || meta.state === 'PrepareEpochFence') return ErrorCode.CONCURRENT_TRANSACTIONS;
    return null;
  }

  /** Adds partitions to the producer's transaction (starting it). Returns an error code per partition. */
  addPartitions(
    transactionalId: string,
    producerId: number,
    producerEpoch: number,
    topics: { name: string; partitions: number[] }[],
  ): Map<string, Map<number, number>> {
    const meta = this.txns.get(transactionalId);
    const result = new Map<string, Map<number, number>>();
    const all = (code: number) => {
      for (const t of topics) result.set(t.name, new Map(t.partitions.map((p) => [p, code])));
      return result;
    };
    // As Kafka's KafkaApis, unknown partitions are answered before the coordinator checks the producer at all:
    // a fenced producer naming a deleted topic hears of the topic.
    const unknown = topics.some((t) => t.partitions.some((p) => !this.host.partitionExists(t.name, p)));
    if (unknown) {
      for (const t of topics) {
        result.set(
          t.name,
          new Map(
            t.partitions.map((p) => [p, this.host.partitionExists(t.name, p) ? ErrorCode.OPERATION_NOT_ATTEMPTED : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]),
          ),
        );
      }
      return result;
    }
    const error = this.check(meta, producerId, producerEpoch);
    if (error !== null) return all(error);
    const m = meta!;
    // Already all in the open transaction: nothing to write, as Kafka.
    if (m.state === 'Ongoing' && topics.every((t) => t.partitions.every((p) => m.partitions.get(t.name)?.has(p)))) return all(ErrorCode.NONE);
    const now = this.host.now();
    if (m.state !== 'Ongoing') {
      m.partitions = new Map();
      m.startTimestamp = now;
    }
    for (const t of topics) {
      let set = m.partitions.get(t.name);
      if (!set) m.partitions.set(t.name, (set = new Set()));
      for (const p of t.partitions) set.add(p);
    }
    m.state = 'Ongoing';
    m.lastUpdateTimestamp = now;
    this.host.persist(m);
    return all(ErrorCode.NONE);
  }

  /**
   * KIP-890 part 1: whether a transactional write to topic-partition by this producer belongs to its open
   * transaction. An error code (INVALID_PRODUCER_ID_MAPPING, PRODUCER_FENCED, CONCURRENT_TRANSACTIONS,
   * INVALID_TXN_STATE when the partition was not added) or null.
   */
  verifyPartition(transactionalId: string, producerId: number, producerEpoch: number, topic: string, partition: number): number | null {
    const meta = this.txns.get(transactionalId);
    const error = this.check(meta, producerId, producerEpoch);
    if (error !== null) return error;
    if (meta!.state !== 'Ongoing' || !meta!.partitions.get(topic)?.has(partition)) return ErrorCode.INVALID_TXN_STATE;
    return null;
  }

  /**
   * AddPartitionsToTxn v4+ verifyOnly (KIP-890): whether each partition is in the producer's open
   * transaction (NONE) or not (TRANSACTION_ABORTABLE); a producer check failing answers every partition.
   */
  verifyPartitions(
    transactionalId: string,
    producerId: number,
    producerEpoch: number,
    topics: { name: string; partitions: number[] }[],
  ): Map<string, Map<number, number>> {
    const meta = this.txns.get(transactionalId);
    const error = this.check(meta, producerId, producerEpoch);
    return new Map(
      topics.map((t) => [
        t.name,
        new Map(
          t.partitions.map((p) => {
            if (error !== null) return [p, error];
            return [p, meta!.state === 'Ongoing' && meta!.partitions.get(t.name)?.has(p) ? ErrorCode.NONE : ErrorCode.TRANSACTION_ABORTABLE];
          }),
        ),
      ]),
    );
  }

  /** Commits or aborts the producer's transaction: prepare record, markers, complete record. */
  endTxn(transactionalId: string, producerId: number, producerEpoch: number, commit: boolean): number {
    const meta = this.txns.get(transactionalId);
    const error = this.check(meta, producerId, producerEpoch);
    if (error !== null) return error;
    const m = meta!;
    switch (m.state) {
      case 'Ongoing':
        this.writeMarkersAndComplete(m, commit);
        return ErrorCode.NONE;
      case 'CompleteCommit': // a retry of the EndTxn that completed it
        return commit ? ErrorCode.NONE : ErrorCode.INVALID_TXN_STATE;
      case 'CompleteAbort':
        return commit ? ErrorCode.INVALID_TXN_STATE : ErrorCode.NONE;
      default:
        return ErrorCode.INVALID_TXN_STATE;
    }
  }

  /**
   * EndTxn v5 (KIP-890 part 2, "transaction version 2"): every end bumps the producer's epoch, which the
   * answer returns for the next transaction; a retry is recognised by the epoch before the bump. Kafka
   * picks these semantics from the request version alone.
   */
  endTxnV2(transactionalId: string, producerId: number, producerEpoch: number, commit: boolean): InitResult {
    const meta = this.txns.get(transactionalId);
    const fail = (errorCode: number): InitResult => ({ errorCode, producerId: -1, producerEpoch: -1 });
    if (!meta || meta.producerId !== producerId) return fail(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    const current = producerEpoch === meta.producerEpoch;
    const retry = producerEpoch === meta.producerEpoch - 1;
    if (!current && !retry) return fail(ErrorCode.PRODUCER_FENCED);
    const ok = (): InitResult => ({ errorCode: ErrorCode.NONE, producerId: meta.producerId, producerEpoch: meta.producerEpoch });
    const bumpAndEnd = (): InitResult => {
      if (meta.state === 'Ongoing') this.fenceEpoch(meta);
      else this.bumpEpoch(meta);
      this.writeMarkersAndComplete(meta, commit);
      return ok();
    };
    switch (meta.state) {
      case 'Ongoing':
        return current ? bumpAndEnd() : fail(ErrorCode.PRODUCER_FENCED);
      case 'PrepareCommit':
      case 'PrepareAbort':
      case 'PrepareEpochFence':
        return fail(ErrorCode.CONCURRENT_TRANSACTIONS);
      case 'Empty':
        if (!current) return fail(ErrorCode.PRODUCER_FENCED);
        return commit ? fail(ErrorCode.INVALID_TXN_STATE) : bumpAndEnd(); // an empty abort
      case 'CompleteCommit':
        if (commit) return retry ? ok() : fail(ErrorCode.INVALID_TXN_STATE);
        return current ? bumpAndEnd() : fail(ErrorCode.INVALID_TXN_STATE);
      case 'CompleteAbort':
        if (!commit) return retry ? ok() : bumpAndEnd();
        return fail(ErrorCode.INVALID_TXN_STATE);
      default:
        return fail(ErrorCode.INVALID_TXN_STATE);
    }
  }

  /** Aborts transactions open longer than their timeout, fencing their producer (Kafka's abort of timed-out ones). */
  abortTimedOut(): number {
    const now = this.host.now();
    let n = 0;
    for (const meta of this.txns.values()) {
      if (meta.state !== 'Ongoing' || now - meta.startTimestamp < meta.timeoutMs) continue;
      this.fenceEpoch(meta);
      try {
        this.writeMarkersAndComplete(meta, false);
        n++;
      } catch {
        // Left in PrepareAbort with the partitions still to mark: retried by retryPrepared().
      }
    }
    return n;
  }

  /**
   * Forgets transactional ids idle (no open or completing transaction) for transactional.id.expiration.ms,
   * as Kafka does, so ids a client makes up do not accumulate. Returns how many.
   */
  expireIds(): number {
    const limit = this.options.idExpirationMs;
    if (limit === undefined) return 0;
    const now = this.host.now();
    let n = 0;
    for (const [id, meta] of this.txns) {
      const idle = meta.state === 'Empty' || meta.state === 'CompleteCommit' || meta.state === 'CompleteAbort';
      if (!idle || now - meta.lastUpdateTimestamp < limit) continue;
      this.host.forget(id);
      this.txns.delete(id);
      n++;
    }
    return n;
  }

  /** Retries the markers of transactions whose completion failed (a partition's write threw). */
  retryPrepared(): void {
    for (const meta of this.txns.values()) {
      if (meta.state !== 'PrepareCommit' && meta.state !== 'PrepareAbort') continue;
      try {
        this.writeMarkersAndComplete(meta, meta.state === 'PrepareCommit');
      } catch {
        // still failing: the next run tries again
      }
    }
  }

  private writeMarkersAndComplete(meta: TransactionMetadata, commit: boolean): void {
    meta.state = commit ? 'PrepareCommit' : 'PrepareAbort';
    meta.lastUpdateTimestamp = this.host.now();
    this.host.persist(meta);
    // A partition whose marker cannot be written stays in the transaction, which stays prepared: the
    // producer gets CONCURRENT_TRANSACTIONS (retriable) until retryPrepared() completes it.
    const unmarked = new Map<string, Set<number>>();
    const leave = (topic: string, p: number) => {
      if (!unmarked.has(topic)) unmarked.set(topic, new Set());
      unmarked.get(topic)!.add(p);
    };
    let failure: unknown = null;
    for (const [topic, partitions] of meta.partitions) {
      for (const p of partitions) {
        // A partition deleted meanwhile has nothing left to mark.
        if (!this.host.partitionExists(topic, p)) continue;
        try {
          if (this.host.writeMarker(topic, p, meta.producerId, meta.producerEpoch, commit, this.coordinatorEpoch(meta.transactionalId)) === false)
            leave(topic, p);
        } catch (err) {
          failure ??= err;
          leave(topic, p);
        }
      }
    }
    if (failure !== null) {
      meta.partitions = unmarked;
      throw failure;
    }
    if (unmarked.size > 0) {
      // Markers on their way to other brokers: EndTxn is answered now, as Kafka answers it once the prepare
      // record is written; the producer's next transaction waits (CONCURRENT_TRANSACTIONS) until they land.
      meta.partitions = unmarked;
      return;
    }
    meta.state = commit ? 'CompleteCommit' : 'CompleteAbort';
    meta.partitions = new Map();
    meta.lastUpdateTimestamp = this.host.now();
    this.host.persist(meta);
  }
}
