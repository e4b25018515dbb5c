// The receive buffer alone: frames cut exactly from reads of any size, views that stay valid for as long
// as promised, room for a whole frame, and memory given back after a large one.
import { describe, expect, it } from 'vitest';
import { ReceiveBuffer } from '../../src/server/receive-buffer.js';

/** A deterministic pseudo-random sequence (xorshift), so a failure can be replayed. */
function rng(seed: number) {
  let x = seed >>> 0 || 1;
  return (n: number) => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x % n;
  };
}

function frameOf(size: number, fill: number): Buffer {
  const f = Buffer.alloc(4 + size, fill & 0xff);
  f.writeInt32BE(size, 0);
  if (size >= 4) f.writeUInt32BE(fill >>> 0, 4); // distinct bodies even when fills collide
  return f;
}

/** Feeds `stream` the way the socket does (reads of random sizes into tail()), collecting frame copies. */
function receiveAll(rx: ReceiveBuffer, stream: Buffer, nextRead: (room: number) => number, viaAppend = false): Buffer[] {
  const frames: Buffer[] = [];
  let at = 0;
  while (at < stream.length) {
    if (viaAppend) {
      const n = Math.min(stream.length - at, 1 + nextRead(70_000));
      rx.append(stream.subarray(at, at + n));
      at += n;
    } else {
      const tail = rx.tail();
      const n = Math.min(tail.length, stream.length - at, 1 + nextRead(tail.length));
      stream.copy(tail, 0, at, at + n);
      rx.filled(n);
      at += n;
    }
    for (let f = rx.takeFrame(); f; f = rx.takeFrame()) frames.push(Buffer.from(f));
    rx.settle();
  }
  return frames;
}

describe('ReceiveBuffer', () => {
  const sizes = (pick: (n: number) => number) =>
    Array.from({ length: 200 }, (_, i) => [0, 1, 7, 100, 1_000, 20_000, 70_000, 300_000, 1_100_000][pick(9)] + (i % 5));

  for (const [name, viaAppend] of [
    ['reads into tail()', false],
    ['append() of chunks', true],
  ] as const) {
    it(`cuts every frame exactly from ${name} of random sizes`, () => {
      for (const seed of [1, 2, 3]) {
        const pick = rng(seed);
        const frames = sizes(pick).map((s, i) => frameOf(s, i * 7919 + seed));
        const stream = Buffer.concat(frames);
        const rx = new ReceiveBuffer(100 * 1024 * 1024);
        const got = receiveAll(rx, stream, (room) => pick(room), viaAppend);
        expect(got.length).toBe(frames.length);
        for (let i = 0; i < frames.length; i++) expect(got[i].equals(frames[i].subarray(4)), `seed ${seed}, frame ${i}`).toBe(true);
        expect(rx.pending).toBe(0);
      }
    });
  }

  it('once a frame size is known, the tail has room for the rest of it, so the frame arrives contiguous', () => {
    const rx = new ReceiveBuffer(10 << 20);
    const big = frameOf(3_000_000, 9);
    // 100 bytes of it arrive first, then the tail must hold the remaining 2,999,904 at once.
    big.copy(rx.tail(), 0, 0, 100);
    rx.filled(100);
    expect(rx.takeFrame()).toBeNull();
    const tail = rx.tail();
    expect(tail.length).toBeGreaterThanOrEqual(big.length - 100);
    big.copy(tail, 0, 100);
    rx.filled(big.length - 100);
    const f = rx.takeFrame();
    expect(f!.equals(big.subarray(4))).toBe(true);
  });

  it('a taken frame stays intact until the next tail(); after detach() it stays intact for good', () => {
    const rx = new ReceiveBuffer(1 << 20);
    const a = frameOf(1_000, 1);
    const b = frameOf(1_000, 2);
    const c = frameOf(60_000, 3);
    rx.append(Buffer.concat([a, b]));
    const fa = rx.takeFrame()!;
    rx.detach(); // fa's handler is still running
    const fb = rx.takeFrame()!;
    rx.settle();
    // Enough data to overwrite the old buffer's front many times over.
    for (let i = 0; i < 20; i++) {
      rx.append(c);
      expect(rx.takeFrame()!.equals(c.subarray(4))).toBe(true);
      rx.settle();
    }
    expect(fa.equals(a.subarray(4))).toBe(true);
    // fb was not detached: its bytes have been reused (the point of the buffer).
    expect(fb.equals(b.subarray(4))).toBe(false);
  });

  it('invalid sizes are reported, and never reserved for', () => {
    const rx = new ReceiveBuffer(1_000);
    const neg = Buffer.alloc(8);
    neg.writeInt32BE(-5, 0);
    rx.append(neg);
    expect(rx.peekSize()).toEqual({ invalid: -5 });
    expect(rx.takeFrame()).toBeNull();

    const rx2 = new ReceiveBuffer(1_000);
    const huge = Buffer.alloc(8);
    huge.writeInt32BE(0x7fffffff, 0);
    rx2.append(huge);
    expect(rx2.peekSize()).toEqual({ invalid: 0x7fffffff });
    expect(rx2.tail().length).toBeLessThan(1 << 20);
  });

  it('an empty buffer grown for a frame above 4 MB goes back to its small size; one of 1 MB is kept', () => {
    const rx = new ReceiveBuffer(100 << 20);
    rx.append(frameOf(6_000_000, 4));
    expect(rx.takeFrame()!.length).toBe(6_000_000);
    rx.settle();
    expect(rx.tail().length).toBeLessThanOrEqual(64 * 1024);

    rx.append(frameOf(1_000_000, 5));
    expect(rx.takeFrame()!.length).toBe(1_000_000);
    rx.settle();
    expect(rx.tail().length).toBeGreaterThanOrEqual(1_000_000);
  });
});
