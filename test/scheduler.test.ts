// The broker's scheduler of background work (src/scheduler.ts), on real timers with short periods.
import { afterEach, describe, expect, it } from 'vitest';
import { Scheduler } from '../src/scheduler.js';

const errors: { obj: Record<string, unknown>; msg: string }[] = [];
const log = { error: (obj: object, msg?: string) => errors.push({ obj: obj as Record<string, unknown>, msg: msg ?? '' }) };
const schedulers: Scheduler[] = [];

function scheduler(): Scheduler {
  const s = new Scheduler(log);
  schedulers.push(s);
  return s;
}

afterEach(async () => {
  for (const s of schedulers.splice(0)) await s.close();
  errors.length = 0;
});

/** Resolves once cond() holds (checked every few milliseconds); fails the test after a long while. */
async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(cond()).toBe(true);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A promise with its resolve function. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
}

/** Timers this process holds that keep it alive. */
const refTimers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

describe('Scheduler', () => {
  it('runs a task again and again, first after its delay', async () => {
    const s = scheduler();
    let runs = 0;
    s.schedule('count', () => void runs++, { periodMs: 2, delayMs: 0 });
    expect(s.has('count')).toBe(true);
    await until(() => runs >= 3);
  });

  it('never runs a task while its previous run is under way', async () => {
    const s = scheduler();
    let running = 0;
    let most = 0;
    let runs = 0;
    s.schedule(
      'slow',
      async () => {
        running++;
        most = Math.max(most, running);
        await sleep(10);
        running--;
        runs++;
      },
      { periodMs: 1 },
    );
    await until(() => runs >= 4);
    expect(most).toBe(1);
  });

  it('logs a failing run with the task name and runs the task again', async () => {
    const s = scheduler();
    let runs = 0;
    s.schedule(
      'throws',
      () => {
        runs++;
        throw new Error('sync failure');
      },
      { periodMs: 1 },
    );
    s.schedule(
      'rejects',
      async () => {
        throw new Error('async failure');
      },
      { periodMs: 1 },
    );
    await until(() => runs >= 3 && errors.filter((e) => e.obj.task === 'rejects').length >= 2);
    expect(errors.find((e) => e.obj.task === 'throws')).toMatchObject({ msg: 'background task throws failed', obj: { err: new Error('sync failure') } });
    expect(errors.find((e) => e.obj.task === 'rejects')).toMatchObject({ msg: 'background task rejects failed', obj: { err: new Error('async failure') } });
  });

  it('close() waits for the run under way and stops every timer', async () => {
    const s = scheduler();
    const release = gate();
    let started = 0;
    let finished = 0;
    s.schedule(
      'held',
      async () => {
        started++;
        await release.promise;
        finished++;
      },
      { periodMs: 1, delayMs: 0 },
    );
    let other = 0;
    s.schedule('other', () => void other++, { periodMs: 1 });
    await until(() => started === 1);
    let closed = false;
    const closing = s.close().then(() => (closed = true));
    await sleep(20);
    expect(closed).toBe(false);
    release.open();
    await closing;
    expect(finished).toBe(1);
    const otherRuns = other;
    await sleep(20);
    expect([started, other]).toEqual([1, otherRuns]);
    expect(s.has('held')).toBe(false);
    // A closed scheduler takes no more work.
    s.schedule('late', () => void started++, { periodMs: 1, delayMs: 0 });
    await sleep(20);
    expect(started).toBe(1);
  });

  it('cancel() stops one task, after its run under way', async () => {
    const s = scheduler();
    let a = 0;
    let b = 0;
    s.schedule('a', () => void a++, { periodMs: 1 });
    s.schedule('b', () => void b++, { periodMs: 1 });
    await until(() => a >= 1 && b >= 1);
    await s.cancel('a');
    const aRuns = a;
    const bRuns = b;
    await until(() => b >= bRuns + 3);
    expect(a).toBe(aRuns);
    expect(s.has('a')).toBe(false);
    // The name is free again.
    s.schedule('a', () => void a++, { periodMs: 1 });
    await until(() => a > aRuns);
  });

  it('rejects a second task of the same name', () => {
    const s = scheduler();
    s.schedule('x', () => {}, { periodMs: 1000 });
    expect(() => s.schedule('x', () => {}, { periodMs: 1000 })).toThrow(/already scheduled/);
  });

  it("does not keep the process alive (its timers are unref'd)", () => {
    const before = refTimers();
    const s = scheduler();
    s.schedule('idle', () => {}, { periodMs: 60_000 });
    expect(refTimers()).toBe(before);
  });
});
