// Random bytes for cluster ids, topic ids and delete-directory names. node:crypto costs ~10 ms to load
// (OpenSSL initialisation), and a restart that creates nothing never needs it, so it is loaded on first use.
import { createRequire } from 'node:module';

let crypto: typeof import('node:crypto') | null = null;

export function randomBytes(n: number): Buffer {
  crypto ??= createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
  return crypto.randomBytes(n);
}
