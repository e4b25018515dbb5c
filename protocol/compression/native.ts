// Lazy, synchronous loading of the codec modules (the native packages, and node:zlib). Each is
// required on the first batch that needs it, so a broker that never sees (say) zstd never pays the
// ~10 ms it takes to load zstd-napi.
// createRequire keeps the load synchronous, which the sync compress/decompress API needs.

import { createRequire } from 'node:module';
import { KafkaError } from '../errors.js';

const require = createRequire(import.meta.url);
const cache = new Map<string, unknown>();

/** require() a module once; a load failure becomes UNSUPPORTED_COMPRESSION_TYPE (the codec is unavailable here). */
export function loadNative<T>(id: string, codecName: string): T {
  let mod = cache.get(id) as T | undefined;
  if (mod === undefined) {
    try {
      mod = require(id) as T;
    } catch (err) {
      throw new KafkaError('UNSUPPORTED_COMPRESSION_TYPE', `${codecName} codec unavailable: cannot load ${id}: ${(err as Error).message}`);
    }
    cache.set(id, mod);
  }
  return mod;
}

/** Like loadNative but returns null instead of throwing, for optional fallbacks. */
export function tryLoadNative<T>(id: string): T | null {
  if (cache.has(id)) return cache.get(id) as T;
  try {
    const mod = require(id) as T;
    cache.set(id, mod);
    return mod;
  } catch {
    return null;
  }
}

/** A Buffer view of a Uint8Array without copying. */
export function asBuffer(u: Uint8Array): Buffer {
  return Buffer.isBuffer(u) ? u : Buffer.from(u.buffer, u.byteOffset, u.byteLength);
}
