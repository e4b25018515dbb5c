// Compatibility at scale: kafkajs 2.2.4 consumer groups against krill's classic coordinator.
//   (a) 20 consumers (one kafkajs client, hence own connections, each) on a 100-partition topic get 5
//       partitions each; a 21st joins and the group rebalances with every partition owned exactly once;
//       records produced afterwards are consumed exactly once.
//   (b) failover: a consumer in a child process is killed with SIGKILL (no LeaveGroup); after its
//       session timeout (6 s) its partitions move to the survivor, which consumes everything produced
//       after the kill.
// Not here: static membership (kafkajs has no group.instance.id) and graceful leave (groups.test.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type RunningBroker } from '../../src/index.js';

const require = createRequire(import.meta.url);
/* eslint-disable @typescript-eslint/no-explicit-any */
const { Kafka, logLevel, Partitioners, AssignerProtocol } = require('kafkajs');

process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';

function client(bootstrap: string, clientId: string): any {
  return new Kafka({
    clientId,
    brokers: [bootstrap],
    logLevel: logLevel.NOTHING,
    connectionTimeout: 3000,
    requestTimeout: 15_000,
    retry: { retries: 8, initialRetryTime: 100, maxRetryTime: 1000 },
  });
}

let seq = 0;
const unique = (label: string) => `kjs-scale-${label}-${process.pid}-${++seq}`;

async function waitFor(cond: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function produce(kafka: any, topic: string, count: number, partitions: number, prefix: string): Promise<void> {
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  const messages = Array.from({ length: count }, (_, i) => ({ value: `${prefix}-${i}`, partition: i % partitions }));
  await producer.send({ topic, messages });
  await producer.disconnect();
}

interface Seen {
  consumer: number;
  partition: number;
  value: string;
}

/** The coordinator's view: state and each member's assigned partitions of `topic`. */
async function describe1(
  admin: any,
  groupId: string,
  topic: string,
): Promise<{ state: string; members: { memberId: string; clientId: string; partitions: number[] }[] }> {
  const d = (await admin.describeGroups([groupId])).groups[0];
  return {
    state: d.state,
    members: d.members.map((m: any) => {
      const decoded = m.memberAssignment?.length ? AssignerProtocol.MemberAssignment.decode(m.memberAssignment) : null;
      return { memberId: m.memberId, clientId: m.clientId, partitions: [...(decoded?.assignment?.[topic] ?? [])].sort((a: number, b: number) => a - b) };
    }),
  };
}

/** Stable, `size` members, every partition 0..partitions-1 assigned exactly once. */
function balanced(view: Awaited<ReturnType<typeof describe1>>, size: number, partitions: number): boolean {
  if (view.state !== 'Stable' || view.members.length !== size) return false;
  const all = view.members.flatMap((m) => m.partitions).sort((a, b) => a - b);
  return all.length === partitions && all.every((p, i) => p === i);
}

const CHILD = `
const { Kafka, logLevel } = require(process.argv[2]);
const [bootstrap, groupId, topic] = process.argv.slice(3);
const out = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
const kafka = new Kafka({ clientId: 'krill-child', brokers: [bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 8, initialRetryTime: 100, maxRetryTime: 1000 } });
const consumer = kafka.consumer({ groupId, sessionTimeout: 6000, heartbeatInterval: 500, rebalanceTimeout: 10000, maxWaitTimeInMs: 200 });
consumer.on(consumer.events.GROUP_JOIN, (e) => out({ type: 'join', memberId: e.payload.memberId, assignment: e.payload.memberAssignment }));
(async () => {
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({ autoCommitInterval: 100, eachMessage: async ({ partition, message }) => out({ type: 'message', partition, value: message.value.toString() }) });
  out({ type: 'running' });
})().catch((e) => { out({ type: 'error', message: String(e && e.stack || e) }); process.exit(1); });
`;

describe('kafkajs consumer groups at scale against krill', { timeout: 120_000 }, () => {
  let broker: RunningBroker;
  let kafka: any;
  let admin: any;
  const consumers: any[] = [];
  let child: ChildProcess | null = null;
  const scriptDir = fs.mkdtempSync(path.join(os.tmpdir(), 'krill-kjs-child-'));

  beforeAll(async () => {
    broker = await startBroker({ port: 0, host: '127.0.0.1' });
    kafka = client(broker.bootstrap, 'krill-scale-admin');
    admin = kafka.admin();
    await admin.connect();
  }, 30_000);

  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await Promise.all(consumers.splice(0).map((c) => c.disconnect().catch(() => {})));
    await admin?.disconnect().catch(() => {});
    await broker?.close();
    fs.rmSync(scriptDir, { recursive: true, force: true });
  }, 60_000);

  async function startConsumer(groupId: string, topic: string, index: number, seen: Seen[]): Promise<any> {
    // One kafkajs client per consumer: each has its own connections, as separate applications would.
    const consumer = client(broker.bootstrap, `krill-scale-${index}`).consumer({
      groupId,
      sessionTimeout: 10_000,
      heartbeatInterval: 500,
      rebalanceTimeout: 15_000,
      maxWaitTimeInMs: 200,
      retry: { retries: 8 },
    });
    consumers.push(consumer);
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({
      autoCommitInterval: 100,
      eachMessage: async ({ partition, message }: any) => {
        seen.push({ consumer: index, partition, value: message.value.toString() });
      },
    });
    return consumer;
  }

  it('20 consumers share 100 partitions 5 each; a 21st rebalances the group; every record is consumed once', async () => {
    const topic = unique('wide');
    const groupId = unique('g-wide');
    await admin.createTopics({ topics: [{ topic, numPartitions: 100 }] });
    const seen: Seen[] = [];
    const t0 = Date.now();
    await Promise.all(Array.from({ length: 20 }, (_, i) => startConsumer(groupId, topic, i, seen)));
    let view = await describe1(admin, groupId, topic);
    await waitFor(async () => balanced((view = await describe1(admin, groupId, topic)), 20, 100), 60_000, '20 balanced members');
    const t20 = Date.now() - t0;
    expect(view.members.map((m) => m.partitions.length)).toEqual(Array(20).fill(5));
    expect(new Set(view.members.map((m) => m.clientId)).size).toBe(20);

    const t1 = Date.now();
    await startConsumer(groupId, topic, 20, seen);
    await waitFor(async () => balanced((view = await describe1(admin, groupId, topic)), 21, 100), 60_000, '21 balanced members');
    const t21 = Date.now() - t1;
    const sizes = view.members.map((m) => m.partitions.length).sort((a, b) => a - b);
    expect(sizes).toEqual([...Array(5).fill(4), ...Array(16).fill(5)]); // 100 = 5×4 + 16×5
    expect(view.members.some((m) => m.clientId === 'krill-scale-20' && m.partitions.length > 0)).toBe(true);

    const t2 = Date.now();
    await produce(kafka, topic, 1000, 100, 'wide');
    await waitFor(() => seen.length >= 1000, 60_000, '1000 records');
    const tConsume = Date.now() - t2;
    await new Promise((r) => setTimeout(r, 1000)); // room for duplicates to show up
    const values = seen.map((s) => s.value);
    expect(values).toHaveLength(1000);
    expect(new Set(values).size).toBe(1000);
    // Each partition was read by exactly the consumer the coordinator assigned it to.
    const ownerOf = new Map<number, string>();
    for (const m of view.members) for (const p of m.partitions) ownerOf.set(p, m.clientId);
    for (const s of seen) expect(`krill-scale-${s.consumer}`).toBe(ownerOf.get(s.partition));
    expect((await describe1(admin, groupId, topic)).state).toBe('Stable');
    console.log(`[groups-scale] 20 members balanced in ${t20} ms; 21st rebalanced in ${t21} ms; 1000 records consumed in ${tConsume} ms`);
    await Promise.all(consumers.splice(0).map((c) => c.disconnect()));
  });

  it('failover: a SIGKILLed consumer (no LeaveGroup) loses its partitions to the survivor after session.timeout.ms', async () => {
    const topic = unique('failover');
    const groupId = unique('g-failover');
    await admin.createTopics({ topics: [{ topic, numPartitions: 4 }] });
    const survivorSeen: Seen[] = [];
    const survivor = client(broker.bootstrap, 'krill-survivor').consumer({
      groupId,
      sessionTimeout: 6000,
      heartbeatInterval: 500,
      rebalanceTimeout: 10_000,
      maxWaitTimeInMs: 200,
    });
    consumers.push(survivor);
    let survivorAssignment: number[] = [];
    let survivorJoinedAt = 0;
    survivor.on(survivor.events.GROUP_JOIN, (e: any) => {
      survivorAssignment = [...(e.payload.memberAssignment[topic] ?? [])].sort((a: number, b: number) => a - b);
      survivorJoinedAt = Date.now();
    });
    await survivor.connect();
    await survivor.subscribe({ topics: [topic], fromBeginning: true });
    await survivor.run({
      autoCommitInterval: 100,
      eachMessage: async ({ partition, message }: any) => {
        survivorSeen.push({ consumer: 0, partition, value: message.value.toString() });
      },
    });
    await waitFor(() => survivorAssignment.length === 4, 30_000, 'survivor alone');

    // The victim: a kafkajs consumer in its own process.
    const script = path.join(scriptDir, 'consumer.cjs');
    fs.writeFileSync(script, CHILD);
    const childSeen: Seen[] = [];
    let childAssignment: number[] = [];
    const childErrors: string[] = [];
    child = spawn(process.execPath, [script, require.resolve('kafkajs'), broker.bootstrap, groupId, topic], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stderr!.on('data', (d) => childErrors.push(String(d)));
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      const msg = JSON.parse(line);
      if (msg.type === 'join') childAssignment = [...(msg.assignment[topic] ?? [])];
      else if (msg.type === 'message') childSeen.push({ consumer: 1, partition: msg.partition, value: msg.value });
      else if (msg.type === 'error') childErrors.push(msg.message);
    });
    let view = await describe1(admin, groupId, topic);
    await waitFor(
      async () =>
        balanced((view = await describe1(admin, groupId, topic)), 2, 4) &&
        view.members.every((m) => m.partitions.length === 2) &&
        survivorAssignment.length === 2 &&
        childAssignment.length === 2,
      30_000,
      `two members with 2 partitions each (child: ${childErrors.join(' ')})`,
    );

    await produce(kafka, topic, 20, 4, 'before');
    await waitFor(() => survivorSeen.length + childSeen.length >= 20, 30_000, '20 records before the kill');
    expect(childSeen.length).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 500)); // let both auto-commit

    const killedAt = Date.now();
    child.kill('SIGKILL');
    await new Promise((r) => child!.once('exit', r));
    // No LeaveGroup was sent: the coordinator still counts the dead member until its session expires.
    const during = await describe1(admin, groupId, topic);
    expect(during.members).toHaveLength(2);
    await produce(kafka, topic, 40, 4, 'after');

    await waitFor(() => survivorAssignment.length === 4, 20_000, 'the survivor to take over all 4 partitions');
    const movedAfter = survivorJoinedAt - killedAt;
    // After session.timeout.ms (6000, counted from the last heartbeat, ~0.5-0.7 s before the kill; slack for a slow
    // machine), not at once as a LeaveGroup would.
    expect(movedAfter).toBeGreaterThanOrEqual(4000);
    expect(movedAfter).toBeLessThan(15_000);
    await waitFor(
      () => survivorSeen.filter((s) => s.value.startsWith('after')).length >= 40,
      30_000,
      'the survivor to consume the 40 records produced after the kill',
    );
    await new Promise((r) => setTimeout(r, 500));
    const after = survivorSeen.filter((s) => s.value.startsWith('after')).map((s) => s.value);
    expect(after).toHaveLength(40);
    expect(new Set(after).size).toBe(40);
    expect(new Set(survivorSeen.filter((s) => s.value.startsWith('after')).map((s) => s.partition))).toEqual(new Set([0, 1, 2, 3]));
    // Every record produced before the kill was consumed (by either; the survivor may re-read the dead one's uncommitted tail).
    expect(new Set([...survivorSeen, ...childSeen].filter((s) => s.value.startsWith('before')).map((s) => s.value)).size).toBe(20);
    const final = await describe1(admin, groupId, topic);
    expect(final.state).toBe('Stable');
    expect(final.members).toHaveLength(1);
    expect(final.members[0].partitions).toEqual([0, 1, 2, 3]);
    console.log(`[groups-scale] partitions moved ${movedAfter} ms after SIGKILL (session.timeout.ms 6000)`);
    await Promise.all(consumers.splice(0).map((c) => c.disconnect()));
  });
});
