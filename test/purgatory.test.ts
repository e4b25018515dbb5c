import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DelayedOperation, DelayedOperationPurgatory, awaitDelayed } from '../src/purgatory.js';

describe('DelayedOperationPurgatory', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function op(ready: () => boolean) {
    const events: string[] = [];
    const o = new DelayedOperation({ tryComplete: ready, onComplete: () => events.push('complete'), onExpiration: () => events.push('expired') });
    return { o, events };
  }

  it('completes at once an operation that can complete, watching nothing', () => {
    const p = new DelayedOperationPurgatory<string>('test');
    const { o, events } = op(() => true);
    expect(p.tryCompleteElseWatch(o, ['a'], 1000)).toBe(true);
    expect(events).toEqual(['complete']);
    expect(p.watched('a')).toBe(0);
  });

  it('completes a watching operation once, when a watched key changes and it can complete, and leaves every key', () => {
    const p = new DelayedOperationPurgatory<string>('test');
    let ready = false;
    const { o, events } = op(() => ready);
    expect(p.tryCompleteElseWatch(o, ['a', 'b'], 1000)).toBe(false);
    expect([p.watched('a'), p.watched('b')]).toEqual([1, 1]);
    expect(p.checkAndComplete('a')).toBe(0); // not ready yet: keeps watching
    expect(p.watched('a')).toBe(1);
    ready = true;
    expect(p.checkAndComplete('c')).toBe(0); // a key it does not watch
    expect(p.checkAndComplete('b')).toBe(1);
    expect(p.checkAndComplete('a')).toBe(0);
    expect(events).toEqual(['complete']);
    expect([p.watched('a'), p.watched('b'), p.size]).toEqual([0, 0, 0]);
    vi.advanceTimersByTime(5000);
    expect(events).toEqual(['complete']); // the deadline no longer fires
  });

  it('expires an operation at its deadline', () => {
    const p = new DelayedOperationPurgatory<string>('test');
    const { o, events } = op(() => false);
    p.tryCompleteElseWatch(o, ['a'], 1000);
    vi.advanceTimersByTime(999);
    expect(events).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(events).toEqual(['expired', 'complete']);
    expect([p.watched('a'), p.size]).toEqual([0, 0]); // nothing left behind for the key
  });

  it('expires an operation when its abort signal fires, or at once when already aborted', () => {
    const p = new DelayedOperationPurgatory<string>('test');
    const ac = new AbortController();
    const first = op(() => false);
    p.tryCompleteElseWatch(first.o, ['a'], 60_000, ac.signal);
    ac.abort();
    expect(first.events).toEqual(['expired', 'complete']);
    const second = op(() => false);
    expect(p.tryCompleteElseWatch(second.o, ['a'], 60_000, ac.signal)).toBe(true);
    expect(second.events).toEqual(['expired', 'complete']);
    expect([p.watched('a'), p.size]).toEqual([0, 0]);
  });

  it('completeAll answers every watcher of a key whatever its state', () => {
    const p = new DelayedOperationPurgatory<string>('test');
    const a = op(() => false);
    const b = op(() => false);
    p.tryCompleteElseWatch(a.o, ['k'], 1000);
    p.tryCompleteElseWatch(b.o, ['k', 'other'], 1000);
    expect(p.completeAll('k')).toBe(2);
    expect([a.events, b.events]).toEqual([['complete'], ['complete']]);
    expect([p.watched('other'), p.size]).toEqual([0, 0]);
  });

  it('awaitDelayed resolves true when ready after a change, false on expiry', async () => {
    const p = new DelayedOperationPurgatory<string>('test');
    let ready = false;
    const woken = awaitDelayed(p, ['a'], 1000, undefined, () => ready);
    ready = true;
    p.checkAndComplete('a');
    await expect(woken).resolves.toBe(true);
    const expired = awaitDelayed(p, ['a'], 1000, undefined, () => false);
    vi.advanceTimersByTime(1000);
    await expect(expired).resolves.toBe(false);
  });
});
