// A krill cluster losing brokers, as clients and ZooKeeper see it: the controller killed with SIGKILL (its
// ZooKeeper session expires after zookeeper.session.timeout.ms, here 3000 ms, and another broker takes
// /controller), a broker restarted gracefully (its registration goes at once and comes back with a new
// czxid, Kafka's broker epoch), and a broker that is not the controller killed.
//
// With replication a dead leader's partitions move to the first live ISR member in assignment order
// (Kafka's offline partition election), with a new leader epoch and the dead broker out of the ISR; it
// rejoins the ISR once back and caught up, and nothing acknowledged before is lost. A partition whose only
// replica was the dead broker (replication factor 1) has nobody to move to: it stays without a leader (the
// controller writes Kafka's NoLeader, keeping the last ISR member) until the broker returns and leads it again.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningCluster } from '../../src/embedded-cluster.js';
import { describeRun, run } from '../util.js';
import { py } from '../python/py.js';
import {
  adminOf,
  agreedController,
  describeCluster,
  eventually,
  formCluster,
  kafka,
  measure,
  metadataFrom,
  partitionsFrom,
  settled,
  unique,
  ZkReader,
} from './cluster-util.js';

const TEST_TIMEOUT = 90_000;
const SESSION_TIMEOUT_MS = 3000;
const LEADER_NOT_AVAILABLE = 5;
const KCAT = 'kcat';

let cluster: RunningCluster;
let zk: ZkReader;

const bootstrapOf = (brokers: { bootstrap: string }[]) => brokers.map((b) => b.bootstrap).join(',');

/** Every record of `topic` from the beginning, read by kcat (no group) through `bootstrap`: "partition key value" lines. */
async function kcatAll(bootstrap: string, topic: string): Promise<string[]> {
  const r = await run(KCAT, ['-C', '-b', bootstrap, '-X', 'broker.address.family=v4', '-t', topic, '-e', '-o', 'beginning', '-q', '-f', '%p %k %s\n'], {
    timeoutMs: 30_000,
  });
  expect(r.code, describeRun(r)).toBe(0);
  return r.stdout
    .split('\n')
    .filter((l) => l !== '')
    .sort();
}

describeCluster('a 3-broker krill cluster losing brokers: kill -9 of the controller, restart of a broker', { timeout: TEST_TIMEOUT }, () => {
  beforeAll(async () => {
    cluster = await formCluster('failover', { brokers: 3, processes: true, config: { 'zookeeper.session.timeout.ms': SESSION_TIMEOUT_MS } });
    zk = await ZkReader.open(cluster.zookeeperConnect);
  }, TEST_TIMEOUT);
  afterAll(async () => {
    await zk?.close();
    await cluster?.close();
  });

  it("kill -9 of the controller: a new controller everywhere, topics still created and used; the dead broker's partitions move to live ISR members and lose nothing", async () => {
    const admin = await adminOf(cluster.bootstrap);
    const older = unique('older');
    const sent: string[] = [];
    try {
      await admin.createTopics({ topics: [{ topic: older, numPartitions: 6, replicationFactor: 3 }], waitForLeaders: true });
      await settled(cluster, older, 6);
      const producer = kafka(cluster.bootstrap).producer();
      await producer.connect();
      const messages = Array.from({ length: 60 }, (_, i) => ({ key: `k${i}`, value: `v${i}` }));
      const acks = await producer.send({ topic: older, acks: -1, messages }).finally(() => producer.disconnect());
      expect(acks.length).toBeGreaterThan(0);
    } finally {
      await admin.disconnect();
    }
    sent.push(...(await kcatAll(cluster.bootstrap, older)));
    expect(sent).toHaveLength(60);

    const controllerId = await agreedController(cluster.brokers.map((b) => b.port));
    const victim = cluster.brokers.find((b) => b.id === controllerId)!;
    const survivors = cluster.brokers.filter((b) => b !== victim);
    const victimPartitions = (await partitionsFrom(survivors[0].port, older)).filter((p) => p.leaderId === victim.id).map((p) => p.partitionIndex);
    expect(victimPartitions).toHaveLength(2);

    const stateOf = (p: number) => zk.get(`/brokers/topics/${older}/partitions/${p}/state`).then((n) => n!.json);
    const assignment = (await zk.get(`/brokers/topics/${older}`))!.json.partitions as Record<string, number[]>;
    const statesBefore = new Map(await Promise.all(victimPartitions.map(async (p) => [p, await stateOf(p)] as const)));
    for (const before of statesBefore.values()) expect(before.isr).toHaveLength(3);
    const epochBefore = (await zk.get('/controller_epoch'))!.json as number;

    const killedAt = performance.now();
    await victim.kill();
    const zkController = await eventually(
      '/controller held by another broker',
      async () => {
        const node = await zk.get('/controller');
        return node && node.json.brokerid !== victim.id ? (node.json.brokerid as number) : undefined;
      },
      30_000,
      25,
    );
    measure(
      `failover: /controller taken by broker ${zkController} after kill -9 of controller ${victim.id} (session timeout ${SESSION_TIMEOUT_MS} ms)`,
      performance.now() - killedAt,
    );
    const newController = await agreedController(
      survivors.map((b) => b.port),
      victim.id,
    );
    measure(`failover: every surviving broker reports the new controller ${newController} after kill -9`, performance.now() - killedAt);
    expect(newController).toBe(zkController);
    expect(survivors.map((b) => b.id)).toContain(newController);
    expect(await zk.get(`/brokers/ids/${victim.id}`)).toBeNull();

    // Every partition is led by a surviving broker, on every surviving broker's view.
    for (const b of survivors) {
      await eventually(`broker ${b.id}: every partition of ${older} led by a survivor`, async () => {
        const parts = await partitionsFrom(b.port, older);
        return parts.length === 6 && parts.every((p) => p.errorCode === 0 && p.leaderId > 0 && p.leaderId !== victim.id) ? true : undefined;
      });
      expect((await metadataFrom(b.port)).brokers.map((x) => x.nodeId).sort()).toEqual(survivors.map((x) => x.id).sort());
    }
    measure(`failover: partitions of killed controller ${victim.id} led by survivors on every surviving broker`, performance.now() - killedAt);

    // ZooKeeper as Kafka's new controller leaves it: a new controller epoch; the dead leader's partitions led
    // by the first live ISR member in assignment order, a new leader epoch, the dead broker out of the ISR.
    const epochAfter = (await zk.get('/controller_epoch'))!.json as number;
    expect(epochAfter).toBe(epochBefore + 1);
    for (const p of victimPartitions) {
      const before = statesBefore.get(p);
      const expectedLeader = assignment[p].find((id) => id !== victim.id && before.isr.includes(id));
      expect(await stateOf(p), `partition ${p} state`).toEqual({
        ...before,
        leader: expectedLeader,
        isr: before.isr.filter((id: number) => id !== victim.id),
        leader_epoch: before.leader_epoch + 1,
        controller_epoch: epochAfter,
      });
    }
    // Nothing acknowledged is lost while the broker is dead.
    const survivorsBootstrap = bootstrapOf(survivors);
    expect(await kcatAll(survivorsBootstrap, older)).toEqual(sent);

    // A new topic with the two brokers left (through confluent-kafka-python's AdminClient).
    const fresh = unique('after-kill');
    const created = await py('ck_client.py', 'create_topics', {
      bootstrap: survivorsBootstrap,
      topics: [{ name: fresh, partitions: 4, replication_factor: 2 }],
    });
    expect(created.results[fresh], JSON.stringify(created)).toEqual({ ok: true });
    const freshParts = await settled(cluster, fresh, 4);
    for (const p of freshParts) expect([...p.replicaNodes].sort()).toEqual(survivors.map((b) => b.id).sort());
    const producer = kafka(survivorsBootstrap).producer();
    await producer.connect();
    await producer
      .send({ topic: fresh, acks: -1, messages: [0, 1, 2, 3].map((p) => ({ partition: p, key: `fk${p}`, value: `fv${p}` })) })
      .finally(() => producer.disconnect());
    expect(await kcatAll(survivorsBootstrap, fresh)).toEqual(['0 fk0 fv0', '1 fk1 fv1', '2 fk2 fv2', '3 fk3 fv3']);

    // Back: registered again, in every ISR again once caught up, every record still there.
    const startedAt = performance.now();
    await victim.start();
    await eventually(`/brokers/ids/${victim.id} back`, async () => ((await zk.get(`/brokers/ids/${victim.id}`)) ? true : undefined));
    for (let p = 0; p < 6; p++) {
      await eventually(`${older}-${p}: broker ${victim.id} back in the ISR`, async () => ((await stateOf(p)).isr.length === 3 ? true : undefined), 30_000);
    }
    measure(`failover: broker ${victim.id} back in the ISR of all its partitions after start()`, performance.now() - startedAt);
    await settled(cluster, older, 6);
    expect(await kcatAll(cluster.bootstrap, older)).toEqual(sent);
  });

  it('a broker stopped and started again: its registration goes at once, comes back with a new czxid, and Metadata lists it again', async () => {
    for (const b of cluster.brokers) await b.start(); // (in case the test above failed half-way)
    const controllerId = await agreedController(cluster.brokers.map((b) => b.port));
    const broker = cluster.brokers.find((b) => b.id !== controllerId)!;
    const others = cluster.brokers.filter((b) => b !== broker);
    const before = await zk.get(`/brokers/ids/${broker.id}`);
    expect(before).not.toBeNull();

    await broker.stop();
    const stoppedAt = performance.now();
    await eventually(`/brokers/ids/${broker.id} gone`, async () => ((await zk.get(`/brokers/ids/${broker.id}`)) === null ? true : undefined), 30_000, 10);
    measure(`restart: /brokers/ids/${broker.id} gone after stop() resolved`, performance.now() - stoppedAt);
    for (const b of others) {
      await eventually(`broker ${b.id} to drop broker ${broker.id} from Metadata`, async () =>
        (await metadataFrom(b.port)).brokers.some((x) => x.nodeId === broker.id) ? undefined : true,
      );
    }

    await broker.start();
    const after = await eventually(`/brokers/ids/${broker.id} back`, () => zk.get(`/brokers/ids/${broker.id}`).then((n) => n ?? undefined));
    expect(after.czxid > before!.czxid, `czxid ${after.czxid} after ${before!.czxid}`).toBe(true);
    expect(after.json.port).toBe(broker.port);
    for (const b of cluster.brokers) {
      await eventually(`broker ${b.id} to list broker ${broker.id} again`, async () =>
        (await metadataFrom(b.port)).brokers.some((x) => x.nodeId === broker.id && x.port === broker.port) ? true : undefined,
      );
    }
    expect(await agreedController(cluster.brokers.map((b) => b.port))).toBe(controllerId);
  });

  it('kill -9 of a broker that is not the controller: its RF 3 partition moves to an ISR member; its RF 1 partition is written leaderless (ISR kept) and led by it again on its return', async () => {
    for (const b of cluster.brokers) await b.start();
    const controllerId = await agreedController(cluster.brokers.map((b) => b.port));
    const victim = cluster.brokers.find((b) => b.id !== controllerId)!;
    const survivors = cluster.brokers.filter((b) => b !== victim);
    const topic = unique('follower-kill');
    const single = unique('single-replica');
    const admin = await adminOf(cluster.bootstrap);
    try {
      await admin.createTopics({
        topics: [
          { topic, numPartitions: 3, replicationFactor: 3 },
          { topic: single, numPartitions: 3, replicationFactor: 1 },
        ],
        waitForLeaders: true,
      });
    } finally {
      await admin.disconnect();
    }
    const ledIn = async (t: string) => {
      const led = (await settled(cluster, t, 3)).filter((p) => p.leaderId === victim.id).map((p) => p.partitionIndex);
      expect(led, `${t}: partitions led by ${victim.id}`).toHaveLength(1);
      return led[0];
    };
    const p = await ledIn(topic);
    const s = await ledIn(single);
    const producer = kafka(cluster.bootstrap).producer();
    await producer.connect();
    await producer.send({ topic, acks: -1, messages: [{ partition: p, key: 'before', value: 'kill' }] });
    await producer.send({ topic: single, acks: -1, messages: [{ partition: s, key: 'before', value: 'kill' }] }).finally(() => producer.disconnect());
    const statePath = `/brokers/topics/${topic}/partitions/${p}/state`;
    const singlePath = `/brokers/topics/${single}/partitions/${s}/state`;
    const before = await eventually(`${statePath} with a full ISR`, async () => {
      const x = (await zk.get(statePath))!.json;
      return x.isr.length === 3 ? x : undefined;
    });
    expect(before.leader).toBe(victim.id);
    const singleBefore = (await zk.get(singlePath))!.json;
    expect(singleBefore).toMatchObject({ leader: victim.id, isr: [victim.id] });
    const assignment = (await zk.get(`/brokers/topics/${topic}`))!.json.partitions[p] as number[];

    const killedAt = performance.now();
    await victim.kill();
    const moved = await eventually(
      `${statePath} led by another broker`,
      async () => {
        const x = (await zk.get(statePath))!.json;
        return x.leader !== victim.id ? x : undefined;
      },
      30_000,
      25,
    );
    measure(
      `failover: partition led by killed broker ${victim.id} moved by controller ${controllerId} after kill -9 (session timeout ${SESSION_TIMEOUT_MS} ms)`,
      performance.now() - killedAt,
    );
    // Kafka's offline partition election: the first live ISR member in assignment order; the dead one leaves the ISR.
    const expectedLeader = assignment.find((id) => id !== victim.id && before.isr.includes(id));
    expect(moved).toEqual({
      ...before,
      leader: expectedLeader,
      isr: before.isr.filter((id: number) => id !== victim.id),
      leader_epoch: before.leader_epoch + 1,
    });
    // Kafka's NoLeader for the partition nobody else holds: the last ISR member stays, so the partition
    // remembers who holds its records.
    // (Written in the same controller event as the move, maybe just after it.)
    const offline = await eventually(`${singlePath} without a leader`, async () => {
      const x = (await zk.get(singlePath))!.json;
      return x.leader === -1 ? x : undefined;
    });
    expect(offline).toEqual({ ...singleBefore, leader: -1, isr: [victim.id], leader_epoch: singleBefore.leader_epoch + 1 });
    for (const b of survivors) {
      await eventually(`broker ${b.id}: ${topic}-${p} led by ${expectedLeader}, ${single}-${s} LEADER_NOT_AVAILABLE`, async () => {
        const x = (await partitionsFrom(b.port, topic)).find((y) => y.partitionIndex === p);
        const y = (await partitionsFrom(b.port, single)).find((z) => z.partitionIndex === s);
        return x !== undefined && x.leaderId === expectedLeader && x.errorCode === 0 && y?.errorCode === LEADER_NOT_AVAILABLE && y.leaderId === -1
          ? true
          : undefined;
      });
    }
    expect(await kcatAll(bootstrapOf(survivors), topic)).toEqual([`${p} before kill`]);

    await victim.start();
    await settled(cluster, single, 3);
    expect((await zk.get(singlePath))!.json).toEqual({ ...singleBefore, leader: victim.id, isr: [victim.id], leader_epoch: singleBefore.leader_epoch + 2 });
    // Back in the replicated partition's ISR, following its new leader (an ISR change is no new leader epoch).
    const rejoined = await eventually(
      `${statePath}: broker ${victim.id} back in the ISR`,
      async () => {
        const x = (await zk.get(statePath))!.json;
        return x.isr.length === 3 ? x : undefined;
      },
      30_000,
    );
    expect(rejoined).toMatchObject({ leader: expectedLeader, leader_epoch: moved.leader_epoch });
    expect([...rejoined.isr].sort()).toEqual([...before.isr].sort());
    expect(await kcatAll(cluster.bootstrap, topic)).toEqual([`${p} before kill`]);
    expect(await kcatAll(cluster.bootstrap, single)).toEqual([`${s} before kill`]);
  });
});
