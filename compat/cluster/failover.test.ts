// A krill cluster losing brokers, as clients and ZooKeeper see it: the controller killed with SIGKILL (its
// ZooKeeper session expires after zookeeper.session.timeout.ms, here 3000 ms, and another broker takes
// /controller), a broker restarted gracefully (its registration goes at once and comes back with a new
// czxid, Kafka's broker epoch), and a broker that is not the controller killed (the controller writes its
// partitions leaderless, Kafka's NoLeader, and elects it again on its return, with a new leader epoch).
//
// Until replication exists a partition's ISR is its leader alone, so the partitions a dead broker led are
// offline (no leader) until it is back: it then leads them again, and nothing written before is lost.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningCluster } from '../../src/embedded-cluster.js';
import { describeRun, run } from '../util.js';
import { py } from '../python/py.js';
import { adminOf, agreedController, describeCluster, eventually, formCluster, kafka, measure, metadataFrom, partitionsFrom, settled, unique, ZkReader } from './cluster-util.js';

const TEST_TIMEOUT = 90_000;
const SESSION_TIMEOUT_MS = 3000;
const LEADER_NOT_AVAILABLE = 5;
const KCAT = 'kcat';

let cluster: RunningCluster;
let zk: ZkReader;

const bootstrapOf = (brokers: { bootstrap: string }[]) => brokers.map((b) => b.bootstrap).join(',');

/** Every record of `topic` from the beginning, read by kcat (no group) through `bootstrap`: "partition key value" lines. */
async function kcatAll(bootstrap: string, topic: string): Promise<string[]> {
  const r = await run(KCAT, ['-C', '-b', bootstrap, '-X', 'broker.address.family=v4', '-t', topic, '-e', '-o', 'beginning', '-q', '-f', '%p %k %s\n'], { timeoutMs: 30_000 });
  expect(r.code, describeRun(r)).toBe(0);
  return r.stdout.split('\n').filter((l) => l !== '').sort();
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

  it('kill -9 of the controller: a new controller everywhere, topics still created and used; the dead broker\'s partitions wait for it and lose nothing', async () => {
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
    const statesBefore = new Map(await Promise.all(victimPartitions.map(async (p) => [p, await stateOf(p)] as const)));
    const epochBefore = (await zk.get('/controller_epoch'))!.json as number;

    const killedAt = performance.now();
    await victim.kill();
    const zkController = await eventually('/controller held by another broker', async () => {
      const node = await zk.get('/controller');
      return node && node.json.brokerid !== victim.id ? (node.json.brokerid as number) : undefined;
    }, 30_000, 25);
    measure(`failover: /controller taken by broker ${zkController} after kill -9 of controller ${victim.id} (session timeout ${SESSION_TIMEOUT_MS} ms)`, performance.now() - killedAt);
    const newController = await agreedController(survivors.map((b) => b.port), victim.id);
    measure(`failover: every surviving broker reports the new controller ${newController} after kill -9`, performance.now() - killedAt);
    expect(newController).toBe(zkController);
    expect(survivors.map((b) => b.id)).toContain(newController);
    expect(await zk.get(`/brokers/ids/${victim.id}`)).toBeNull();

    // The dead broker's partitions have no leader on any surviving broker; the others keep theirs.
    for (const b of survivors) {
      await eventually(`broker ${b.id}: partitions ${victimPartitions} of ${older} without a leader`, async () => {
        const parts = await partitionsFrom(b.port, older);
        const offline = parts.filter((p) => victimPartitions.includes(p.partitionIndex));
        return offline.length === victimPartitions.length && offline.every((p) => p.leaderId === -1 && p.errorCode === LEADER_NOT_AVAILABLE) ? true : undefined;
      });
      const online = (await partitionsFrom(b.port, older)).filter((p) => !victimPartitions.includes(p.partitionIndex));
      expect(online.every((p) => p.errorCode === 0 && p.leaderId !== victim.id && p.leaderId > 0), JSON.stringify(online)).toBe(true);
      expect((await metadataFrom(b.port)).brokers.map((x) => x.nodeId).sort()).toEqual(survivors.map((x) => x.id).sort());
    }

    // ZooKeeper as Kafka's controller leaves it: a new controller epoch; a partition whose leader died with
    // the old controller keeps its state znode as it was (Kafka's new controller finds no live ISR member
    // to elect and writes nothing: the leader is offline because it is not alive, not because ZooKeeper
    // says -1; the brokers' Metadata says LEADER_NOT_AVAILABLE either way).
    const epochAfter = (await zk.get('/controller_epoch'))!.json as number;
    expect(epochAfter).toBe(epochBefore + 1);
    for (const p of victimPartitions) expect(await stateOf(p), `partition ${p} state`).toEqual(statesBefore.get(p));

    // A new topic with the two brokers left. Through confluent-kafka-python's AdminClient: kafkajs's admin
    // refreshes the metadata of every topic first and gives up on any partition without a leader (the
    // older topic's, now), as it would against Apache Kafka with an offline partition.
    const fresh = unique('after-kill');
    const survivorsBootstrap = bootstrapOf(survivors);
    const created = await py('ck_client.py', 'create_topics', { bootstrap: survivorsBootstrap, topics: [{ name: fresh, partitions: 4, replication_factor: 2 }] });
    expect(created.results[fresh], JSON.stringify(created)).toEqual({ ok: true });
    const freshParts = await settled(cluster, fresh, 4);
    for (const p of freshParts) expect([...p.replicaNodes].sort()).toEqual(survivors.map((b) => b.id).sort());
    const producer = kafka(survivorsBootstrap).producer();
    await producer.connect();
    await producer.send({ topic: fresh, acks: -1, messages: [0, 1, 2, 3].map((p) => ({ partition: p, key: `fk${p}`, value: `fv${p}` })) }).finally(() => producer.disconnect());
    expect(await kcatAll(survivorsBootstrap, fresh)).toEqual(['0 fk0 fv0', '1 fk1 fv1', '2 fk2 fv2', '3 fk3 fv3']);

    // Back: registered again, leading its partitions again, every record still there.
    const startedAt = performance.now();
    await victim.start();
    await eventually(`/brokers/ids/${victim.id} back`, async () => ((await zk.get(`/brokers/ids/${victim.id}`)) ? true : undefined));
    const back = await settled(cluster, older, 6);
    measure(`failover: broker ${victim.id} leads its partitions again after start()`, performance.now() - startedAt);
    for (const p of back.filter((x) => victimPartitions.includes(x.partitionIndex))) expect(p.leaderId).toBe(victim.id);
    for (const p of victimPartitions) {
      const before = statesBefore.get(p);
      const now = await stateOf(p);
      expect(now).toMatchObject({ leader: victim.id, isr: [victim.id], controller_epoch: epochAfter, version: 1 });
      expect(now.leader_epoch).toBeGreaterThan(before.leader_epoch);
    }
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

  it('kill -9 of a broker that is not the controller: the controller writes its partitions leaderless (ISR kept), and elects it again on its return', async () => {
    for (const b of cluster.brokers) await b.start();
    const controllerId = await agreedController(cluster.brokers.map((b) => b.port));
    const victim = cluster.brokers.find((b) => b.id !== controllerId)!;
    const topic = unique('follower-kill');
    const admin = await adminOf(cluster.bootstrap);
    try {
      await admin.createTopics({ topics: [{ topic, numPartitions: 3, replicationFactor: 3 }], waitForLeaders: true });
    } finally {
      await admin.disconnect();
    }
    const parts = await settled(cluster, topic, 3);
    const led = parts.filter((p) => p.leaderId === victim.id).map((p) => p.partitionIndex);
    expect(led).toHaveLength(1);
    const [p] = led;
    const producer = kafka(cluster.bootstrap).producer();
    await producer.connect();
    await producer.send({ topic, acks: -1, messages: [{ partition: p, key: 'before', value: 'kill' }] }).finally(() => producer.disconnect());
    const statePath = `/brokers/topics/${topic}/partitions/${p}/state`;
    const before = (await zk.get(statePath))!.json;
    expect(before).toMatchObject({ leader: victim.id, isr: [victim.id] });

    const killedAt = performance.now();
    await victim.kill();
    const offline = await eventually(`${statePath} without a leader`, async () => {
      const s = (await zk.get(statePath))!.json;
      return s.leader === -1 ? s : undefined;
    }, 30_000, 25);
    measure(`failover: partition led by killed broker ${victim.id} written leaderless by controller ${controllerId} after kill -9 (session timeout ${SESSION_TIMEOUT_MS} ms)`, performance.now() - killedAt);
    // Kafka's NoLeader: the last ISR member stays, so the partition remembers who holds its records.
    expect(offline).toEqual({ ...before, leader: -1, isr: [victim.id], leader_epoch: before.leader_epoch + 1 });
    for (const b of cluster.brokers.filter((x) => x !== victim)) {
      await eventually(`broker ${b.id}: partition ${p} LEADER_NOT_AVAILABLE`, async () => {
        const x = (await partitionsFrom(b.port, topic)).find((y) => y.partitionIndex === p);
        return x && x.errorCode === LEADER_NOT_AVAILABLE && x.leaderId === -1 ? true : undefined;
      });
    }

    await victim.start();
    await settled(cluster, topic, 3);
    const back = (await zk.get(statePath))!.json;
    expect(back).toEqual({ ...before, leader: victim.id, isr: [victim.id], leader_epoch: before.leader_epoch + 2 });
    expect(await kcatAll(cluster.bootstrap, topic)).toEqual([`${p} before kill`]);
  });
});
