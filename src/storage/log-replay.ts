// Reading a whole partition log back, batch by batch, as the coordinators do at start to rebuild their state
// from their internal topics (__consumer_offsets, __transaction_state).
import { decodeBatch, scanBatches, type BatchInfo, type KafkaRecord } from '../../protocol/record-batch.js';
import type { PartitionLog } from './partition-log.js';

export interface ReplayVisitor {
  /** A control batch (a transaction marker): its header and the bytes holding it. */
  control?(info: BatchInfo, chunk: Buffer): void;
  /** A data record with a key, at or after the log start offset. */
  record(info: BatchInfo, record: KafkaRecord): void;
}

/** Visits every batch of `log` from its start offset to its end, in offset order. */
export function replayLog(log: PartitionLog, visitor: ReplayVisitor): void {
  let offset = log.logStartOffset;
  while (offset < log.logEndOffset) {
    const { records } = log.read(offset, 1 << 20);
    if (records.length === 0) break;
    const chunk = records.length === 1 ? records[0] : Buffer.concat(records);
    let next = offset;
    for (const info of scanBatches(chunk, { fromClient: false })) {
      next = info.baseOffset + info.lastOffsetDelta + 1;
      if (info.isControl) {
        visitor.control?.(info, chunk);
        continue;
      }
      for (const r of decodeBatch(chunk, info.position).records) {
        if (info.baseOffset + r.offsetDelta >= offset && r.key) visitor.record(info, r);
      }
    }
    if (next <= offset) break;
    offset = next;
  }
}
