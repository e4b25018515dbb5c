// The cleaner's key map (Kafka's SkimpyOffsetMap): for each key met in the dirty range of a log, the offset
// of its latest record, in at most log.cleaner.dedupe.buffer.size bytes (divided among the cleaner threads).
//
// An entry is 24 bytes, as in Kafka: a 16-byte digest of the key and its offset (a float64: offsets stay
// below 2^53), in one open-addressing table held in a Buffer, probed linearly from the digest's bytes. A slot
// whose offset field is 0 is empty: offsets are stored plus one. The table holds at most 90 % of its slots;
// when the dirty range has more keys than that, a pass cleans only up to where the map filled and the next
// pass goes on from there. The digest of a key of up to 15 bytes is its length and the key itself (MD5 costs
// 2-3 µs a key here, most of a pass's time for short keys); of a longer key, its MD5, as Kafka digests every
// key. Two keys with the same digest count as one, as in Kafka: for MD5, a chance of the order of 2^-128.
//
// Unlike Kafka's, the table is not allocated whole up front: it starts small and doubles as keys come, up to
// the buffer size, so the cleaner of a small log (most logs krill serves) takes little memory. While it
// doubles, the old table and the new one are both held: at most 1.5 times the buffer size, for a moment.

import { createRequire } from 'node:module';

// Loaded on the first long key: node:crypto costs ~6 ms at start (OpenSSL), which every broker start would
// pay for a cleaner that may never meet one (see random.ts).
let crypto: typeof import('node:crypto') | null = null;

const BYTES_PER_ENTRY = 24;
const DIGEST_BYTES = 16;
const VERBATIM_MAX = DIGEST_BYTES - 1;
const LOAD_FACTOR = 0.9;
const INITIAL_SLOTS = 1024;
const MAX_BUFFER_BYTES = 2 ** 31 - 1;

/** A key's digest as four 32-bit words; one object, reused: a digest is copied into the table or compared, never kept. */
const digest = new Uint32Array(4);

/** Sets `digest` to the digest of `key` (see the file comment). */
function digestOf(key: Buffer): void {
  if (key.length > VERBATIM_MAX) {
    crypto ??= createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
    const md5 = crypto.createHash('md5').update(key).digest();
    for (let w = 0; w < 4; w++) digest[w] = md5.readUInt32LE(w * 4);
    return;
  }
  // The length, then the key's bytes, then zeros, little-endian in four words.
  let word = key.length;
  let w = 0;
  for (let i = 1; i < DIGEST_BYTES; i++) {
    const byte = i - 1 < key.length ? key[i - 1] : 0;
    word |= byte << ((i & 3) * 8);
    if ((i & 3) === 3) {
      digest[w++] = word >>> 0;
      word = 0;
    }
  }
}

/** The start slot's hash: every word of the digest mixed in through murmur3's finaliser, so high bits reach low ones. */
function slotHash(): number {
  let h = 0;
  for (let w = 0; w < 4; w++) h = fmix32(h ^ digest[w]);
  return h;
}

function fmix32(x: number): number {
  let h = x;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export class OffsetMap {
  /** The most keys the map takes: 90 % of the slots its buffer size holds. */
  readonly maxEntries: number;
  private readonly maxSlots: number;
  private slots: number;
  /** Slot s: its digest in words[6s .. 6s+3], its offset plus one (0: empty) in offsets[3s + 2]; the same memory. */
  private words: Uint32Array;
  private offsets: Float64Array;
  private entries = 0;
  /** The last offset of the last batch whose records are all in the map; -1 before any. */
  latestOffset = -1;

  /** A map of at most `maxSlots` slots (24 bytes each). */
  constructor(maxSlots: number) {
    this.maxSlots = Math.max(0, Math.floor(maxSlots));
    this.maxEntries = Math.floor(this.maxSlots * LOAD_FACTOR);
    this.slots = Math.min(INITIAL_SLOTS, this.maxSlots);
    [this.words, this.offsets] = OffsetMap.table(this.slots);
  }

  private static table(slots: number): [Uint32Array, Float64Array] {
    const memory = new ArrayBuffer(slots * BYTES_PER_ENTRY);
    return [new Uint32Array(memory), new Float64Array(memory)];
  }

  /** A map for a dedupe buffer of `bytes` (log.cleaner.dedupe.buffer.size / log.cleaner.threads). */
  static forBufferSize(bytes: number): OffsetMap {
    // As Kafka: no more than 2 GiB per cleaner thread, whatever the setting.
    return new OffsetMap(Math.min(Math.max(0, bytes), MAX_BUFFER_BYTES) / BYTES_PER_ENTRY);
  }

  get size(): number {
    return this.entries;
  }

  /** Bytes the table takes now. */
  get allocatedBytes(): number {
    return this.words.byteLength;
  }

  /** Records `offset` as the latest of `key`; false (and nothing recorded) when the key is new and the map full. */
  put(key: Buffer, offset: number): boolean {
    digestOf(key);
    let slot = this.find();
    if (slot >= 0 && this.offsets[slot * 3 + 2] !== 0) {
      this.offsets[slot * 3 + 2] = offset + 1;
      return true;
    }
    if (this.entries >= this.maxEntries) return false;
    if (this.entries + 1 > this.slots * LOAD_FACTOR) {
      this.grow();
      slot = this.find();
    }
    this.words.set(digest, slot * 6);
    this.offsets[slot * 3 + 2] = offset + 1;
    this.entries++;
    return true;
  }

  /** The latest offset of `key`, or -1 when the map does not have it. */
  get(key: Buffer): number {
    if (this.slots === 0) return -1;
    digestOf(key);
    const slot = this.find();
    return this.offsets[slot * 3 + 2] - 1; // an empty slot holds 0
  }

  /** The slot holding `digest`, else the empty slot where it would go; -1 when the table has no slot at all. */
  private find(): number {
    if (this.slots === 0) return -1;
    const { words, offsets } = this;
    let slot = slotHash() % this.slots;
    for (;;) {
      if (offsets[slot * 3 + 2] === 0) return slot;
      const w = slot * 6;
      if (words[w] === digest[0] && words[w + 1] === digest[1] && words[w + 2] === digest[2] && words[w + 3] === digest[3]) return slot;
      slot = slot + 1 === this.slots ? 0 : slot + 1;
    }
  }

  /** Doubles the table (up to maxSlots) and puts every entry in its place in the new one. */
  private grow(): void {
    const [oldWords, oldOffsets, oldSlots] = [this.words, this.offsets, this.slots];
    this.slots = Math.min(Math.max(1, oldSlots * 2), this.maxSlots);
    if (this.slots === oldSlots) return;
    [this.words, this.offsets] = OffsetMap.table(this.slots);
    const saved = Uint32Array.from(digest); // the caller's digest, which re-placing entries overwrites
    for (let s = 0; s < oldSlots; s++) {
      if (oldOffsets[s * 3 + 2] === 0) continue;
      digest.set(oldWords.subarray(s * 6, s * 6 + 4));
      const slot = this.find();
      this.words.set(digest, slot * 6);
      this.offsets[slot * 3 + 2] = oldOffsets[s * 3 + 2];
    }
    digest.set(saved);
  }
}
