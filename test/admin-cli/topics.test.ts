// krill topics, configs and cluster against a real krill, their effects checked with kafkajs's admin client.
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withBroker } from '../helpers.js';
import type { RunningBroker } from '../../src/index.js';
import { json, krillAgainst } from './run.js';

const require = createRequire(import.meta.url);
/* eslint-disable @typescript-eslint/no-explicit-any */
const { Kafka, logLevel, ConfigResourceTypes } = require('kafkajs');

describe('krill topics|configs|cluster', { timeout: 60_000 }, () => {
  let broker: RunningBroker;
  let admin: any;
  let producer: any;
  const krill = krillAgainst(() => broker.bootstrap);

  beforeAll(async () => {
    broker = await withBroker();
    const kafka = new Kafka({ clientId: 'cli-test', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
    admin = kafka.admin();
    producer = kafka.producer({ allowAutoTopicCreation: false });
    await admin.connect();
    await producer.connect();
  });
  afterAll(async () => {
    await producer?.disconnect();
    await admin?.disconnect();
    await broker?.close();
  });

  it('creates a topic with partitions and configs, which another client then sees', async () => {
    const r = await krill(['topics', 'create', 'orders', '--partitions', '3', '--config', 'retention.ms=86400000', '--config', 'cleanup.policy=compact']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^NAME\s+TOPIC-ID\s+PARTITIONS\s+REPLICATION-FACTOR\norders\s+\S{22}\s+3\s+1\n$/);
    const md = await admin.fetchTopicMetadata({ topics: ['orders'] });
    expect(md.topics[0].partitions).toHaveLength(3);
    const described = await admin.describeConfigs({ resources: [{ type: ConfigResourceTypes.TOPIC, name: 'orders' }], includeSynonyms: false });
    const entries = Object.fromEntries(described.resources[0].configEntries.map((e: any) => [e.configName, e.configValue]));
    expect(entries['retention.ms']).toBe('86400000');
    expect(entries['cleanup.policy']).toBe('compact');
  });

  it("fails with Kafka's error name and exit code 1, unless told the topic may exist", async () => {
    const again = await krill(['topics', 'create', 'orders']);
    expect(again.code).toBe(1);
    expect(again.stdout).toBe('');
    expect(again.stderr).toMatch(/^krill topics create: TOPIC_ALREADY_EXISTS: creating topic 'orders'.*\n$/);
    expect(await json(krill, ['topics', 'create', 'orders', '--if-not-exists'])).toEqual({ name: 'orders', created: false });
    const bad = await krill(['topics', 'create', 'bad', '--config', 'retention.ms=soon']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/INVALID_CONFIG/);
    expect((await admin.listTopics()).includes('bad')).toBe(false);
  });

  it('lists topics as a table and as JSON, internal ones only when asked', async () => {
    await admin.createTopics({ topics: [{ topic: 'listed', numPartitions: 2 }] });
    const table = await krill(['topics', 'list']);
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^NAME\s+PARTITIONS\s+REPLICATION-FACTOR\s+INTERNAL$/);
    expect(table.stdout).toMatch(/\nlisted\s+2\s+1\s+false\n/);
    const listed = await json(krill, ['topics', 'list']);
    expect(listed).toContainEqual({ name: 'listed', partitions: 2, replicationFactor: 1, internal: false });
    expect(listed.some((t: any) => t.internal)).toBe(false);
  });

  it('describes partitions with leaders, ISR, watermarks and sizes, and the configs set', async () => {
    await producer.send({ topic: 'orders', messages: [0, 1, 2].map((i) => ({ key: `k${i}`, value: `v${i}`, partition: 1 })) });
    const [t] = await json(krill, ['topics', 'describe', 'orders']);
    expect(t.name).toBe('orders');
    expect(t.configs).toMatchObject({ 'retention.ms': '86400000', 'cleanup.policy': 'compact' });
    expect(t.partitions.map((p: any) => [p.partition, p.leader, p.replicas, p.isr, p.logStartOffset, p.highWatermark])).toEqual([
      [0, 1, [1], [1], 0, 0],
      [1, 1, [1], [1], 0, 3],
      [2, 1, [1], [1], 0, 0],
    ]);
    expect(t.partitions[1].sizeBytes).toBeGreaterThan(0);
    expect(t.partitions[0].sizeBytes).toBe(0);
    const table = await krill(['topics', 'describe', 'orders']);
    expect(table.stdout).toMatch(/^Topic: orders {2}TopicId: \S+ {2}Partitions: 3 {2}Configs: .*retention\.ms=86400000/);
    expect(table.stdout).toMatch(/\n1\s+1\s+1\s+1\s+0\s+3\s+\d+\n/);
    expect((await json(krill, ['topics', 'describe'])).map((d: any) => d.name)).toEqual(['listed', 'orders']);
    const missing = await krill(['topics', 'describe', 'nope']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe("krill topics describe: UNKNOWN_TOPIC_OR_PARTITION: topic 'nope'\n");
  });

  it('adds partitions and changes configs', async () => {
    expect((await krill(['topics', 'alter', 'orders', '--partitions', '5', '--config', 'retention.ms=1000', '--delete-config', 'cleanup.policy'])).code).toBe(
      0,
    );
    const md = await admin.fetchTopicMetadata({ topics: ['orders'] });
    expect(md.topics[0].partitions).toHaveLength(5);
    const described = await admin.describeConfigs({ resources: [{ type: ConfigResourceTypes.TOPIC, name: 'orders' }], includeSynonyms: false });
    const entries = Object.fromEntries(described.resources[0].configEntries.map((e: any) => [e.configName, e]));
    expect(entries['retention.ms'].configValue).toBe('1000');
    expect(entries['cleanup.policy'].isDefault).toBe(true);
    const fewer = await krill(['topics', 'alter', 'orders', '--partitions', '2']);
    expect(fewer.code).toBe(1);
    expect(fewer.stderr).toMatch(/INVALID_PARTITIONS/);
  });

  it('describes and alters topic and broker configs', async () => {
    const topic = await json(krill, ['configs', 'describe', '--entity-type', 'topics', '--entity-name', 'orders']);
    expect(topic).toContainEqual({ name: 'retention.ms', value: '1000', source: 'DYNAMIC_TOPIC_CONFIG', readOnly: false, sensitive: false });
    expect(topic.some((c: any) => c.source === 'DEFAULT_CONFIG')).toBe(false);
    const all = await json(krill, ['configs', 'describe', '--entity-type', 'topics', '--entity-name', 'orders', '--all']);
    expect(all.find((c: any) => c.name === 'segment.bytes')).toMatchObject({ source: 'DEFAULT_CONFIG' });
    const alter = [
      'configs',
      'alter',
      '--entity-type',
      'topics',
      '--entity-name',
      'orders',
      '--add-config',
      'max.message.bytes=2048',
      '--delete-config',
      'retention.ms',
    ];
    expect((await krill(alter)).code).toBe(0);
    const described = await admin.describeConfigs({ resources: [{ type: ConfigResourceTypes.TOPIC, name: 'orders' }], includeSynonyms: false });
    const entries = Object.fromEntries(described.resources[0].configEntries.map((e: any) => [e.configName, e]));
    expect(entries['max.message.bytes'].configValue).toBe('2048');
    expect(entries['retention.ms'].isDefault).toBe(true);

    const brokerConfigs = await json(krill, ['configs', 'describe', '--entity-type', 'brokers', '--entity-name', '1', '--all']);
    expect(brokerConfigs.find((c: any) => c.name === 'log.retention.hours')).toBeDefined();
    const table = await krill(['configs', 'describe', '--entity-type', 'topics', '--entity-name', 'orders']);
    expect(table.stdout).toMatch(/^NAME\s+VALUE\s+SOURCE\s+READ-ONLY\s+SENSITIVE\nmax\.message\.bytes\s+2048\s+DYNAMIC_TOPIC_CONFIG\s+false\s+false\n$/);
    const usage = await krill(['configs', 'describe', '--entity-type', 'users', '--entity-name', 'x']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/^krill configs describe: --entity-type must be topics or brokers, got 'users'\nusage: krill configs describe/);
  });

  it("sets a broker's own and the cluster-wide default configs", async () => {
    const alter = (target: string[], config: string) => krill(['configs', 'alter', '--entity-type', 'brokers', ...target, '--add-config', config]);
    expect((await alter(['--entity-default'], 'log.cleaner.threads=2')).code).toBe(0);
    const source = async () => {
      const configs = await json(krill, ['configs', 'describe', '--entity-type', 'brokers', '--entity-name', '1']);
      return configs.find((c: any) => c.name === 'log.cleaner.threads');
    };
    expect(await source()).toMatchObject({ value: '2', source: 'DYNAMIC_DEFAULT_BROKER_CONFIG' });
    expect((await alter(['--entity-name', '1'], 'log.cleaner.threads=3')).code).toBe(0);
    expect(await source()).toMatchObject({ value: '3', source: 'DYNAMIC_BROKER_CONFIG' });
    const described = await admin.describeConfigs({ resources: [{ type: ConfigResourceTypes.BROKER, name: '1' }], includeSynonyms: false });
    expect(described.resources[0].configEntries.find((e: any) => e.configName === 'log.cleaner.threads').configValue).toBe('3');
  });

  it('shows the cluster: brokers, controller, no partition in trouble', async () => {
    const c = await json(krill, ['cluster']);
    expect(c).toEqual({
      clusterId: broker.clusterId,
      controllerId: 1,
      brokers: [{ nodeId: 1, host: '127.0.0.1', port: broker.port, rack: null, controller: true }],
      underReplicated: [],
      offline: [],
    });
    const table = await krill(['cluster']);
    expect(table.stdout).toMatch(
      new RegExp(
        `^Cluster: ${broker.clusterId} {2}Controller: 1 .*\nNODE-ID\\s+HOST\\s+PORT\\s+RACK\\s+CONTROLLER\n1\\s+127\\.0\\.0\\.1\\s+${broker.port}\\s+-\\s+true\nUnder-replicated partitions: 0\nOffline partitions: 0\n$`,
      ),
    );
  });

  it('deletes topics', async () => {
    expect(await json(krill, ['topics', 'delete', 'listed'])).toEqual([{ name: 'listed', deleted: true }]);
    expect((await admin.listTopics()).includes('listed')).toBe(false);
    const again = await krill(['topics', 'delete', 'listed']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/UNKNOWN_TOPIC_OR_PARTITION/);
    expect((await krill(['topics', 'delete', 'listed', '--if-exists'])).code).toBe(0);
  });
});
