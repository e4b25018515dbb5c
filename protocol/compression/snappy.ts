// snappy (codec 2). Two framings are in use in Kafka land:
//
//  * xerial framing — what the Java client (snappy-java's SnappyOutputStream) and a Java broker that
//    recompresses write:
//        magic   8 bytes  0x82 'S' 'N' 'A' 'P' 'P' 'Y' 0x00
//        version int32    (1)
//        compat  int32    (1)
//        then blocks of   int32 compressedLength, compressedLength bytes of raw snappy
//    (snappy-java also accepts a second header in the middle, i.e. concatenated streams; so do we.)
//  * raw snappy — one block: uvarint uncompressedLength, then snappy elements. librdkafka writes this.
//
// Decompression detects the xerial header and handles both. Compression writes RAW snappy:
// librdkafka, franz-go, sarama, kafka-python, kafkajs-snappy and @platformatic/kafka all read it, and the
// Java client reads it too (snappy-java's SnappyInputStream falls back to a whole-stream raw block when
// the xerial magic is absent). xerial would be what a Java broker writes, but @platformatic/kafka's
// snappy decoder does not understand xerial, so raw is the most widely readable choice.

import { KafkaError } from '../errors.js';
import { loadNative } from './native.js';
import { inflateLimitError } from './inflate-limit.js';

interface SnappyModule {
  compressSync(input: Uint8Array): Buffer;
  uncompressSync(input: Uint8Array, options?: { asBuffer?: boolean }): string | Buffer;
}

const snappy = (): SnappyModule => loadNative<SnappyModule>('snappy', 'snappy');

export const XERIAL_MAGIC = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);
/** Magic plus the two version ints. */
export const XERIAL_HEADER_SIZE = 16;
/** snappy-java's default block size: the amount of input each xerial block holds. */
const XERIAL_BLOCK_SIZE = 32 * 1024;

function hasXerialMagic(data: Buffer, at: number): boolean {
  return data.length - at >= XERIAL_HEADER_SIZE && data.compare(XERIAL_MAGIC, 0, 8, at, at + 8) === 0;
}

export function isXerialFramed(data: Buffer): boolean {
  return hasXerialMagic(data, 0);
}

/**
 * The length a raw snappy block declares for its output (its leading uvarint), which the decoder must
 * produce exactly: checking it against the cap costs nothing and comes before any allocation.
 */
function declaredLength(block: Buffer): number {
  let n = 0;
  for (let i = 0; i < 5 && i < block.length; i++) {
    const b = block[i];
    n += (b & 0x7f) * 2 ** (7 * i);
    if (b < 0x80) return n;
  }
  throw new KafkaError('CORRUPT_MESSAGE', 'snappy block does not start with a valid uncompressed length');
}

function rawUncompress(block: Buffer, budget: number, maxBytes: number): Buffer {
  const length = declaredLength(block);
  if (length > budget) throw inflateLimitError('snappy', maxBytes, maxBytes - budget + length);
  return snappy().uncompressSync(block, { asBuffer: true }) as Buffer;
}

export function snappyCompress(data: Buffer): Buffer {
  return snappy().compressSync(data);
}

/** xerial-framed snappy, as snappy-java's SnappyOutputStream writes it (32 KiB input per block). */
export function snappyCompressXerial(data: Buffer): Buffer {
  const parts: Buffer[] = [XERIAL_MAGIC, Buffer.from([0, 0, 0, 1, 0, 0, 0, 1])];
  for (let at = 0; at < data.length; at += XERIAL_BLOCK_SIZE) {
    const block = snappy().compressSync(data.subarray(at, Math.min(data.length, at + XERIAL_BLOCK_SIZE)));
    const len = Buffer.allocUnsafe(4);
    len.writeInt32BE(block.length, 0);
    parts.push(len, block);
  }
  return Buffer.concat(parts);
}

export function snappyDecompress(data: Buffer, maxBytes: number): Buffer {
  if (!isXerialFramed(data)) return rawUncompress(data, maxBytes, maxBytes);
  const out: Buffer[] = [];
  let budget = maxBytes;
  let at = XERIAL_HEADER_SIZE;
  while (at < data.length) {
    if (hasXerialMagic(data, at)) {
      at += XERIAL_HEADER_SIZE; // concatenated stream
      continue;
    }
    if (data.length - at < 4) throw new KafkaError('CORRUPT_MESSAGE', 'truncated xerial snappy block length');
    const len = data.readInt32BE(at);
    at += 4;
    if (len < 0 || len > data.length - at) {
      throw new KafkaError('CORRUPT_MESSAGE', `xerial snappy block of ${len} bytes overruns the ${data.length - at} bytes left`);
    }
    const block = rawUncompress(data.subarray(at, at + len), budget, maxBytes);
    budget -= block.length;
    out.push(block);
    at += len;
  }
  return out.length === 1 ? out[0] : Buffer.concat(out);
}
