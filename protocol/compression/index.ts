// Record-batch compression codecs, by the ids of a batch's attribute bits 0-2. All synchronous; the
// native packages behind snappy, lz4 and zstd are loaded on first use (see native.ts).

import { KafkaError } from '../errors.js';
import { gzipCompress, gzipDecompress } from './gzip.js';
import { lz4Compress, lz4Decompress } from './lz4.js';
import { snappyCompress, snappyDecompress } from './snappy.js';
import { zstdCompress, zstdDecompress } from './zstd.js';
import { DEFAULT_MAX_INFLATED_BYTES } from './inflate-limit.js';

export { DEFAULT_MAX_INFLATED_BYTES } from './inflate-limit.js';

export const CODEC_NONE = 0;
export const CODEC_GZIP = 1;
export const CODEC_SNAPPY = 2;
export const CODEC_LZ4 = 3;
export const CODEC_ZSTD = 4;

/** Codec names by id, as Kafka's compression.type spells them (bar 'uncompressed', which is 'none' here). */
export const CODEC_NAMES = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;
export type CodecName = (typeof CODEC_NAMES)[number];

export function isKnownCodec(codec: number): boolean {
  return Number.isInteger(codec) && codec >= 0 && codec < CODEC_NAMES.length;
}

export function codecName(codec: number): CodecName {
  if (!isKnownCodec(codec)) throw new KafkaError('UNSUPPORTED_COMPRESSION_TYPE', `unknown compression codec id ${codec}`);
  return CODEC_NAMES[codec];
}

/**
 * Codec id for a name: 'none'/'uncompressed', 'gzip', 'snappy', 'lz4', 'zstd' (case-insensitive).
 * Anything else, including Kafka's 'producer' (a policy, not a codec), throws KafkaError INVALID_CONFIG.
 */
export function codecFromName(name: string): number {
  const n = name.toLowerCase();
  if (n === 'uncompressed') return CODEC_NONE;
  const i = (CODEC_NAMES as readonly string[]).indexOf(n);
  if (i < 0) throw new KafkaError('INVALID_CONFIG', `unknown compression type '${name}'`);
  return i;
}

export function compress(codec: number, data: Buffer): Buffer {
  switch (codec) {
    case CODEC_NONE:
      return data;
    case CODEC_GZIP:
      return gzipCompress(data);
    case CODEC_SNAPPY:
      return snappyCompress(data);
    case CODEC_LZ4:
      return lz4Compress(data);
    case CODEC_ZSTD:
      return zstdCompress(data);
    default:
      throw new KafkaError('UNSUPPORTED_COMPRESSION_TYPE', `unknown compression codec id ${codec}`);
  }
}

/**
 * Inverse of compress, producing at most maxBytes: data that would inflate further throws KafkaError
 * MESSAGE_TOO_LARGE, found out without inflating it all. Malformed input throws CORRUPT_MESSAGE; an
 * unknown codec id, or a codec whose native module cannot be loaded, throws UNSUPPORTED_COMPRESSION_TYPE.
 */
export function decompress(codec: number, data: Buffer, maxBytes = DEFAULT_MAX_INFLATED_BYTES): Buffer {
  try {
    switch (codec) {
      case CODEC_NONE:
        return data;
      case CODEC_GZIP:
        return gzipDecompress(data, maxBytes);
      case CODEC_SNAPPY:
        return snappyDecompress(data, maxBytes);
      case CODEC_LZ4:
        return lz4Decompress(data, maxBytes);
      case CODEC_ZSTD:
        return zstdDecompress(data, maxBytes);
    }
  } catch (err) {
    if (err instanceof KafkaError) throw err;
    throw new KafkaError('CORRUPT_MESSAGE', `${CODEC_NAMES[codec]} decompression failed: ${(err as Error).message}`);
  }
  throw new KafkaError('UNSUPPORTED_COMPRESSION_TYPE', `unknown compression codec id ${codec}`);
}

export { isXerialFramed, snappyCompressXerial } from './snappy.js';
