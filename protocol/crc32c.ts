// CRC-32C (Castagnoli), the checksum of magic-2 record batches, computed by the native @node-rs/crc32
// binding. Its loader (platform detection, then dlopen) costs ~25 ms, so it is required on the first
// checksum rather than at import: a broker that has not yet seen a Produce has not paid for it.

import { createRequire } from 'node:module';

type Crc32cFn = (input: Uint8Array, initialState?: number | null) => number;

let native: Crc32cFn | null = null;

function load(): Crc32cFn {
  const mod = createRequire(import.meta.url)('@node-rs/crc32') as { crc32c: Crc32cFn };
  native = mod.crc32c;
  return native;
}

/** CRC-32C of buf[start, end), as an unsigned 32-bit number. */
export function crc32c(buf: Buffer, start = 0, end = buf.length): number {
  const fn = native ?? load();
  const view = start === 0 && end === buf.length ? buf : buf.subarray(start, end);
  return fn(view) >>> 0;
}
