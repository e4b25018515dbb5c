// A connection's receive buffer: socket reads land in its free tail (Node's `onread` option hands the
// kernel that tail directly), and complete size-prefixed frames are cut from its head as views.
//
// Why not Node's 'data' events: every read then arrives in a fresh 64 KB allocation, so a producer
// sending a gigabyte makes the process allocate, page-fault and garbage-collect a gigabyte of read
// buffers, and a frame spanning reads has to be copied out of them whole. Here the same memory takes
// every read; only the received part of an unfinished frame moves, when the tail has no room for the
// rest of it, and a frame is handed on without a copy.

/** Capacity of a new buffer, and what one grown for large frames returns to once it is empty. */
const INITIAL_BYTES = 64 * 1024;
/** Below this much free tail, a read is not worth a system call: compact or grow first. */
const MIN_READ_BYTES = 16 * 1024;
/**
 * An empty buffer larger than this is replaced by a new small one: a connection that once sent a
 * 50 MB request should not keep 50 MB for the rest of its life.
 */
const KEEP_BYTES_MAX = 4 * 1024 * 1024;

export type FrameSize = { size: number } | { invalid: number } | null;

export class ReceiveBuffer {
  private buf = Buffer.allocUnsafe(INITIAL_BYTES);
  /** Received bytes not yet taken are buf[start, end). */
  private start = 0;
  private end = 0;

  /** @param maxFrameBytes sizes above this are invalid (socket.request.max.bytes): never reserved for. */
  constructor(readonly maxFrameBytes: number) {}

  get pending(): number {
    return this.end - this.start;
  }

  /**
   * The free tail, where the next `minRoom`+ bytes can be received: room for at least the rest of the
   * frame in progress (so that it ends up contiguous) and never less than MIN_READ_BYTES.
   */
  tail(minRoom = 0): Buffer {
    const pending = this.end - this.start;
    let need = Math.max(minRoom, MIN_READ_BYTES);
    const head = this.peekSize();
    if (head && 'size' in head) need = Math.max(need, 4 + head.size - pending);
    if (this.buf.length - this.end < need) {
      if (this.buf.length - pending >= need && this.start > 0) {
        // Move the unfinished part to the front; the views taken before it are no longer in use.
        this.buf.copyWithin(0, this.start, this.end);
      } else {
        // Growing for a large frame: some headroom, so the next frames of about its size fit without moves.
        const want = pending + need;
        const capacity = want > KEEP_BYTES_MAX ? want : Math.min(KEEP_BYTES_MAX, Math.ceil(want * 1.25));
        const next = Buffer.allocUnsafe(Math.max(INITIAL_BYTES, capacity));
        this.buf.copy(next, 0, this.start, this.end);
        this.buf = next;
      }
      this.start = 0;
      this.end = pending;
    }
    return this.buf.subarray(this.end);
  }

  /** `n` bytes were received into the buffer tail() returned last. */
  filled(n: number): void {
    this.end += n;
  }

  /** Copies in bytes that arrived in a buffer of their own. */
  append(chunk: Buffer): void {
    chunk.copy(this.tail(chunk.length));
    this.filled(chunk.length);
  }

  /** The size of the next frame, once its 4-byte prefix is here. */
  peekSize(): FrameSize {
    if (this.end - this.start < 4) return null;
    const size = this.buf.readInt32BE(this.start);
    return size < 0 || size > this.maxFrameBytes ? { invalid: size } : { size };
  }

  /**
   * The next frame's body (without its size prefix) if it is complete, else null. It is a view: valid
   * until the next tail() call, unless detach() gives the buffer away first.
   */
  takeFrame(): Buffer | null {
    const head = this.peekSize();
    if (!head || !('size' in head) || this.end - this.start < 4 + head.size) return null;
    const frame = this.buf.subarray(this.start + 4, this.start + 4 + head.size);
    this.start += 4 + head.size;
    return frame;
  }

  /** The frames taken so far stay valid for good: later bytes go to a new buffer. */
  detach(): void {
    const pending = this.end - this.start;
    const next = Buffer.allocUnsafe(Math.max(INITIAL_BYTES, pending + MIN_READ_BYTES));
    this.buf.copy(next, 0, this.start, this.end);
    this.buf = next;
    this.start = 0;
    this.end = pending;
  }

  /** Called once the frames taken are no longer in use: an empty buffer starts over at its front. */
  settle(): void {
    if (this.start !== this.end) return;
    this.start = this.end = 0;
    if (this.buf.length > KEEP_BYTES_MAX) this.buf = Buffer.allocUnsafe(INITIAL_BYTES);
  }
}
