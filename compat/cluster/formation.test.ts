// Three krill processes joined through a real ZooKeeper, as kafkajs, kcat (librdkafka) and
// confluent-kafka-python's AdminClient see them, and as ZooKeeper holds them (Kafka's ZooKeeper-mode layout,
// read raw): every broker listed, one controller every broker agrees on, partitions placed as Kafka's
// AdminUtils places them (replicas round-robin, the first replica leads), an explicit assignment honoured,
// default.replication.factor for auto-created topics, and the znodes an operator's tools read.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Admin } from 'kafkajs';
import type { RunningCluster } from '../../src/embedded-cluster.js';
import { describeRun, run } from '../util.js';
import { TestClient } from '../../test/server/client.js';
import { py } from '../python/py.js';
import { adminOf, describeCluster, eventually, formCluster, kafka, metadataFrom, settled, unique, ZkReader } from './cluster-util.js';
import type { Message } from '../../protocol/codec.js';

const TEST_TIMEOUT = 60_000;
const KCAT = 'kcat';

let cluster: RunningCluster;
let admin: Admin;
let zk: ZkReader;
let startedAtMs = 0;
const ids = [1, 2, 3];
const ports = () => cluster.brokers.map((b) => b.port);

describeCluster('a 3-broker krill cluster: formation, placement and the ZooKeeper layout', { timeout: TEST_TIMEOUT }, () => {
  beforeAll(async () => {
    startedAtMs = Date.now();
    cluster = await formCluster('formation', { brokers: 3, processes: true, config: { 'default.replication.factor': 3 } });
    admin = await adminOf(cluster.bootstrap);
    zk = await ZkReader.open(cluster.zookeeperConnect);
  }, TEST_TIMEOUT);
  afterAll(async () => {
    await admin?.disconnect();
    await zk?.close();
    await cluster?.close();
  });

  it('every client lists the three brokers and one controller, the same on every broker', async () => {
    const controller = await eventually('one controller on every broker', async () => {
      const seen = await Promise.all(ports().map((p) => metadataFrom(p)));
      const c = seen[0].controllerId;
      const allListed = seen.every(
        (m) =>
          m.brokers
            .map((b) => b.nodeId)
            .sort()
            .join() === '1,2,3',
      );
      return allListed && c > 0 && seen.every((m) => m.controllerId === c) ? c : undefined;
    });
    expect(ids).toContain(controller);

    const described = await admin.describeCluster();
    expect(described.brokers.map((b) => b.nodeId).sort()).toEqual(ids);
    expect(described.controller).toBe(controller);
    for (const b of cluster.brokers) expect(described.brokers).toContainEqual({ nodeId: b.id, host: '127.0.0.1', port: b.port });

    const md = await run(KCAT, ['-L', '-b', cluster.bootstrap, '-X', 'broker.address.family=v4'], { timeoutMs: 20_000 });
    expect(md.code, describeRun(md)).toBe(0);
    expect(md.stdout).toContain(' 3 brokers:');
    for (const b of cluster.brokers) {
      const suffix = b.id === controller ? ' (controller)' : '';
      expect(md.stdout).toMatch(new RegExp(`broker ${b.id} at 127\\.0\\.0\\.1:${b.port}${suffix.replace(/[()]/g, '\\$&')}\\n`));
    }

    const ck = await py('ck_client.py', 'list_topics', { bootstrap: cluster.bootstrap });
    expect(ck.controller_id).toBe(controller);
    expect(ck.cluster_id).toBe(described.clusterId);
    expect(ck.brokers.map((b: { id: number }) => b.id).sort()).toEqual(ids);
  });

  it('an RF 3 topic of 6 partitions: 3 distinct replicas each, leaders 2/2/2, the first replica leads', async () => {
    const topic = unique('rf3');
    await admin.createTopics({ topics: [{ topic, numPartitions: 6, replicationFactor: 3 }], waitForLeaders: true });
    const parts = await settled(cluster, topic, 6);
    const leaders = new Map<number, number>();
    for (const p of parts) {
      expect(new Set(p.replicaNodes).size, JSON.stringify(p)).toBe(3);
      expect([...p.replicaNodes].sort()).toEqual(ids);
      expect(p.leaderId).toBe(p.replicaNodes[0]);
      leaders.set(p.leaderId, (leaders.get(p.leaderId) ?? 0) + 1);
    }
    expect([...leaders.entries()].sort()).toEqual([
      [1, 2],
      [2, 2],
      [3, 2],
    ]);

    // The clients read the same placement.
    const kjs = await admin.fetchTopicMetadata({ topics: [topic] });
    expect(kjs.topics[0].partitions.sort((a, b) => a.partitionId - b.partitionId).map((p) => [p.leader, p.replicas])).toEqual(
      parts.map((p) => [p.leaderId, p.replicaNodes]),
    );
    const kc = await run(KCAT, ['-L', '-b', cluster.bootstrap, '-X', 'broker.address.family=v4', '-t', topic], { timeoutMs: 20_000 });
    expect(kc.code, describeRun(kc)).toBe(0);
    expect(kc.stdout).toContain(`topic "${topic}" with 6 partitions:`);
    for (const p of parts) expect(kc.stdout).toContain(`partition ${p.partitionIndex}, leader ${p.leaderId}, replicas: ${p.replicaNodes.join(',')}`);
    const ck = await py('ck_client.py', 'list_topics', { bootstrap: cluster.bootstrap, topic });
    expect(ck.topics[topic].partitions.map((p: Message) => [p.leader, p.replicas])).toEqual(parts.map((p) => [p.leaderId, p.replicaNodes]));
  });

  it('replication factor 4 on 3 brokers: INVALID_REPLICATION_FACTOR, nothing created', async () => {
    const topic = unique('rf4');
    const err = await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 4 }] }).then(
      () => null,
      (e) => e,
    );
    expect(err, 'createTopics with RF 4 must fail').not.toBeNull();
    expect((err.errors ?? []).map((e: { type: string }) => e.type)).toEqual(['INVALID_REPLICATION_FACTOR']);
    const ck = await py('ck_client.py', 'create_topics', { bootstrap: cluster.bootstrap, topics: [{ name: topic, partitions: 1, replication_factor: 4 }] });
    expect(ck.results[topic]).toMatchObject({ ok: false, error: 'INVALID_REPLICATION_FACTOR' });
    expect(await admin.listTopics()).not.toContain(topic);
    expect(await zk.get(`/brokers/topics/${topic}`)).toBeNull();
  });

  it('an explicit replica assignment is honoured: the replicas as given, the first one leads', async () => {
    const topic = unique('assigned');
    const assignment = [
      [3, 1],
      [2, 3],
      [1, 2],
      [3, 2],
    ];
    await admin.createTopics({
      topics: [{ topic, replicaAssignment: assignment.map((replicas, partition) => ({ partition, replicas })) }],
      waitForLeaders: true,
    });
    const parts = await settled(cluster, topic, 4);
    expect(parts.map((p) => p.replicaNodes)).toEqual(assignment);
    expect(parts.map((p) => p.leaderId)).toEqual(assignment.map((r) => r[0]));
    const znode = await zk.get(`/brokers/topics/${topic}`);
    expect(znode!.json.partitions).toEqual({ 0: [3, 1], 1: [2, 3], 2: [1, 2], 3: [3, 2] });
  });

  it('an auto-created topic gets default.replication.factor (3) replicas', async () => {
    const topic = unique('auto');
    const producer = kafka(cluster.bootstrap).producer({ allowAutoTopicCreation: true });
    await producer.connect();
    try {
      await eventually('a send that auto-creates the topic', () =>
        producer.send({ topic, acks: -1, messages: [{ key: 'k', value: 'v' }] }).then(
          () => true,
          () => undefined,
        ),
      );
    } finally {
      await producer.disconnect();
    }
    const parts = await settled(cluster, topic, 1);
    expect([...parts[0].replicaNodes].sort()).toEqual(ids);
    expect((await zk.get(`/brokers/topics/${topic}`))!.json.partitions['0']).toHaveLength(3);
  });

  it("ZooKeeper holds Kafka's layout: cluster id, registrations, controller, topics, partition states, configs", async () => {
    const described = await admin.describeCluster();
    const clusterId = await zk.get('/cluster/id');
    expect(clusterId!.json).toEqual({ version: '1', id: described.clusterId });

    for (const b of cluster.brokers) {
      const reg = await zk.get(`/brokers/ids/${b.id}`);
      expect(reg, `/brokers/ids/${b.id}`).not.toBeNull();
      expect(reg!.ephemeralOwner, 'registrations are ephemeral').not.toBeNull();
      // Kafka 2.8-3.x's registration (version 5), field for field.
      expect(reg!.json).toEqual({
        listener_security_protocol_map: { PLAINTEXT: 'PLAINTEXT' },
        endpoints: [`PLAINTEXT://127.0.0.1:${b.port}`],
        jmx_port: -1,
        features: {},
        host: '127.0.0.1',
        timestamp: expect.stringMatching(/^\d+$/),
        port: b.port,
        version: 5,
      });
      // Milliseconds since the epoch, written while this cluster started.
      expect(Number(reg!.json.timestamp)).toBeGreaterThanOrEqual(startedAtMs);
      expect(Number(reg!.json.timestamp)).toBeLessThanOrEqual(Date.now());
    }
    expect((await zk.children('/brokers/ids')).sort()).toEqual(['1', '2', '3']);

    const controller = await zk.get('/controller');
    expect(controller!.ephemeralOwner).not.toBeNull();
    expect(controller!.json).toMatchObject({ version: 1, brokerid: described.controller });
    expect(controller!.json.timestamp).toMatch(/^\d+$/);
    const epoch = await zk.get('/controller_epoch');
    expect(Number.isInteger(epoch!.json) && epoch!.json >= 1, epoch!.raw).toBe(true);

    const topic = unique('layout');
    await admin.createTopics({
      topics: [
        {
          topic,
          numPartitions: 3,
          replicationFactor: 2,
          configEntries: [
            { name: 'retention.ms', value: '123456' },
            { name: 'cleanup.policy', value: 'compact' },
          ],
        },
      ],
      waitForLeaders: true,
    });
    const parts = await settled(cluster, topic, 3);
    const assignment = await zk.get(`/brokers/topics/${topic}`);
    expect(assignment!.json).toMatchObject({ version: 3, adding_replicas: {}, removing_replicas: {} });
    expect(assignment!.json.partitions).toEqual(Object.fromEntries(parts.map((p) => [String(p.partitionIndex), p.replicaNodes])));
    const meta = await admin.fetchTopicMetadata({ topics: [topic] });
    expect(meta.topics[0].name).toBe(topic);
    expect(assignment!.json.topic_id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const mdV12 = await metadataTopicId(topic);
    expect(assignment!.json.topic_id).toBe(mdV12);

    for (const p of parts) {
      const state = await zk.get(`/brokers/topics/${topic}/partitions/${p.partitionIndex}/state`);
      expect(state!.json).toEqual({
        controller_epoch: epoch!.json,
        leader: p.leaderId,
        version: 1,
        leader_epoch: p.leaderEpoch,
        // A new partition's ISR is all its (live) replicas, in assignment order.
        isr: p.replicaNodes,
      });
    }
    const config = await zk.get(`/config/topics/${topic}`);
    expect(config!.json).toEqual({ version: 1, config: { 'retention.ms': '123456', 'cleanup.policy': 'compact' } });
    for (const path of ['/brokers/seqid', '/isr_change_notification', '/admin/delete_topics', '/config/changes']) {
      expect(await zk.get(path), path).not.toBeNull();
    }
  });

  it('a deleted topic leaves /admin/delete_topics empty and its znodes gone', async () => {
    const topic = unique('deleted');
    await admin.createTopics({
      topics: [{ topic, numPartitions: 2, replicationFactor: 3, configEntries: [{ name: 'retention.ms', value: '60000' }] }],
      waitForLeaders: true,
    });
    await settled(cluster, topic, 2);
    await admin.deleteTopics({ topics: [topic], timeout: 10_000 });
    await eventually(`${topic} gone from ZooKeeper`, async () => {
      const pending = await zk.children('/admin/delete_topics');
      const gone = (await zk.get(`/brokers/topics/${topic}`)) === null && (await zk.get(`/config/topics/${topic}`)) === null;
      return gone && !pending.includes(topic) ? true : undefined;
    });
    expect(await zk.children('/admin/delete_topics')).toEqual([]);
    expect(await zk.children('/brokers/topics')).not.toContain(topic);
  });
});

/** The topic id broker 1 gives in Metadata v12, in Kafka's base64url text form. */
async function metadataTopicId(topic: string): Promise<string> {
  const client = await TestClient.connect(cluster.brokers[0].port);
  try {
    const body: Message = await client.request(3, 12, {
      topics: [{ topicId: Buffer.alloc(16), name: topic }],
      allowAutoTopicCreation: false,
      includeTopicAuthorizedOperations: false,
    });
    return Buffer.from(body.topics[0].topicId).toString('base64url');
  } finally {
    client.close();
  }
}
