// The life of one word-count application, as the Streams suites run it against one broker and against a
// cluster, step by step in order:
//   1. one instance: exact final counts read_committed; the internal topics exist with Streams' configs;
//   2. a second instance of the same application.id shares the tasks; kill -9 of the first mid-stream: the
//      second takes over, restores from the changelogs, and every count stays exact (no double counts);
//   3. both instances restarted: the counts continue from the restored state, not from zero;
//   4. StreamsResetter (kafka-streams-application-reset): input offsets back to earliest, internal topics
//      deleted; a rerun recomputes the same counts.
import { expect, it } from 'vitest';
import type { Json } from '../util.js';
import { StreamsInstance, driver } from './streams.js';
import { OUTPUTS, WordCountApp, expected, lines, regions, sum } from './wordcount.js';

export interface LifeContext {
  app: WordCountApp;
  bootstrap: () => string;
  /** A fresh state directory (removed with the suite). */
  stateDir: (prefix: string) => string;
}

/** What the last step leaves: the rerun instance, still running, and where its output begins in each output topic. */
export interface AfterReset {
  rerun: StreamsInstance;
  outputsFrom: Json;
}

/** Defines the four steps as tests; the returned function gives what the last one left. */
export function livesThroughKillRestartAndReset({ app, bootstrap, stateDir }: LifeContext): () => AfterReset {
  let stateA: string;
  let stateB: string;
  let a: StreamsInstance;
  let b: StreamsInstance;
  let lastInspect: Json;
  let afterReset: AfterReset;

  it('counts words through a repartition, per window and in a KTable, exactly, with Streams’ internal topics', async () => {
    stateA = stateDir('krill-streams-a-');
    stateB = stateDir('krill-streams-b-');
    a = app.instance('A', stateA);
    await app.produce([...lines(300), ...regions(20)]);
    await a.running();
    const res = await app.inspect(expected(app.input));
    app.expectExact(res);
    app.expectInternalTopics(res);
    expect(sum(app.committedLines(res))).toBe(app.linesIn());
    lastInspect = res;
  });

  it('shares the tasks with a second instance, and after kill -9 of one mid-stream the other keeps every count exact', async () => {
    const fromA = a.events.length;
    b = app.instance('B', stateB);
    const tasksB = await b.running();
    const tasksA = await a.running(fromA);
    expect(tasksA.length).toBeGreaterThan(0);
    expect(tasksB.length).toBeGreaterThan(0);
    expect(tasksA.filter((t) => tasksB.includes(t))).toEqual([]);
    // Three subtopologies (lines to the repartition topic, the counts, the table) of four partitions each.
    const tasks = app.allTasks();
    expect(tasks).toHaveLength(12);

    const seenByA = Math.max(0, ...a.events.filter((e) => e.event === 'progress').map((e) => e.lines!));
    const producing = app.produce(lines(1500), { batch: 50, pauseMs: 40 });
    await a.waitFor('processing the second batch', (e) => e.event === 'progress' && e.lines! > seenByA);
    const fromB = b.events.length;
    await a.kill();
    await producing;
    const taken = await b.waitFor('every task after the takeover', (e) => e.event === 'tasks' && tasks.every((t) => e.active!.includes(t)), 120_000, fromB);
    expect([...taken.active!].sort()).toEqual(tasks);

    const res = await app.inspect(expected(app.input));
    app.expectExact(res);
    expect(sum(app.committedLines(res))).toBe(app.linesIn());
    lastInspect = res;
  });

  it('restarts both instances with their state restored: counts continue, not from zero', async () => {
    await b.close();
    a = app.instance('A2', stateA);
    b = app.instance('B2', stateB);
    await Promise.all([a.running(), b.running()]);
    await app.produce(lines(300));
    const res = await app.inspect(expected(app.input));
    app.expectExact(res);
    expect(sum(app.committedLines(res))).toBe(app.linesIn());
    lastInspect = res;
  });

  it('is reset by StreamsResetter and recomputes the same counts', async () => {
    await Promise.all([a.close(), b.close()]);
    const reset = await driver('reset', { bootstrap: bootstrap(), appId: app.appId, inputTopics: ['lines', 'regions'] }, 120_000);
    expect(reset.exitCode).toBe(0);
    const after = await app.inspect({});
    expect(Object.keys(after.internalTopics)).toEqual([]);
    expect(app.committedLines(after)).toEqual([0, 0, 0, 0]);

    // The rerun's output, read from where the output topics ended before the reset: every count again.
    const from = Object.fromEntries(OUTPUTS.map((t) => [t, lastInspect.outputs[t].end]));
    const rerun = app.instance('A3', stateA, true);
    await rerun.running();
    const res = await app.inspect(expected(app.input), from);
    app.expectExact(res);
    app.expectInternalTopics(res);
    afterReset = { rerun, outputsFrom: from };
  });

  return () => afterReset;
}
