import { describe, expect, it } from 'vitest';
import { randomBytes, randomUUID } from '../../src/storage/random.js';

describe('random ids', () => {
  it('gives the number of bytes asked for, different each time', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const b = randomBytes(16);
      expect(b.length).toBe(16);
      seen.add(b.toString('hex'));
    }
    expect(seen.size).toBe(200);
    expect(randomBytes(0).length).toBe(0);
    expect(randomBytes(1000).length).toBe(1000);
  });

  it('makes version 4 UUIDs in the 8-4-4-4-12 form', () => {
    const ids = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const id = randomUUID();
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      ids.add(id);
    }
    expect(ids.size).toBe(200);
  });
});
