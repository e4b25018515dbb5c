// Compatibility: consumer groups with @confluentinc/kafka-javascript's KafkaJS-compatible consumer
// (librdkafka underneath, classic group protocol) against krill's group coordinator: consumer.run in a
// group, two members sharing a topic, manual commits and resume, the admin group APIs, and static
// membership (group.instance.id): a static member restarted within its session timeout takes its old
// place without a rebalance.
//
// Like ./confluent-js.test.ts: skipped when the package is missing, unless CI=true.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startBroker, type RunningBroker } from '../../src/index.js';
import { tempDir } from '../../test/helpers.js';
import { describeWithClient, rdkafka } from './client.js';

/* eslint-disable @typescript-eslint/no-explicit-any */

let seq = 0;
const unique = (label: string) => `cjs-${label}-${process.pid}-${++seq}`;

async function waitFor(cond: () => boolean, ms: number, what: () => string): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Races `p` against a timeout (librdkafka calls have their own, this bounds the JS wrapper too). The client is
 * untyped, so results are `any`.
 */
function bounded(p: Promise<any>, ms: number, what: string): Promise<any> {
  let t: NodeJS.Timeout;
  return Promise.race([p, new Promise<never>((_, rej) => (t = setTimeout(() => rej(new Error(`timed out: ${what}`)), ms)))]).finally(() => clearTimeout(t));
}

describeWithClient('consumer groups against krill', { timeout: 90_000 }, suite);

interface Seen {
  consumer: string;
  partition: number;
  offset: number;
  value: string;
}

function suite(): void {
  let broker: RunningBroker;
  let kafka: any;
  let admin: any;
  const live = new Set<any>();

  beforeAll(async () => {
    broker = await startBroker({ port: 0, host: '127.0.0.1', dataDir: tempDir('krill-cjs-groups-'), logLevel: process.env.KRILL_LOG_LEVEL } as any);
    kafka = new rdkafka.KafkaJS.Kafka({
      kafkaJS: {
        brokers: [broker.bootstrap],
        clientId: 'krill-cjs-groups',
        logLevel: rdkafka.KafkaJS.logLevel.NOTHING,
        connectionTimeout: 3000,
        requestTimeout: 10_000,
      },
    });
    admin = kafka.admin();
    await admin.connect();
  }, 30_000);

  afterAll(async () => {
    await Promise.allSettled([admin?.disconnect(), ...[...live].map((c) => c.disconnect())]);
    await broker?.close();
  }, 60_000);

  async function produce(topic: string, partitions: number, perPartition: number, prefix: string): Promise<string[]> {
    const producer = kafka.producer({ kafkaJS: { acks: -1 }, 'linger.ms': 5, 'message.timeout.ms': 15_000 });
    await producer.connect();
    const messages = [];
    for (let p = 0; p < partitions; p++) for (let i = 0; i < perPartition; i++) messages.push({ value: `${prefix}-p${p}-${i}`, partition: p });
    const values = messages.map((m) => m.value); // send() turns the values into Buffers in place
    await bounded(producer.send({ topic, messages }), 20_000, 'send');
    await producer.disconnect();
    return values;
  }

  interface Started {
    consumer: any;
    seen: Seen[];
    rebalances: { kind: 'assign' | 'revoke'; partitions: number[] }[];
    assigned: Set<number>;
  }

  /** A connected, running consumer; its records and rebalance callbacks are recorded. */
  async function start(
    name: string,
    groupId: string,
    topic: string,
    opts: { autoCommit?: boolean; instanceId?: string; sessionTimeout?: number } = {},
  ): Promise<Started> {
    const s: Started = { consumer: null, seen: [], rebalances: [], assigned: new Set() };
    const config: any = {
      kafkaJS: {
        groupId,
        fromBeginning: true,
        sessionTimeout: opts.sessionTimeout ?? 6000,
        heartbeatInterval: 500,
        maxWaitTimeInMs: 100,
        autoCommit: opts.autoCommit ?? true,
        ...(opts.autoCommit === false ? {} : { autoCommitInterval: 200 }),
      },
      'client.id': `krill-cjs-${name}`,
      'topic.metadata.refresh.interval.ms': 1000,
      rebalance_cb: (err: any, assignment: { topic: string; partition: number }[]) => {
        const parts = assignment.map((a) => a.partition).sort();
        if (err.code === rdkafka.CODES.ERRORS.ERR__ASSIGN_PARTITIONS) {
          s.rebalances.push({ kind: 'assign', partitions: parts });
          for (const p of parts) s.assigned.add(p);
        } else {
          s.rebalances.push({ kind: 'revoke', partitions: parts });
          for (const p of parts) s.assigned.delete(p);
        }
      },
    };
    if (opts.instanceId) config['group.instance.id'] = opts.instanceId;
    const consumer = kafka.consumer(config);
    s.consumer = consumer;
    await bounded(consumer.connect(), 15_000, 'connect');
    live.add(consumer);
    await bounded(consumer.subscribe({ topics: [topic] }), 15_000, 'subscribe');
    consumer.run({
      eachMessage: async ({ partition, message }: any) => {
        s.seen.push({ consumer: name, partition, offset: Number(message.offset), value: message.value.toString() });
      },
    });
    return s;
  }

  async function stop(s: Started): Promise<void> {
    await bounded(s.consumer.disconnect(), 30_000, 'disconnect');
    live.delete(s.consumer);
  }

  const committedOffsets = async (groupId: string, topic: string) => {
    const res = await bounded(admin.fetchOffsets({ groupId, topics: [topic] }), 15_000, 'fetchOffsets');
    // Topic names in, all of the group's offsets fetched and filtered: a group without offsets gives [].
    if (res.length === 0) return {};
    return Object.fromEntries(res[0].partitions.map((p: any) => [p.partition, Number(p.offset)]));
  };
  const sorted = (xs: string[]) => [...xs].sort();

  it('two consumer.run members share a topic: the partitions split, each record once; a second group reads everything', async () => {
    const topic = unique('share');
    const group = unique('g');
    await admin.createTopics({ topics: [{ topic, numPartitions: 4 }] });
    const a = await start('a', group, topic);
    await waitFor(
      () => a.assigned.size === 4,
      30_000,
      () => `a assigned 4: ${JSON.stringify(a.rebalances)}`,
    );
    const b = await start('b', group, topic);
    await waitFor(
      () => a.assigned.size === 2 && b.assigned.size === 2,
      30_000,
      () => `2+2: a=${JSON.stringify(a.rebalances)} b=${JSON.stringify(b.rebalances)}`,
    );
    expect([...a.assigned, ...b.assigned].sort()).toEqual([0, 1, 2, 3]);

    const produced = await produce(topic, 4, 10, 'share');
    await waitFor(
      () => a.seen.length + b.seen.length >= 40,
      30_000,
      () => `40 records: a=${a.seen.length} b=${b.seen.length}`,
    );
    await new Promise((r) => setTimeout(r, 500));
    for (const s of [a, b]) {
      expect(s.seen).toHaveLength(20);
      expect(s.seen.every((m) => s.assigned.has(m.partition))).toBe(true);
    }
    expect(sorted([...a.seen, ...b.seen].map((m) => m.value))).toEqual(sorted(produced));

    // Both members live: describeGroups shows them Stable with their client ids.
    // The KafkaJS-compatible consumer's default assignor is roundrobin (KafkaJS's default).
    const { groups } = await bounded(admin.describeGroups([group]), 15_000, 'describeGroups');
    expect(groups).toHaveLength(1);
    expect(groups[0]).toMatchObject({ groupId: group, protocolType: 'consumer', protocol: 'roundrobin', isSimpleConsumerGroup: false });
    expect(groups[0].state).toBe(rdkafka.KafkaJS.ConsumerGroupStates.STABLE);
    expect(groups[0].members.map((m: any) => m.clientId).sort()).toEqual(['krill-cjs-a', 'krill-cjs-b']);

    await Promise.all([stop(a), stop(b)]);
    expect(await committedOffsets(group, topic)).toEqual({ 0: 10, 1: 10, 2: 10, 3: 10 });

    const c = await start('c', unique('other'), topic);
    await waitFor(
      () => c.seen.length >= 40,
      30_000,
      () => `pub/sub 40 records: ${c.seen.length}`,
    );
    expect(sorted(c.seen.map((m) => m.value))).toEqual(sorted(produced));
    await stop(c);

    const listed = await bounded(admin.listGroups(), 15_000, 'listGroups');
    expect(listed.groups.map((g: any) => g.groupId)).toContain(group);
  });

  it('manual commitOffsets, then a new consumer resumes at the committed offsets; deleteGroups', async () => {
    const topic = unique('commit');
    const group = unique('g');
    await admin.createTopics({ topics: [{ topic, numPartitions: 2 }] });
    const first = await produce(topic, 2, 5, 'one');
    const a = await start('a', group, topic, { autoCommit: false });
    await waitFor(
      () => a.seen.length >= 10,
      30_000,
      () => `10 records: ${a.seen.length}`,
    );
    expect(sorted(a.seen.map((m) => m.value))).toEqual(sorted(first));
    // Commit only partition 0 fully and partition 1 up to offset 3 (next to read).
    await bounded(
      a.consumer.commitOffsets([
        { topic, partition: 0, offset: '5' },
        { topic, partition: 1, offset: '3' },
      ]),
      15_000,
      'commitOffsets',
    );
    // This client's commitOffsets resolves once librdkafka has queued the commit (commitAsync underneath),
    // not when the coordinator has answered: wait for the commit to become visible, then check what landed.
    let landed: Record<number, number> = {};
    const commitDeadline = Date.now() + 15_000;
    while (Object.keys((landed = await committedOffsets(group, topic))).length === 0) {
      if (Date.now() > commitDeadline) throw new Error('timed out waiting for the manual commit to land');
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(landed).toEqual({ 0: 5, 1: 3 });
    await stop(a);

    const second = await produce(topic, 2, 2, 'two');
    const b = await start('b', group, topic, { autoCommit: false });
    await waitFor(
      () => b.seen.length >= 6,
      30_000,
      () => `6 records: ${b.seen.length}`,
    );
    await new Promise((r) => setTimeout(r, 500));
    // Partition 0 resumes at 5 (only new records), partition 1 at 3 (two old ones, then the new ones).
    expect(b.seen.map((m) => [m.partition, m.offset, m.value]).sort()).toEqual([
      [0, 5, 'two-p0-0'],
      [0, 6, 'two-p0-1'],
      [1, 3, 'one-p1-3'],
      [1, 4, 'one-p1-4'],
      [1, 5, 'two-p1-0'],
      [1, 6, 'two-p1-1'],
    ]);
    expect(second).toEqual(['two-p0-0', 'two-p0-1', 'two-p1-0', 'two-p1-1']);
    await bounded(
      b.consumer.commitOffsets([
        { topic, partition: 0, offset: '7' },
        { topic, partition: 1, offset: '7' },
      ]),
      15_000,
      'commitOffsets',
    );
    await stop(b);
    expect(await committedOffsets(group, topic)).toEqual({ 0: 7, 1: 7 });

    const reports = await bounded(admin.deleteGroups([group]), 15_000, 'deleteGroups');
    expect(reports.map((r: any) => [r.groupId, r.errorCode ?? 0])).toEqual([[group, 0]]);
    expect(await committedOffsets(group, topic)).toEqual({});
    const gone = await bounded(admin.describeGroups([group]), 15_000, 'describeGroups');
    expect(gone.groups[0]).toMatchObject({ groupId: group, members: [] });
    expect(gone.groups[0].state).toBe(rdkafka.KafkaJS.ConsumerGroupStates.DEAD);
  });

  it('static membership: a member restarted with its group.instance.id within the session timeout causes no rebalance', async () => {
    const topic = unique('static');
    const group = unique('g');
    await admin.createTopics({ topics: [{ topic, numPartitions: 4 }] });
    const opts = (id: string) => ({ instanceId: id, sessionTimeout: 20_000 });
    const a = await start('a', group, topic, opts('inst-a'));
    await waitFor(
      () => a.assigned.size === 4,
      30_000,
      () => `a assigned 4: ${JSON.stringify(a.rebalances)}`,
    );
    const b = await start('b', group, topic, opts('inst-b'));
    await waitFor(
      () => a.assigned.size === 2 && b.assigned.size === 2,
      30_000,
      () => `2+2: a=${JSON.stringify(a.rebalances)} b=${JSON.stringify(b.rebalances)}`,
    );
    const aParts = [...a.assigned].sort();
    const bParts = [...b.assigned].sort();
    const before = (await admin.describeGroups([group])).groups[0];
    expect(before.members.map((m: any) => m.groupInstanceId).sort()).toEqual(['inst-a', 'inst-b']);
    const oldA = before.members.find((m: any) => m.groupInstanceId === 'inst-a').memberId;
    const bRebalances = b.rebalances.length;

    // A static member leaves without LeaveGroup; a restart with the same instance id takes its place.
    await stop(a);
    const mid = (await admin.describeGroups([group])).groups[0];
    expect(mid.members.map((m: any) => m.groupInstanceId).sort()).toEqual(['inst-a', 'inst-b']);
    expect(mid.state).toBe(rdkafka.KafkaJS.ConsumerGroupStates.STABLE);

    const a2 = await start('a2', group, topic, opts('inst-a'));
    await waitFor(
      () => a2.assigned.size === 2,
      30_000,
      () => `a2 assigned: ${JSON.stringify(a2.rebalances)}`,
    );
    expect([...a2.assigned].sort()).toEqual(aParts);
    const after = (await admin.describeGroups([group])).groups[0];
    expect(after.state).toBe(rdkafka.KafkaJS.ConsumerGroupStates.STABLE);
    expect(after.members.map((m: any) => m.groupInstanceId).sort()).toEqual(['inst-a', 'inst-b']);
    const newA = after.members.find((m: any) => m.groupInstanceId === 'inst-a').memberId;
    expect(newA).not.toBe(oldA);

    // Records reach both members under the unchanged assignment, each once.
    const produced = await produce(topic, 4, 5, 'st');
    await waitFor(
      () => a2.seen.length + b.seen.length >= 20,
      30_000,
      () => `20 records: a2=${a2.seen.length} b=${b.seen.length}`,
    );
    await new Promise((r) => setTimeout(r, 1000));
    expect(sorted([...a2.seen, ...b.seen].map((m) => m.value))).toEqual(sorted(produced));
    expect([...new Set(b.seen.map((m) => m.partition))].sort()).toEqual(bParts);
    expect([...new Set(a2.seen.map((m) => m.partition))].sort()).toEqual(aParts);
    // b never saw a rebalance: no revoke, no new assignment through the whole restart.
    expect(b.rebalances.length).toBe(bRebalances);
    expect([...b.assigned].sort()).toEqual(bParts);
    await Promise.all([stop(a2), stop(b)]);
  });
}
