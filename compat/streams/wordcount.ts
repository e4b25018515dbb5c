// The word-count application of the Streams suites, as the tests see it: the input they produce, the final
// values its outputs must then hold, and the checks on what the driver read back.
import { expect } from 'vitest';
import type { Json } from '../util.js';
import { StreamsInstance, driver } from './streams.js';

export const PARTITIONS = 4;
export const OUTPUTS = ['counts', 'windowed-counts', 'regions-upper'];
const VOCABULARY = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango'.split(' ');
// Two one-minute windows a few minutes back, so every line's window is known.
export const WINDOW = 60_000;
const T0 = Math.floor(Date.now() / WINDOW) * WINDOW - 5 * WINDOW;

export interface Line {
  topic: string;
  key: string;
  value: string;
  timestamp?: number;
}

let lineNo = 0;
/** `n` lines of 1..5 words, keyed so that they spread over the partitions, alternating between two windows. */
export function lines(n: number): Line[] {
  const out: Line[] = [];
  for (let i = 0; i < n; i++, lineNo++) {
    const words = Array.from({ length: 1 + (lineNo % 5) }, (_, j) => VOCABULARY[(lineNo * 7 + j * 3) % VOCABULARY.length]);
    out.push({ topic: 'lines', key: `line-${lineNo}`, value: words.join(' '), timestamp: T0 + (lineNo % 2) * WINDOW + (lineNo % 1000) });
  }
  return out;
}

/** `n` table updates over 10 keys: each key's last value wins. */
export function regions(n: number): Line[] {
  return Array.from({ length: n }, (_, i) => ({ topic: 'regions', key: `user-${i % 10}`, value: `region-${i}` }));
}

/** The final values each output topic must hold for all `input` so far. */
export function expected(input: Line[]): Record<string, Record<string, number | string>> {
  const counts: Record<string, number> = {};
  const windowed: Record<string, number> = {};
  const table: Record<string, string> = {};
  for (const l of input) {
    if (l.topic === 'regions') {
      table[l.key] = l.value.toUpperCase();
      continue;
    }
    for (const w of l.value.split(' ')) {
      counts[w] = (counts[w] ?? 0) + 1;
      const key = `${w}@${Math.floor(l.timestamp! / WINDOW) * WINDOW}`;
      windowed[key] = (windowed[key] ?? 0) + 1;
    }
  }
  return { counts, 'windowed-counts': windowed, 'regions-upper': table };
}

/** One application id on one krill broker or cluster: its instances and every record produced to it. */
export class WordCountApp {
  readonly input: Line[] = [];
  readonly instances: StreamsInstance[] = [];
  readonly appId: string;

  constructor(
    private readonly bootstrap: () => string,
    label: string,
    private readonly replicationFactor = 1,
  ) {
    this.appId = `${label}-${process.pid}`;
  }

  instance(name: string, stateDir: string, cleanUp = false): StreamsInstance {
    const i = new StreamsInstance(name, { bootstrap: this.bootstrap(), appId: this.appId, stateDir, cleanUp, replicationFactor: this.replicationFactor });
    this.instances.push(i);
    return i;
  }

  /** For afterAll: kills every instance still running. */
  async stopAll(): Promise<void> {
    for (const i of this.instances) i.stop();
    await Promise.all(this.instances.map((i) => i.exited));
  }

  /** Creates the topics when absent and produces `records` (paced in batches when asked). */
  async produce(records: Line[], pacing: { batch?: number; pauseMs?: number } = {}): Promise<void> {
    const topics = ['lines', 'regions', ...OUTPUTS].map((name) => ({ name, partitions: PARTITIONS, replicationFactor: this.replicationFactor }));
    const res = await driver('produce', { bootstrap: this.bootstrap(), topics, records, ...pacing }, 120_000);
    expect(res.produced).toBe(records.length);
    this.input.push(...records);
  }

  /** Reads the outputs read_committed (from `from`, else the beginning) until they hold `want` (bounded), and describes the internal topics. */
  inspect(want: object, from: Json = {}): Promise<Json> {
    return driver('inspect', { bootstrap: this.bootstrap(), appId: this.appId, expected: want, from, timeoutMs: 120_000 }, 150_000);
  }

  /** Every output's last value per key is the one all input so far gives, and every count only ever grew (never counted twice, never from zero again). */
  expectExact(res: Json): void {
    const want = expected(this.input);
    for (const topic of OUTPUTS) {
      const values: Record<string, (number | string)[]> = res.outputs[topic].values;
      const last = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, v[v.length - 1]]));
      expect(last, topic).toEqual(want[topic]);
      if (topic === 'regions-upper') continue;
      for (const [key, seq] of Object.entries(values)) {
        const bad = seq.findIndex((v, i) => i > 0 && v <= seq[i - 1]);
        expect(bad, `${topic} ${key}: ${seq.join(',')}`).toBe(-1);
      }
    }
  }

  /** The internal topics exist with the partitions, replication factor and configs Streams asked for. */
  expectInternalTopics(res: Json): void {
    const internal = res.internalTopics;
    const name = (suffix: string) => `${this.appId}-${suffix}`;
    expect(Object.keys(internal).sort()).toEqual(
      [name('minute-counts-changelog'), name('regions-store-changelog'), name('word-counts-changelog'), name('words-repartition')].sort(),
    );
    for (const t of Object.values(internal) as Json[]) {
      expect(t.partitions).toBe(PARTITIONS);
      expect(t.replicationFactor).toBe(this.replicationFactor);
      expect(t.configs['message.timestamp.type']).toBe('CreateTime');
    }
    expect(internal[name('words-repartition')].configs).toMatchObject({ 'cleanup.policy': 'delete', 'retention.ms': '-1', 'segment.bytes': '52428800' });
    expect(internal[name('word-counts-changelog')].configs).toMatchObject({ 'cleanup.policy': 'compact' });
    expect(internal[name('regions-store-changelog')].configs).toMatchObject({ 'cleanup.policy': 'compact' });
    // A windowed store's changelog: compacted and deleted after the store's retention (1 min + 1 day grace) + 1 day.
    expect(internal[name('minute-counts-changelog')].configs).toMatchObject({
      'cleanup.policy': 'compact,delete',
      'retention.ms': String(WINDOW + 2 * 86_400_000),
    });
  }

  /** The application's committed offsets on the input lines, by partition. */
  committedLines(res: Json): number[] {
    return Array.from({ length: PARTITIONS }, (_, p) => res.committed[`lines-${p}`]);
  }

  /** The number of input lines produced so far. */
  linesIn(): number {
    return this.input.filter((l) => l.topic === 'lines').length;
  }

  /** The active tasks over all instances' latest assignments. */
  allTasks(): string[] {
    return [...new Set(this.instances.flatMap((i) => i.activeTasks()))].sort();
  }
}

export const sum = (ns: number[]): number => ns.reduce((s, n) => s + n, 0);
