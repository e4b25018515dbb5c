// The group coordinator killed with SIGKILL while a confluent-kafka-python consumer group commits offsets.
// A group's coordinator is the leader of its __consumer_offsets partition (RF 3 here): when that broker dies
// the partition's leadership moves to an ISR member, which loads the group's committed offsets and becomes
// its coordinator. The consumer finds it (FindCoordinator), commits again, and a second member started after
// the first one closed (without committing its last records) resumes exactly at the committed offsets: no
// record is skipped, and only records after the last commit are read twice.
//
// The time from the kill to the first commit accepted by the new coordinator is logged as a [measure] line.
import { expect, it } from 'vitest';
import { TestClient } from '../../test/server/client.js';
import { adminOf, agreedController, describeCluster, kafka, measure, settled, unique } from './cluster-util.js';
import { fullIsr, startGroupConsumer, useProcessCluster, type GroupResult, type ProcessCluster } from './replication-util.js';
import type { Message } from '../../protocol/codec.js';

const TEST_TIMEOUT = 150_000;
const SESSION_TIMEOUT_MS = 6000;
const PARTITIONS = 3;
/** At the first member's 40 records a second, 30 s of reading: the coordinator's failover fits well within. */
const PER_PARTITION = 400;
const FIND_COORDINATOR = 10;

let env: ProcessCluster;

/** The group's coordinator as `port`'s broker answers FindCoordinator (v1), or -1 while it has none. */
async function coordinatorOf(port: number, group: string): Promise<number> {
  const client = await TestClient.connect(port);
  try {
    const r: Message = await client.request(FIND_COORDINATOR, 1, { key: group, keyType: 0 });
    return r.errorCode === 0 ? r.nodeId : -1;
  } finally {
    client.close();
  }
}

/** Per partition, the offsets read, in order. */
function offsetsByPartition(consumed: GroupResult['consumed']): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (const [p, o] of consumed) out.set(p, [...(out.get(p) ?? []), o]);
  return out;
}

/** Offsets that were skipped: a record whose offset is beyond the one after the previous (a re-read may go back). */
function gaps(offsets: number[], from: number): string[] {
  const out: string[] = [];
  let next = from;
  for (const o of offsets) {
    if (o > next) out.push(`${next}..${o - 1}`);
    next = Math.max(next, o + 1);
  }
  return out;
}

describeCluster("kill -9 of a consumer group's coordinator (confluent-kafka-python committing offsets)", { timeout: TEST_TIMEOUT }, () => {
  env = useProcessCluster('coordinator', { 'zookeeper.session.timeout.ms': SESSION_TIMEOUT_MS, 'offsets.topic.num.partitions': 6 }, TEST_TIMEOUT);

  it('the group resumes at its committed offsets through the new coordinator: nothing skipped, re-reads only after the last commit', async () => {
    const topic = unique('coordinated');
    const admin = await adminOf(env.cluster.bootstrap);
    try {
      await admin.createTopics({ topics: [{ topic, numPartitions: PARTITIONS, replicationFactor: 3 }], waitForLeaders: true });
    } finally {
      await admin.disconnect();
    }
    await settled(env.cluster, topic, PARTITIONS);
    const producer = kafka(env.cluster.bootstrap).producer();
    await producer.connect();
    try {
      for (let p = 0; p < PARTITIONS; p++) {
        await producer.send({ topic, acks: -1, messages: Array.from({ length: PER_PARTITION }, (_, i) => ({ partition: p, value: `g-${p}-${i}` })) });
      }
    } finally {
      await producer.disconnect();
    }

    // A group whose coordinator is not the controller (the controller's own failover is another test's).
    const controller = await agreedController(env.cluster.brokers.map((b) => b.port));
    let group = '';
    let coordinator = -1;
    for (let i = 0; coordinator < 0 || coordinator === controller; i++) {
      expect(i, 'a group coordinated by a broker other than the controller').toBeLessThan(30);
      group = unique(`group${i}`);
      coordinator = await coordinatorOf(env.cluster.brokers[0].port, group).catch(() => -1);
      if (coordinator < 0) await new Promise((r) => setTimeout(r, 200)); // __consumer_offsets being created
    }
    await fullIsr(env.zk, '__consumer_offsets', 6);
    const victim = env.cluster.brokers.find((b) => b.id === coordinator)!;

    // An idle group with the same coordinator, whose offsets were committed before the kill only: the new
    // coordinator has them from the replicated __consumer_offsets partition, not from a commit after the move.
    let idle = '';
    for (let i = 0; ; i++) {
      expect(i, `a second group coordinated by broker ${coordinator}`).toBeLessThan(60);
      idle = unique(`idle${i}`);
      if ((await coordinatorOf(env.cluster.brokers[0].port, idle)) === coordinator) break;
    }
    const idleRun = startGroupConsumer(env.cluster.bootstrap, topic, idle, { commitEvery: 10, rate: 2000 });
    let idleBefore: GroupResult;
    try {
      await idleRun.until('the idle group read 100 records', (p) => p.consumed >= 100 && p.commits_ok >= 5, 60_000);
    } finally {
      idleBefore = await idleRun.finish();
    }
    const idleCommit = [...idleBefore.commits].reverse().find((c) => c.error === null)!;
    expect(
      Object.values(idleCommit.offsets).some((o) => o > 0),
      JSON.stringify(idleCommit),
    ).toBe(true);

    const first = startGroupConsumer(env.cluster.bootstrap, topic, group, { commitEvery: 20, rate: 40 });
    let a: GroupResult;
    let killedAt = 0;
    try {
      await first.until('5 commits before the kill', (p) => p.commits_ok >= 5, 60_000);
      killedAt = Date.now();
      await victim.kill();
      const recommitted = await first.until(
        `a commit accepted after the kill of coordinator ${coordinator}`,
        (p) => (p.last_commit_ok_at ?? 0) > killedAt,
        90_000,
      );
      measure(
        `group coordinator failover: first commit accepted after kill -9 of coordinator ${coordinator} (session timeout ${SESSION_TIMEOUT_MS} ms)`,
        recommitted.last_commit_ok_at! - killedAt,
      );
      await first.until('more records read after that commit', (p) => p.consumed >= Math.min(recommitted.consumed + 30, PARTITIONS * PER_PARTITION), 60_000);
    } finally {
      a = await first.finish();
    }
    const survivors = env.cluster.brokers.filter((b) => b !== victim);
    const newCoordinator = await coordinatorOf(survivors[0].port, group);
    expect(survivors.map((b) => b.id)).toContain(newCoordinator);

    // Nothing skipped while the coordinator moved.
    const readByA = offsetsByPartition(a.consumed);
    for (const [p, offsets] of readByA) expect(gaps(offsets, 0), `first member, partition ${p}`).toEqual([]);
    const lastCommit = [...a.commits].reverse().find((c) => c.error === null);
    expect(lastCommit, JSON.stringify(a.commits.slice(-5))).toBeDefined();
    expect(lastCommit!.at).toBeGreaterThan(killedAt);
    const committed = new Map(Object.entries(lastCommit!.offsets).map(([p, o]) => [Number(p), o]));

    // A second member, started after the first closed without committing its last records.
    const remaining = Array.from({ length: PARTITIONS }, (_, p) => PER_PARTITION - (committed.get(p) ?? 0)).reduce((x, y) => x + y, 0);
    const second = startGroupConsumer(survivors.map((b) => b.bootstrap).join(','), topic, group, { commitEvery: 50, rate: 2000 });
    let b: GroupResult;
    try {
      await second.until(`the second member reading the ${remaining} records after the committed offsets`, (p) => p.consumed >= remaining, 60_000);
    } finally {
      b = await second.finish();
    }
    const readByB = offsetsByPartition(b.consumed);
    for (let p = 0; p < PARTITIONS; p++) {
      const from = committed.get(p) ?? 0;
      const offsets = readByB.get(p) ?? [];
      if (from < PER_PARTITION) expect(offsets[0], `second member starts partition ${p} at its committed offset`).toBe(from);
      expect(gaps(offsets, from), `second member, partition ${p}`).toEqual([]);
      expect(Math.max(from - 1, ...offsets), `second member reads partition ${p} to its end`).toBe(PER_PARTITION - 1);
      // Read twice: only what the first member read after its last commit.
      const twice = offsets.filter((o) => (readByA.get(p) ?? []).includes(o));
      expect(
        twice.every((o) => o >= from),
        `partition ${p} re-read before the commit: ${twice}`,
      ).toBe(true);
    }
    for (const [p, o, v] of b.consumed) expect(v).toBe(`g-${p}-${o}`);

    // The idle group: a member started now begins at the offsets committed before the kill.
    const idleAgain = startGroupConsumer(survivors.map((x) => x.bootstrap).join(','), topic, idle, { commitEvery: 50, rate: 2000 });
    let resumed: GroupResult;
    try {
      await idleAgain.until('the idle group reading again', (p) => p.consumed >= 30, 60_000);
    } finally {
      resumed = await idleAgain.finish();
    }
    const firstRead = new Map<number, number>();
    for (const [p, o] of resumed.consumed) if (!firstRead.has(p)) firstRead.set(p, o);
    for (const [p, o] of firstRead) expect(o, `idle group, partition ${p}: first offset read after the move`).toBe(idleCommit.offsets[String(p)] ?? 0);
  });
});
