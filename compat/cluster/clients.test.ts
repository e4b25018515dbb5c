// Real clients producing and consuming across the three leaders of a krill cluster, and topic
// administration that one broker does and the others must follow: kafkajs (producer, consumer group,
// admin), kcat (librdkafka) and confluent-kafka-python (producer, consumer group with committed offsets read
// back through another broker). What a broker other than the one asked reports is read from that broker
// alone (raw Metadata/DescribeConfigs), since client libraries choose their broker themselves.
import fs from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ConfigResourceTypes, type Admin } from 'kafkajs';
import type { RunningCluster } from '../../src/embedded-cluster.js';
import { describeRun, run } from '../util.js';
import { encodeRecord, py } from '../python/py.js';
import { TestClient } from '../../test/server/client.js';
import { adminOf, describeCluster, eventually, formCluster, kafka, metadataFrom, settled, unique } from './cluster-util.js';
import type { Message } from '../../protocol/codec.js';

const TEST_TIMEOUT = 60_000;
const KCAT = 'kcat';
const DESCRIBE_CONFIGS = 32;
const RESOURCE_TOPIC = 2;

let cluster: RunningCluster;
let admin: Admin;
const kcatCommon = () => ['-b', cluster.bootstrap, '-X', 'broker.address.family=v4', '-X', 'socket.timeout.ms=10000'];

/** Creates an RF 3 topic and checks its partitions are led by all three brokers. */
async function spreadTopic(partitions = 6): Promise<string> {
  const topic = unique('spread');
  await admin.createTopics({ topics: [{ topic, numPartitions: partitions, replicationFactor: 3 }], waitForLeaders: true });
  const parts = await settled(cluster, topic, partitions);
  expect(new Set(parts.map((p) => p.leaderId))).toEqual(new Set([1, 2, 3]));
  return topic;
}

async function topicConfigFrom(port: number, topic: string, name: string): Promise<string | null | undefined> {
  const client = await TestClient.connect(port);
  try {
    const body: Message = await client.request(DESCRIBE_CONFIGS, 1, {
      resources: [{ resourceType: RESOURCE_TOPIC, resourceName: topic, configurationKeys: [name] }],
      includeSynonyms: false,
    });
    const r = body.results[0];
    if (r.errorCode !== 0) throw new Error(`DescribeConfigs ${topic} on port ${port}: error ${r.errorCode} ${r.errorMessage}`);
    return r.configs.find((c: { name: string }) => c.name === name)?.value;
  } finally {
    client.close();
  }
}

const dirsOf = (dataDir: string, topic: string) => (fs.existsSync(dataDir) ? fs.readdirSync(dataDir).filter((d) => d.startsWith(`${topic}-`)) : []);

describeCluster('clients against a 3-broker krill cluster: produce, consume, topic admin', { timeout: TEST_TIMEOUT }, () => {
  beforeAll(async () => {
    cluster = await formCluster('clients', { brokers: 3, processes: true, config: { 'log.segment.delete.delay.ms': 100 } });
    admin = await adminOf(cluster.bootstrap);
  }, TEST_TIMEOUT);
  afterAll(async () => {
    await admin?.disconnect();
    await cluster?.close();
  });

  it('kafkajs: a producer and a consumer group over partitions led by all three brokers; then kcat on the same topic', async () => {
    const topic = await spreadTopic();
    const sent = Array.from({ length: 60 }, (_, i) => ({ key: `key-${i}`, value: `value-${i}` }));
    const producer = kafka(cluster.bootstrap).producer();
    await producer.connect();
    const acks = await producer.send({ topic, acks: -1, messages: sent }).finally(() => producer.disconnect());
    expect(new Set(acks.map((a) => a.partition)).size).toBeGreaterThan(1);

    const received: { key: string; value: string; partition: number }[] = [];
    const consumer = kafka(cluster.bootstrap).consumer({ groupId: unique('kjs-group'), sessionTimeout: 10_000, heartbeatInterval: 500, maxWaitTimeInMs: 100 });
    await consumer.connect();
    try {
      await consumer.subscribe({ topic, fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ message, partition }) => {
          received.push({ key: message.key!.toString(), value: message.value!.toString(), partition });
        },
      });
      await eventually('kafkajs consumer to receive all 60 records', () => (received.length >= sent.length ? true : undefined), 40_000);
    } finally {
      await consumer.disconnect();
    }
    expect(received.map(({ key, value }) => ({ key, value })).sort((a, b) => a.key.localeCompare(b.key))).toEqual(
      [...sent].sort((a, b) => a.key.localeCompare(b.key)),
    );
    // Every key went to one partition and came back from it.
    const partitionOf = new Map(received.map((r) => [r.key, r.partition]));
    expect(new Set(received.map((r) => r.partition)).size).toBeGreaterThan(1);

    const lines = Array.from({ length: 30 }, (_, i) => `kcat-key-${i}:kcat-value-${i}`);
    const produced = await run(KCAT, ['-P', ...kcatCommon(), '-t', topic, '-K', ':', '-X', 'acks=all', '-X', 'message.timeout.ms=20000'], {
      input: lines.join('\n') + '\n',
      timeoutMs: 30_000,
    });
    expect(produced.code, describeRun(produced)).toBe(0);
    const consumed = await run(KCAT, ['-C', ...kcatCommon(), '-t', topic, '-e', '-o', 'beginning', '-q', '-f', '%p %k %s\n'], { timeoutMs: 30_000 });
    expect(consumed.code, describeRun(consumed)).toBe(0);
    const got = consumed.stdout
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => l.split(' '));
    expect(got.map(([, k, v]) => `${k}:${v}`).sort()).toEqual([...sent.map((s) => `${s.key}:${s.value}`), ...lines].sort());
    for (const [p, k] of got) if (partitionOf.has(k)) expect(Number(p)).toBe(partitionOf.get(k));
    expect(new Set(got.map(([p]) => p)).size).toBeGreaterThan(2);
  });

  it('confluent-kafka-python: producer, a consumer group committing offsets; the offsets read back through another broker', async () => {
    const topic = await spreadTopic();
    const records = Array.from({ length: 48 }, (_, i) => encodeRecord({ key: `py-key-${i}`, value: `py-value-${i}` }));
    const produced = await py('ck_client.py', 'produce', { bootstrap: cluster.bootstrap, topic, records });
    expect(produced.undelivered).toBe(0);
    expect(
      produced.reports.every((r: Message) => r && r.error === undefined),
      JSON.stringify(produced.reports),
    ).toBe(true);
    const high = new Map<number, number>();
    for (const r of produced.reports) high.set(r.partition, Math.max(high.get(r.partition) ?? 0, r.offset + 1));

    const group = unique('py-group');
    const [first, second, third] = cluster.brokers;
    const consumed = await py(
      'groups_client.py',
      'ck_group_consume',
      { bootstrap: first.bootstrap, group, topics: [topic], stop_size: 6, commit: 'sync' },
      60_000,
    );
    expect(consumed.errors).toEqual([]);
    expect(consumed.messages.map((m: { value: string }) => m.value).sort()).toEqual(records.map((_, i) => `py-value-${i}`).sort());
    const expected = Object.fromEntries(Array.from({ length: 6 }, (_, p) => [String(p), high.get(p) ?? -1001]));
    for (const via of [second, third]) {
      const committed = await py('groups_client.py', 'ck_committed', { bootstrap: via.bootstrap, group, topic, partitions: 6 });
      expect(committed.errors).toEqual([]);
      expect(committed.committed, `committed offsets read through broker ${via.id}`).toEqual(expected);
    }
  });

  it("kafkajs admin: a topic deleted through one broker is gone from the others' Metadata and every data dir; the name can be reused", async () => {
    const topic = await spreadTopic(3);
    const producer = kafka(cluster.bootstrap).producer();
    await producer.connect();
    await producer.send({ topic, acks: -1, messages: [0, 1, 2].map((p) => ({ partition: p, value: `old-${p}` })) }).finally(() => producer.disconnect());
    for (const b of cluster.brokers) expect(dirsOf(b.dataDir, topic).length, `broker ${b.id} partition dirs`).toBeGreaterThan(0);

    const [a, ...others] = cluster.brokers;
    const adminA = await adminOf(a.bootstrap);
    try {
      await adminA.deleteTopics({ topics: [topic], timeout: 10_000 });
    } finally {
      await adminA.disconnect();
    }
    for (const b of others) {
      await eventually(`${topic} gone from broker ${b.id}'s Metadata`, async () => {
        const md = await metadataFrom(b.port, null);
        return md.topics.some((t) => t.name === topic) ? undefined : true;
      });
    }
    for (const b of cluster.brokers) {
      await eventually(`${topic}'s partition dirs gone from broker ${b.id} (${b.dataDir})`, () => (dirsOf(b.dataDir, topic).length === 0 ? true : undefined));
    }

    // The name is free once the controller has removed the topic's znodes, its last step; until then
    // CreateTopics answers TOPIC_ALREADY_EXISTS, as Kafka does for a topic marked for deletion (kafkajs's
    // createTopics then resolves false).
    await eventually(`${topic} created again`, () =>
      admin.createTopics({ topics: [{ topic, numPartitions: 2, replicationFactor: 3 }], waitForLeaders: true }).then((created) => created || undefined),
    );
    await settled(cluster, topic, 2);
    const again = kafka(cluster.bootstrap).producer();
    await again.connect();
    const [ack] = await again.send({ topic, acks: -1, messages: [{ partition: 1, value: 'new' }] }).finally(() => again.disconnect());
    expect(ack.baseOffset).toBe('0');
    const consumed = await run(KCAT, ['-C', ...kcatCommon(), '-t', topic, '-e', '-o', 'beginning', '-q', '-f', '%p %s\n'], { timeoutMs: 30_000 });
    expect(consumed.code, describeRun(consumed)).toBe(0);
    expect(consumed.stdout.trim()).toBe('1 new');
  });

  it("kafkajs admin: createPartitions 3 → 6 places and leads the new partitions on every broker's view", async () => {
    const topic = await spreadTopic(3);
    await admin.createPartitions({ topicPartitions: [{ topic, count: 6 }] });
    const parts = await settled(cluster, topic, 6);
    for (const p of parts) {
      expect(new Set(p.replicaNodes).size).toBe(3);
      expect(p.leaderId).toBe(p.replicaNodes[0]);
    }
    expect(new Set(parts.slice(3).map((p) => p.leaderId)).size, "the new partitions' leaders").toBeGreaterThan(1);
    const producer = kafka(cluster.bootstrap).producer();
    await producer.connect();
    const acks = await producer
      .send({ topic, acks: -1, messages: [3, 4, 5].map((p) => ({ partition: p, value: `in-${p}` })) })
      .finally(() => producer.disconnect());
    expect(acks.map((a) => [a.partition, a.baseOffset]).sort()).toEqual([
      [3, '0'],
      [4, '0'],
      [5, '0'],
    ]);
  });

  it('kafkajs alterConfigs: every broker then describes the new value (config change notifications)', async () => {
    const topic = await spreadTopic(3);
    await admin.alterConfigs({
      validateOnly: false,
      resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configEntries: [{ name: 'retention.ms', value: '7777777' }] }],
    });
    for (const b of cluster.brokers) {
      await eventually(`broker ${b.id} to describe retention.ms=7777777`, async () =>
        (await topicConfigFrom(b.port, topic, 'retention.ms')) === '7777777' ? true : undefined,
      );
    }
    const described = await admin.describeConfigs({
      includeSynonyms: false,
      resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames: ['retention.ms'] }],
    });
    expect(described.resources[0].configEntries.find((c) => c.configName === 'retention.ms')?.configValue).toBe('7777777');
  });
});
