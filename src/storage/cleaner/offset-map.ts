// The cleaner's key map (Kafka's SkimpyOffsetMap): for each key met in the dirty range of a log, the offset
// of its latest record. Its size is bounded as Kafka bounds it: log.cleaner.dedupe.buffer.size (divided among
// the cleaner threads) at 24 bytes an entry (a 16-byte MD5 and an 8-byte offset), filled to at most 90 %.
// When the dirty range holds more keys than that, a pass cleans only up to where the map filled, and the
// next pass goes on from there.
//
// Keys of up to 16 bytes are held as they are; longer ones by their MD5 digest (as Kafka holds every key),
// so what an entry takes does not grow with its key. It is a JavaScript Map, not Kafka's preallocated
// array: a pass takes as many keys as Kafka's would for the same setting, and memory only for the keys it
// meets (nothing for a small log), but 60 to 80 bytes a key rather than 24.

import crypto from 'node:crypto';

const BYTES_PER_ENTRY = 24;
const LOAD_FACTOR = 0.9;
const VERBATIM_MAX = 16;

function mapKey(key: Buffer): string {
  return key.length <= VERBATIM_MAX ? 'k' + key.toString('latin1') : 'h' + crypto.createHash('md5').update(key).digest().toString('latin1');
}

export class OffsetMap {
  private readonly offsets = new Map<string, number>();
  /** The last offset of the last batch whose records are all in the map; -1 before any. */
  latestOffset = -1;

  constructor(readonly maxEntries: number) {}

  /** A map for a dedupe buffer of `bytes` (log.cleaner.dedupe.buffer.size / log.cleaner.threads). */
  static forBufferSize(bytes: number): OffsetMap {
    return new OffsetMap(Math.floor((Math.max(0, bytes) / BYTES_PER_ENTRY) * LOAD_FACTOR));
  }

  get size(): number {
    return this.offsets.size;
  }

  /** Records `offset` as the latest of `key`; false (and nothing recorded) when the key is new and the map full. */
  put(key: Buffer, offset: number): boolean {
    const k = mapKey(key);
    if (this.offsets.size >= this.maxEntries && !this.offsets.has(k)) return false;
    this.offsets.set(k, offset);
    return true;
  }

  /** The latest offset of `key`, or -1 when the map does not have it. */
  get(key: Buffer): number {
    return this.offsets.get(mapKey(key)) ?? -1;
  }
}
