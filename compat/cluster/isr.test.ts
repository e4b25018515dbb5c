// The ISR as clients and ZooKeeper see it when followers stall, and unclean leader election.
//
// Followers frozen with SIGSTOP (pause()) stop fetching; after replica.lag.time.max.ms (here 2000 ms) their
// leader drops them from the ISR through the controller (AlterPartition), which writes the partition's
// state znode and tells every broker (Metadata's ISR). Before that an acks=all produce is written and waits
// for the frozen followers: REQUEST_TIMED_OUT after its request timeout, or NOT_ENOUGH_REPLICAS_AFTER_APPEND
// when the ISR shrinks below min.insync.replicas (2) while it waits. With the leader alone in the ISR, a new
// acks=all produce is refused with NOT_ENOUGH_REPLICAS before the append while acks=1 still works; once the
// followers run again (resume()) and catch up they rejoin and acks=all works again. Pauses stay shorter than
// zookeeper.session.timeout.ms (10000 ms, the most ZooKeeper's 500 ms tick allows), so the paused brokers
// keep their registrations and the ISR changes come from lag alone.
//
// Unclean election: a partition whose only ISR member was killed stays offline (no leader, Kafka's
// LEADER_NOT_AVAILABLE) although an out-of-sync replica is alive, unless unclean.leader.election.enable is
// true for its topic — set at creation, or later through alterConfigs (Kafka's controller then elects at
// once): the out-of-sync replica leads and the records only the dead leader had are gone, also from the dead
// leader itself once it is back and follows.
import { expect, it } from 'vitest';
import { encodeRecord, py } from '../python/py.js';
import { adminOf, agreedController, describeCluster, eventually, kafka, measure, partitionsFrom, unique } from './cluster-util.js';
import { FETCH_DRAIN_MS, pauseFor, produceToPartition0, readAll, useProcessCluster, waitState, zkState, type ProcessCluster } from './replication-util.js';

const TEST_TIMEOUT = 120_000;
const SESSION_TIMEOUT_MS = 10_000;
const LAG_MS = 2000;
const LEADER_NOT_AVAILABLE = 5;

let env: ProcessCluster;

const brokerOf = (id: number) => env.cluster.brokers.find((b) => b.id === id)!;

/** Creates `topic` with one partition on `replicas` (the first leads) and the given topic configs. */
async function createAssigned(topic: string, replicas: number[], configs: Record<string, string> = {}): Promise<void> {
  const admin = await adminOf(env.cluster.bootstrap);
  try {
    await admin.createTopics({
      topics: [{ topic, replicaAssignment: [{ partition: 0, replicas }], configEntries: Object.entries(configs).map(([name, value]) => ({ name, value })) }],
      waitForLeaders: true,
    });
  } finally {
    await admin.disconnect();
  }
  await waitState(env.zk, topic, 0, `led by ${replicas[0]} with ISR ${replicas}`, (s) => s.leader === replicas[0] && s.isr.length === replicas.length);
}

interface ProduceResult {
  reports: ({ partition: number; offset: number } | { error: string })[];
  client_errors: unknown[];
}

/** confluent-kafka-python without retries, so a refusal reaches the delivery report under its own name. */
function pyProduce(bootstrap: string, topic: string, values: string[], acks: 'all' | '1'): Promise<ProduceResult> {
  return py<ProduceResult>('ck_client.py', 'produce', {
    bootstrap,
    topic,
    records: values.map((v) => encodeRecord({ key: null, value: v, partition: 0 })),
    conf: { acks, retries: 0, 'message.timeout.ms': 5000, 'linger.ms': 0 },
  });
}

/** A kafkajs acks=all produce of one record to partition 0 with the request timeout `timeoutMs`, no retries: the error type, or null. */
async function acksAllError(bootstrap: string, topic: string, value: string, timeoutMs: number): Promise<string | null> {
  const producer = kafka(bootstrap).producer({ retry: { retries: 0 } });
  await producer.connect();
  try {
    await producer.send({ topic, acks: -1, timeout: timeoutMs, messages: [{ partition: 0, value }] });
    return null;
  } catch (err) {
    // kafkajs wraps the broker's error (retries exhausted) in `cause`.
    const e = err as { type?: string; cause?: { type?: string } };
    return e.cause?.type ?? e.type ?? String(err);
  } finally {
    await producer.disconnect();
  }
}

const valuesOf = async (bootstrap: string, topic: string) => (await readAll(bootstrap, topic, 1)).map(([, , v]) => v);

describeCluster('the ISR under stalled followers, and unclean leader election (confluent-kafka-python, kafkajs)', { timeout: TEST_TIMEOUT }, () => {
  env = useProcessCluster('isr', { 'zookeeper.session.timeout.ms': SESSION_TIMEOUT_MS, 'replica.lag.time.max.ms': LAG_MS }, TEST_TIMEOUT);

  it('both followers paused: acks=all times out, then the ISR shrinks to the leader (ZooKeeper, Metadata), a waiting acks=all gets NOT_ENOUGH_REPLICAS_AFTER_APPEND, a new one NOT_ENOUGH_REPLICAS, acks=1 works; resumed: the ISR is full again and acks=all works', async () => {
    // The leader is the controller: a paused controller would change no ISR at all.
    const controller = await agreedController(env.cluster.brokers.map((b) => b.port));
    const followers = env.cluster.brokers.filter((b) => b.id !== controller);
    const leader = brokerOf(controller);
    const topic = unique('isr-shrink');
    const replicas = [controller, ...followers.map((b) => b.id)];
    await createAssigned(topic, replicas, { 'min.insync.replicas': '2' });
    await produceToPartition0(env.cluster.bootstrap, topic, ['before-0', 'before-1'], -1);
    const before = await zkState(env.zk, topic, 0);

    let resumed = false;
    const pausedAt = performance.now();
    for (const f of followers) f.pause();
    try {
      // acks=all while the frozen followers are still in the ISR (records they lack: a follower level with the
      // leader would stay in it, Kafka's isCaughtUp): written, then answered REQUEST_TIMED_OUT after the
      // request's 500 ms, or NOT_ENOUGH_REPLICAS_AFTER_APPEND once the ISR has shrunk below 2 under a long wait.
      const [timedOut, afterAppend] = await Promise.all([
        acksAllError(leader.bootstrap, topic, 'timed-out', 500),
        acksAllError(leader.bootstrap, topic, 'after-append', 15_000),
      ]);
      expect(timedOut).toBe('REQUEST_TIMED_OUT');
      expect(afterAppend).toBe('NOT_ENOUGH_REPLICAS_AFTER_APPEND');
      const shrunk = await waitState(env.zk, topic, 0, `ISR shrunk to the leader ${controller}`, (s) => s.isr.length === 1, 8000);
      measure(`isr: ISR shrunk to the leader after both followers were paused (replica.lag.time.max.ms ${LAG_MS})`, performance.now() - pausedAt);
      expect(shrunk).toMatchObject({ leader: controller, isr: [controller], leader_epoch: before.leader_epoch });
      // The leader's own view, and confluent-kafka-python's (asking the leader only: the paused brokers
      // accept connections but answer nothing).
      const [view, listed, refused, accepted] = await Promise.all([
        partitionsFrom(leader.port, topic),
        py('ck_client.py', 'list_topics', { bootstrap: leader.bootstrap, topic }),
        pyProduce(leader.bootstrap, topic, ['refused'], 'all'),
        pyProduce(leader.bootstrap, topic, ['acks1-2'], '1'),
      ]);
      for (const f of followers) f.resume();
      resumed = true;
      measure('isr: followers paused for', performance.now() - pausedAt);
      expect(view[0]).toMatchObject({ leaderId: controller, isrNodes: [controller] });
      expect(listed.topics[topic].partitions[0]).toMatchObject({ leader: controller, isrs: [controller] });
      expect(refused.reports, JSON.stringify(refused)).toEqual([{ error: 'NOT_ENOUGH_REPLICAS', code: 19 }]);
      expect(
        accepted.reports.map((r) => ('error' in r ? r.error : r.offset)),
        JSON.stringify(accepted),
      ).toEqual([4]);
    } finally {
      if (!resumed) for (const f of followers) f.resume();
    }

    const resumedAt = performance.now();
    const full = await waitState(env.zk, topic, 0, 'ISR full again', (s) => s.isr.length === 3, 30_000);
    measure('isr: ISR full again after resume()', performance.now() - resumedAt);
    expect(full.leader).toBe(controller);
    expect([...full.isr].sort()).toEqual([...replicas].sort());
    for (const b of env.cluster.brokers) {
      const { isrNodes } = (await partitionsFrom(b.port, topic))[0];
      expect([...isrNodes].sort(), `broker ${b.id}'s Metadata`).toEqual([...replicas].sort());
    }
    const again = await pyProduce(env.cluster.bootstrap, topic, ['after-0'], 'all');
    expect(again.reports, JSON.stringify(again)).toEqual([expect.objectContaining({ offset: 5 })]);
    // The refused records were written all the same (offsets 2 and 3, in either order).
    const values = await valuesOf(env.cluster.bootstrap, topic);
    expect([...values.slice(2, 4)].sort()).toEqual(['after-append', 'timed-out']);
    expect([...values.slice(0, 2), ...values.slice(4)]).toEqual(['before-0', 'before-1', 'acks1-2', 'after-0']);
  });

  it('the only ISR member killed: offline with unclean election off (the default) although an out-of-sync replica lives; with it on (at creation, or set later) that replica leads and the records it lacked are gone', async () => {
    // Leader and follower are not the controller, which must see the kill and run the elections.
    const controller = await agreedController(env.cluster.brokers.map((b) => b.port));
    const [leader, follower] = env.cluster.brokers.filter((b) => b.id !== controller);
    const off = unique('unclean-off');
    const on = unique('unclean-on');
    await createAssigned(off, [leader.id, follower.id]);
    await createAssigned(on, [leader.id, follower.id], { 'unclean.leader.election.enable': 'true' });
    for (const t of [off, on]) await produceToPartition0(env.cluster.bootstrap, t, ['kept-0', 'kept-1'], -1);

    const beforeOff = await zkState(env.zk, off, 0);
    follower.pause();
    let resumed = false;
    try {
      // A fetch the follower sent just before is answered (empty) before the records below exist: its answer
      // waits in the frozen follower's socket and would hand them over at resume().
      await pauseFor(FETCH_DRAIN_MS);
      // Records only the leader has (acks=1, the follower frozen); lagging behind them, the follower leaves the ISR.
      for (const t of [off, on]) expect(await produceToPartition0(leader.bootstrap, t, ['lost-0', 'lost-1'], 1)).toBe('2');
      for (const t of [off, on]) await waitState(env.zk, t, 0, `ISR shrunk to ${leader.id}`, (s) => s.isr.length === 1 && s.isr[0] === leader.id, 8000);
      await leader.kill();
      follower.resume();
      resumed = true;
    } finally {
      if (!resumed) follower.resume();
    }
    const killedAt = performance.now();

    // unclean.leader.election.enable=true: the out-of-sync follower leads, alone in the ISR.
    const elected = await waitState(env.zk, on, 0, `unclean election of ${follower.id}`, (s) => s.leader === follower.id, 30_000);
    measure(
      `unclean election: out-of-sync replica leads after kill -9 of the only ISR member (session timeout ${SESSION_TIMEOUT_MS} ms)`,
      performance.now() - killedAt,
    );
    expect(elected.isr).toEqual([follower.id]);
    // Off (the default): the same broker change leaves the partition without a leader, its ISR kept (written
    // once, in the same controller event: an unclean election would have written the follower instead).
    const stillOff = await waitState(env.zk, off, 0, 'without a leader', (s) => s.leader === -1);
    expect(stillOff).toMatchObject({ leader: -1, isr: [leader.id] });
    expect(stillOff.leader_epoch).toBeGreaterThan(beforeOff.leader_epoch);
    for (const b of [follower, brokerOf(controller)]) {
      // The controller's UpdateMetadata reaches each broker after ZooKeeper has the state: wait for it there.
      const offPart = await eventually(`broker ${b.id}'s Metadata of ${off} without a leader`, async () => {
        const [p] = await partitionsFrom(b.port, off);
        return p?.leaderId === -1 ? p : undefined;
      });
      expect(offPart, `broker ${b.id}'s Metadata of ${off}`).toMatchObject({ leaderId: -1, errorCode: LEADER_NOT_AVAILABLE });
      const [onPart] = await partitionsFrom(b.port, on);
      expect(onPart, `broker ${b.id}'s Metadata of ${on}`).toMatchObject({ leaderId: follower.id, errorCode: 0, isrNodes: [follower.id] });
    }
    const survivors = env.cluster.brokers
      .filter((b) => b !== leader)
      .map((b) => b.bootstrap)
      .join(',');
    expect(await valuesOf(survivors, on)).toEqual(['kept-0', 'kept-1']);
    expect(await produceToPartition0(survivors, on, ['after-0'], -1)).toBe('2');

    // Turned on for the offline topic: Kafka's controller elects at once, without waiting for a broker change.
    // Through confluent-kafka-python's AdminClient: kafkajs's admin refreshes the metadata of every topic first
    // and gives up on a partition without a leader (this one), as it would against Apache Kafka.
    const altered = await py('configs_client.py', 'ck_alter', {
      bootstrap: survivors,
      resources: [{ type: 'topic', name: off, configs: { 'unclean.leader.election.enable': 'true' } }],
    });
    expect(altered.results, JSON.stringify(altered)).toEqual([{ ok: true }]);
    await waitState(env.zk, off, 0, `unclean election of ${follower.id} after alterConfigs`, (s) => s.leader === follower.id, 30_000);
    expect(await valuesOf(survivors, off)).toEqual(['kept-0', 'kept-1']);
    expect(await produceToPartition0(survivors, off, ['after-0'], -1)).toBe('2');

    // The old leader back: it follows, drops its tail and rejoins the ISR; nobody serves the lost records.
    await leader.start();
    for (const t of [off, on]) {
      const s = await waitState(env.zk, t, 0, `${leader.id} back in the ISR`, (x) => x.isr.length === 2, 30_000);
      expect(s.leader).toBe(follower.id);
      expect(await valuesOf(env.cluster.bootstrap, t)).toEqual(['kept-0', 'kept-1', 'after-0']);
    }
  });
});
