// kcat -G (librdkafka's balanced consumer) against a real krill CLI process: two members of one group
// split a 4-partition topic and together read every record exactly once; after they exit (committing on
// close), a new member of the group reads only the records produced afterwards. Committed offsets are
// read back through kafkajs's admin (OffsetFetch), an independent client.
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CliBroker } from '../../test/helpers.js';
import { BrokerPool, describeRun, run } from '../util.js';

const require = createRequire(import.meta.url);
/* eslint-disable @typescript-eslint/no-explicit-any */
const { Kafka, logLevel } = require('kafkajs');

const KCAT = 'kcat';
const TEST_TIMEOUT = 90_000;
const FORMAT = '%p\t%o\t%s\n';

const common = (b: CliBroker) => ['-b', b.bootstrap, '-X', 'socket.timeout.ms=10000', '-X', 'broker.address.family=v4'];
const groupConf = [
  '-X',
  'auto.offset.reset=earliest',
  '-X',
  'session.timeout.ms=6000',
  '-X',
  'heartbeat.interval.ms=500',
  '-X',
  'topic.metadata.refresh.interval.ms=1000',
  '-X',
  'fetch.wait.max.ms=100',
];

interface Line {
  partition: number;
  offset: number;
  value: string;
}
const parse = (stdout: string): Line[] =>
  stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const [p, o, v] = l.split('\t');
      return { partition: Number(p), offset: Number(o), value: v };
    });

/** A long-running `kcat -G` member: its records so far and its latest assignment (from kcat's rebalance lines). */
class Member {
  proc: ChildProcess;
  stdout = '';
  stderr = '';
  assignment: number[] | null = null;
  rebalances: string[] = [];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  constructor(args: string[]) {
    this.proc = spawn(KCAT, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.proc.stdout!.on('data', (d: Buffer) => (this.stdout += d.toString('utf8')));
    this.proc.stderr!.on('data', (d: Buffer) => {
      this.stderr += d.toString('utf8');
      this.rebalances = this.stderr.split('\n').filter((l) => l.includes('rebalanced'));
      const last = this.rebalances.at(-1);
      if (last) this.assignment = last.includes('assigned:') ? [...last.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1])).sort() : [];
    });
    this.exited = new Promise((resolve) => this.proc.on('close', (code, signal) => resolve({ code, signal })));
  }
  get lines(): Line[] {
    return parse(this.stdout);
  }
  /** SIGTERM: kcat stops, closes the consumer (final offset commit) and exits 0. SIGKILL after 15 s. */
  async stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return this.exited;
    this.proc.kill('SIGTERM');
    const t = setTimeout(() => this.proc.kill('SIGKILL'), 15_000);
    const r = await this.exited;
    clearTimeout(t);
    return r;
  }
}

async function waitFor(cond: () => boolean, ms: number, what: () => string): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** kcat -P to one partition; exits 0 only after every message was delivered. */
async function produce(b: CliBroker, topic: string, partition: number, values: string[]) {
  const args = ['-P', ...common(b), '-t', topic, '-p', String(partition), '-X', 'acks=all', '-X', 'message.timeout.ms=20000'];
  const r = await run(KCAT, args, { input: values.map((v) => v + '\n').join(''), timeoutMs: 30_000 });
  expect(r.code, `kcat ${args.join(' ')}\n${describeRun(r)}`).toBe(0);
}

const pool = new BrokerPool();
const members: Member[] = [];
let broker: CliBroker;
let admin: any;

beforeAll(async () => {
  broker = await pool.start(['--data-dir', pool.dir('krill-kcat-groups-')]);
  admin = new Kafka({
    clientId: 'krill-kcat-groups-admin',
    brokers: [broker.bootstrap],
    logLevel: logLevel.NOTHING,
    connectionTimeout: 3000,
    requestTimeout: 10_000,
  }).admin();
  await admin.connect();
});
afterEach(async () => {
  await Promise.all(members.splice(0).map((m) => m.stop()));
});
afterAll(async () => {
  await admin?.disconnect().catch(() => {});
  await pool.cleanup();
});

describe('kcat -G balanced consumer', () => {
  it(
    'two members split 4 partitions and read every record once; a later member reads only newer records',
    async () => {
      const topic = `kcat-g-${process.pid}`;
      const group = `kcat-group-${process.pid}`;
      await admin.createTopics({ topics: [{ topic, numPartitions: 4 }], waitForLeaders: true, timeout: 10_000 });

      // Both members join while the topic is still empty, so neither can drain it alone.
      const args = ['-C', ...common(broker), ...groupConf, '-u', '-f', FORMAT, '-G', group, topic];
      const a = new Member(args);
      members.push(a);
      await waitFor(
        () => a.assignment?.length === 4,
        30_000,
        () => `first member to get all 4 partitions\n${a.stderr}`,
      );
      const b = new Member(args);
      members.push(b);
      await waitFor(
        () => a.assignment?.length === 2 && b.assignment?.length === 2,
        30_000,
        () => `rebalance to 2+2\n--- a ---\n${a.stderr}\n--- b ---\n${b.stderr}`,
      );
      expect([...a.assignment!, ...b.assignment!].sort()).toEqual([0, 1, 2, 3]);

      const produced: string[] = [];
      for (let p = 0; p < 4; p++) {
        const vs = Array.from({ length: 25 }, (_, i) => `first-p${p}-${i}`);
        await produce(broker, topic, p, vs);
        produced.push(...vs);
      }
      await waitFor(
        () => a.lines.length + b.lines.length >= produced.length,
        30_000,
        () => `all ${produced.length} records (a=${a.lines.length} b=${b.lines.length})`,
      );
      // Let any duplicate show up before stopping.
      await new Promise((r) => setTimeout(r, 500));
      // The assignments the records were read under (stopping makes kcat log a final revoke).
      const owned = new Map([
        [a, a.assignment!],
        [b, b.assignment!],
      ]);
      const [ra, rb] = await Promise.all([a.stop(), b.stop()]);
      expect(ra, a.stderr).toEqual({ code: 0, signal: null });
      expect(rb, b.stderr).toEqual({ code: 0, signal: null });

      // Each member read only its own partitions, in offset order; every record exactly once in total.
      for (const m of [a, b]) {
        const mine = new Set(owned.get(m));
        expect(m.lines.every((l) => mine.has(l.partition))).toBe(true);
        expect(m.lines).toHaveLength(50);
        for (const p of owned.get(m)!) {
          expect(m.lines.filter((l) => l.partition === p).map((l) => l.offset)).toEqual(Array.from({ length: 25 }, (_, i) => i));
        }
      }
      expect([...a.lines, ...b.lines].map((l) => l.value).sort()).toEqual([...produced].sort());

      // Offsets were committed on close: the end of every partition.
      const committed = await admin.fetchOffsets({ groupId: group, topics: [topic] });
      expect(committed[0].partitions.map((p: any) => [p.partition, p.offset]).sort()).toEqual([
        [0, '25'],
        [1, '25'],
        [2, '25'],
        [3, '25'],
      ]);
      // Both members left: the group is Empty.
      const { groups } = await admin.describeGroups([group]);
      expect(groups[0]).toMatchObject({ groupId: group, state: 'Empty', members: [] });

      // New records, then a new member of the same group: exactly the new records, from the committed offsets.
      const later: string[] = [];
      for (let p = 0; p < 4; p++) {
        const vs = Array.from({ length: 3 }, (_, i) => `later-p${p}-${i}`);
        await produce(broker, topic, p, vs);
        later.push(...vs);
      }
      const r = await run(KCAT, ['-C', ...common(broker), ...groupConf, '-q', '-e', '-f', FORMAT, '-G', group, topic], { timeoutMs: 45_000 });
      expect(r.code, describeRun(r)).toBe(0);
      const got = parse(r.stdout);
      expect(got.map((l) => l.value).sort()).toEqual([...later].sort());
      expect(got.map((l) => l.offset).sort()).toEqual([25, 25, 25, 25, 26, 26, 26, 26, 27, 27, 27, 27]);
      const after = await admin.fetchOffsets({ groupId: group, topics: [topic] });
      expect(after[0].partitions.map((p: any) => [p.partition, p.offset]).sort()).toEqual([
        [0, '28'],
        [1, '28'],
        [2, '28'],
        [3, '28'],
      ]);
    },
    TEST_TIMEOUT,
  );
});
