// The pool of buffers for log reads that responses send: reused only once every view sent is sent.
import { describe, expect, it } from 'vitest';
import { readBuffers } from '../../src/storage/read-buffers.js';

describe('readBuffers', () => {
  it('small and huge reads are plain buffers, outside the pool', () => {
    for (const n of [0, 100, 60_000, 9 * 1024 * 1024]) {
      const b = readBuffers.take(n);
      expect(b.length).toBe(n);
      expect(readBuffers.willSend(b)).toBe(false);
    }
  });

  it('a buffer comes back only after the view being sent has been sent', () => {
    const a = readBuffers.take(700_000);
    expect(a.length).toBe(700_000);
    expect(readBuffers.willSend(a)).toBe(true);
    // Not sent yet: a new read gets other memory.
    const b = readBuffers.take(700_000);
    expect(b.buffer).not.toBe(a.buffer);
    readBuffers.sent(a);
    // Sent: the same memory serves the next read of that size class.
    const c = readBuffers.take(600_000);
    expect(c.buffer).toBe(a.buffer);
    expect(c.length).toBe(600_000);
  });

  it('two views of one buffer in flight: it comes back after both', () => {
    const whole = readBuffers.take(300_000);
    const [first, second] = [whole.subarray(0, 100_000), whole.subarray(100_000)];
    expect(readBuffers.willSend(first)).toBe(true);
    expect(readBuffers.willSend(second)).toBe(true);
    readBuffers.sent(first);
    expect(readBuffers.take(300_000).buffer).not.toBe(whole.buffer);
    readBuffers.sent(second);
    expect(readBuffers.take(300_000).buffer).toBe(whole.buffer);
  });

  it('a buffer never sent is never reused', () => {
    const a = readBuffers.take(200_000);
    const seen = new Set<ArrayBufferLike>();
    for (let i = 0; i < 20; i++) {
      const b = readBuffers.take(200_000);
      seen.add(b.buffer);
      readBuffers.willSend(b);
      readBuffers.sent(b);
    }
    expect(seen.has(a.buffer)).toBe(false);
  });

  it('idle memory is bounded: buffers given back beyond 32 MB are dropped', () => {
    const taken = Array.from({ length: 12 }, () => readBuffers.take(4 * 1024 * 1024));
    for (const b of taken) {
      readBuffers.willSend(b);
      readBuffers.sent(b);
    }
    const again = new Set(Array.from({ length: 12 }, () => readBuffers.take(4 * 1024 * 1024).buffer));
    const reused = taken.filter((b) => again.has(b.buffer)).length;
    expect(reused).toBeLessThanOrEqual(8);
    expect(reused).toBeGreaterThan(0);
  });
});
