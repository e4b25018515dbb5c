// The log of one partition, Kafka's UnifiedLog: its segments (segment-list.ts, Kafka's LocalLog: roll, read,
// delete, truncate, swap) with the log start offset, the producers' state and the leader epochs on top.
// Offsets are dense from logStartOffset to logEndOffset - 1 (a compacted log has gaps).
// Besides segment files the directory holds partition.metadata (written by LogManager), the producer state
// snapshots (producer-state.ts) and leader-epoch-checkpoint (leader-epoch-cache.ts).
//
// Replication: a leader appends with append() (offsets assigned here); a follower copies the leader's
// batches as they are with appendAsFollower(), cuts its log back with truncateTo() where it diverges from
// the leader's (found through endOffsetForEpoch() on the leader), or starts over at an offset with
// truncateFullyAndStartAt(). Every batch's partitionLeaderEpoch goes into the leader epoch cache.
//
// Opening recovers the log from what a crash or a clean shutdown left (log-loader.ts).
// close() fsyncs everything and sets the recovery point to the log end offset.

import path from 'node:path';
import { KafkaError } from '../../protocol/errors.js';
import { PARTITION_LEADER_EPOCH_OFFSET, setBaseOffset } from '../../protocol/record-batch.js';
import { loadLog, type LoadedLog, type StorageLogger } from './log-loader.js';
import { LeaderEpochCache, type EpochEndOffset } from './leader-epoch-cache.js';
import { OpenFiles } from './open-files.js';
import { FileDeleter } from './file-deleter.js';
import type { Segment, SegmentConfig } from './segment.js';
import { SegmentList, type LogSegments } from './segment-list.js';
import { DEFAULT_LOG_CONFIG, type LogConfig } from '../log-config.js';
import { ProducerStateManager, renameSnapshotsForDeletion, type ActiveProducer, type CompletedTxn, type ProducerBatch } from './producer-state.js';
import { readMarker, type TransactionMarker } from '../../protocol/control-record.js';
import type { AbortedTxn } from './transaction-index.js';
import type { BatchInfo } from '../../protocol/record-batch.js';
import { rebuildLeaderEpochs, rebuildProducerState, type RebuildSource } from './rebuild-state.js';
import { fetchedBatchesToAppend, followerWrites, leaderWrite, type AppendBatchInfo } from './append-batches.js';

export type { AppendBatchInfo } from './append-batches.js';

/** What a partition log reads of its topic's LogConfig (log-config.ts): when to roll, how densely to index. */
export type PartitionLogConfig = Pick<LogConfig, 'segmentBytes' | 'segmentMs' | 'indexIntervalBytes' | 'fileDeleteDelayMs'>;

export type { StorageLogger } from './log-loader.js';

export interface PartitionLogOptions extends Partial<PartitionLogConfig> {
  /** Offset below which the log is known to be fsynced (from the checkpoint); default 0 = scan everything. */
  recoveryPoint?: number;
  /** Log start offset from the checkpoint; default: the first segment's base offset. */
  logStartOffset?: number;
  /** The previous close was clean: skip recovery scans except the active segment's tail. */
  cleanShutdown?: boolean;
  /** Clock for segment.ms rolling; default Date.now. */
  now?: () => number;
  log?: StorageLogger;
  /** The bound on open segment files (its log manager's); default: one of this log's own. */
  openFiles?: OpenFiles;
  /** Removes deleted segments' files after file.delete.delay.ms (its log manager's); default: one of this log's own. */
  deleter?: FileDeleter;
  /**
   * Called after truncateTo or truncateFullyAndStartAt cut the log back, with the log and the base offset
   * of its active segment then (the log manager tells the cleaner, whose checkpoint must not stay above it).
   */
  onTruncated?: (log: PartitionLog, activeSegmentBaseOffset: number) => void;
}

/** What append() did: the offsets given, or those of the identical batch appended before (a producer's retry). */
export interface AppendResult {
  baseOffset: number;
  lastOffset: number;
  /** The batch was a retry of one already in the log: nothing was written. */
  duplicate?: boolean;
  /** A retry's: the max timestamp of the batch it repeats, which Kafka answers as the retry's log append time. */
  duplicateTimestamp?: number;
}

/** What appendAsFollower() appended: the first and last offsets of the batches written. */
export interface FollowerAppendResult {
  firstOffset: number;
  lastOffset: number;
}

export interface ReadResult {
  records: Buffer[];
  logStartOffset: number;
}

const INT32_MAX = 0x7fffffff;

/** What the producers' state reads of a batch: a BatchInfo, or an AppendBatchInfo with a producer id. */
type ProducerStateBatch = ProducerBatch & { isControl?: boolean; isTransactional?: boolean };

export class PartitionLog {
  /** Where the bytes live (segment-list.ts). */
  private readonly segments: LogSegments<Segment>;
  private _logStartOffset: number;
  private closed = false;
  private readonly segmentConfig: SegmentConfig;
  /** Idempotent producers' state (producer-state.ts). */
  private readonly producers: ProducerStateManager;
  /** Removes the files of deleted segments after file.delete.delay.ms. */
  private readonly deleter: FileDeleter;
  private readonly ownsDeleter: boolean;
  /** The first offset of each leader epoch in this log (leader-epoch-cache.ts), always written through to its file. */
  readonly leaderEpochs: LeaderEpochCache;
  /** appendAsFollower() is retrying after starting an empty log over at a batch's base offset (once). */
  private straddleRestarted = false;

  private constructor(
    readonly dir: string,
    public config: PartitionLogConfig,
    private readonly options: PartitionLogOptions,
    segmentConfig: SegmentConfig,
    loaded: LoadedLog,
  ) {
    this.segmentConfig = segmentConfig;
    this._logStartOffset = loaded.logStartOffset;
    this.producers = new ProducerStateManager(dir);
    this.deleter = options.deleter ?? new FileDeleter(options.log ?? null);
    this.ownsDeleter = options.deleter === undefined;
    this.segments = new SegmentList(dir, loaded, segmentConfig, {
      deleter: this.deleter,
      fileDeleteDelayMs: () => this.config.fileDeleteDelayMs,
      log: options.log,
      closeLog: () => this.close(),
    });
    this.leaderEpochs = LeaderEpochCache.load(dir, options.log);
  }

  /** Opens (creating if needed) and recovers the log in `dir` (log-loader.ts). Synchronous. */
  static open(dir: string, options: PartitionLogOptions = {}): PartitionLog {
    const config: PartitionLogConfig = {
      segmentBytes: options.segmentBytes ?? DEFAULT_LOG_CONFIG.segmentBytes,
      segmentMs: options.segmentMs ?? DEFAULT_LOG_CONFIG.segmentMs,
      indexIntervalBytes: options.indexIntervalBytes ?? DEFAULT_LOG_CONFIG.indexIntervalBytes,
      fileDeleteDelayMs: options.fileDeleteDelayMs ?? DEFAULT_LOG_CONFIG.fileDeleteDelayMs,
    };
    const now = options.now ?? Date.now;
    const openFiles = options.openFiles ?? new OpenFiles();
    // Segments read the interval through this shared object, so updateConfig() reaches them.
    const segmentConfig: SegmentConfig = { indexIntervalBytes: config.indexIntervalBytes, now, openFiles };
    const log = new PartitionLog(dir, config, options, segmentConfig, loadLog(dir, options, segmentConfig));
    try {
      log.loadProducerState(options.cleanShutdown === true);
      rebuildLeaderEpochs(log.rebuildSource(), log.leaderEpochs, options.cleanShutdown === true);
    } catch (err) {
      log.close();
      throw err;
    }
    return log;
  }

  /** From the newest snapshot at or below the log end and the batches after it (rebuild-state.ts). */
  private loadProducerState(cleanShutdown: boolean): void {
    rebuildProducerState(this.rebuildSource(), this.producers, cleanShutdown, (b, marker) => this.applyProducerBatch(b, b.baseOffset, marker, true));
  }

  private rebuildSource(): RebuildSource {
    return { dir: this.dir, segments: this.segments, logStartOffset: this._logStartOffset, log: this.options.log };
  }

  /**
   * A producer's batch written at `baseOffset`, as the producers' state takes it on append, from a leader and
   * on replay: data batches update their producer (or open its transaction), markers end the transaction.
   * Unsequenced batches (no base sequence, or a coordinator's own write) only open a transaction.
   */
  private applyProducerBatch(b: ProducerStateBatch, baseOffset: number, marker: TransactionMarker | null, sequenced: boolean): void {
    if (b.isControl) {
      if (marker) this.completeTxn(b.producerId, b.producerEpoch, marker, baseOffset, b.maxTimestamp);
    } else if (!sequenced || b.baseSequence < 0) {
      if (b.isTransactional) this.producers.beginTxn(b.producerId, b.producerEpoch, baseOffset, b.maxTimestamp);
    } else this.producers.update(b, baseOffset, b.isTransactional === true);
  }

  // --- state -------------------------------------------------------------------------------------------

  get logStartOffset(): number {
    return this._logStartOffset;
  }

  get logEndOffset(): number {
    return this.segments.logEndOffset;
  }

  /** Offset below which the log is known to be fsynced. */
  get recoveryPoint(): number {
    return this.segments.recoveryPoint;
  }

  /** Total bytes of all segments' .log files. */
  get size(): number {
    return this.segments.size;
  }

  /** Base offsets of the segments, oldest first. */
  segmentBaseOffsets(): number[] {
    return this.segments.list().map((s) => s.baseOffset);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Changes segment.bytes / segment.ms / index.interval.bytes / file.delete.delay.ms from now on. */
  updateConfig(config: Partial<PartitionLogConfig>): void {
    const { segmentBytes, segmentMs, indexIntervalBytes, fileDeleteDelayMs } = { ...this.config, ...config };
    this.config = { segmentBytes, segmentMs, indexIntervalBytes, fileDeleteDelayMs };
    this.segmentConfig.indexIntervalBytes = this.config.indexIntervalBytes;
  }

  private ensureOpen(): void {
    if (this.closed) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `log ${path.basename(this.dir)} is closed`);
  }

  // --- append ------------------------------------------------------------------------------------------

  /**
   * Assigns offsets from logEndOffset (writing each batch's baseOffset into `buf` in place), rolls the
   * active segment when needed, and appends every batch in one write. `batches` must be contiguous in
   * `buf`, in order.
   */
  /** `fromCoordinator`: a coordinator's own write (no producer sequences to check), as Kafka's AppendOrigin.COORDINATOR. */
  append(buf: Buffer, batches: AppendBatchInfo[], fromCoordinator = false): AppendResult {
    this.ensureOpen();
    const baseOffset = this.logEndOffset;
    if (batches.length === 0) return { baseOffset, lastOffset: baseOffset - 1 };
    // As Kafka's UnifiedLog: a retry of a batch already appended is answered with its offsets, and
    // nothing is written. (A client's Produce carries one batch per partition.)
    let producers = false;
    let markers: Map<AppendBatchInfo, TransactionMarker> | null = null;
    for (const b of batches) {
      if ((b.producerId ?? -1) < 0) continue;
      producers = true;
      if (b.isControl) {
        const marker = readMarker(buf, b as BatchInfo);
        if (!marker) continue;
        this.producers.checkMarker(b.producerId!, b.producerEpoch!, marker.coordinatorEpoch, path.basename(this.dir));
        (markers ??= new Map()).set(b, marker);
        continue;
      }
      if (fromCoordinator) continue;
      const duplicate = this.producers.check(b as ProducerBatch, path.basename(this.dir));
      if (duplicate) return { baseOffset: duplicate.firstOffset, lastOffset: duplicate.lastOffset, duplicate: true, duplicateTimestamp: duplicate.timestamp };
    }
    const write = leaderWrite(buf, batches, baseOffset);
    const lastOffset = write.lastOffset;
    if (this.shouldRoll(write.bytes.length, lastOffset)) this.roll();
    // Offsets are written only now: the CRC does not cover baseOffset.
    let offset = baseOffset;
    for (const b of batches) {
      setBaseOffset(buf, b.position, offset);
      offset += b.lastOffsetDelta + 1;
    }
    this.segments.append(write.bytes, write.batches);
    offset = baseOffset;
    for (const b of batches) {
      this.leaderEpochs.assign(buf.readInt32BE(b.position + PARTITION_LEADER_EPOCH_OFFSET), offset);
      offset += b.lastOffsetDelta + 1;
    }
    if (producers) {
      offset = baseOffset;
      for (const b of batches) {
        if ((b.producerId ?? -1) >= 0) this.applyProducerBatch(b as ProducerStateBatch, offset, markers?.get(b) ?? null, !fromCoordinator);
        offset += b.lastOffsetDelta + 1;
      }
    }
    return { baseOffset, lastOffset };
  }

  /**
   * A follower's append of the leader's batches (a Fetch response's records), as they are: offsets, leader
   * epochs and everything else already set, nothing re-encoded. Which batches are taken, and which buffers
   * are refused with nothing written, is fetched-batches.ts's. Rolls and indexes as
   * append() does; the producers' state and the aborted-transaction index follow the batches as on
   * replay, with no duplicate check (the leader made it); the leader epochs are recorded. Returns the
   * offsets written, or null when nothing was. An empty log (nothing between its start and end) whose end
   * falls inside the first batch starts over at that batch's base offset (truncateFullyAndStartAt), as
   * Kafka's follower does when the leader's log start is inside a batch.
   */
  appendAsFollower(buf: Buffer): FollowerAppendResult | null {
    this.ensureOpen();
    const logEnd = this.logEndOffset;
    const mayRestart = this.size === 0 && logEnd === this._logStartOffset && !this.straddleRestarted;
    const fetched = fetchedBatchesToAppend(buf, logEnd, mayRestart, path.basename(this.dir));
    if (fetched === null) return null;
    if ('restartAt' in fetched) {
      // Kafka's Partition.appendRecordsToFollowerOrFutureReplica: an empty log started inside a batch
      // (at a leader's log start moved by DeleteRecords) starts over at the batch's base offset.
      this.truncateFullyAndStartAt(fetched.restartAt);
      this.straddleRestarted = true;
      try {
        return this.appendAsFollower(buf);
      } finally {
        this.straddleRestarted = false;
      }
    }
    const { data, kept } = fetched;
    // Markers are read before anything is written, so that an unreadable one writes nothing.
    const markers = kept.map((b) => (b.isControl && b.producerId >= 0 ? readMarker(data, b) : null));
    const firstOffset = kept[0].baseOffset;
    const lastOffset = kept[kept.length - 1].baseOffset + kept[kept.length - 1].lastOffsetDelta;
    for (const { from, to, bytes, batches, lastOffset: runLast } of followerWrites(data, kept)) {
      if (runLast - this.segments.active.baseOffset > INT32_MAX)
        this.rollAt(runLast - this.logEndOffset > INT32_MAX ? kept[from].baseOffset : this.logEndOffset);
      else if (this.shouldRoll(bytes.length, runLast)) this.roll();
      this.segments.append(bytes, batches);
      for (let i = from; i < to; i++) {
        const b = kept[i];
        if (b.producerId >= 0) this.applyProducerBatch(b, b.baseOffset, markers[i], true);
        this.leaderEpochs.assign(b.partitionLeaderEpoch, b.baseOffset);
      }
    }
    return { firstOffset, lastOffset };
  }

  /**
   * Kafka's UnifiedLog.truncateTo: removes everything at `offset` and after (a follower cutting its log to
   * where it agrees with the leader). No-op (false) when offset >= logEndOffset; below logStartOffset it is
   * truncateFullyAndStartAt(offset). Otherwise the segments are cut there (SegmentList.truncateTo: the log
   * may end below `offset`, at the start of the batch holding it). Then the producers' state is reloaded
   * from the newest snapshot at or below the new end (snapshots above it deleted) and the log after it, and
   * leader epochs starting at or after the end are dropped.
   * Returns true when something was removed.
   */
  truncateTo(offset: number): boolean {
    this.ensureOpen();
    if (!Number.isSafeInteger(offset) || offset < 0)
      throw new KafkaError('OFFSET_OUT_OF_RANGE', `cannot truncate ${path.basename(this.dir)} to offset ${offset}`);
    if (offset >= this.logEndOffset) return false;
    if (offset < this._logStartOffset) {
      this.truncateFullyAndStartAt(offset);
      return true;
    }
    const deletedSegments = this.segments.truncateTo(offset);
    const end = this.logEndOffset;
    this.loadProducerState(false);
    this.leaderEpochs.truncateFromEnd(end);
    this.options.onTruncated?.(this, this.segments.active.baseOffset);
    this.options.log?.info({ dir: this.dir, offset, logEndOffset: end, deletedSegments }, `truncated ${path.basename(this.dir)} to offset ${end}`);
    return true;
  }

  /**
   * Kafka's truncateFullyAndStartAt: deletes every segment (through the file deleter, as retention does)
   * and starts again with an empty active segment at `offset`, which becomes the log start offset and the
   * recovery point; the producers' state, its snapshots and the leader epochs are cleared.
   */
  truncateFullyAndStartAt(offset: number): void {
    this.ensureOpen();
    if (!Number.isSafeInteger(offset) || offset < 0) throw new KafkaError('OFFSET_OUT_OF_RANGE', `cannot start ${path.basename(this.dir)} at offset ${offset}`);
    const deletedSegments = this.segments.truncateFullyAndStartAt(offset);
    this._logStartOffset = offset;
    this.producers.clear();
    this.leaderEpochs.clearAndFlush();
    this.options.onTruncated?.(this, offset);
    this.options.log?.info({ dir: this.dir, offset, deletedSegments }, `truncated ${path.basename(this.dir)} fully; it starts again at ${offset}`);
  }

  /** Kafka's endOffsetForEpoch, what OffsetForLeaderEpoch answers: leaderEpochs.endOffsetFor(epoch, logEndOffset). */
  endOffsetForEpoch(epoch: number): EpochEndOffset {
    return this.leaderEpochs.endOffsetFor(epoch, this.logEndOffset);
  }

  private shouldRoll(bytes: number, lastOffset: number): boolean {
    const seg = this.segments.active;
    if (seg.size === 0) return false;
    if (seg.size + bytes > this.config.segmentBytes) return true;
    if (seg.size + bytes > INT32_MAX) return true;
    if (this.segmentConfig.now() - seg.createdAt > this.config.segmentMs) return true;
    return lastOffset - seg.baseOffset > INT32_MAX;
  }

  /** Starts a new active segment at logEndOffset (no-op when the active one is empty). */
  roll(): void {
    this.ensureOpen();
    this.rollAt(this.logEndOffset);
  }

  /** Starts a new active segment at `base` (SegmentList.roll), with a producer state snapshot at the old end. */
  private rollAt(base: number): void {
    // Not fsynced here (the roll is on the append path): a snapshot lost in a crash is rebuilt from the log.
    if (this.segments.active.size > 0) this.producers.writeSnapshot(this.logEndOffset, false);
    this.segments.roll(base);
    // An empty active segment replaced at a higher base may have been the first.
    this._logStartOffset = Math.max(this._logStartOffset, this.segments.list()[0].baseOffset);
  }

  // --- read --------------------------------------------------------------------------------------------

  /**
   * Batches from the one holding fetchOffset, whole, up to maxBytes in total (the first one whole even
   * when larger, if minOneBatch: KIP-74). The first batch may start below fetchOffset. Throws
   * OFFSET_OUT_OF_RANGE outside [logStartOffset, logEndOffset]; at logEndOffset the answer is empty.
   */
  read(fetchOffset: number, maxBytes: number, minOneBatch = true): ReadResult {
    this.ensureOpen();
    const logEnd = this.logEndOffset;
    if (fetchOffset < this._logStartOffset || fetchOffset > logEnd) {
      throw new KafkaError(
        'OFFSET_OUT_OF_RANGE',
        `Fetch offset ${fetchOffset} is out of range for ${path.basename(this.dir)}: log start offset ${this._logStartOffset}, log end offset ${logEnd}`,
      );
    }
    return { records: this.segments.read(fetchOffset, maxBytes, minOneBatch), logStartOffset: this._logStartOffset };
  }

  // --- timestamps --------------------------------------------------------------------------------------

  /** The first offset (>= logStartOffset) whose record timestamp is >= ts, with that timestamp; null if none. */
  offsetForTimestamp(ts: number): { offset: number; timestamp: number } | null {
    this.ensureOpen();
    return this.segments.offsetForTimestamp(ts, this._logStartOffset);
  }

  /** The record with the largest timestamp (the first on ties), or null when no record has one. */
  maxTimestampOffset(): { offset: number; timestamp: number } | null {
    this.ensureOpen();
    return this.segments.maxTimestampOffset(this._logStartOffset);
  }

  // --- deletion ----------------------------------------------------------------------------------------

  /**
   * Advances logStartOffset to `offset` (DeleteRecords) and deletes the segments wholly below it (rolling
   * first when `offset` is the log end). Returns the new log start offset. Throws OFFSET_OUT_OF_RANGE past
   * logEndOffset.
   */
  deleteRecordsBefore(offset: number): number {
    this.ensureOpen();
    const logEnd = this.logEndOffset;
    if (offset > logEnd || offset < 0) {
      throw new KafkaError('OFFSET_OUT_OF_RANGE', `Cannot delete records before ${offset}: log end offset is ${logEnd}`);
    }
    if (offset <= this._logStartOffset) return this._logStartOffset;
    this._logStartOffset = offset;
    if (offset === logEnd && this.segments.active.size > 0) this.roll();
    this.deleteOldestSegments(this.countDeletableSegments((_, next) => next !== null && next.baseOffset <= offset));
    this.leaderEpochs.truncateFromStart(this._logStartOffset);
    return offset;
  }

  /**
   * Kafka's LocalLog.deletableSegments: how many of the oldest segments `predicate` holds for, taken in
   * order up to the first it does not hold for. The active segment counts only when it is not empty
   * (deleteOldestSegments then rolls first); `next` is null for it.
   */
  countDeletableSegments(predicate: (segment: Segment, next: Segment | null) => boolean): number {
    return this.segments.countDeletable(predicate);
  }

  /**
   * Kafka's UnifiedLog.deleteSegments: removes the `count` oldest segments, rolling first when that is all
   * of them (a log keeps one segment); the log start offset moves up to the new first segment's base
   * offset (never back). Offsets are not renumbered. Each segment's files, and the producer snapshots
   * below the new first segment, are renamed <name>.deleted at once and removed file.delete.delay.ms
   * later (file-deleter.ts). Returns how many segments were removed.
   */
  deleteOldestSegments(count: number): number {
    this.ensureOpen();
    if (count <= 0) return 0;
    // The active segment is rolled away first (the list keeps one); an empty one stays.
    if (count >= this.segments.list().length) this.roll();
    const segments = this.segments.deleteOldest(count);
    const n = segments.length;
    if (n === 0) return 0;
    const first = this.segments.list()[0].baseOffset;
    this._logStartOffset = Math.max(this._logStartOffset, first);
    this.leaderEpochs.truncateFromStart(this._logStartOffset);
    this.deleter.schedule(renameSnapshotsForDeletion(this.dir, first), this.config.fileDeleteDelayMs);
    this.options.log?.info(
      { dir: this.dir, segments, logStartOffset: this._logStartOffset, fileDeleteDelayMs: this.config.fileDeleteDelayMs },
      `deleted ${n} segment(s) of ${path.basename(this.dir)}; log start offset ${this._logStartOffset}`,
    );
    return n;
  }

  /**
   * Rolls a non-empty active segment that started receiving data more than segment.ms before `now`, as the
   * next append would: run by the retention pass so that a quiet partition's records can age out.
   */
  rollIfOlderThanSegmentMs(now: number): boolean {
    this.ensureOpen();
    const seg = this.segments.active;
    if (seg.size === 0 || now - seg.createdAt <= this.config.segmentMs) return false;
    this.roll();
    return true;
  }

  // --- cleaning (the log cleaner: storage/cleaner/) -----------------------------------------------------

  /** The segments, oldest first, the last one active: what the cleaner reads (a copy of the list). */
  segmentList(): readonly Segment[] {
    return this.segments.list();
  }

  /**
   * How many times the log was cut back (truncateTo, truncateFullyAndStartAt): a cleaning pass begun
   * before a change of it gives up, since a segment it read may hold other batches now.
   */
  get truncationCount(): number {
    return this.segments.truncationCount;
  }

  /** The offset index interval new segment files are written with. */
  get indexIntervalBytes(): number {
    return this.segmentConfig.indexIntervalBytes;
  }

  /**
   * Puts the cleaned segment at `baseOffset`, whose files are <name>.swap by now, in the place of `old`
   * (cleaner/replace-segments.ts). False, and nothing done, when `old` is no longer in the log as it was or
   * the log is closed; throws only once the old segments are back in place or the log is closed.
   */
  replaceSegments(old: readonly Segment[], baseOffset: number): boolean {
    return !this.closed && this.segments.replaceSegments(old, baseOffset);
  }

  /** The last offset of each remembered producer's last data batch (Kafka's lastRecordsOfActiveProducers). */
  lastDataOffsets(): Map<number, number> {
    const out = new Map<number, number>();
    for (const p of this.producers.activeProducers()) if (p.lastDataOffset >= 0) out.set(p.producerId, p.lastDataOffset);
    return out;
  }

  // --- durability and lifecycle ------------------------------------------------------------------------

  /** fsyncs every segment not yet known durable; the recovery point becomes logEndOffset. */
  flush(): void {
    this.ensureOpen();
    this.segments.flush();
  }

  /** The first offset of the earliest transaction still open on this partition, or null (the LSO's bound). */
  firstUnstableOffset(): number | null {
    return this.producers.firstUnstableOffset();
  }

  /**
   * The aborted transactions a read_committed fetch of [fetchOffset, upperBound) must report: those with
   * records in the range, from the .txnindex of the segments whose markers may end them. Oldest first.
   */
  abortedTransactions(fetchOffset: number, upperBound: number): AbortedTxn[] {
    return this.segments.abortedTransactions(fetchOffset, upperBound);
  }

  /** A marker at `offset` ends a transaction; an abort goes to the .txnindex of the segment holding it. */
  private completeTxn(producerId: number, producerEpoch: number, marker: TransactionMarker, offset: number, timestamp: number): void {
    const done: CompletedTxn = this.producers.completeTxn(producerId, producerEpoch, marker.coordinatorEpoch, offset, !marker.commit, timestamp);
    if (!done.aborted) return;
    const unstable = this.producers.firstUnstableOffset();
    this.segments.indexAbortedTxn({ producerId, firstOffset: done.firstOffset, lastOffset: offset, lastStableOffset: unstable ?? offset + 1 });
  }

  /** The idempotent producers this partition remembers. */
  activeProducers(): ActiveProducer[] {
    return this.producers.activeProducers();
  }

  /** Forgets the idempotent producers whose last batch is older than `before` (producer.id.expiration.ms). */
  expireProducers(before: number): number {
    return this.closed ? 0 : this.producers.expire(before);
  }

  /** Waits for background flushes of rolled segments (tests, orderly shutdown). */
  async flushed(): Promise<void> {
    await this.segments.flushed();
  }

  /** Flushes, records the active segment's max timestamp in its time index, closes descriptors. */
  close(): void {
    if (this.closed) return;
    try {
      this.segments.finishActive();
      this.flush();
      this.producers.writeSnapshot(this.logEndOffset);
    } finally {
      this.closed = true;
      this.segments.close();
      // Removals still waiting are left to the next open (it removes *.deleted files), as Kafka's.
      if (this.ownsDeleter) void this.deleter.close();
    }
  }

  /**
   * Closes without flushing and renames the directory to <dir>.<id>-delete at once; the renamed directory
   * is removed `delayMs` later in the background (a restart removes it too).
   */
  delete(delayMs = this.config.fileDeleteDelayMs): void {
    this.closed = true;
    this.segments.delete(delayMs);
  }
}
