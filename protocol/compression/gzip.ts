// gzip (codec 1): RFC 1952 members, as Java's GZIPOutputStream writes them. zlib's gunzip also reads
// several concatenated members. Level 6 is both zlib's and Kafka's default (compression.gzip.level).
// node:zlib is required on first use, like the native codecs, to keep it off the start-up path.

import type * as Zlib from 'node:zlib';
import { loadNative } from './native.js';
import { inflateLimitError } from './inflate-limit.js';

const zlib = (): typeof Zlib => loadNative<typeof Zlib>('node:zlib', 'gzip');

/** zlib's output chunk: larger than its 16 KiB default, so a 1 MB batch inflates in few steps. */
const CHUNK_SIZE = 128 * 1024;

export function gzipCompress(data: Buffer): Buffer {
  return zlib().gzipSync(data);
}

/** zlib stops as soon as its output passes maxBytes, so a bomb costs at most maxBytes. */
export function gzipDecompress(data: Buffer, maxBytes: number): Buffer {
  try {
    return zlib().gunzipSync(data, { maxOutputLength: maxBytes, chunkSize: CHUNK_SIZE });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw inflateLimitError('gzip', maxBytes);
    throw err;
  }
}
