// A returning leader's divergent tail is truncated (KIP-101/279): records only the old leader had — written
// with acks=1 while both followers were frozen (pause(), SIGSTOP) — are not in the log of the follower that
// leads after the old leader's kill -9. When the old leader is started again it asks the new leader where its
// epoch ended (OffsetForLeaderEpoch), cuts its log there and copies the new leader's records: in the end the
// partition's segment files are the same bytes on all three brokers, and the acks=1 records are gone
// everywhere. Files are compared on disk (<dataDir>/<topic>-<p>/*.log); the records are read back with
// confluent-kafka-python.
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { adminOf, agreedController, describeCluster, eventually, measure, unique } from './cluster-util.js';
import {
  FETCH_DRAIN_MS,
  fullIsr,
  pauseFor,
  produceToPartition0,
  readAll,
  useProcessCluster,
  waitState,
  zkState,
  type ProcessCluster,
} from './replication-util.js';

const TEST_TIMEOUT = 120_000;
const SESSION_TIMEOUT_MS = 6000;

let env: ProcessCluster;

/** The partition's segment files (*.log) of one broker, concatenated in name (base offset) order. */
function segmentBytes(dataDir: string, topic: string, p: number): Buffer {
  const dir = path.join(dataDir, `${topic}-${p}`);
  if (!fs.existsSync(dir)) return Buffer.alloc(0);
  return Buffer.concat(
    fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.log'))
      .sort()
      .map((f) => fs.readFileSync(path.join(dir, f))),
  );
}

const values = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

describeCluster('a returning leader truncates its divergent tail (OffsetForLeaderEpoch)', { timeout: TEST_TIMEOUT }, () => {
  env = useProcessCluster('truncation', { 'zookeeper.session.timeout.ms': SESSION_TIMEOUT_MS }, TEST_TIMEOUT);

  it("acks=1 records only the killed leader had are gone from every broker once it follows again; the partition's .log files end up identical", async () => {
    const controller = await agreedController(env.cluster.brokers.map((b) => b.port));
    const leader = env.cluster.brokers.find((b) => b.id !== controller)!;
    const followers = env.cluster.brokers.filter((b) => b !== leader);
    const topic = unique('truncation');
    const admin = await adminOf(env.cluster.bootstrap);
    try {
      await admin.createTopics({
        topics: [{ topic, replicaAssignment: [{ partition: 0, replicas: [leader.id, ...followers.map((b) => b.id)] }] }],
        waitForLeaders: true,
      });
    } finally {
      await admin.disconnect();
    }
    await fullIsr(env.zk, topic, 1);
    expect(await produceToPartition0(env.cluster.bootstrap, topic, values(5, 'common'), -1)).toBe('0');
    const before = await zkState(env.zk, topic, 0);
    expect(before.leader).toBe(leader.id);

    let resumed = false;
    for (const f of followers) f.pause();
    try {
      await pauseFor(FETCH_DRAIN_MS);
      expect(await produceToPartition0(leader.bootstrap, topic, values(3, 'divergent'), 1)).toBe('5');
      await leader.kill();
      for (const f of followers) f.resume();
      resumed = true;
    } finally {
      if (!resumed) for (const f of followers) f.resume();
    }
    const killedAt = performance.now();
    const elected = await waitState(env.zk, topic, 0, 'led by a follower', (s) => followers.some((f) => f.id === s.leader), 30_000);
    measure(`truncation: a follower leads after kill -9 of leader ${leader.id} (session timeout ${SESSION_TIMEOUT_MS} ms)`, performance.now() - killedAt);
    expect(elected.leader_epoch).toBeGreaterThan(before.leader_epoch);
    const survivors = followers.map((b) => b.bootstrap).join(',');
    // The new leader's offsets 5.. are new records: the old leader's 5..7 never reached it.
    expect(await produceToPartition0(survivors, topic, values(4, 'new'), -1)).toBe('5');

    const startedAt = performance.now();
    await leader.start();
    const full = await waitState(env.zk, topic, 0, `${leader.id} back in the ISR`, (s) => s.isr.length === 3, 45_000);
    measure(`truncation: old leader ${leader.id} back in the ISR after start()`, performance.now() - startedAt);
    expect(full.leader).toBe(elected.leader);

    const reference = () => segmentBytes(env.cluster.brokers.find((b) => b.id === elected.leader)!.dataDir, topic, 0);
    await eventually(
      'the same .log bytes on every broker',
      () => {
        const ref = reference();
        return ref.length > 0 && env.cluster.brokers.every((b) => segmentBytes(b.dataDir, topic, 0).equals(ref)) ? true : undefined;
      },
      30_000,
    );
    const onDisk = segmentBytes(leader.dataDir, topic, 0).toString('latin1');
    for (const v of values(3, 'divergent')) expect(onDisk, `${v} still in broker ${leader.id}'s segment`).not.toContain(v);
    for (const v of [...values(5, 'common'), ...values(4, 'new')]) expect(onDisk).toContain(v);

    const log = await readAll(env.cluster.bootstrap, topic, 1);
    expect(log.map(([, o, v]) => `${o}:${v}`)).toEqual([...values(5, 'common'), ...values(4, 'new')].map((v, i) => `${i}:${v}`));
  });
});
