// Kafka Streams 4.4.0 (Java 17) against a real krill CLI process: one application with
// processing.guarantee=exactly_once_v2 (a word count through a groupBy repartition, a tumbling-window word
// count, a KTable with its changelog), run through the steps of its life in order:
//   1. one instance: exact final counts read_committed; the internal topics exist with Streams' configs;
//   2. a second instance of the same application.id shares the tasks; kill -9 of the first mid-stream: the
//      second takes over, restores from the changelogs, and every count stays exact (no double counts);
//   3. both instances restarted: the counts continue from the restored state, not from zero;
//   4. StreamsResetter (kafka-streams-application-reset): input offsets back to earliest, internal topics
//      deleted; a rerun recomputes the same counts.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CliBroker } from '../../test/helpers.js';
import { BrokerPool } from '../util.js';
import type { Json } from '../util.js';
import { describeWithToolchain } from '../toolchain.js';
import { StreamsInstance, driver, streamsMissing } from './streams.js';

const TEST_TIMEOUT = 240_000;
const PARTITIONS = 4;
const APP = `wordcount-${process.pid}`;
const OUTPUTS = ['counts', 'windowed-counts', 'regions-upper'];
const VOCABULARY = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango'.split(' ');
// Two one-minute windows a few minutes back, so every line's window is known.
const WINDOW = 60_000;
const T0 = Math.floor(Date.now() / WINDOW) * WINDOW - 5 * WINDOW;

interface Line {
  topic: string;
  key: string;
  value: string;
  timestamp?: number;
}

let lineNo = 0;
/** `n` lines of 1..5 words, keyed so that they spread over the partitions, alternating between two windows. */
function lines(n: number): Line[] {
  const out: Line[] = [];
  for (let i = 0; i < n; i++, lineNo++) {
    const words = Array.from({ length: 1 + (lineNo % 5) }, (_, j) => VOCABULARY[(lineNo * 7 + j * 3) % VOCABULARY.length]);
    out.push({ topic: 'lines', key: `line-${lineNo}`, value: words.join(' '), timestamp: T0 + (lineNo % 2) * WINDOW + (lineNo % 1000) });
  }
  return out;
}

/** The final values each output topic must hold for all `input` so far. */
function expected(input: Line[]) {
  const counts: Record<string, number> = {};
  const windowed: Record<string, number> = {};
  const regions: Record<string, string> = {};
  for (const l of input) {
    if (l.topic === 'regions') {
      regions[l.key] = l.value.toUpperCase();
      continue;
    }
    for (const w of l.value.split(' ')) {
      counts[w] = (counts[w] ?? 0) + 1;
      const key = `${w}@${Math.floor(l.timestamp! / WINDOW) * WINDOW}`;
      windowed[key] = (windowed[key] ?? 0) + 1;
    }
  }
  return { counts, 'windowed-counts': windowed, 'regions-upper': regions };
}

const pool = new BrokerPool();
let broker: CliBroker;
const input: Line[] = [];
const instances: StreamsInstance[] = [];
let stateA: string;
let stateB: string;

beforeAll(async () => {
  if (streamsMissing() !== null) return;
  broker = await pool.start(['--data-dir', pool.dir('krill-streams-'), '--set', 'group.initial.rebalance.delay.ms=0']);
  stateA = pool.dir('krill-streams-a-');
  stateB = pool.dir('krill-streams-b-');
});
afterAll(async () => {
  for (const i of instances) i.stop();
  await Promise.all(instances.map((i) => i.exited));
  await pool.cleanup();
});

function instance(name: string, stateDir: string, cleanUp = false): StreamsInstance {
  const i = new StreamsInstance(name, { bootstrap: broker.bootstrap, appId: APP, stateDir, cleanUp });
  instances.push(i);
  return i;
}

async function produce(records: Line[], pacing: { batch?: number; pauseMs?: number } = {}) {
  const topics = ['lines', 'regions', ...OUTPUTS].map((name) => ({ name, partitions: PARTITIONS }));
  const res = await driver('produce', { bootstrap: broker.bootstrap, topics, records, ...pacing }, 120_000);
  expect(res.produced).toBe(records.length);
  input.push(...records);
}

/** Reads the outputs read_committed until they hold `want` (bounded), and describes the internal topics. */
function inspect(want: object, from: Json = {}) {
  return driver('inspect', { bootstrap: broker.bootstrap, appId: APP, expected: want, from, timeoutMs: 120_000 }, 150_000);
}

/** Every output's last value per key is the expected one, and every count only ever grew (never recounted). */
function expectExact(res: Json, want: ReturnType<typeof expected>) {
  for (const topic of OUTPUTS) {
    const values: Record<string, (number | string)[]> = res.outputs[topic].values;
    const last = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, v[v.length - 1]]));
    expect(last, topic).toEqual((want as Json)[topic]);
    if (topic === 'regions-upper') continue;
    for (const [key, seq] of Object.entries(values)) {
      const bad = seq.findIndex((v, i) => i > 0 && v <= seq[i - 1]);
      expect(bad, `${topic} ${key}: ${seq.join(',')}`).toBe(-1);
    }
  }
}

const allTasks = () => [...new Set(instances.flatMap((i) => i.activeTasks()))].sort();
const committedLines = (res: Json) => Array.from({ length: PARTITIONS }, (_, p) => res.committed[`lines-${p}`]);
const linesIn = () => input.filter((l) => l.topic === 'lines').length;
const sum = (ns: number[]) => ns.reduce((s, n) => s + n, 0);

describeWithToolchain('Kafka Streams 4.4.0 (exactly_once_v2) against one krill broker', streamsMissing, { timeout: TEST_TIMEOUT }, () => {
  let a: StreamsInstance;
  let b: StreamsInstance;
  let lastInspect: Json;

  it('counts words through a repartition, per window and in a KTable, exactly, with Streams’ internal topics', async () => {
    a = instance('A', stateA);
    const regions = Array.from({ length: 20 }, (_, i) => ({ topic: 'regions', key: `user-${i % 10}`, value: `region-${i}` }));
    await produce([...lines(300), ...regions]);
    await a.running();
    const res = await inspect(expected(input));
    expectExact(res, expected(input));

    const internal = res.internalTopics;
    expect(Object.keys(internal).sort()).toEqual(
      [`${APP}-minute-counts-changelog`, `${APP}-regions-store-changelog`, `${APP}-word-counts-changelog`, `${APP}-words-repartition`].sort(),
    );
    for (const t of Object.values(internal) as Json[]) {
      expect(t.partitions).toBe(PARTITIONS);
      expect(t.configs['message.timestamp.type']).toBe('CreateTime');
    }
    expect(internal[`${APP}-words-repartition`].configs).toMatchObject({ 'cleanup.policy': 'delete', 'retention.ms': '-1', 'segment.bytes': '52428800' });
    expect(internal[`${APP}-word-counts-changelog`].configs).toMatchObject({ 'cleanup.policy': 'compact' });
    expect(internal[`${APP}-regions-store-changelog`].configs).toMatchObject({ 'cleanup.policy': 'compact' });
    // A windowed store's changelog: compacted and deleted after the store's retention (1 min + 1 day grace) + 1 day.
    expect(internal[`${APP}-minute-counts-changelog`].configs).toMatchObject({
      'cleanup.policy': 'compact,delete',
      'retention.ms': String(WINDOW + 2 * 86_400_000),
    });
    expect(sum(committedLines(res))).toBe(linesIn());
    lastInspect = res;
  });

  it('shares the tasks with a second instance, and after kill -9 of one mid-stream the other keeps every count exact', async () => {
    const fromA = a.events.length;
    b = instance('B', stateB);
    const tasksB = await b.running();
    const tasksA = await a.running(fromA);
    expect(tasksA.length).toBeGreaterThan(0);
    expect(tasksB.length).toBeGreaterThan(0);
    expect(tasksA.filter((t) => tasksB.includes(t))).toEqual([]);
    const tasks = allTasks();

    const seenByA = Math.max(0, ...a.events.filter((e) => e.event === 'progress').map((e) => e.lines!));
    const producing = produce(lines(1500), { batch: 50, pauseMs: 40 });
    await a.waitFor('processing the second batch', (e) => e.event === 'progress' && e.lines! > seenByA);
    const fromB = b.events.length;
    await a.kill();
    await producing;
    const taken = await b.waitFor('every task after the takeover', (e) => e.event === 'tasks' && tasks.every((t) => e.active!.includes(t)), 120_000, fromB);
    expect([...taken.active!].sort()).toEqual(tasks);

    const res = await inspect(expected(input));
    expectExact(res, expected(input));
    lastInspect = res;
  });

  it('restarts both instances with their state restored: counts continue, not from zero', async () => {
    await b.close();
    a = instance('A2', stateA);
    b = instance('B2', stateB);
    await Promise.all([a.running(), b.running()]);
    await produce(lines(300));
    const res = await inspect(expected(input));
    expectExact(res, expected(input));
    expect(sum(committedLines(res))).toBe(linesIn());
    lastInspect = res;
  });

  it('is reset by StreamsResetter and recomputes the same counts', async () => {
    await Promise.all([a.close(), b.close()]);
    const reset = await driver('reset', { bootstrap: broker.bootstrap, appId: APP, inputTopics: ['lines', 'regions'] }, 120_000);
    expect(reset.exitCode).toBe(0);
    const after = await inspect({});
    expect(Object.keys(after.internalTopics)).toEqual([]);
    expect(committedLines(after)).toEqual([0, 0, 0, 0]);

    const from = Object.fromEntries(OUTPUTS.map((t) => [t, lastInspect.outputs[t].end]));
    const rerun = instance('A3', stateA, true);
    await rerun.running();
    const res = await inspect(expected(input), from);
    expectExact(res, expected(input));
    expect(Object.keys(res.internalTopics)).toHaveLength(4);
  });
});
