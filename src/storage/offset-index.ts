// The offset index (<baseOffset>.index): a sparse map from offsets to byte positions in the segment's
// .log. Each entry is 8 bytes, big-endian:
//
//   int32 relativeOffset   (offset - segment base offset; Kafka stores the LAST offset of the batch)
//   int32 position         (byte position in the .log of the batch that holds that offset)
//
// An entry is appended whenever more than index.interval.bytes (default 4096) of log has been written
// since the previous entry, so both columns strictly increase and the file is entries × 8 bytes.
// lookup(offset) answers the largest entry whose offset is <= the target (binary search), from which a
// scan of batch headers finds the batch holding the target; with no such entry it answers
// {offset: baseOffset, position: 0}.

import { IndexFile } from './index-file.js';
import type { FileOwner, OpenFiles } from './open-files.js';

export const OFFSET_INDEX_ENTRY_SIZE = 8;

export interface OffsetPosition {
  offset: number;
  position: number;
}

export class OffsetIndex extends IndexFile<OffsetPosition> {
  constructor(path: string, baseOffset: number, files?: OpenFiles, owner?: FileOwner) {
    super(path, baseOffset, OFFSET_INDEX_ENTRY_SIZE, files, owner);
  }

  protected decode(buf: Buffer, at: number): OffsetPosition {
    return { offset: this.baseOffset + buf.readInt32BE(at), position: buf.readInt32BE(at + 4) };
  }

  /** Appends (offset, position); both must exceed the last entry's. */
  append(offset: number, position: number): void {
    const rel = offset - this.baseOffset;
    if (rel < 0 || rel > 0x7fffffff) throw new RangeError(`offset ${offset} does not fit segment ${this.baseOffset}`);
    const last = this.lastEntry();
    if (last && (offset <= last.offset || position <= last.position)) {
      throw new RangeError(`index entry (${offset}, ${position}) does not follow (${last.offset}, ${last.position})`);
    }
    const buf = Buffer.allocUnsafe(OFFSET_INDEX_ENTRY_SIZE);
    buf.writeInt32BE(rel, 0);
    buf.writeInt32BE(position, 4);
    this.appendEncoded(buf, { offset, position });
  }

  /** The largest entry whose offset is <= target, or {baseOffset, 0}. */
  lookup(target: number): OffsetPosition {
    const last = this.lastEntry();
    if (!last) return { offset: this.baseOffset, position: 0 };
    if (target >= last.offset) return last;
    const i = this.searchLast((e) => e.offset <= target);
    return i < 0 ? { offset: this.baseOffset, position: 0 } : this.entry(i);
  }

  /** Removes every entry whose offset is >= offset. */
  truncateTo(offset: number): void {
    this.truncateEntries(this.searchLast((e) => e.offset < offset) + 1);
  }

  /** Removes every entry whose position is >= position. */
  truncateToPosition(position: number): void {
    this.truncateEntries(this.searchLast((e) => e.position < position) + 1);
  }

  /** Full check against the segment: offsets and positions strictly increase, positions lie inside the log. */
  validate(logSize: number): string | null {
    let prev: OffsetPosition | null = null;
    return this.scan((e, i) => {
      if (e.offset < this.baseOffset) return `entry ${i}: offset ${e.offset} is below the base offset ${this.baseOffset}`;
      if (e.position < 0 || e.position >= logSize) return `entry ${i}: position ${e.position} is outside the log (${logSize} bytes)`;
      if (prev && (e.offset <= prev.offset || e.position <= prev.position)) return `entry ${i}: not increasing`;
      prev = e;
      return null;
    });
  }
}
