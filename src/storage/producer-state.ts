// The idempotent producers of one partition, as Kafka's ProducerStateManager keeps them: for each producer
// id that wrote here, its epoch and the metadata of its last 5 batches. With them a retried batch is
// recognised and answered with the offsets it got the first time instead of being appended twice, and a
// gap in the sequence or a stale epoch is refused (OUT_OF_ORDER_SEQUENCE_NUMBER, INVALID_PRODUCER_EPOCH).
//
// The state is snapshotted, in Kafka's format, to <20-digit offset>.snapshot in the partition directory
// when a segment rolls and when the log closes; the offset is the log end offset the state covers. On open
// the newest snapshot at or below the log end is read and the batches after it are replayed from their
// headers. A snapshot keeps only each producer's last batch (as Kafka's does), so after a restart only the
// last batch of each producer is recognised as a retry.
//   int16  version (1)
//   uint32 crc                CRC32C of everything after this field
//   int32  count, then per producer:
//     int64 producer_id   int16 epoch   int32 last_sequence   int64 last_offset
//     int32 offset_delta (last_offset - the last batch's first offset)   int64 timestamp
//     int32 coordinator_epoch (-1 before any marker)   int64 current_txn_first_offset (-1 when no transaction is open)

import fs from './storage-fs.js';
import path from 'node:path';
import { KafkaError } from '../../protocol/errors.js';
import { crc32c } from '../../protocol/crc32c.js';
import { readInt64At, writeInt64At } from '../../protocol/primitives.js';
import { offsetToName } from './file-names.js';
import { writeFileAtomic } from './atomic-file.js';
import { renameForDeletion } from './file-deleter.js';

export const SNAPSHOT_SUFFIX = '.snapshot';
const SNAPSHOT_VERSION = 1;
const ENTRY_SIZE = 8 + 2 + 4 + 8 + 4 + 8 + 4 + 8;
const HEADER_SIZE = 2 + 4 + 4;
/** Batches kept per producer for recognising retries, as Kafka's NUM_BATCHES_TO_RETAIN. */
const BATCHES_TO_RETAIN = 5;
/** Snapshots kept in a partition directory; older ones are deleted when a new one is written. */
const SNAPSHOTS_TO_RETAIN = 2;
const INT32_MAX = 0x7fffffff;

/** The producer fields of a batch header. */
export interface ProducerBatch {
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  lastOffsetDelta: number;
  maxTimestamp: number;
}

export interface BatchMetadata {
  firstSeq: number;
  lastSeq: number;
  firstOffset: number;
  lastOffset: number;
  timestamp: number;
}

export interface ActiveProducer {
  producerId: number;
  producerEpoch: number;
  lastSequence: number;
  lastTimestamp: number;
  /** Last offset of the producer's last data batch, -1 when none is remembered (what the cleaner keeps). */
  lastDataOffset: number;
  /** Epoch of the transaction coordinator whose marker came last, -1 before any. */
  coordinatorEpoch: number;
  /** First offset of the producer's open transaction on this partition, -1 when none. */
  currentTxnStartOffset: number;
}

/** A transaction a marker ended on this partition: its records span [firstOffset, lastOffset (the marker)]. */
export interface CompletedTxn {
  producerId: number;
  firstOffset: number;
  lastOffset: number;
  aborted: boolean;
}

interface ProducerEntry {
  epoch: number;
  /** First offset of the producer's open transaction on this partition, -1 when none. */
  currentTxnFirstOffset: number;
  /** Epoch of the transaction coordinator whose marker came last, -1 before any. */
  coordinatorEpoch: number;
  /** Oldest first, at most BATCHES_TO_RETAIN. */
  batches: BatchMetadata[];
  /** Timestamp of the producer's last batch, for producer.id.expiration.ms. */
  lastTimestamp: number;
}

function lastSeqOf(b: ProducerBatch): number {
  // Sequences wrap at 2^31 - 1 (Kafka's DefaultRecordBatch.incrementSequence).
  const last = b.baseSequence + b.lastOffsetDelta;
  return last > INT32_MAX ? last - INT32_MAX - 1 : last;
}

function inSequence(lastSeq: number, nextSeq: number): boolean {
  return nextSeq === lastSeq + 1 || (nextSeq === 0 && lastSeq === INT32_MAX);
}

export class ProducerStateManager {
  private readonly producers = new Map<number, ProducerEntry>();
  /** First offsets of the open transactions, by producer id: the last stable offset is the least of them. */
  private readonly ongoing = new Map<number, number>();
  /** Whether this partition has snapshot files: once it has, one is written at every roll and close. */
  private snapshotting: boolean;

  constructor(readonly dir: string) {
    this.snapshotting = snapshotOffsets(dir).length > 0;
  }

  get producerCount(): number {
    return this.producers.size;
  }

  /**
   * Checks a producer's batch before it is appended. Returns the metadata of the identical batch appended
   * before (a retry: not to be appended again), or null when the batch is new and in sequence; throws
   * INVALID_PRODUCER_EPOCH or OUT_OF_ORDER_SEQUENCE_NUMBER otherwise. `partition` names it in messages.
   */
  check(b: ProducerBatch, partition: string): BatchMetadata | null {
    const entry = this.producers.get(b.producerId);
    if (!entry) return null; // a producer never seen here (or expired): any sequence is accepted, as in Kafka
    if (b.producerEpoch < entry.epoch) {
      throw new KafkaError(
        'INVALID_PRODUCER_EPOCH',
        `Epoch of producer ${b.producerId} in partition ${partition} is ${b.producerEpoch}, which is smaller than the last seen epoch ${entry.epoch}`,
      );
    }
    const lastSeq = lastSeqOf(b);
    if (b.producerEpoch === entry.epoch) {
      for (const m of entry.batches) if (m.firstSeq === b.baseSequence && m.lastSeq === lastSeq) return m;
      const last = entry.batches[entry.batches.length - 1];
      if (last && !inSequence(last.lastSeq, b.baseSequence)) {
        throw new KafkaError(
          'OUT_OF_ORDER_SEQUENCE_NUMBER',
          `Out of order sequence number for producer ${b.producerId} in partition ${partition}: ${b.baseSequence} (incoming seq. number), ${last.lastSeq} (current end sequence number)`,
        );
      }
    } else if (b.baseSequence !== 0) {
      throw new KafkaError(
        'OUT_OF_ORDER_SEQUENCE_NUMBER',
        `Invalid sequence number for new epoch of producer ${b.producerId} in partition ${partition}: ${b.producerEpoch} (request epoch), ${b.baseSequence} (seq. number), ${entry.epoch} (current producer epoch)`,
      );
    }
    return null;
  }

  /**
   * Records a producer's batch appended at firstOffset (after check(), or when replaying the log); a
   * transactional batch opens the producer's transaction on this partition if none is open.
   */
  update(b: ProducerBatch, firstOffset: number, transactional = false): void {
    let entry = this.producers.get(b.producerId);
    if (!entry || b.producerEpoch !== entry.epoch) {
      entry = {
        epoch: b.producerEpoch,
        currentTxnFirstOffset: entry?.currentTxnFirstOffset ?? -1,
        coordinatorEpoch: entry?.coordinatorEpoch ?? -1,
        batches: [],
        lastTimestamp: -1,
      };
      this.producers.set(b.producerId, entry);
    }
    if (transactional && entry.currentTxnFirstOffset < 0) {
      entry.currentTxnFirstOffset = firstOffset;
      this.ongoing.set(b.producerId, firstOffset);
    }
    entry.batches.push({
      firstSeq: b.baseSequence,
      lastSeq: lastSeqOf(b),
      firstOffset,
      lastOffset: firstOffset + b.lastOffsetDelta,
      timestamp: b.maxTimestamp,
    });
    if (entry.batches.length > BATCHES_TO_RETAIN) entry.batches.shift();
    entry.lastTimestamp = b.maxTimestamp;
    if (!this.snapshotting) this.snapshotting = true;
  }

  /** The producers this partition remembers, with their last batch (DescribeProducers). */
  activeProducers(): ActiveProducer[] {
    return [...this.producers].map(([producerId, e]) => {
      const last = e.batches[e.batches.length - 1];
      return {
        producerId,
        producerEpoch: e.epoch,
        lastSequence: last ? last.lastSeq : -1,
        lastTimestamp: e.lastTimestamp,
        lastDataOffset: last ? last.lastOffset : -1,
        coordinatorEpoch: e.coordinatorEpoch,
        currentTxnStartOffset: e.currentTxnFirstOffset,
      };
    });
  }

  /**
   * Checks a transaction marker (a control batch) before it is appended: a marker of an older producer
   * epoch is INVALID_PRODUCER_EPOCH, one from an older coordinator epoch TRANSACTION_COORDINATOR_FENCED.
   */
  checkMarker(producerId: number, producerEpoch: number, coordinatorEpoch: number, partition: string): void {
    const entry = this.producers.get(producerId);
    if (!entry) return;
    if (producerEpoch < entry.epoch) {
      throw new KafkaError(
        'INVALID_PRODUCER_EPOCH',
        `Transaction marker of producer ${producerId} in partition ${partition} has epoch ${producerEpoch}, older than the last seen epoch ${entry.epoch}`,
      );
    }
    if (coordinatorEpoch < entry.coordinatorEpoch) {
      throw new KafkaError(
        'TRANSACTION_COORDINATOR_FENCED',
        `Transaction marker of producer ${producerId} in partition ${partition} comes from coordinator epoch ${coordinatorEpoch}, older than ${entry.coordinatorEpoch}`,
      );
    }
  }

  /** The producer's entry, created (at this epoch, without batches) for a producer first seen through a transaction. */
  private entryFor(producerId: number, producerEpoch: number, timestamp: number): ProducerEntry {
    let entry = this.producers.get(producerId);
    if (!entry) {
      entry = { epoch: producerEpoch, currentTxnFirstOffset: -1, coordinatorEpoch: -1, batches: [], lastTimestamp: timestamp };
      this.producers.set(producerId, entry);
    }
    return entry;
  }

  /** A marker appended at `offset` ends the producer's transaction on this partition. */
  completeTxn(producerId: number, producerEpoch: number, coordinatorEpoch: number, offset: number, aborted: boolean, timestamp: number): CompletedTxn {
    const entry = this.entryFor(producerId, producerEpoch, timestamp);
    const firstOffset = entry.currentTxnFirstOffset >= 0 ? entry.currentTxnFirstOffset : offset;
    if (producerEpoch !== entry.epoch) {
      entry.epoch = producerEpoch;
      entry.batches = [];
    }
    entry.currentTxnFirstOffset = -1;
    entry.coordinatorEpoch = coordinatorEpoch;
    entry.lastTimestamp = timestamp;
    this.ongoing.delete(producerId);
    if (!this.snapshotting) this.snapshotting = true;
    return { producerId, firstOffset, lastOffset: offset, aborted };
  }

  /** The first offset of the earliest open transaction, or null when none is open. */
  firstUnstableOffset(): number | null {
    let first: number | null = null;
    for (const offset of this.ongoing.values()) if (first === null || offset < first) first = offset;
    return first;
  }

  /**
   * A transactional write a coordinator made for the producer (TxnOffsetCommit's records): no sequence to
   * check or remember, but it opens the producer's transaction on this partition.
   */
  beginTxn(producerId: number, producerEpoch: number, firstOffset: number, timestamp: number): void {
    const entry = this.entryFor(producerId, producerEpoch, timestamp);
    if (entry.currentTxnFirstOffset < 0) {
      entry.currentTxnFirstOffset = firstOffset;
      this.ongoing.set(producerId, firstOffset);
    }
    entry.lastTimestamp = timestamp;
    if (!this.snapshotting) this.snapshotting = true;
  }

  /** Forgets every producer and deletes the snapshot files (the log was emptied: truncateFullyAndStartAt). */
  clear(): void {
    this.producers.clear();
    this.ongoing.clear();
    for (const offset of snapshotOffsets(this.dir)) fs.rmSync(snapshotPath(this.dir, offset), { force: true });
  }

  /** Forgets producers whose last batch is older than `before` (producer.id.expiration.ms); returns how many. */
  expire(before: number): number {
    let n = 0;
    for (const [id, entry] of this.producers) {
      // A producer with an open transaction stays, as in Kafka: the transaction's coordinator ends it.
      if (entry.lastTimestamp < before && entry.currentTxnFirstOffset < 0) {
        this.producers.delete(id);
        n++;
      }
    }
    return n;
  }

  // --- snapshots -----------------------------------------------------------------------------------------

  /**
   * Writes the state as of `offset` (the log end offset) when this partition has ever had a producer, then
   * keeps only the newest SNAPSHOTS_TO_RETAIN snapshots.
   */
  writeSnapshot(offset: number, durable = true): void {
    if (!this.snapshotting) return;
    const buf = Buffer.alloc(HEADER_SIZE + this.producers.size * ENTRY_SIZE);
    buf.writeInt16BE(SNAPSHOT_VERSION, 0);
    buf.writeInt32BE(this.producers.size, 6);
    let at = HEADER_SIZE;
    for (const [id, entry] of this.producers) {
      const last = entry.batches[entry.batches.length - 1];
      writeInt64At(buf, at, id);
      buf.writeInt16BE(entry.epoch, at + 8);
      buf.writeInt32BE(last ? last.lastSeq : -1, at + 10);
      writeInt64At(buf, at + 14, last ? last.lastOffset : -1);
      buf.writeInt32BE(last ? last.lastOffset - last.firstOffset : 0, at + 22);
      writeInt64At(buf, at + 26, entry.lastTimestamp);
      buf.writeInt32BE(entry.coordinatorEpoch, at + 34);
      writeInt64At(buf, at + 38, entry.currentTxnFirstOffset);
      at += ENTRY_SIZE;
    }
    buf.writeUInt32BE(crc32c(buf, 6) >>> 0, 2);
    writeFileAtomic(snapshotPath(this.dir, offset), buf, durable);
    const offsets = snapshotOffsets(this.dir);
    for (const old of offsets.slice(0, Math.max(0, offsets.length - SNAPSHOTS_TO_RETAIN))) {
      fs.rmSync(snapshotPath(this.dir, old), { force: true });
    }
  }

  /**
   * Loads the newest readable snapshot at or below `logEnd`, deleting those above it (a crash cut the log
   * below them) and unreadable ones. Returns the offset to replay the log from: the snapshot's, or null
   * when there is none (replay from the start of the log).
   */
  loadSnapshot(logEnd: number, warn?: (file: string, why: string) => void): number | null {
    this.producers.clear();
    this.ongoing.clear();
    const offsets = snapshotOffsets(this.dir);
    for (let i = offsets.length - 1; i >= 0; i--) {
      const file = snapshotPath(this.dir, offsets[i]);
      if (offsets[i] > logEnd) {
        fs.rmSync(file, { force: true });
        continue;
      }
      const problem = this.readSnapshot(fs.readFileSync(file));
      if (problem === null) return offsets[i];
      warn?.(file, problem);
      this.producers.clear();
      this.ongoing.clear();
      fs.rmSync(file, { force: true });
    }
    return null;
  }

  private readSnapshot(buf: Buffer): string | null {
    if (buf.length < HEADER_SIZE) return 'shorter than its header';
    if (buf.readInt16BE(0) !== SNAPSHOT_VERSION) return `unknown version ${buf.readInt16BE(0)}`;
    if (crc32c(buf, 6) >>> 0 !== buf.readUInt32BE(2)) return 'CRC mismatch';
    const count = buf.readInt32BE(6);
    if (count < 0 || buf.length !== HEADER_SIZE + count * ENTRY_SIZE) return `size does not match ${count} entries`;
    for (let i = 0, at = HEADER_SIZE; i < count; i++, at += ENTRY_SIZE) {
      const lastSeq = buf.readInt32BE(at + 10);
      const lastOffset = readInt64At(buf, at + 14);
      const delta = buf.readInt32BE(at + 22);
      const timestamp = readInt64At(buf, at + 26);
      const first = lastSeq - delta;
      const firstSeq = first < 0 ? first + INT32_MAX + 1 : first;
      const batches = lastSeq < 0 ? [] : [{ firstSeq, lastSeq, firstOffset: lastOffset - delta, lastOffset, timestamp }];
      const producerId = readInt64At(buf, at);
      const currentTxnFirstOffset = readInt64At(buf, at + 38);
      this.producers.set(producerId, {
        epoch: buf.readInt16BE(at + 8),
        currentTxnFirstOffset,
        coordinatorEpoch: buf.readInt32BE(at + 34),
        batches,
        lastTimestamp: timestamp,
      });
      if (currentTxnFirstOffset >= 0) this.ongoing.set(producerId, currentTxnFirstOffset);
    }
    return null;
  }
}

function snapshotPath(dir: string, offset: number): string {
  return path.join(dir, offsetToName(offset) + SNAPSHOT_SUFFIX);
}

/** The offsets of the snapshot files in `dir`, ascending. */
export function snapshotOffsets(dir: string): number[] {
  const out: number[] = [];
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of names) {
    const m = /^(\d{20})\.snapshot$/.exec(name);
    if (m) out.push(Number(m[1]));
  }
  return out.sort((a, b) => a - b);
}

/** Renames the snapshot files below `offset` <name>.deleted (deleted segments' snapshots); returns the new names. */
export function renameSnapshotsForDeletion(dir: string, offset: number): string[] {
  const renamed: string[] = [];
  for (const at of snapshotOffsets(dir)) {
    if (at >= offset) break;
    const doomed = renameForDeletion(path.join(dir, offsetToName(at) + SNAPSHOT_SUFFIX));
    if (doomed) renamed.push(doomed);
  }
  return renamed;
}
