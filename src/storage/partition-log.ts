// The log of one partition: a directory of segments (see segment.ts for their files) ordered by base
// offset, the last one active (receiving appends). Offsets are dense from logStartOffset to
// logEndOffset - 1; the segment holding offset o is the one with the largest base offset <= o.
// Besides segment files the directory holds partition.metadata (written by LogManager), the producer state
// snapshots (producer-state.ts) and leader-epoch-checkpoint (leader-epoch-cache.ts).
//
// Replication: a leader appends with append() (offsets assigned here); a follower copies the leader's
// batches as they are with appendAsFollower(), cuts its log back with truncateTo() where it diverges from
// the leader's (found through endOffsetForEpoch() on the leader), or starts over at an offset with
// truncateFullyAndStartAt(). Every batch's partitionLeaderEpoch goes into the leader epoch cache.
//
// Opening recovers the log from what a crash or a clean shutdown left (log-loader.ts).
// A rolled segment is fsynced in the background and the recovery point then moves to the next segment's
// base offset; close() fsyncs everything and sets the recovery point to the log end offset.

import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from './random.js';
import { KafkaError } from '../../protocol/errors.js';
import {
  LOG_OVERHEAD,
  PARTITION_LEADER_EPOCH_OFFSET,
  RECORD_BATCH_OVERHEAD as HEADER_SIZE,
  readBatchHeader,
  scanBatches,
  setBaseOffset,
} from '../../protocol/record-batch.js';
import { DELETED_SUFFIX, deletedDirName, offsetToName, parsePartitionDirName } from './file-names.js';
import { lastIndexWhere } from './binary-search.js';
import { loadLog, rescanAfterTruncation, type StorageLogger } from './log-loader.js';
import { LeaderEpochCache, type EpochEndOffset } from './leader-epoch-cache.js';
import { headerProblem } from './batch-header.js';
import { fsyncDir, fsyncDirInBackground } from './atomic-file.js';
import { OpenFiles } from './open-files.js';
import { FileDeleter, renameForDeletion } from './file-deleter.js';
import { Segment, type SegmentAppendBatch, type SegmentConfig } from './segment.js';
import { Window, findOffsetByTimestamp, maxTimestampAndOffset, readBatches, readBytes, translateOffset } from './segment-reader.js';
import { DEFAULT_LOG_CONFIG, type LogConfig } from '../log-config.js';
import { ProducerStateManager, SNAPSHOT_SUFFIX, snapshotOffsets, type ActiveProducer, type CompletedTxn, type ProducerBatch } from './producer-state.js';
import { readMarker, type TransactionMarker } from '../../protocol/control-record.js';
import type { AbortedTxn } from './transaction-index.js';
import { discardSwap, installSwap, swapPending } from './cleaner/swap.js';
import type { BatchInfo } from '../../protocol/record-batch.js';

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
  /** Record timestamps of compressed batches, for exact offsetForTimestamp/maxTimestampOffset answers. */
  /**
   * Called after truncateTo or truncateFullyAndStartAt cut the log back, with the log and the base offset
   * of its active segment then (the log manager tells the cleaner, whose checkpoint must not stay above it).
   */
  onTruncated?: (log: PartitionLog, activeSegmentBaseOffset: number) => void;
}

/** A batch inside the buffer given to append() (the shape log-validator's BatchInfo has). */
export interface AppendBatchInfo {
  position: number;
  size: number;
  lastOffsetDelta: number;
  recordCount: number;
  maxTimestamp: number;
  /** Set (>= 0) for an idempotent or transactional producer's batch; absent or -1 otherwise. */
  producerId?: number;
  producerEpoch?: number;
  baseSequence?: number;
  isTransactional?: boolean;
  /** A control batch: a transaction marker, written by the broker only. */
  isControl?: boolean;
}

/** What append() did: the offsets given, or those of the identical batch appended before (a producer's retry). */
export interface AppendResult {
  baseOffset: number;
  lastOffset: number;
  /** The batch was a retry of one already in the log: nothing was written. */
  duplicate?: boolean;
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

export class PartitionLog {
  private segments: Segment[];
  private _logStartOffset: number;
  private _recoveryPoint: number;
  private closed = false;
  private flushing: Promise<void> = Promise.resolve();
  private readonly unflushed = new Set<Segment>();
  private readonly segmentConfig: SegmentConfig;
  /**
   * Where the last read ended: consumers fetch sequentially, so the next fetch usually starts exactly there
   * and needs no index lookup or header scan. Segments only grow at their end, so a batch boundary stays valid.
   */
  private readHint: { segment: Segment; offset: number; position: number } | null = null;
  /** Idempotent producers' state (producer-state.ts). */
  private readonly producers: ProducerStateManager;
  /** Removes the files of deleted segments after file.delete.delay.ms. */
  private readonly deleter: FileDeleter;
  private readonly ownsDeleter: boolean;
  /** The first offset of each leader epoch in this log (leader-epoch-cache.ts), always written through to its file. */
  readonly leaderEpochs: LeaderEpochCache;
  /** Counts truncations, so that a background flush begun before one does not move the recovery point after it. */
  private truncations = 0;
  /** appendAsFollower() is retrying after starting an empty log over at a batch's base offset (once). */
  private straddleRestarted = false;

  private constructor(
    readonly dir: string,
    public config: PartitionLogConfig,
    private readonly options: PartitionLogOptions,
    segmentConfig: SegmentConfig,
    segments: Segment[],
    logStartOffset: number,
    recoveryPoint: number,
  ) {
    this.segmentConfig = segmentConfig;
    this.segments = segments;
    this._logStartOffset = logStartOffset;
    this._recoveryPoint = recoveryPoint;
    this.producers = new ProducerStateManager(dir);
    this.deleter = options.deleter ?? new FileDeleter(options.log ?? null);
    this.ownsDeleter = options.deleter === undefined;
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
    const { segments, logStartOffset, recoveryPoint } = loadLog(dir, options, segmentConfig);
    const log = new PartitionLog(dir, config, options, segmentConfig, segments, logStartOffset, recoveryPoint);
    try {
      log.loadProducerState(options.cleanShutdown === true);
      log.loadLeaderEpochs(options.cleanShutdown === true);
    } catch (err) {
      log.close();
      throw err;
    }
    return log;
  }

  /**
   * The producers' state as of the log end: the newest snapshot at or below it, then the batches after it.
   * With no snapshot file at all no producer wrote before the active segment (one is written at every
   * roll once a producer has written), and after a clean shutdown none wrote at all (close writes one).
   */
  private loadProducerState(cleanShutdown: boolean): void {
    const end = this.logEndOffset;
    const hadSnapshots = snapshotOffsets(this.dir).length > 0;
    const snapshot = this.producers.loadSnapshot(end, (file, why) =>
      this.options.log?.warn({ dir: this.dir, file, reason: why }, `ignoring producer state snapshot ${path.basename(file)}: ${why}`),
    );
    if (snapshot === null && !hadSnapshots && cleanShutdown) return;
    const from = snapshot ?? (hadSnapshots ? this._logStartOffset : this.active.baseOffset);
    let replayed = 0;
    this.forEachBatch(from, (chunk, b) => {
      if (b.producerId < 0) return;
      this.replayProducerBatch(b, b.isControl ? readMarker(chunk, b) : null);
      replayed++;
    });
    if (replayed > 0) this.options.log?.info({ dir: this.dir, batches: replayed }, 'rebuilt producer state from the log');
  }

  /**
   * A batch already in the log (with its offsets), as the producers' state takes it on replay and from a
   * leader: data batches update their producer (or open its transaction), markers end the transaction.
   */
  private replayProducerBatch(b: BatchInfo, marker: TransactionMarker | null): void {
    if (b.isControl) {
      if (marker) this.completeTxn(b.producerId, b.producerEpoch, marker, b.baseOffset, b.maxTimestamp);
    } else if (b.baseSequence < 0) {
      if (b.isTransactional) this.producers.beginTxn(b.producerId, b.producerEpoch, b.baseOffset, b.maxTimestamp);
    } else this.producers.update(b, b.baseOffset, b.isTransactional);
  }

  /** Calls visit(chunk, header) for each batch from the one holding `from` (those starting below it skipped) to the log end. */
  private forEachBatch(from: number, visit: (chunk: Buffer, b: BatchInfo) => void): void {
    const end = this.logEndOffset;
    from = Math.max(from, this._logStartOffset);
    while (from < end) {
      const { records } = this.read(from, 1 << 20, true);
      if (records.length === 0) break;
      let next: number = from;
      for (const chunk of records) {
        for (const b of scanBatches(chunk, { fromClient: false })) {
          next = b.baseOffset + b.lastOffsetDelta + 1;
          if (b.baseOffset >= from) visit(chunk, b);
        }
      }
      if (next <= from) break;
      from = next;
    }
  }

  /**
   * Calls visit(header) for each batch from the one holding `from` to the log end, reading only batch headers
   * (no CRC: the loader checked what it had to). Stops at a header that makes no sense (a damaged segment
   * the loader left as it was) and returns what is wrong there; null when it reached the end.
   */
  private forEachBatchHeader(from: number, visit: (b: BatchInfo) => void): string | null {
    from = Math.max(from, this._logStartOffset);
    const first = this.segmentIndexFor(from);
    for (let i = first; i < this.segments.length; i++) {
      const seg = this.segments[i];
      let pos = i === first ? translateOffset(seg, from) : 0;
      if (pos < 0) continue;
      const win = new Window(seg.handle(), seg.size, 1 << 16);
      while (pos < seg.size) {
        const at = win.at(pos, HEADER_SIZE);
        if (at < 0) return `incomplete batch header at position ${pos} of segment ${seg.baseOffset}`;
        const h = readBatchHeader(win.buf, at);
        const problem = headerProblem(h);
        if (problem) return `${problem} (position ${pos} of segment ${seg.baseOffset})`;
        visit(h);
        pos += h.size;
      }
    }
    return null;
  }

  /**
   * Brings the leader epoch cache in line with the log after opening it. The batch headers are read only
   * when the checkpoint is missing or unreadable and the log has data (the whole log), or after a crash
   * (from the recovery point: a crash may fall between an append and the checkpoint's rewrite, which
   * Kafka's recovery covers the same way).
   */
  private loadLeaderEpochs(cleanShutdown: boolean): void {
    const epochs = this.leaderEpochs;
    const end = this.logEndOffset;
    let from: number | null = null;
    if (!epochs.fromFile && end > this._logStartOffset) from = this._logStartOffset;
    else if (!cleanShutdown && this._recoveryPoint < end) from = this._recoveryPoint;
    if (from !== null) {
      let damage: string | null;
      try {
        damage = this.forEachBatchHeader(from, (b) => epochs.assign(b.partitionLeaderEpoch, b.baseOffset));
      } catch (err) {
        damage = (err as Error).message;
      }
      if (damage)
        this.options.log?.warn({ dir: this.dir, reason: damage }, `reading leader epochs from the log of ${path.basename(this.dir)} stopped early: ${damage}`);
      if (!epochs.fromFile) this.options.log?.info({ dir: this.dir, entries: epochs.entries().length }, 'rebuilt the leader epoch cache from the log');
    }
    epochs.truncateFromEnd(end);
    epochs.truncateFromStart(this._logStartOffset);
  }

  // --- state -------------------------------------------------------------------------------------------

  get logStartOffset(): number {
    return this._logStartOffset;
  }

  get logEndOffset(): number {
    return this.active.nextOffset;
  }

  /** Offset below which the log is known to be fsynced. */
  get recoveryPoint(): number {
    return this._recoveryPoint;
  }

  /** Total bytes of all segments' .log files. */
  get size(): number {
    let n = 0;
    for (const s of this.segments) n += s.size;
    return n;
  }

  /** Base offsets of the segments, oldest first. */
  segmentBaseOffsets(): number[] {
    return this.segments.map((s) => s.baseOffset);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  private get active(): Segment {
    return this.segments[this.segments.length - 1];
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
      if (duplicate) return { baseOffset: duplicate.firstOffset, lastOffset: duplicate.lastOffset, duplicate: true };
    }
    const start = batches[0].position;
    let expected = start;
    let next = baseOffset;
    const segBatches: SegmentAppendBatch[] = [];
    for (const b of batches) {
      if (b.position !== expected) throw new KafkaError('CORRUPT_MESSAGE', 'batches to append are not contiguous');
      if (b.size < HEADER_SIZE || b.position + b.size > buf.length) throw new KafkaError('CORRUPT_MESSAGE', 'batch extends past the buffer');
      if (b.lastOffsetDelta < 0) throw new KafkaError('CORRUPT_MESSAGE', `negative lastOffsetDelta ${b.lastOffsetDelta}`);
      const last = next + b.lastOffsetDelta;
      segBatches.push({ position: b.position - start, size: b.size, lastOffset: last, maxTimestamp: b.maxTimestamp });
      next = last + 1;
      expected += b.size;
    }
    const bytes = buf.subarray(start, expected);
    const lastOffset = next - 1;
    if (this.shouldRoll(bytes.length, lastOffset)) this.roll();
    // Offsets are written only now: the CRC does not cover baseOffset.
    let offset = baseOffset;
    for (const b of batches) {
      setBaseOffset(buf, b.position, offset);
      offset += b.lastOffsetDelta + 1;
    }
    this.active.append(bytes, segBatches);
    offset = baseOffset;
    for (const b of batches) {
      this.leaderEpochs.assign(buf.readInt32BE(b.position + PARTITION_LEADER_EPOCH_OFFSET), offset);
      offset += b.lastOffsetDelta + 1;
    }
    if (producers) {
      offset = baseOffset;
      for (const b of batches) {
        const marker = markers?.get(b);
        if (marker) this.completeTxn(b.producerId!, b.producerEpoch!, marker, offset, b.maxTimestamp);
        else if ((b.producerId ?? -1) >= 0 && !b.isControl) {
          if (fromCoordinator || (b.baseSequence ?? -1) < 0) {
            if (b.isTransactional) this.producers.beginTxn(b.producerId!, b.producerEpoch!, offset, b.maxTimestamp);
          } else this.producers.update(b as ProducerBatch, offset, b.isTransactional === true);
        }
        offset += b.lastOffsetDelta + 1;
      }
    }
    return { baseOffset, lastOffset };
  }

  /**
   * A follower's append of the leader's batches (a Fetch response's records), as they are: offsets, leader
   * epochs and everything else already set, nothing re-encoded. A trailing partial batch (a fetch may end
   * in one) is ignored; each whole batch's CRC is checked first (CORRUPT_MESSAGE); batches wholly below
   * logEndOffset (already here) are skipped. The first batch kept must start at or after logEndOffset
   * (offsets may jump: a compacted leader log has gaps) and offsets must increase, else nothing is written
   * (UNKNOWN_SERVER_ERROR "unexpected append offset", CORRUPT_MESSAGE respectively). Rolls and indexes as
   * append() does; the producers' state and the aborted-transaction index follow the batches as on
   * replay, with no duplicate check (the leader made it); the leader epochs are recorded. Returns the
   * offsets written, or null when nothing was. An empty log (nothing between its start and end) whose end
   * falls inside the first batch starts over at that batch's base offset (truncateFullyAndStartAt), as
   * Kafka's follower does when the leader's log start is inside a batch.
   */
  appendAsFollower(buf: Buffer): FollowerAppendResult | null {
    this.ensureOpen();
    let end = 0;
    while (end + LOG_OVERHEAD <= buf.length) {
      const size = LOG_OVERHEAD + buf.readInt32BE(end + 8);
      if (size < HEADER_SIZE) throw new KafkaError('CORRUPT_MESSAGE', `batch at ${end} of a fetched buffer declares size ${size}`);
      if (end + size > buf.length) break;
      end += size;
    }
    if (end === 0) return null;
    const data = buf.subarray(0, end);
    const logEnd = this.logEndOffset;
    const kept: BatchInfo[] = [];
    let next = logEnd;
    for (const b of scanBatches(data, { fromClient: false })) {
      const problem = headerProblem(b);
      if (problem) throw new KafkaError('CORRUPT_MESSAGE', `fetched batch at ${b.position}: ${problem}`);
      const last = b.baseOffset + b.lastOffsetDelta;
      if (kept.length === 0 && last < logEnd) continue;
      if (b.baseOffset < next) {
        if (kept.length === 0 && this.size === 0 && logEnd === this._logStartOffset && !this.straddleRestarted) {
          // Kafka's Partition.appendRecordsToFollowerOrFutureReplica: an empty log started inside a batch
          // (at a leader's log start moved by DeleteRecords) starts over at the batch's base offset.
          this.truncateFullyAndStartAt(b.baseOffset);
          this.straddleRestarted = true;
          try {
            return this.appendAsFollower(buf);
          } finally {
            this.straddleRestarted = false;
          }
        }
        if (kept.length === 0) {
          throw new KafkaError(
            'UNKNOWN_SERVER_ERROR',
            `unexpected append offset: fetched batch [${b.baseOffset}, ${last}] overlaps the log end offset ${logEnd} of ${path.basename(this.dir)}`,
          );
        }
        throw new KafkaError('CORRUPT_MESSAGE', `fetched batches out of order: ${b.baseOffset} follows ${next - 1}`);
      }
      kept.push(b);
      next = last + 1;
    }
    if (kept.length === 0) return null;
    // Markers are read before anything is written, so that an unreadable one writes nothing.
    const markers = kept.map((b) => (b.isControl && b.producerId >= 0 ? readMarker(data, b) : null));
    const firstOffset = kept[0].baseOffset;
    const lastOffset = next - 1;
    // One write, unless the offsets are too far apart for one segment (a compacted log's gaps): then one per batch.
    const runs = lastOffset - firstOffset > INT32_MAX ? kept.map((_, i) => [i, i + 1]) : [[0, kept.length]];
    for (const [from, to] of runs) {
      const run = kept.slice(from, to);
      const start = run[0].position;
      const last = run[run.length - 1];
      const bytes = data.subarray(start, last.position + last.size);
      const runLast = last.baseOffset + last.lastOffsetDelta;
      const segBatches = run.map((b) => ({
        position: b.position - start,
        size: b.size,
        lastOffset: b.baseOffset + b.lastOffsetDelta,
        maxTimestamp: b.maxTimestamp,
      }));
      if (runLast - this.active.baseOffset > INT32_MAX) this.rollAt(runLast - this.logEndOffset > INT32_MAX ? run[0].baseOffset : this.logEndOffset);
      else if (this.shouldRoll(bytes.length, runLast)) this.roll();
      this.active.append(bytes, segBatches);
      for (let i = from; i < to; i++) {
        const b = kept[i];
        if (b.producerId >= 0) this.replayProducerBatch(b, markers[i]);
        this.leaderEpochs.assign(b.partitionLeaderEpoch, b.baseOffset);
      }
    }
    return { firstOffset, lastOffset };
  }

  /**
   * Kafka's UnifiedLog.truncateTo: removes everything at `offset` and after (a follower cutting its log to
   * where it agrees with the leader). No-op (false) when offset >= logEndOffset; below logStartOffset it is
   * truncateFullyAndStartAt(offset). Otherwise the segments starting after `offset` are deleted and the one
   * holding it is cut before its batch holding `offset`, which becomes the log end offset when it is a batch
   * boundary (else the log ends at the base offset of that batch, removed whole as in Kafka). Then the
   * recovery point is capped, the producers' state reloaded from the newest snapshot at or below the new end
   * (snapshots above it deleted) and the log after it, and leader epochs starting at or after the end dropped.
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
    this.truncations++;
    this.readHint = null;
    let keep = this.segments.length;
    while (keep > 1 && this.segments[keep - 1].baseOffset > offset) keep--;
    const doomed = this.segments.splice(keep);
    this.scheduleDeletion(doomed);
    const seg = this.active;
    seg.setActive(true);
    const position = translateOffset(seg, offset);
    if (position >= 0) {
      seg.nextOffset = readBatchHeader(readBytes(seg, position, HEADER_SIZE), 0).baseOffset;
      seg.truncateTo(position);
      rescanAfterTruncation(seg);
    } else {
      // Every batch of the segment lies below `offset` (a compacted log's gap follows): the log ends there.
      seg.nextOffset = Math.max(seg.baseOffset, offset);
    }
    const end = this.logEndOffset;
    this._recoveryPoint = Math.min(this._recoveryPoint, end);
    this.loadProducerState(false);
    this.leaderEpochs.truncateFromEnd(end);
    this.options.onTruncated?.(this, this.active.baseOffset);
    this.options.log?.info(
      { dir: this.dir, offset, logEndOffset: end, deletedSegments: doomed.map((d) => d.baseOffset) },
      `truncated ${path.basename(this.dir)} to offset ${end}`,
    );
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
    this.truncations++;
    this.readHint = null;
    const doomed = this.segments.splice(0);
    this.scheduleDeletion(doomed);
    this.segments.push(Segment.create(this.dir, offset, this.segmentConfig));
    this._logStartOffset = offset;
    this._recoveryPoint = offset;
    this.producers.clear();
    this.leaderEpochs.clearAndFlush();
    this.options.onTruncated?.(this, offset);
    this.options.log?.info(
      { dir: this.dir, offset, deletedSegments: doomed.map((d) => d.baseOffset) },
      `truncated ${path.basename(this.dir)} fully; it starts again at ${offset}`,
    );
  }

  /** Renames the files of segments taken out of the log for deletion, removed file.delete.delay.ms later. */
  private scheduleDeletion(doomed: readonly Segment[]): void {
    this.deleter.schedule(this.renameForDeletion(doomed), this.config.fileDeleteDelayMs);
  }

  /** Renames the files of segments taken out of the log `.deleted`; returns the new names. */
  private renameForDeletion(doomed: readonly Segment[]): string[] {
    const renamed: string[] = [];
    for (const seg of doomed) {
      this.unflushed.delete(seg);
      if (this.readHint?.segment === seg) this.readHint = null;
      try {
        renamed.push(...seg.renameForDeletion());
      } catch (err) {
        // Its files keep their names: the next open finds the segment again (below the log start offset, if
        // that moved, where it is deleted again).
        this.options.log?.warn({ dir: this.dir, segment: seg.baseOffset, err: (err as Error).message }, 'renaming a deleted segment failed');
      }
    }
    return renamed;
  }

  /** Kafka's endOffsetForEpoch, what OffsetForLeaderEpoch answers: leaderEpochs.endOffsetFor(epoch, logEndOffset). */
  endOffsetForEpoch(epoch: number): EpochEndOffset {
    return this.leaderEpochs.endOffsetFor(epoch, this.logEndOffset);
  }

  private shouldRoll(bytes: number, lastOffset: number): boolean {
    const seg = this.active;
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

  /**
   * Starts a new active segment at `base` (>= logEndOffset: above it only when a follower's next batch
   * lies past an offset gap too wide for the active segment). An empty active segment stays, unless
   * `base` is above its own: then it is replaced.
   */
  private rollAt(base: number): void {
    const old = this.active;
    if (old.size === 0) {
      if (base <= old.baseOffset) return;
      this.segments.pop();
      this.unflushed.delete(old);
      if (this.readHint?.segment === old) this.readHint = null;
      old.delete();
      this.segments.push(Segment.create(this.dir, base, this.segmentConfig));
      this._logStartOffset = Math.max(this._logStartOffset, this.segments[0].baseOffset);
      return;
    }
    const truncations = this.truncations;
    // Not fsynced here (the roll is on the append path): a snapshot lost in a crash is rebuilt from the log.
    this.producers.writeSnapshot(old.nextOffset, false);
    old.onBecomeInactive();
    const seg = Segment.create(this.dir, base, this.segmentConfig);
    this.segments.push(seg);
    this.unflushed.add(old);
    this.flushing = this.flushing
      .then(async () => {
        if (this.closed) return;
        await old.flushAsync();
        await fsyncDirInBackground(this.dir);
        this.unflushed.delete(old);
        if (!this.closed && truncations === this.truncations) this._recoveryPoint = Math.max(this._recoveryPoint, base);
      })
      .catch((err) => {
        if (!this.closed) this.options.log?.warn({ dir: this.dir, err: (err as Error).message }, 'background flush of a rolled segment failed');
      });
    this.options.log?.info({ dir: this.dir, segment: base }, 'rolled new log segment');
  }

  // --- read --------------------------------------------------------------------------------------------

  /** The segment holding `offset`: the last one whose base offset is <= offset (the first one below all). */
  private segmentIndexFor(offset: number): number {
    return Math.max(
      0,
      lastIndexWhere(0, this.segments.length - 1, (i) => this.segments[i].baseOffset <= offset),
    );
  }

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
    const records: Buffer[] = [];
    let remaining = Math.max(0, maxBytes);
    let first = true;
    const hint = this.readHint;
    for (let i = this.segmentIndexFor(fetchOffset); fetchOffset < logEnd && i < this.segments.length; i++) {
      const seg = this.segments[i];
      let position = 0;
      if (first) position = hint && hint.segment === seg && hint.offset === fetchOffset ? hint.position : translateOffset(seg, fetchOffset);
      if (position < 0 || position >= seg.size) continue;
      const chunk = readBatches(seg, position, remaining, first && minOneBatch);
      if (chunk.length === 0) break;
      records.push(chunk);
      remaining -= chunk.length;
      first = false;
      this.readHint = { segment: seg, offset: nextOffsetAfter(chunk), position: position + chunk.length };
      if (position + chunk.length < seg.size || remaining <= 0) break;
    }
    return { records, logStartOffset: this._logStartOffset };
  }

  // --- timestamps --------------------------------------------------------------------------------------

  /** The first offset (>= logStartOffset) whose record timestamp is >= ts, with that timestamp; null if none. */
  offsetForTimestamp(ts: number): { offset: number; timestamp: number } | null {
    this.ensureOpen();
    for (let i = this.segmentIndexFor(this._logStartOffset); i < this.segments.length; i++) {
      const found = findOffsetByTimestamp(this.segments[i], ts, this._logStartOffset);
      if (found) return found;
    }
    return null;
  }

  /** The record with the largest timestamp (the first on ties), or null when no record has one. */
  maxTimestampOffset(): { offset: number; timestamp: number } | null {
    this.ensureOpen();
    let best: Segment | null = null;
    for (let i = this.segmentIndexFor(this._logStartOffset); i < this.segments.length; i++) {
      const seg = this.segments[i];
      if (seg.maxTimestamp >= 0 && (!best || seg.maxTimestamp > best.maxTimestamp)) best = seg;
    }
    return best ? maxTimestampAndOffset(best) : null;
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
    if (offset === logEnd && this.active.size > 0) this.roll();
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
    let n = 0;
    for (let i = 0; i < this.segments.length; i++) {
      const next = i + 1 < this.segments.length ? this.segments[i + 1] : null;
      if (next === null && this.segments[i].size === 0) break;
      if (!predicate(this.segments[i], next)) break;
      n++;
    }
    return n;
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
    let n = Math.min(count, this.segments.length);
    if (n <= 0) return 0;
    if (n === this.segments.length) {
      this.roll();
      if (n === this.segments.length) n--; // the active segment was empty: nothing to roll, it stays
    }
    if (n <= 0) return 0;
    const doomed = this.segments.splice(0, n);
    const first = this.segments[0].baseOffset;
    this._logStartOffset = Math.max(this._logStartOffset, first);
    this.leaderEpochs.truncateFromStart(this._logStartOffset);
    const renamed = this.renameForDeletion(doomed);
    for (const offset of snapshotOffsets(this.dir)) {
      if (offset >= first) break;
      const doomedSnapshot = renameForDeletion(path.join(this.dir, offsetToName(offset) + SNAPSHOT_SUFFIX));
      if (doomedSnapshot) renamed.push(doomedSnapshot);
    }
    this.deleter.schedule(renamed, this.config.fileDeleteDelayMs);
    this.options.log?.info(
      { dir: this.dir, segments: doomed.map((s) => s.baseOffset), logStartOffset: this._logStartOffset, fileDeleteDelayMs: this.config.fileDeleteDelayMs },
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
    const seg = this.active;
    if (seg.size === 0 || now - seg.createdAt <= this.config.segmentMs) return false;
    this.roll();
    return true;
  }

  // --- cleaning (the log cleaner: storage/cleaner/) -----------------------------------------------------

  /** The segments, oldest first, the last one active: what the cleaner reads (a copy of the list). */
  segmentList(): readonly Segment[] {
    return [...this.segments];
  }

  /**
   * How many times the log was cut back (truncateTo, truncateFullyAndStartAt): a cleaning pass begun
   * before a change of it gives up, since a segment it read may hold other batches now.
   */
  get truncationCount(): number {
    return this.truncations;
  }

  /** The offset index interval new segment files are written with. */
  get indexIntervalBytes(): number {
    return this.segmentConfig.indexIntervalBytes;
  }

  /**
   * Puts the cleaned segment at `baseOffset`, whose files are <name>.swap by now, in the place of `old`
   * (consecutive inactive segments of this log; the first has that base offset): the old files go, the
   * swap files take their names (cleaner/swap.ts), and the list of segments changes in one step of the
   * event loop, so that every read sees the old segments or the new one. False, and nothing done, when
   * `old` is no longer in the log as it was (retention or DeleteRecords took some, the log was closed).
   * A file operation failing midway is recovered from (recoverSwap): it throws only once the old segments
   * are back in place or the log is closed.
   */
  replaceSegments(old: readonly Segment[], baseOffset: number): boolean {
    if (this.closed || old.length === 0 || old[0].baseOffset !== baseOffset) return false;
    const first = this.segments.indexOf(old[0]);
    if (first < 0 || first + old.length >= this.segments.length) return false;
    if (old.some((seg, i) => this.segments[first + i] !== seg)) return false;
    const nextBase = this.segments[first + old.length].baseOffset;
    const progress = { installing: false };
    let cleaned: Segment;
    try {
      cleaned = this.swapIn(old, baseOffset, nextBase, progress);
    } catch (err) {
      cleaned = this.recoverSwap(old, first, baseOffset, nextBase, progress, err as Error);
    }
    this.segments.splice(first, old.length, cleaned);
    this.readHint = null;
    // The renames, for a power loss (a crash of the process keeps them); the files were fsynced before.
    fsyncDirInBackground(this.dir).catch((err) =>
      this.options.log?.warn({ dir: this.dir, err: (err as Error).message }, 'fsync of a partition directory after a swap failed'),
    );
    return true;
  }

  /** The file steps of replaceSegments (idempotent: run again, they redo only what is left to do). */
  private swapIn(old: readonly Segment[], baseOffset: number, nextBase: number, progress: { installing: boolean }): Segment {
    const renamed: string[] = [];
    try {
      for (const seg of old) {
        this.unflushed.delete(seg);
        renamed.push(...seg.renameForDeletion());
      }
    } finally {
      this.deleter.schedule(renamed, this.config.fileDeleteDelayMs);
    }
    if (swapPending(this.dir, baseOffset)) {
      progress.installing = true;
      installSwap(this.dir, baseOffset);
    }
    return Segment.open(this.dir, baseOffset, this.segmentConfig, nextBase);
  }

  /**
   * replaceSegments failed midway: some old segments may be closed and renamed .deleted, the swap partly
   * installed. The swap is finished from its files, as the next open would (swap.ts), and the cleaned
   * segment returned. Failing that, the old segments are put back (files renamed back, reopened), the swap
   * files removed, and `err` thrown (the cleaner logs it and tries again later). Failing that too, the log
   * is closed, its reads refused, rather than left serving closed segments; the next open settles its files.
   */
  private recoverSwap(old: readonly Segment[], first: number, baseOffset: number, nextBase: number, progress: { installing: boolean }, err: Error): Segment {
    const log = this.options.log;
    const context = { dir: this.dir, segment: baseOffset, err: err.message };
    log?.warn(context, `swapping in cleaned segment ${baseOffset} failed midway; finishing it from its files`);
    try {
      return this.swapIn(old, baseOffset, nextBase, progress);
    } catch (retryErr) {
      log?.warn(
        { ...context, retryErr: (retryErr as Error).message },
        `cannot finish swapping in cleaned segment ${baseOffset}; putting the old segments back`,
      );
    }
    try {
      for (let i = 0; i < old.length; i++) {
        if (!old[i].isClosed) continue;
        for (const file of old[i].filePaths()) {
          if (fs.existsSync(file + DELETED_SUFFIX)) fs.renameSync(file + DELETED_SUFFIX, file);
          // The old segment had no such file: the one there is the swap's.
          else if (progress.installing && old[i].baseOffset === baseOffset) fs.rmSync(file, { force: true });
        }
        this.segments[first + i] = Segment.open(this.dir, old[i].baseOffset, this.segmentConfig, i + 1 < old.length ? old[i + 1].baseOffset : nextBase);
      }
      discardSwap(this.dir, baseOffset);
      this.readHint = null;
    } catch (restoreErr) {
      log?.warn(
        { ...context, restoreErr: (restoreErr as Error).message },
        `cannot put back the segments cleaned segment ${baseOffset} was to replace; closing ${path.basename(this.dir)} until the next open`,
      );
      try {
        this.close();
      } catch {
        // closed regardless (close's finally)
      }
    }
    throw err;
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
    for (const seg of this.unflushed) seg.flush();
    this.unflushed.clear();
    this.active.flush();
    fsyncDir(this.dir, this.segmentConfig.openFiles);
    this._recoveryPoint = this.logEndOffset;
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
    const out: AbortedTxn[] = [];
    // As Kafka: past an entry whose last stable offset reaches the bound, no later abort can concern the range.
    scan: for (let i = this.segmentIndexFor(fetchOffset); i < this.segments.length; i++) {
      for (const e of this.segments[i].txnIndex.entries()) {
        if (e.lastOffset >= fetchOffset && e.firstOffset < upperBound) out.push(e);
        if (e.lastStableOffset >= upperBound) break scan;
      }
    }
    return out.sort((a, b) => a.firstOffset - b.firstOffset);
  }

  /** A marker at `offset` ends a transaction; an abort goes to the .txnindex of the segment holding it. */
  private completeTxn(producerId: number, producerEpoch: number, marker: TransactionMarker, offset: number, timestamp: number): void {
    const done: CompletedTxn = this.producers.completeTxn(producerId, producerEpoch, marker.coordinatorEpoch, offset, !marker.commit, timestamp);
    if (!done.aborted) return;
    const index = this.segments[this.segmentIndexFor(offset)].txnIndex;
    if (index.has(offset)) return; // replaying a marker already indexed
    const unstable = this.producers.firstUnstableOffset();
    index.append({ producerId, firstOffset: done.firstOffset, lastOffset: offset, lastStableOffset: unstable ?? offset + 1 });
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
    await this.flushing;
  }

  /** Flushes, records the active segment's max timestamp in its time index, closes descriptors. */
  close(): void {
    if (this.closed) return;
    try {
      this.active.onBecomeInactive();
      this.active.setActive(true);
      this.flush();
      this.producers.writeSnapshot(this.logEndOffset);
    } finally {
      this.closed = true;
      for (const seg of this.segments) seg.close();
      // Removals still waiting are left to the next open (it removes *.deleted files), as Kafka's.
      if (this.ownsDeleter) void this.deleter.close();
    }
  }

  /**
   * Closes without flushing and renames the directory to <dir>.<id>-delete at once; the renamed directory
   * is removed `delayMs` later in the background (a restart removes it too).
   */
  delete(delayMs = this.config.fileDeleteDelayMs): void {
    if (!this.closed) {
      this.closed = true;
      for (const seg of this.segments) seg.close();
    }
    const parsed = parsePartitionDirName(path.basename(this.dir));
    const unique = randomBytes(8).toString('hex');
    const doomed = parsed ? path.join(path.dirname(this.dir), deletedDirName(parsed.topic, parsed.partition, unique)) : `${this.dir}.${unique}-delete`;
    try {
      fs.renameSync(this.dir, doomed);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    this.deleter.schedule([doomed], delayMs);
  }
}

/** The offset after the last batch in a run of whole batches. */
function nextOffsetAfter(batches: Buffer): number {
  let pos = 0;
  let last = 0;
  while (pos + HEADER_SIZE <= batches.length) {
    last = pos;
    pos += LOG_OVERHEAD + batches.readInt32BE(pos + 8);
  }
  const h = readBatchHeader(batches, last);
  return h.baseOffset + h.lastOffsetDelta + 1;
}
