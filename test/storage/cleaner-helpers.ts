// Test helpers for the log cleaner: a log manager in a temp dir with a compacted topic, keyed appends
// (plain, idempotent, transactional, compressed), and a read of every record left with its offset.
import path from 'node:path';
import { buildMarkerBatch } from '../../protocol/control-record.js';
import { buildBatch, decodeBatch, scanBatches, type SimpleRecord } from '../../protocol/record-batch.js';
import { LogManager } from '../../src/storage/log-manager.js';
import { LogCleaner } from '../../src/storage/cleaner/log-cleaner.js';
import type { PartitionLog } from '../../src/storage/partition-log.js';
import { rmDir, tempDir } from './batches.js';

export const TOPIC = 't';

export class Clock {
  constructor(public ms = 1_700_000_000_000) {}
  readonly now = () => this.ms;
}

export interface Fixture {
  root: string;
  mgr: LogManager;
  log: PartitionLog;
  clock: Clock;
  cleaner: LogCleaner;
  reopen(): void;
  close(): void;
}

const fixtures: Fixture[] = [];

/** A log manager on a fresh temp dir with topic `t` (1 partition, cleanup.policy=compact unless overridden). */
export function setup(configs: Record<string, string> = {}, dedupeBufferSize = 1 << 20): Fixture {
  const root = tempDir();
  const clock = new Clock();
  const f: Fixture = {
    root,
    clock,
    mgr: null!,
    log: null!,
    cleaner: null!,
    reopen() {
      if (f.mgr) f.mgr.close();
      f.mgr = LogManager.open({ dataDir: root, now: clock.now });
      if (!f.mgr.getTopic(TOPIC)) f.mgr.createTopic(TOPIC, 1, { 'cleanup.policy': 'compact', 'segment.bytes': '1048576', ...configs });
      f.log = f.mgr.partition(TOPIC, 0)!;
      f.cleaner = new LogCleaner({ logs: f.mgr, threads: 1, dedupeBufferSize, now: clock.now, chunkBytes: 4096 });
    },
    close() {
      try {
        f.mgr.close();
      } catch {
        // closed already
      }
      rmDir(root);
    },
  };
  f.reopen();
  fixtures.push(f);
  return f;
}

export async function closeAll(): Promise<void> {
  for (const f of fixtures.splice(0)) {
    await f.cleaner.closed();
    f.close();
  }
}

export interface ProduceOptions {
  compression?: number;
  producerId?: number;
  producerEpoch?: number;
  baseSequence?: number;
  isTransactional?: boolean;
}

/** Appends one batch of keyed records (value null: a tombstone); returns its base offset. */
export function produce(log: PartitionLog, records: SimpleRecord[], opts: ProduceOptions = {}): number {
  const buf = buildBatch(
    records.map((r) => ({ timestamp: 1_700_000_000_000, ...r })),
    opts,
  );
  return log.append(buf, scanBatches(buf, { fromClient: false })).baseOffset;
}

export function marker(log: PartitionLog, producerId: number, commit: boolean, producerEpoch = 0, timestamp = 1_700_000_000_000): number {
  const buf = buildMarkerBatch(producerId, producerEpoch, { commit, coordinatorEpoch: 0 }, timestamp);
  return log.append(buf, scanBatches(buf, { fromClient: false }), true).baseOffset;
}

export interface ReadRecord {
  offset: number;
  key: string | null;
  value: string | null;
  timestamp: number;
  control: boolean;
  producerId: number;
}

/** Every record left in the log, in offset order, and the batches (headers) holding them. */
export function readAll(log: PartitionLog): { records: ReadRecord[]; batches: ReturnType<typeof scanBatches> } {
  const records: ReadRecord[] = [];
  const batches: ReturnType<typeof scanBatches> = [];
  let offset = log.logStartOffset;
  while (offset < log.logEndOffset) {
    const { records: chunks } = log.read(offset, 1 << 20);
    if (chunks.length === 0) break;
    const buf = Buffer.concat(chunks);
    let next = offset;
    for (const b of scanBatches(buf, { fromClient: false })) {
      next = b.baseOffset + b.lastOffsetDelta + 1;
      if (next <= offset) continue;
      batches.push(b);
      for (const r of decodeBatch(buf, b.position).records) {
        records.push({
          offset: b.baseOffset + r.offsetDelta,
          key: r.key?.toString() ?? null,
          value: r.value?.toString() ?? null,
          timestamp: b.baseTimestamp + r.timestampDelta,
          control: b.isControl,
          producerId: b.producerId,
        });
      }
    }
    if (next <= offset) break;
    offset = next;
  }
  return { records, batches };
}

/** The latest value of each key among `records` (tombstones as null). */
export function latestByKey(records: ReadRecord[]): Map<string, { offset: number; value: string | null }> {
  const out = new Map<string, { offset: number; value: string | null }>();
  for (const r of records) if (r.key !== null && !r.control) out.set(r.key, { offset: r.offset, value: r.value });
  return out;
}

export function partitionDir(f: Fixture): string {
  return path.join(f.root, `${TOPIC}-0`);
}
