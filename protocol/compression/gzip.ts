// gzip (codec 1): RFC 1952 members, as Java's GZIPOutputStream writes them. zlib's gunzip also reads
// several concatenated members. Level 6 is both zlib's and Kafka's default (compression.gzip.level).
// node:zlib is required on first use, like the native codecs, to keep it off the start-up path.

import type * as Zlib from 'node:zlib';
import { loadNative } from './native.js';

const zlib = (): typeof Zlib => loadNative<typeof Zlib>('node:zlib', 'gzip');

export function gzipCompress(data: Buffer): Buffer {
  return zlib().gzipSync(data);
}

export function gzipDecompress(data: Buffer): Buffer {
  return zlib().gunzipSync(data);
}
