// watchParent takes the parent id read when krill started: a parent that died during a long start (log
// recovery) is noticed at once, not missed because by then the orphan's parent is already init.
import { describe, expect, it } from 'vitest';
import { watchParent } from '../../src/parent-watch.js';

describe('watchParent', () => {
  it('calls back at once when the parent read at start is no longer the parent', () => {
    let gone = 0;
    watchParent(() => gone++, process.ppid + 1_000_000);
    expect(gone).toBe(1);
  });

  it('does not call back while the parent is there, nor for init as parent', async () => {
    let gone = 0;
    watchParent(() => gone++, process.ppid, 5);
    watchParent(() => gone++, 1, 5);
    await new Promise((r) => setTimeout(r, 50));
    expect(gone).toBe(0);
  });
});
