// Kafka wire primitives: big-endian fixed-width integers, zig-zag varints, unsigned varints,
// classic (int16/int32 length) and compact (uvarint length + 1) strings, bytes and arrays, uuids.
//
// int64 is read as a JS `number`. Every int64 krill meets in practice (offsets, timestamps, producer ids,
// sentinels -1/-2/-3) sits well inside 2^53; decoding to `number` keeps the hot paths free of bigint
// arithmetic. A value beyond 2^53 loses precision, which no field krill interprets can carry.

export class ProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProtocolError';
  }
}

export class Reader {
  offset: number;
  constructor(
    readonly buf: Buffer,
    offset = 0,
    readonly end = buf.length,
  ) {
    this.offset = offset;
  }

  get remaining(): number {
    return this.end - this.offset;
  }

  private need(n: number): number {
    const at = this.offset;
    if (n < 0 || at + n > this.end) {
      throw new ProtocolError(`short read: need ${n} bytes at ${at}, have ${this.end - at}`);
    }
    this.offset = at + n;
    return at;
  }

  int8(): number {
    return this.buf.readInt8(this.need(1));
  }
  uint8(): number {
    return this.buf.readUInt8(this.need(1));
  }
  int16(): number {
    return this.buf.readInt16BE(this.need(2));
  }
  uint16(): number {
    return this.buf.readUInt16BE(this.need(2));
  }
  int32(): number {
    return this.buf.readInt32BE(this.need(4));
  }
  uint32(): number {
    return this.buf.readUInt32BE(this.need(4));
  }
  int64(): number {
    return Number(this.buf.readBigInt64BE(this.need(8)));
  }
  float64(): number {
    return this.buf.readDoubleBE(this.need(8));
  }
  bool(): boolean {
    return this.uint8() !== 0;
  }

  uvarint(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = this.uint8();
      if (shift === 28 && b > 0x0f) throw new ProtocolError('uvarint overflows 32 bits');
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return result;
      shift += 7;
    }
  }

  varint(): number {
    const u = this.uvarint();
    return u % 2 === 0 ? u / 2 : -(u + 1) / 2;
  }

  uvarlong(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = this.uint8();
      if (shift > 63) throw new ProtocolError('uvarlong overflows 64 bits');
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return result;
      shift += 7;
    }
  }

  varlong(): number {
    const u = this.uvarlong();
    return u % 2 === 0 ? u / 2 : -(u + 1) / 2;
  }

  uuid(): Buffer {
    const at = this.need(16);
    return this.buf.subarray(at, at + 16);
  }

  raw(n: number): Buffer {
    const at = this.need(n);
    return this.buf.subarray(at, at + n);
  }

  /** Length-prefixed string; `compact` means uvarint(length + 1), else int16 length. null for length -1. */
  string(compact: boolean): string | null {
    const len = compact ? this.uvarint() - 1 : this.int16();
    if (len < 0) return null;
    const at = this.need(len);
    return this.buf.toString('utf8', at, at + len);
  }

  bytes(compact: boolean): Buffer | null {
    const len = compact ? this.uvarint() - 1 : this.int32();
    if (len < 0) return null;
    return this.raw(len);
  }

  /** Array length, or -1 for a null array. Guards against absurd lengths before anything is allocated. */
  arrayLength(compact: boolean): number {
    const len = compact ? this.uvarint() - 1 : this.int32();
    if (len > this.remaining) throw new ProtocolError(`array length ${len} exceeds remaining ${this.remaining} bytes`);
    return len < 0 ? -1 : len;
  }
}

/**
 * The writer's first scratch buffer is small enough to come from Node's shared pool (most responses are a
 * few hundred bytes); each further one doubles, up to SCRATCH_MAX.
 */
const SCRATCH_FIRST = 512;
const SCRATCH_MAX = 64 * 1024;
/** Buffers at least this large are passed through as their own chunk instead of being copied. */
const PASS_THROUGH = 4 * 1024;

/**
 * Growable writer that produces a list of chunks. Large byte fields (record batches read from disk)
 * are appended by reference so a Fetch response never copies its payload.
 */
export class Writer {
  private chunks: Buffer[] = [];
  private buf = Buffer.allocUnsafe(SCRATCH_FIRST);
  private nextScratch = SCRATCH_FIRST * 2;
  private pos = 0;
  private start = 0;
  private flushedLength = 0;

  get length(): number {
    return this.flushedLength + (this.pos - this.start);
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    this.cut();
    this.buf = Buffer.allocUnsafe(Math.max(this.nextScratch, n));
    this.nextScratch = Math.min(this.nextScratch * 2, SCRATCH_MAX);
    this.pos = 0;
    this.start = 0;
  }

  private cut(): void {
    if (this.pos > this.start) {
      this.chunks.push(this.buf.subarray(this.start, this.pos));
      this.flushedLength += this.pos - this.start;
      this.start = this.pos;
    }
  }

  int8(v: number): this {
    this.ensure(1);
    this.pos = this.buf.writeInt8(v, this.pos);
    return this;
  }
  uint8(v: number): this {
    this.ensure(1);
    this.pos = this.buf.writeUInt8(v, this.pos);
    return this;
  }
  int16(v: number): this {
    this.ensure(2);
    this.pos = this.buf.writeInt16BE(v, this.pos);
    return this;
  }
  uint16(v: number): this {
    this.ensure(2);
    this.pos = this.buf.writeUInt16BE(v, this.pos);
    return this;
  }
  int32(v: number): this {
    this.ensure(4);
    this.pos = this.buf.writeInt32BE(v, this.pos);
    return this;
  }
  uint32(v: number): this {
    this.ensure(4);
    this.pos = this.buf.writeUInt32BE(v >>> 0, this.pos);
    return this;
  }
  int64(v: number | bigint): this {
    this.ensure(8);
    this.pos = this.buf.writeBigInt64BE(typeof v === 'bigint' ? v : BigInt(Math.trunc(v)), this.pos);
    return this;
  }
  float64(v: number): this {
    this.ensure(8);
    this.pos = this.buf.writeDoubleBE(v, this.pos);
    return this;
  }
  bool(v: boolean): this {
    return this.uint8(v ? 1 : 0);
  }

  uvarint(v: number): this {
    this.ensure(10);
    while (v >= 0x80) {
      this.buf[this.pos++] = (v % 128) | 0x80;
      v = Math.floor(v / 128);
    }
    this.buf[this.pos++] = v;
    return this;
  }

  varint(v: number): this {
    return this.uvarint(v >= 0 ? v * 2 : -v * 2 - 1);
  }

  uuid(v: Buffer | null): this {
    this.ensure(16);
    if (v) v.copy(this.buf, this.pos, 0, 16);
    else this.buf.fill(0, this.pos, this.pos + 16);
    this.pos += 16;
    return this;
  }

  raw(v: Buffer): this {
    if (v.length >= PASS_THROUGH) {
      this.cut();
      this.chunks.push(v);
      this.flushedLength += v.length;
      return this;
    }
    this.ensure(v.length);
    v.copy(this.buf, this.pos);
    this.pos += v.length;
    return this;
  }

  string(v: string | null, compact: boolean): this {
    if (v === null) return compact ? this.uvarint(0) : this.int16(-1);
    const len = Buffer.byteLength(v);
    if (compact) this.uvarint(len + 1);
    else this.int16(len);
    this.ensure(len);
    this.pos += this.buf.write(v, this.pos, 'utf8');
    return this;
  }

  /** Bytes may be a list of buffers (several segment slices) written back to back under one length. */
  bytes(v: Buffer | Buffer[] | null, compact: boolean): this {
    if (v === null) return compact ? this.uvarint(0) : this.int32(-1);
    const parts = Array.isArray(v) ? v : [v];
    let len = 0;
    for (const p of parts) len += p.length;
    if (compact) this.uvarint(len + 1);
    else this.int32(len);
    for (const p of parts) this.raw(p);
    return this;
  }

  arrayLength(len: number, compact: boolean): this {
    return compact ? this.uvarint(len + 1) : this.int32(len);
  }

  /** Reserve an int32 to be filled in later (frame sizes). Returns its absolute position in the current scratch. */
  reserveInt32(): { buf: Buffer; at: number } {
    this.ensure(4);
    const at = this.pos;
    this.pos += 4;
    return { buf: this.buf, at };
  }

  finish(): Buffer[] {
    this.cut();
    const out = this.chunks;
    this.chunks = [];
    this.flushedLength = 0;
    return out;
  }

  /** One contiguous buffer; copies when there is more than one chunk. */
  toBuffer(): Buffer {
    const chunks = this.finish();
    return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
  }
}

/** int64 at a fixed position as a number, without a BigInt round trip; exact for |v| < 2^53. */
export function readInt64At(buf: Buffer, at: number): number {
  return buf.readInt32BE(at) * 4294967296 + buf.readUInt32BE(at + 4);
}

export function writeInt64At(buf: Buffer, at: number, v: number): void {
  const hi = Math.floor(v / 4294967296);
  buf.writeInt32BE(hi, at);
  buf.writeUInt32BE(v - hi * 4294967296, at + 4);
}

export function uvarintSize(v: number): number {
  let n = 1;
  while (v >= 0x80) {
    v = Math.floor(v / 128);
    n++;
  }
  return n;
}

export function varintSize(v: number): number {
  return uvarintSize(v >= 0 ? v * 2 : -v * 2 - 1);
}
