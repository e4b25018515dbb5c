// Apache Kafka 4.4.0's own command-line tools against one real krill CLI process: kafka-topics, the console
// producer and consumer (keys, headers, groups), kafka-configs, kafka-delete-records, kafka-get-offsets and
// kafka-broker-api-versions, each run as `java -cp <classpath> <main class> <args>` as Kafka's bin/*.sh
// scripts run them. Asserted: what each tool prints, and the state read back (by the tools themselves and by
// kafkajs, an independent client).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { describeWithToolchain } from '../toolchain.js';
import { BrokerPool } from '../util.js';
import type { CliBroker } from '../../test/helpers.js';
import { TestClient } from '../../test/server/client.js';
import { runTool, tool, toolsMissing, unique } from './tools.js';

const pool = new BrokerPool();
let broker: CliBroker;
let bs: string[];
let admin: Admin;

describeWithToolchain('Kafka 4.4.0 command-line tools: topics, console clients, configs, offsets', toolsMissing, { timeout: 90_000 }, () => {
  beforeAll(async () => {
    broker = await pool.start(['--data-dir', pool.dir('krill-tools-topics-')]);
    bs = ['--bootstrap-server', broker.bootstrap];
    admin = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.disconnect();
    await pool.cleanup();
  });

  it('kafka-topics: --create, --list, --describe, --alter --partitions, --delete', async () => {
    const topic = unique('topics');
    const created = await tool('kafka-topics', [
      ...bs,
      '--create',
      '--topic',
      topic,
      '--partitions',
      '2',
      '--replication-factor',
      '1',
      '--config',
      'retention.ms=7200000',
    ]);
    expect(created.stdout.trim()).toBe(`Created topic ${topic}.`);

    expect((await tool('kafka-topics', [...bs, '--list'])).stdout.split('\n')).toContain(topic);

    await tool('kafka-topics', [...bs, '--alter', '--topic', topic, '--partitions', '3']);
    const described = (await tool('kafka-topics', [...bs, '--describe', '--topic', topic])).stdout;
    const [head, ...parts] = described.trim().split('\n');
    expect(head).toMatch(new RegExp(`^Topic: ${topic}\tTopicId: \\S{22}\tPartitionCount: 3\tReplicationFactor: 1\tConfigs: retention.ms=7200000$`));
    expect(parts.map((l) => l.trim())).toEqual([0, 1, 2].map((p) => `Topic: ${topic}\tPartition: ${p}\tLeader: 1\tReplicas: 1\tIsr: 1\tElr: \tLastKnownElr:`));
    // kafkajs sees the third partition too.
    expect((await admin.fetchTopicMetadata({ topics: [topic] })).topics[0].partitions).toHaveLength(3);

    // Creating it again fails as Kafka's does, naming the topic.
    const again = await runTool('kafka-topics', [...bs, '--create', '--topic', topic]);
    expect(again.code).toBe(1);
    expect(again.stdout).toContain(`Error while executing topic command : Topic '${topic}' already exists.`);

    const deleted = await tool('kafka-topics', [...bs, '--delete', '--topic', topic]);
    expect(deleted.stdout.trim()).toBe('');
    expect(await admin.listTopics()).not.toContain(topic);
  });

  it('console producer and consumer: parse.key, key.separator, parse.headers, --group, --from-beginning, --max-messages', async () => {
    const topic = unique('console');
    const group = unique('console-group');
    await tool('kafka-topics', [...bs, '--create', '--topic', topic, '--partitions', '1']);
    const lines = ['h1:v1,h2:v2\tk1|first value', 'h3:v3\tk2|second', 'h5:\tk3|third, a header without a value', 'h4:v4\tk4|fourth'];
    const produced = await tool(
      'kafka-console-producer',
      [...bs, '--topic', topic, '--reader-property', 'parse.key=true', '--reader-property', 'key.separator=|', '--reader-property', 'parse.headers=true'],
      { input: lines.join('\n') + '\n' },
    );
    expect(produced.stderr).not.toMatch(/ERROR|Exception/);

    const consume = (max: number) =>
      tool('kafka-console-consumer', [
        ...bs,
        '--topic',
        topic,
        '--group',
        group,
        '--from-beginning',
        '--max-messages',
        String(max),
        '--timeout-ms',
        '20000',
        '--formatter-property',
        'print.key=true',
        '--formatter-property',
        'print.headers=true',
        '--formatter-property',
        'print.offset=true',
        '--formatter-property',
        'key.separator=|',
      ]);
    const first = await consume(3);
    expect(first.stdout.trim().split('\n')).toEqual([
      'Offset:0|h1:v1,h2:v2|k1|first value',
      'Offset:1|h3:v3|k2|second',
      'Offset:2|h5:|k3|third, a header without a value',
    ]);
    expect(first.stderr).toContain('Processed a total of 3 messages');
    // The group committed where it stopped: a second run goes on from there, --from-beginning or not.
    const offsets = await admin.fetchOffsets({ groupId: group, topics: [topic] });
    expect(offsets[0].partitions.map((p) => [p.partition, p.offset])).toEqual([[0, '3']]);
    const second = await consume(1);
    expect(second.stdout.trim()).toBe('Offset:3|h4:v4|k4|fourth');
  });

  it('kafka-configs: --alter --add-config/--delete-config and --describe for a topic, a broker and the broker default', async () => {
    const topic = unique('configs');
    await tool('kafka-topics', [...bs, '--create', '--topic', topic]);
    const topicArgs = [...bs, '--entity-type', 'topics', '--entity-name', topic];
    const altered = await tool('kafka-configs', [...topicArgs, '--alter', '--add-config', 'retention.ms=12345,cleanup.policy=[compact,delete]']);
    expect(altered.stdout.trim()).toBe(`Completed updating config for topic ${topic}.`);
    let described = (await tool('kafka-configs', [...topicArgs, '--describe'])).stdout;
    expect(described).toContain(`Dynamic configs for topic ${topic} are:`);
    expect(described).toContain(
      '  cleanup.policy=compact,delete sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:cleanup.policy=compact,delete, DEFAULT_CONFIG:log.cleanup.policy=delete}',
    );
    expect(described).toMatch(/ {2}retention\.ms=12345 sensitive=false synonyms=\{DYNAMIC_TOPIC_CONFIG:retention\.ms=12345\b/);

    await tool('kafka-configs', [...topicArgs, '--alter', '--delete-config', 'retention.ms']);
    described = (await tool('kafka-configs', [...topicArgs, '--describe'])).stdout;
    expect(described).not.toContain('retention.ms');
    const read = await admin.describeConfigs({ resources: [{ type: 2, name: topic }], includeSynonyms: false });
    const entries = Object.fromEntries(read.resources[0].configEntries.map((e) => [e.configName, e.configValue]));
    expect(entries).toMatchObject({ 'cleanup.policy': 'compact,delete', 'retention.ms': '604800000' });

    const brokerArgs = [...bs, '--entity-type', 'brokers', '--entity-name', '1'];
    expect((await tool('kafka-configs', [...brokerArgs, '--alter', '--add-config', 'log.cleaner.threads=2'])).stdout.trim()).toBe(
      'Completed updating config for broker 1.',
    );
    const defaults = await tool('kafka-configs', [
      ...bs,
      '--entity-type',
      'brokers',
      '--entity-default',
      '--alter',
      '--add-config',
      'log.retention.ms=3600000',
    ]);
    expect(defaults.stdout.trim()).toBe('Completed updating default config for brokers in the cluster.');
    expect((await tool('kafka-configs', [...brokerArgs, '--describe'])).stdout).toContain(
      'log.cleaner.threads=2 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:log.cleaner.threads=2, DEFAULT_CONFIG:log.cleaner.threads=1}',
    );
    expect((await tool('kafka-configs', [...bs, '--entity-type', 'brokers', '--entity-default', '--describe'])).stdout).toContain(
      'log.retention.ms=3600000 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.ms=3600000}',
    );
    // A topic without an override of its own now has the cluster default.
    const after = await admin.describeConfigs({ resources: [{ type: 2, name: topic }], includeSynonyms: false });
    expect(after.resources[0].configEntries.find((e) => e.configName === 'retention.ms')?.configValue).toBe('3600000');
    await tool('kafka-configs', [...bs, '--entity-type', 'brokers', '--entity-default', '--alter', '--delete-config', 'log.retention.ms']);
  });

  it('kafka-get-offsets and kafka-delete-records: latest, earliest, max timestamp, earliest local and by time; the log start moves', async () => {
    const topic = unique('offsets');
    await tool('kafka-topics', [...bs, '--create', '--topic', topic, '--partitions', '2']);
    const producer = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).producer();
    await producer.connect();
    const t0 = Date.now() - 60_000;
    await producer.send({ topic, messages: Array.from({ length: 5 }, (_, i) => ({ partition: 0, value: `v${i}`, timestamp: String(t0 + i * 1000) })) });
    await producer.send({ topic, messages: [{ partition: 1, value: 'only' }] });
    await producer.disconnect();

    const offsets = async (...args: string[]) => (await tool('kafka-get-offsets', [...bs, '--topic', topic, ...args])).stdout.trim().split('\n');
    expect(await offsets()).toEqual([`${topic}:0:5`, `${topic}:1:1`]);
    expect(await offsets('--time', '-2')).toEqual([`${topic}:0:0`, `${topic}:1:0`]);
    expect(await offsets('--time', String(t0 + 2500), '--partitions', '0')).toEqual([`${topic}:0:3`]);
    // -3: the record with the largest timestamp (partition 0's newest by time, offset 4).
    expect(await offsets('--time', '-3')).toEqual([`${topic}:0:4`, `${topic}:1:0`]);

    const json = JSON.stringify({ version: 1, partitions: [{ topic, partition: 0, offset: 2 }] });
    const file = path.join(pool.dir('krill-tools-delete-records-'), 'offsets.json');
    fs.writeFileSync(file, json);
    const deleted = await tool('kafka-delete-records', [...bs, '--offset-json-file', file]);
    expect(deleted.stdout).toContain(`partition: ${topic}-0\tlow_watermark: 2`);
    expect(await offsets('--time', '-2')).toEqual([`${topic}:0:2`, `${topic}:1:0`]);
    // -4, the earliest offset kept locally: without tiered storage, the log start too.
    expect(await offsets('--time', '-4')).toEqual([`${topic}:0:2`, `${topic}:1:0`]);
    expect((await admin.fetchTopicOffsets(topic)).find((p) => p.partition === 0)).toMatchObject({ low: '2', high: '5' });
  });

  it('kafka-broker-api-versions: every API krill advertises, usable at the version krill names, nothing else', async () => {
    const out = (await tool('kafka-broker-api-versions', bs)).stdout;
    const client = await TestClient.connect(broker.port);
    let advertised: { apiKey: number; minVersion: number; maxVersion: number }[];
    try {
      advertised = ((await client.request(18, 3, { clientSoftwareName: 'compat', clientSoftwareVersion: '1' })) as { apiKeys: typeof advertised }).apiKeys;
    } finally {
      client.close();
    }
    const listed = [...out.matchAll(/^\t(\w+)\((\d+)\): (.*?),?$/gm)].map(([, name, key, versions]) => ({ name, key: Number(key), versions }));
    expect(listed.length).toBeGreaterThan(50);
    expect(out).toMatch(new RegExp(`^${broker.bootstrap.replace(/\./g, '\\.')} \\(id: 1 rack: null isFenced: false\\) -> \\(`, 'm'));
    const byKey = new Map(advertised.map((a) => [a.apiKey, a]));
    for (const l of listed) {
      const a = byKey.get(l.key);
      if (!a) {
        expect(l.versions, `${l.name}(${l.key}) is not advertised`).toBe('UNSUPPORTED');
        continue;
      }
      // "min to max [usable: v]": the tool's own client can use krill's newest version, never NONE.
      const range = a.minVersion === a.maxVersion ? `${a.maxVersion}` : `${a.minVersion} to ${a.maxVersion}`;
      expect(l.versions, `${l.name}(${l.key})`).toBe(`${range} [usable: ${a.maxVersion}]`);
    }
    // Every API krill advertises is one the 4.4.0 client knows and lists.
    const known = new Set(listed.map((l) => l.key));
    expect(advertised.filter((a) => !known.has(a.apiKey))).toEqual([]);
  });
});
