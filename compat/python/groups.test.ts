// Consumer groups with the Python clients against a real krill CLI process, via
// compat/python/groups_client.py (Debian's /usr/bin/python3):
// - confluent-kafka-python 1.7.0 (librdkafka 2.0.2): subscribe() queue semantics with two members,
//   pub/sub across groups, manual sync/async commits and resume, committed offsets surviving SIGTERM and
//   kill -9 restarts, AdminClient.list_groups (1.7.0 has no describe_consumer_groups /
//   list_consumer_group_offsets: those arrived in 1.9/2.0), cooperative-sticky incremental rebalancing.
// - kafka-python 2.0.2: KafkaConsumer(group_id) subscribe/commit/resume and KafkaAdminClient
//   list_consumer_groups / describe_consumer_groups / list_consumer_group_offsets / delete_consumer_groups.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliBroker } from '../../test/helpers.js';
import { BrokerPool } from '../util.js';
import { encodeRecord, py } from './py.js';
import type { Json } from '../util.js';

const TEST_TIMEOUT = 90_000;
const gc = <T = Json>(command: string, args: object, timeoutMs = 60_000) => py<T>('groups_client.py', command, args, timeoutMs);

interface Msg {
  topic: string;
  partition: number;
  offset: number;
  value: string;
}
interface ConsumeResult {
  messages: Msg[];
  errors: string[];
  events: { type: string; partitions: [string, number][] }[];
  assignment: [string, number][];
  committed: Record<string, number>;
  commits: { ok: number; errors: string[]; pending: number };
}

const pool = new BrokerPool();
let broker: CliBroker;
let dataDir: string;
let seq = 0;
const unique = (label: string) => `py-${label}-${process.pid}-${++seq}`;

beforeAll(async () => {
  dataDir = pool.dir('krill-pygroups-');
  broker = await pool.start(['--data-dir', dataDir, '--set', 'group.initial.rebalance.delay.ms=0']);
});
afterAll(() => pool.cleanup());

const bootstrap = () => broker.bootstrap;

async function createTopic(name: string, partitions: number) {
  const res = await py('ck_client.py', 'create_topics', { bootstrap: bootstrap(), topics: [{ name, partitions, config: {} }] });
  expect(res.results[name], JSON.stringify(res)).toEqual({ ok: true });
}

/** Produces `perPartition` records `${prefix}-p<partition>-<i>` to every partition; returns the values. */
async function produce(topic: string, partitions: number, perPartition: number, prefix: string): Promise<string[]> {
  const records = [];
  for (let p = 0; p < partitions; p++) for (let i = 0; i < perPartition; i++) records.push({ key: null, value: `${prefix}-p${p}-${i}`, partition: p });
  const res = await py('ck_client.py', 'produce', { bootstrap: bootstrap(), topic, records: records.map(encodeRecord) });
  expect(res.undelivered).toBe(0);
  return records.map((r) => r.value);
}

const syncDir = () => fs.mkdtempSync(path.join(pool.dir('krill-pysync-'), 's-'));
const values = (ms: Msg[]) => ms.map((m) => m.value).sort();
const committedOf = async (group: string, topic: string, partitions: number) => {
  const r = await gc('ck_committed', { bootstrap: bootstrap(), group, topic, partitions });
  expect(r.errors).toEqual([]);
  return r.committed as Record<string, number>;
};
const all = (topic: string, partitions: number, offset: number) => Object.fromEntries(Array.from({ length: partitions }, (_, p) => [`${topic}/${p}`, offset]));

describe('confluent-kafka-python consumer groups', () => {
  it(
    'queue semantics: two subscribe() members split 4 partitions, each record once; a second group reads everything',
    async () => {
      const topic = unique('queue');
      const group = unique('g');
      await createTopic(topic, 4);
      const produced = await produce(topic, 4, 10, 'q');
      const dir = syncDir();
      // Each member pauses any assignment but its 2-partition share, so the first to join cannot drain the topic alone.
      const member = (name: string) =>
        gc<ConsumeResult>('ck_group_consume', {
          bootstrap: bootstrap(),
          group,
          topics: [topic],
          name,
          sync_dir: dir,
          peers: ['a', 'b'],
          pause_until_size: 2,
          stop_size: 2,
          commit: 'auto',
        });
      const [a, b] = await Promise.all([member('a'), member('b')]);
      expect(a.errors).toEqual([]);
      expect(b.errors).toEqual([]);
      expect(a.assignment).toHaveLength(2);
      expect(b.assignment).toHaveLength(2);
      expect([...a.assignment, ...b.assignment].sort()).toEqual([0, 1, 2, 3].map((p) => [topic, p]));
      // Each member read exactly the records of its own partitions, every record once overall.
      for (const r of [a, b]) {
        const mine = new Set(r.assignment.map(([, p]) => p));
        expect(r.messages.every((m) => mine.has(m.partition))).toBe(true);
        expect(r.messages).toHaveLength(20);
      }
      expect(values([...a.messages, ...b.messages])).toEqual([...produced].sort());
      // Auto-commit on close: committed = end of each partition.
      expect(await committedOf(group, topic, 4)).toEqual({ 0: 10, 1: 10, 2: 10, 3: 10 });

      // Pub/sub: another group reads everything again.
      const group2 = unique('g2');
      const other = await gc<ConsumeResult>('ck_group_consume', { bootstrap: bootstrap(), group: group2, topics: [topic], stop_size: 4 });
      expect(values(other.messages)).toEqual([...produced].sort());
      // Auto-commit (interval 5 s) has not fired yet while consuming; close() commits.
      expect(other.committed).toEqual(all(topic, 4, -1001));
      expect(await committedOf(group2, topic, 4)).toEqual({ 0: 10, 1: 10, 2: 10, 3: 10 });
    },
    TEST_TIMEOUT,
  );

  for (const mode of ['sync', 'async'] as const) {
    it(
      `manual ${mode} commits after each record; a new consumer resumes at the committed offsets`,
      async () => {
        const topic = unique(`commit-${mode}`);
        const group = unique('g');
        await createTopic(topic, 2);
        const first = await produce(topic, 2, 5, 'one');
        const r1 = await gc<ConsumeResult>('ck_group_consume', { bootstrap: bootstrap(), group, topics: [topic], stop_size: 2, commit: mode });
        expect(values(r1.messages)).toEqual([...first].sort());
        if (mode === 'async') expect(r1.commits).toEqual({ ok: 10, errors: [], pending: 0 });
        expect(r1.committed).toEqual(all(topic, 2, 5));
        expect(await committedOf(group, topic, 2)).toEqual({ 0: 5, 1: 5 });

        const second = await produce(topic, 2, 3, 'two');
        const r2 = await gc<ConsumeResult>('ck_group_consume', { bootstrap: bootstrap(), group, topics: [topic], stop_size: 2, commit: mode });
        expect(values(r2.messages)).toEqual([...second].sort());
        expect(r2.messages.map((m) => m.offset).sort()).toEqual([5, 5, 6, 6, 7, 7]);
        expect(await committedOf(group, topic, 2)).toEqual({ 0: 8, 1: 8 });
      },
      TEST_TIMEOUT,
    );
  }

  it(
    'AdminClient.list_groups: a live group is Stable with its members; the listing names every group',
    async () => {
      const topic = unique('list');
      const group = unique('g');
      await createTopic(topic, 2);
      await produce(topic, 2, 2, 'l');
      const dir = syncDir();
      // One member stays in the group (waiting for the never-written peer file "hold") while we list.
      const running = gc<ConsumeResult>('ck_group_consume', {
        bootstrap: bootstrap(),
        group,
        topics: [topic],
        name: 'm',
        sync_dir: dir,
        peers: ['m', 'hold'],
        stop_size: 2,
        conf: { 'client.id': 'krill-py-lister' },
      });
      try {
        const deadline = Date.now() + 30_000;
        while (!fs.existsSync(path.join(dir, 'm.done'))) {
          if (Date.now() > deadline) throw new Error('member never finished');
          await new Promise((r) => setTimeout(r, 100));
        }
        const one = await gc('ck_list_groups', { bootstrap: bootstrap(), group });
        expect(one.groups).toHaveLength(1);
        expect(one.groups[0]).toMatchObject({ id: group, error: null, state: 'Stable', protocol_type: 'consumer', protocol: 'range', broker: 1 });
        expect(one.groups[0].members).toHaveLength(1);
        expect(one.groups[0].members[0]).toMatchObject({
          client_id: 'krill-py-lister',
          client_host: expect.stringContaining('127.0.0.1'),
          has_metadata: true,
          has_assignment: true,
        });
        const every = await gc('ck_list_groups', { bootstrap: bootstrap() });
        expect(every.groups.map((g: { id: string }) => g.id)).toContain(group);
      } finally {
        fs.writeFileSync(path.join(dir, 'hold.done'), '1');
      }
      const r = await running;
      expect(r.messages).toHaveLength(4);
      // After the member left: Empty, no members.
      const after = await gc('ck_list_groups', { bootstrap: bootstrap(), group });
      expect(after.groups[0]).toMatchObject({ id: group, state: 'Empty', members: [] });
    },
    TEST_TIMEOUT,
  );

  it(
    'cooperative-sticky: a second member joins mid-stream, two partitions move incrementally, nothing lost or duplicated',
    async () => {
      const topic = unique('coop');
      const group = unique('g');
      await createTopic(topic, 4);
      const produced = await produce(topic, 4, 15, 'c');
      const dir = syncDir();
      const conf = { 'partition.assignment.strategy': 'cooperative-sticky' };
      const common = { bootstrap: bootstrap(), group, topics: [topic], sync_dir: dir, peers: ['a', 'b'], stop_size: 2, commit: 'sync', conf, slow_ms: 40 };
      const pa = gc<ConsumeResult>('ck_group_consume', { ...common, name: 'a', progress_after: 5 });
      const deadline = Date.now() + 30_000;
      while (!fs.existsSync(path.join(dir, 'a.progress'))) {
        if (Date.now() > deadline) throw new Error('first member never made progress');
        await new Promise((r) => setTimeout(r, 50));
      }
      const [a, b] = await Promise.all([pa, gc<ConsumeResult>('ck_group_consume', { ...common, name: 'b' })]);
      expect(a.errors).toEqual([]);
      expect(b.errors).toEqual([]);
      // a: all four, then an incremental revoke of exactly two (never a revoke of everything).
      expect(a.events[0]).toEqual({ type: 'assign', partitions: [0, 1, 2, 3].map((p) => [topic, p]), at: expect.any(Number) });
      const revokes = a.events.filter((e) => e.type === 'revoke');
      expect(revokes).toHaveLength(1);
      expect(revokes[0].partitions).toHaveLength(2);
      expect(a.events.filter((e) => e.type === 'lost')).toEqual([]);
      expect(b.assignment.sort()).toEqual(revokes[0].partitions.sort());
      expect([...a.assignment, ...b.assignment].sort()).toEqual([0, 1, 2, 3].map((p) => [topic, p]));
      expect(a.messages.length).toBeGreaterThanOrEqual(5);
      expect(b.messages.length).toBeGreaterThan(0);
      // Every record exactly once across both members.
      const got = [...a.messages, ...b.messages].map((m) => m.value).sort();
      expect(got).toEqual([...produced].sort());
      expect(await committedOf(group, topic, 4)).toEqual({ 0: 15, 1: 15, 2: 15, 3: 15 });
    },
    TEST_TIMEOUT,
  );

  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    it(
      `committed offsets survive a broker restart (${signal}); the group resumes exactly there`,
      async () => {
        const topic = unique(`restart-${signal}`);
        const group = unique('g');
        await createTopic(topic, 3);
        const first = await produce(topic, 3, 4, 'before');
        const r1 = await gc<ConsumeResult>('ck_group_consume', { bootstrap: bootstrap(), group, topics: [topic], stop_size: 3, commit: 'sync' });
        expect(values(r1.messages)).toEqual([...first].sort());
        const second = await produce(topic, 3, 2, 'after');

        const res = await pool.stop(broker, signal);
        expect(res).toBe(signal === 'SIGTERM' ? 0 : 'SIGKILL');
        broker = await pool.start(['--data-dir', dataDir, '--set', 'group.initial.rebalance.delay.ms=0']);

        expect(await committedOf(group, topic, 3)).toEqual({ 0: 4, 1: 4, 2: 4 });
        const r2 = await gc<ConsumeResult>('ck_group_consume', { bootstrap: bootstrap(), group, topics: [topic], stop_size: 3, commit: 'sync' });
        expect(values(r2.messages)).toEqual([...second].sort());
        expect(r2.messages.map((m) => m.offset).sort()).toEqual([4, 4, 4, 5, 5, 5]);
        expect(await committedOf(group, topic, 3)).toEqual({ 0: 6, 1: 6, 2: 6 });
      },
      TEST_TIMEOUT,
    );
  }
});

describe('kafka-python consumer groups', () => {
  it(
    'KafkaConsumer(group_id) subscribe, commit, resume; KafkaAdminClient group APIs',
    async () => {
      const topic = unique('kp');
      const group = unique('kpg');
      await createTopic(topic, 2);
      const first = await produce(topic, 2, 3, 'k1');
      const r1 = await gc('kp_group_consume', { bootstrap: bootstrap(), group, topics: [topic] });
      expect(values(r1.messages)).toEqual([...first].sort());
      expect(r1.assignment).toEqual([
        [topic, 0],
        [topic, 1],
      ]);
      expect(r1.committed).toEqual(all(topic, 2, 3));

      const second = await produce(topic, 2, 2, 'k2');
      const r2 = await gc('kp_group_consume', { bootstrap: bootstrap(), group, topics: [topic] });
      expect(values(r2.messages)).toEqual([...second].sort());
      expect(r2.messages.map((m: Msg) => m.offset).sort()).toEqual([3, 3, 4, 4]);

      // Admin: listed, described (Empty after the consumer left), offsets, then deleted.
      const listed = await gc('kp_list_consumer_groups', { bootstrap: bootstrap() });
      expect(listed.groups).toContainEqual([group, 'consumer']);
      const described = await gc('kp_describe_consumer_groups', { bootstrap: bootstrap(), groups: [group] });
      expect(described.groups).toEqual([{ error_code: 0, group, state: 'Empty', protocol_type: 'consumer', protocol: '', members: [] }]);
      const offsets = await gc('kp_list_consumer_group_offsets', { bootstrap: bootstrap(), group });
      expect(offsets.offsets).toEqual(all(topic, 2, 5));
      // Cross-client: librdkafka reads the same committed offsets.
      expect(await committedOf(group, topic, 2)).toEqual({ 0: 5, 1: 5 });

      const deleted = await gc('kp_delete_consumer_groups', { bootstrap: bootstrap(), groups: [group] });
      expect(deleted.results).toEqual([[group, 'NoError', 0]]);
      const after = await gc('kp_list_consumer_groups', { bootstrap: bootstrap() });
      expect(after.groups.map((g: string[]) => g[0])).not.toContain(group);
      expect(await gc('kp_list_consumer_group_offsets', { bootstrap: bootstrap(), group }).then((r) => r.offsets)).toEqual({});
      // A consumer in the deleted group starts over from the beginning.
      const r3 = await gc('kp_group_consume', { bootstrap: bootstrap(), group, topics: [topic], commit: false });
      expect(r3.messages).toHaveLength(10);
    },
    TEST_TIMEOUT,
  );

  it(
    'describe_consumer_groups of a live kafka-python member shows its assignment',
    async () => {
      const topic = unique('kpd');
      const group = unique('kpg');
      await createTopic(topic, 2);
      await produce(topic, 2, 1, 'd');
      const dir = syncDir();
      const running = gc<ConsumeResult>('ck_group_consume', {
        bootstrap: bootstrap(),
        group,
        topics: [topic],
        name: 'm',
        sync_dir: dir,
        peers: ['m', 'hold'],
        stop_size: 2,
        conf: { 'client.id': 'krill-py-described' },
      });
      try {
        const deadline = Date.now() + 30_000;
        while (!fs.existsSync(path.join(dir, 'm.done'))) {
          if (Date.now() > deadline) throw new Error('member never finished');
          await new Promise((r) => setTimeout(r, 100));
        }
        const d = await gc('kp_describe_consumer_groups', { bootstrap: bootstrap(), groups: [group] });
        expect(d.groups).toHaveLength(1);
        expect(d.groups[0]).toMatchObject({ error_code: 0, group, state: 'Stable', protocol_type: 'consumer', protocol: 'range' });
        expect(d.groups[0].members).toHaveLength(1);
        expect(d.groups[0].members[0]).toMatchObject({ client_id: 'krill-py-described', assignment: [[topic, [0, 1]]] });
      } finally {
        fs.writeFileSync(path.join(dir, 'hold.done'), '1');
      }
      expect((await running).messages).toHaveLength(2);
    },
    TEST_TIMEOUT,
  );
});
