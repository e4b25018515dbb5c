// Random bytes for cluster ids, topic ids, member ids and delete-directory names.
// Loading node:crypto costs ~6 ms (OpenSSL initialisation), which would be a sixth of a first start (a
// fresh data directory needs a cluster id). The kernel's generator behind /dev/urandom is what
// node:crypto's randomBytes draws from too, so it is read directly where it exists; elsewhere
// (Windows) node:crypto is loaded on first use.
import fs from 'node:fs';
import { createRequire } from 'node:module';

let crypto: typeof import('node:crypto') | null = null;
let urandomMissing = false;

function readUrandom(buf: Buffer): boolean {
  if (urandomMissing) return false;
  let fd: number;
  try {
    fd = fs.openSync('/dev/urandom', 'r');
  } catch {
    urandomMissing = true;
    return false;
  }
  try {
    let done = 0;
    while (done < buf.length) {
      const n = fs.readSync(fd, buf, done, buf.length - done, null);
      if (n <= 0) return false;
      done += n;
    }
    return true;
  } finally {
    fs.closeSync(fd);
  }
}

export function randomBytes(n: number): Buffer {
  const buf = Buffer.alloc(n);
  if (readUrandom(buf)) return buf;
  crypto ??= createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
  return crypto.randomBytes(n);
}

/** A version 4 UUID in its 8-4-4-4-12 hex form (RFC 9562), as crypto.randomUUID() makes. */
export function randomUUID(): string {
  const b = randomBytes(16);
  b[6] = (b[6] & 0x0f) | 0x40; // version 4
  b[8] = (b[8] & 0x3f) | 0x80; // variant 10
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
