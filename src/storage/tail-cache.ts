// Recently appended bytes of each segment, kept in memory so that fetches right behind the producer (the
// usual consumer) are answered without a read from the file: a consumer at the end of the log otherwise
// costs a pread per fetch, and reading a fixed-size window wastes what does not form whole batches.
//
// The appended buffers are kept as they are (they are the batches exactly as written to the .log), so
// caching costs no copy. A buffer may be a view of a larger one (a request frame, a socket read), which
// stays alive as long as the view: the budget therefore counts each entry as its whole backing
// ArrayBuffer, which over-counts shared ones but never under-counts what is really held.
// One process-wide budget, spent in append order: the oldest entry of all is evicted first, which is
// always the first entry of its segment, so every segment keeps a contiguous run that ends at its end.

export interface TailEntry {
  /** Byte position in the segment's .log of bytes[0]. */
  position: number;
  bytes: Buffer;
  cost: number;
  dropped: boolean;
  owner: SegmentTail;
}

const EMPTY = Buffer.alloc(0);
let budget = 32 * 1024 * 1024;
let total = 0;
let order: TailEntry[] = [];
let head = 0; // order[head] is the oldest entry not yet passed by eviction
let stale = 0; // dropped entries (by clear()) still in order[head..]

/** Bounds the bytes (counted as in the header) the tail cache holds process-wide; 0 disables it. */
export function setTailCacheBytes(bytes: number): void {
  budget = Math.max(0, bytes);
  evict();
}

export function tailCacheBytes(): { budget: number; used: number } {
  return { budget, used: total };
}

function evict(): void {
  while (total > budget && head < order.length) {
    const e = order[head++];
    if (!e.dropped) e.owner.dropFirst(e);
    stale--;
  }
  if (stale > 1024 && stale * 2 > order.length - head) {
    // Segments cleared (closed, deleted) while the budget was not reached: forget their entries.
    order = order.slice(head).filter((e) => !e.dropped);
    head = 0;
    stale = 0;
  } else if (head > 1024 && head * 2 > order.length) {
    order = order.slice(head);
    head = 0;
  }
}

function release(e: TailEntry): void {
  if (e.dropped) return;
  e.dropped = true;
  e.bytes = EMPTY; // the memory goes now, even while the entry waits in the eviction order
  total -= e.cost;
  stale++;
}

/** One segment's cached tail: entries contiguous in position, the last one ending at the segment's end. */
export class SegmentTail {
  private entries: TailEntry[] = [];
  private first = 0; // entries[first] is the oldest kept

  /** Records bytes just appended at `position`; anything not contiguous with what is kept is dropped first. */
  add(position: number, bytes: Buffer): void {
    if (budget === 0 || bytes.length === 0) return;
    const last = this.entries.length > this.first ? this.entries[this.entries.length - 1] : null;
    if (last && last.position + last.bytes.length !== position) this.clear();
    const cost = Math.max(bytes.length, bytes.buffer.byteLength);
    if (cost > budget) {
      this.clear(); // a gap would follow: what is kept must end at the segment's end
      return;
    }
    const e: TailEntry = { position, bytes, cost, dropped: false, owner: this };
    this.entries.push(e);
    order.push(e);
    total += cost;
    evict();
  }

  /** Called by eviction with this segment's oldest entry. */
  dropFirst(e: TailEntry): void {
    if (this.entries[this.first] !== e) {
      this.clear(); // cannot happen while appends keep their order; if it did, a gap would follow
      return;
    }
    release(e);
    this.first++;
    if (this.first > 64 && this.first * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.first);
      this.first = 0;
    }
  }

  clear(): void {
    for (let i = this.first; i < this.entries.length; i++) release(this.entries[i]);
    this.entries = [];
    this.first = 0;
  }

  /** The position from which bytes are cached, or -1 when nothing is. */
  get start(): number {
    return this.entries.length > this.first ? this.entries[this.first].position : -1;
  }

  /**
   * Whole batches from `position` (a batch boundary at or after `start`) to at most maxBytes, the first
   * one whole even when larger if minOneBatch; views of the cached buffers, in order. Returns null when
   * `position` is not cached.
   */
  read(position: number, maxBytes: number, minOneBatch: boolean): Buffer[] | null {
    const i = this.find(position);
    if (i < 0) return null;
    const out: Buffer[] = [];
    let taken = 0;
    for (let k = i; k < this.entries.length; k++) {
      const { bytes, position: at } = this.entries[k];
      const from = k === i ? position - at : 0;
      let end = from;
      while (end + 12 <= bytes.length) {
        const size = 12 + bytes.readInt32BE(end + 8);
        if (taken + size > maxBytes && !(minOneBatch && taken === 0)) break;
        taken += size;
        end += size;
      }
      if (end > from) out.push(bytes.subarray(from, end));
      if (end < bytes.length) break;
    }
    return out;
  }

  /** Index of the entry holding `position`, or -1. */
  private find(position: number): number {
    let lo = this.first;
    let hi = this.entries.length - 1;
    if (hi < lo || position < this.entries[lo].position) return -1;
    const last = this.entries[hi];
    if (position >= last.position + last.bytes.length) return -1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.entries[mid].position <= position) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}
