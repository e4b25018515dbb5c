// The time index (<baseOffset>.timeindex): a sparse map from timestamps to offsets. Each entry is 12
// bytes, big-endian:
//
//   int64 timestamp        (the largest batch maxTimestamp seen in the segment so far)
//   int32 relativeOffset   (offset - base offset, of the last offset of the batch that first reached it)
//
// Entries are considered at the same points as offset index entries (every index.interval.bytes) and
// appended only when the max timestamp so far exceeds the last entry's, so timestamps strictly increase
// and offsets never decrease. When a segment stops being the active one (roll) or is closed, a final
// entry with the segment's max timestamp is added, so the last entry gives the segment's max timestamp.
// Because no record before an entry's batch has a timestamp >= the entry's timestamp, lookup(ts) (the
// entry with the largest timestamp <= ts, else {-1, baseOffset}) gives a place from which a forward scan
// finds the first record with timestamp >= ts.

import { IndexFile } from './index-file.js';
import type { FileOwner, OpenFiles } from './open-files.js';
import { readInt64At, writeInt64At } from '../../protocol/primitives.js';

export const TIME_INDEX_ENTRY_SIZE = 12;

export interface TimestampOffset {
  timestamp: number;
  offset: number;
}

export class TimeIndex extends IndexFile<TimestampOffset> {
  constructor(path: string, baseOffset: number, files?: OpenFiles, owner?: FileOwner) {
    super(path, baseOffset, TIME_INDEX_ENTRY_SIZE, files, owner);
  }

  protected decode(buf: Buffer, at: number): TimestampOffset {
    const timestamp = readInt64At(buf, at);
    return { timestamp, offset: this.baseOffset + buf.readInt32BE(at + 8) };
  }

  /** Appends (timestamp, offset) when timestamp exceeds the last entry's; returns whether it did. */
  maybeAppend(timestamp: number, offset: number): boolean {
    if (timestamp < 0) return false;
    const last = this.lastEntry();
    if (last && timestamp <= last.timestamp) return false;
    if (last && offset < last.offset) throw new RangeError(`time index offset ${offset} is below ${last.offset}`);
    const rel = offset - this.baseOffset;
    if (rel < 0 || rel > 0x7fffffff) throw new RangeError(`offset ${offset} does not fit segment ${this.baseOffset}`);
    const buf = Buffer.allocUnsafe(TIME_INDEX_ENTRY_SIZE);
    writeInt64At(buf, 0, timestamp);
    buf.writeInt32BE(rel, 8);
    this.appendEncoded(buf, { timestamp, offset });
    return true;
  }

  /** The entry with the largest timestamp <= ts, or {timestamp: -1, offset: baseOffset}. */
  lookup(ts: number): TimestampOffset {
    const i = this.searchLast((e) => e.timestamp <= ts);
    return i < 0 ? { timestamp: -1, offset: this.baseOffset } : this.entry(i);
  }

  /** Removes every entry whose offset is >= offset. */
  truncateTo(offset: number): void {
    this.truncateEntries(this.searchLast((e) => e.offset < offset) + 1);
  }

  /** Full check: timestamps strictly increase, offsets never decrease and lie in [base, nextOffset). */
  validate(nextOffset?: number): string | null {
    let prev: TimestampOffset | null = null;
    return this.scan((e, i) => {
      if (e.offset < this.baseOffset) return `entry ${i}: offset ${e.offset} is below the base offset ${this.baseOffset}`;
      if (nextOffset !== undefined && e.offset >= nextOffset) return `entry ${i}: offset ${e.offset} is past the segment's end ${nextOffset}`;
      if (e.timestamp < 0) return `entry ${i}: negative timestamp`;
      if (prev && (e.timestamp <= prev.timestamp || e.offset < prev.offset)) return `entry ${i}: not increasing`;
      prev = e;
      return null;
    });
  }
}
