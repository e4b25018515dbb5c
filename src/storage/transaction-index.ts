// A segment's aborted-transaction index, Kafka's <base offset>.txnindex: one entry per transaction whose
// abort marker lies in the segment, so a read_committed fetch can tell consumers which producers' records
// to drop. Created on the first abort; aborts are rare, so entries are appended with a plain write and the
// whole file is read (and kept) on first use.
//   per entry, 34 bytes:  int16 version (0)  int64 producerId  int64 firstOffset  int64 lastOffset (the marker)
//                         int64 lastStableOffset (the partition's once the transaction ended)
import fs from './storage-fs.js';
import { readInt64At, writeInt64At } from '../../protocol/primitives.js';

export const ABORTED_TXN_SIZE = 34;

export interface AbortedTxn {
  producerId: number;
  firstOffset: number;
  lastOffset: number;
  lastStableOffset: number;
}

function encode(e: AbortedTxn): Buffer {
  const buf = Buffer.alloc(ABORTED_TXN_SIZE);
  buf.writeInt16BE(0, 0);
  writeInt64At(buf, 2, e.producerId);
  writeInt64At(buf, 10, e.firstOffset);
  writeInt64At(buf, 18, e.lastOffset);
  writeInt64At(buf, 26, e.lastStableOffset);
  return buf;
}

export class TransactionIndex {
  private cached: AbortedTxn[] | null = null;

  constructor(readonly path: string) {}

  /** Every entry, oldest first; a torn last entry (a crash mid-write) is ignored. */
  entries(): readonly AbortedTxn[] {
    if (this.cached) return this.cached;
    let buf: Buffer;
    try {
      buf = fs.readFileSync(this.path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      buf = Buffer.alloc(0);
    }
    const out: AbortedTxn[] = [];
    for (let at = 0; at + ABORTED_TXN_SIZE <= buf.length; at += ABORTED_TXN_SIZE) {
      out.push({
        producerId: readInt64At(buf, at + 2),
        firstOffset: readInt64At(buf, at + 10),
        lastOffset: readInt64At(buf, at + 18),
        lastStableOffset: readInt64At(buf, at + 26),
      });
    }
    this.cached = out;
    return out;
  }

  has(lastOffset: number): boolean {
    return this.entries().some((e) => e.lastOffset === lastOffset);
  }

  append(entry: AbortedTxn): void {
    const entries = this.entries() as AbortedTxn[];
    fs.appendFileSync(this.path, encode(entry));
    entries.push(entry);
  }

  /** Drops the entries of markers at or after `offset` (the segment was cut there). */
  truncateTo(offset: number): void {
    const kept = this.entries().filter((e) => e.lastOffset < offset);
    if (kept.length === this.entries().length) return;
    if (kept.length === 0) fs.rmSync(this.path, { force: true });
    else fs.writeFileSync(this.path, Buffer.concat(kept.map(encode)));
    this.cached = kept;
  }

  delete(): void {
    fs.rmSync(this.path, { force: true });
    this.cached = [];
  }
}
