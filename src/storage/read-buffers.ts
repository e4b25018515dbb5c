// Buffers for log reads that a Fetch response sends, taken back once the socket has sent them.
//
// Why: a read of a megabyte into fresh memory costs its page faults every time (malloc hands blocks
// this large out as new mappings), and on a virtual machine those faults dominate a large fetch. The
// connection gives a buffer back when the write that carried it has completed; a buffer that is never
// sent (a read whose answer was dropped, a closed connection) is simply left to the garbage collector.

const MIN_POOLED = 64 * 1024;
const MAX_POOLED = 8 * 1024 * 1024;
/** Idle buffers kept across all size classes; beyond this, given-back buffers are dropped. */
const MAX_IDLE_BYTES = 32 * 1024 * 1024;

/** Capacity class of a request for n bytes: the next power of two. */
function classOf(n: number): number {
  return 2 ** Math.ceil(Math.log2(n));
}

class ReadBuffers {
  private readonly idle = new Map<number, ArrayBuffer[]>();
  private idleBytes = 0;
  /** Every buffer this pool handed out, with the number of its views being sent right now. */
  private readonly sending = new WeakMap<ArrayBuffer, number>();

  /** n bytes to read into: pooled memory for sizes where page faults matter, else a plain buffer. */
  take(n: number): Buffer {
    if (n < MIN_POOLED || n > MAX_POOLED) return Buffer.allocUnsafe(n);
    const cls = classOf(n);
    let ab = this.idle.get(cls)?.pop();
    if (ab) this.idleBytes -= cls;
    else ab = new ArrayBuffer(cls);
    this.sending.set(ab, 0);
    return Buffer.from(ab, 0, n);
  }

  /** Whether `view` is of a buffer from take(); if so, the socket must call sent(view) once it has sent it. */
  willSend(view: Buffer): boolean {
    const count = this.sending.get(view.buffer as ArrayBuffer);
    if (count === undefined) return false;
    this.sending.set(view.buffer as ArrayBuffer, count + 1);
    return true;
  }

  /** A view registered with willSend() has been sent: its buffer is free again once no other view is being sent. */
  sent(view: Buffer): void {
    const ab = view.buffer as ArrayBuffer;
    const count = (this.sending.get(ab) ?? 1) - 1;
    this.sending.set(ab, count);
    if (count > 0) return;
    const cls = ab.byteLength;
    if (this.idleBytes + cls > MAX_IDLE_BYTES) return;
    this.sending.delete(ab);
    let list = this.idle.get(cls);
    if (!list) this.idle.set(cls, (list = []));
    list.push(ab);
    this.idleBytes += cls;
  }
}

export const readBuffers = new ReadBuffers();
