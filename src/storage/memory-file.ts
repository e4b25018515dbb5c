// The bytes of one file of a memory volume (memory-volume.ts), in chunks that never move: an append
// copies into the last chunk, or starts a new one (each twice the size of the one before, up to
// MAX_CHUNK, or as large as the write), so storing a byte costs one copy and one page fault, and never
// a move of what is stored already. A write lands whole in one chunk: a batch, appended in one write,
// is read back as a view of one chunk, without a copy (view()); only a read across chunks copies. The
// unwritten end of the last chunk costs address space only: the system backs memory as it is written.
//
// Bytes a view may show are never written again. A truncation leaves the cut chunk's tail as it is and
// closes that chunk to appends; a write over stored bytes (rare: storage appends) first copies the
// chunks it touches. So a response being sent keeps the bytes it was read with, as a copy would.

const MIN_CHUNK = 4096;
const MAX_CHUNK = 64 * 1024 * 1024;

export class MemoryFileBytes {
  /** Chunk i holds the file's bytes [starts[i], starts[i] + lengths[i]). */
  private readonly chunks: Buffer[] = [];
  private readonly starts: number[] = [];
  private readonly lengths: number[] = [];
  /** Whether the last chunk takes appends (not after a truncation: views may show its tail). */
  private lastOpen = false;
  size = 0;

  /** The chunk holding byte `pos` (< size). */
  private chunkAt(pos: number): number {
    let lo = 0;
    let hi = this.chunks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  read(buf: Buffer, offset: number, length: number, position: number): number {
    const end = Math.min(this.size, position + length);
    if (end <= position) return 0;
    let done = 0;
    for (let i = this.chunkAt(position); position + done < end; i++) {
      const from = position + done - this.starts[i];
      const n = Math.min(this.lengths[i] - from, end - position - done);
      this.chunks[i].copy(buf, offset + done, from, from + n);
      done += n;
    }
    return done;
  }

  /** Up to `length` bytes at `position`: a view when they lie in one chunk, else a copy. */
  view(position: number, length: number): Buffer {
    const end = Math.min(this.size, position + length);
    if (end <= position) return Buffer.alloc(0);
    const i = this.chunkAt(position);
    if (end <= this.starts[i] + this.lengths[i]) return this.chunks[i].subarray(position - this.starts[i], end - this.starts[i]);
    const copy = Buffer.allocUnsafe(end - position);
    this.read(copy, 0, copy.length, position);
    return copy;
  }

  /** Writes src[offset, offset + length) at `position`; past the end, the gap reads as zeros. */
  write(src: Buffer, offset: number, length: number, position: number): void {
    if (position > this.size) this.append(Buffer.alloc(position - this.size), 0, position - this.size);
    const over = Math.min(length, this.size - position);
    if (over > 0) this.overwrite(src, offset, over, position);
    if (length > over) this.append(src, offset + over, length - over);
  }

  truncate(length: number): void {
    if (length >= this.size) {
      if (length > this.size) this.append(Buffer.alloc(length - this.size), 0, length - this.size);
      return;
    }
    const keep = length === 0 ? 0 : this.chunkAt(length - 1) + 1;
    this.chunks.length = this.starts.length = this.lengths.length = keep;
    if (keep > 0) this.lengths[keep - 1] = length - this.starts[keep - 1];
    this.lastOpen = false;
    this.size = length;
  }

  private append(src: Buffer, offset: number, length: number): void {
    const last = this.chunks.length - 1;
    if (this.lastOpen && last >= 0 && this.lengths[last] + length <= this.chunks[last].length) {
      src.copy(this.chunks[last], this.lengths[last], offset, offset + length);
      this.lengths[last] += length;
    } else {
      const grown = last >= 0 ? Math.min(MAX_CHUNK, 2 * this.chunks[last].length) : MIN_CHUNK;
      const chunk = Buffer.allocUnsafe(Math.max(length, grown));
      src.copy(chunk, 0, offset, offset + length);
      this.chunks.push(chunk);
      this.starts.push(this.size);
      this.lengths.push(length);
      this.lastOpen = true;
    }
    this.size += length;
  }

  /** Writes over stored bytes, each chunk touched copied first (views of it keep the old bytes). */
  private overwrite(src: Buffer, offset: number, length: number, position: number): void {
    let done = 0;
    for (let i = this.chunkAt(position); done < length; i++) {
      const fresh = Buffer.allocUnsafe(this.chunks[i].length);
      this.chunks[i].copy(fresh, 0, 0, this.lengths[i]);
      this.chunks[i] = fresh;
      if (i === this.chunks.length - 1) this.lastOpen = true;
      const from = position + done - this.starts[i];
      const n = Math.min(this.lengths[i] - from, length - done);
      src.copy(fresh, from, offset + done, offset + done + n);
      done += n;
    }
  }
}
