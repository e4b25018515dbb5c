// Compatibility: kafkajs 2.2.4's admin.describeConfigs / admin.alterConfigs against a real krill, with the
// expectations of kafkajs's own test suite (src/broker/__tests__/describeConfigs.spec.js and
// src/admin/__tests__/{describe,alter}Configs.spec.js) where they hold for a single broker, plus changes
// that take effect without a restart (what a producer is refused, how batches are stored) and changes that
// survive one.

import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type RunningBroker } from '../../src/index.js';
import { useTempDirs } from '../../test/helpers.js';

const require = createRequire(import.meta.url);
/* eslint-disable @typescript-eslint/no-explicit-any */
const { Kafka, logLevel, ConfigResourceTypes, ConfigSource, CompressionTypes, Partitioners } = require('kafkajs');

process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';

function client(bootstrap: string): any {
  return new Kafka({
    clientId: 'krill-compat-configs',
    brokers: [bootstrap],
    logLevel: logLevel.NOTHING,
    connectionTimeout: 3000,
    requestTimeout: 10_000,
    retry: { retries: 2, initialRetryTime: 100, maxRetryTime: 1000 },
  });
}

let seq = 0;
const topicName = (label: string) => `kafkajs-configs-${label}-${process.pid}-${++seq}`;
const tempDirs = useTempDirs('krill-kafkajs-configs-');

const topicResource = (name: string, configNames?: string[]) => ({ type: ConfigResourceTypes.TOPIC, name, ...(configNames ? { configNames } : {}) });

/** The codec (attributes bits 0-2) of the first batch of a partition's first segment, as stored. */
function storedCodec(dataDir: string, topic: string): number {
  const log = fs.readFileSync(path.join(dataDir, `${topic}-0`, '00000000000000000000.log'));
  return log.readInt16BE(21) & 0x07;
}

describe(`kafkajs ${require('kafkajs/package.json').version} describeConfigs / alterConfigs against krill`, { timeout: 30_000 }, () => {
  let broker: RunningBroker;
  let admin: any;
  let producer: any;

  beforeAll(async () => {
    broker = await startBroker({ port: 0, host: '127.0.0.1', dataDir: tempDirs() });
    const kafka = client(broker.bootstrap);
    admin = kafka.admin({ retry: { retries: 2 } });
    producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, allowAutoTopicCreation: false, retry: { retries: 0 } });
    await admin.connect();
    await producer.connect();
  }, 30_000);

  afterAll(async () => {
    await producer?.disconnect();
    await admin?.disconnect();
    await broker?.close();
  });

  async function configsOf(topic: string, configNames?: string[]): Promise<Record<string, any>> {
    const res = await admin.describeConfigs({ includeSynonyms: true, resources: [topicResource(topic, configNames)] });
    return Object.fromEntries(res.resources[0].configEntries.map((e: any) => [e.configName, e]));
  }

  it("describes a topic with synonyms exactly as kafkajs's own test expects of Kafka", async () => {
    const topic = topicName('syn');
    await admin.createTopics({ topics: [{ topic }, { topic: topicName('other') }] });
    const res = await admin.describeConfigs({ includeSynonyms: true, resources: [topicResource(topic, ['compression.type', 'retention.ms'])] });
    expect(res.resources).toEqual([
      {
        configEntries: [
          {
            configName: 'compression.type',
            configValue: 'producer',
            isDefault: true,
            configSource: ConfigSource.DEFAULT_CONFIG,
            isSensitive: false,
            readOnly: false,
            configSynonyms: [{ configName: 'compression.type', configValue: 'producer', configSource: 5 }],
          },
          {
            configName: 'retention.ms',
            configValue: '604800000',
            isDefault: true,
            configSource: ConfigSource.DEFAULT_CONFIG,
            isSensitive: false,
            readOnly: false,
            configSynonyms: [],
          },
        ],
        errorCode: 0,
        errorMessage: null,
        resourceName: topic,
        resourceType: ConfigResourceTypes.TOPIC,
      },
    ]);
  });

  it("describes all configs: every one kafkajs's test lists that krill honours, with its Kafka default", async () => {
    const topic = topicName('all');
    await admin.createTopics({ topics: [{ topic }] });
    const res = await admin.describeConfigs({ resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames: [] }] });
    const entries = Object.fromEntries(res.resources[0].configEntries.map((e: any) => [e.configName, e]));
    const expected: Record<string, string> = {
      'compression.type': 'producer',
      'file.delete.delay.ms': '60000',
      'max.compaction.lag.ms': '9223372036854775807',
      'min.compaction.lag.ms': '0',
      'message.timestamp.type': 'CreateTime',
      'min.insync.replicas': '1',
      'index.interval.bytes': '4096',
      'min.cleanable.dirty.ratio': '0.5',
      'retention.bytes': '-1',
      'delete.retention.ms': '86400000',
      'cleanup.policy': 'delete',
      'segment.bytes': '1073741824',
      'retention.ms': '604800000',
      'segment.ms': '604800000',
      'message.timestamp.difference.max.ms': '9223372036854775807',
    };
    for (const [name, value] of Object.entries(expected)) {
      expect(entries[name], name).toEqual({
        configName: name,
        configValue: value,
        isDefault: true,
        configSource: ConfigSource.DEFAULT_CONFIG,
        isSensitive: false,
        readOnly: false,
        configSynonyms: [],
      });
    }
  });

  it('describes a topic and the broker in one call', async () => {
    const topic = topicName('broker');
    await admin.createTopics({ topics: [{ topic }] });
    const res = await admin.describeConfigs({
      includeSynonyms: true,
      resources: [topicResource(topic, ['cleanup.policy']), { type: ConfigResourceTypes.BROKER, name: '1' }],
    });
    expect(res.resources).toHaveLength(2);
    const brokerEntries = res.resources.find((r: any) => r.resourceType === ConfigResourceTypes.BROKER).configEntries;
    expect(brokerEntries.find((e: any) => e.configName === 'log.cleanup.policy')).toMatchObject({ configValue: 'delete', readOnly: false, configSource: 5 });
    expect(brokerEntries.find((e: any) => e.configName === 'log.dirs')).toMatchObject({ configValue: broker.dataDir, readOnly: true, configSource: 4 });
  });

  it("alters a topic (validateOnly first), as kafkajs's alterConfigs tests do", async () => {
    const topic = topicName('alter');
    await admin.createTopics({ topics: [{ topic }] });
    const change = { resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configEntries: [{ name: 'cleanup.policy', value: 'compact' }] }] };
    await admin.alterConfigs({ ...change, validateOnly: true });
    expect((await configsOf(topic, ['cleanup.policy']))['cleanup.policy'].configValue).toBe('delete');
    const res = await admin.alterConfigs(change);
    expect(res.resources).toEqual([{ errorCode: 0, errorMessage: null, resourceName: topic, resourceType: ConfigResourceTypes.TOPIC }]);
    expect((await configsOf(topic, ['cleanup.policy']))['cleanup.policy']).toMatchObject({
      configValue: 'compact',
      isDefault: false,
      configSource: ConfigSource.TOPIC_CONFIG,
      configSynonyms: [
        { configName: 'cleanup.policy', configValue: 'compact', configSource: 1 },
        { configName: 'log.cleanup.policy', configValue: 'delete', configSource: 5 },
      ],
    });
  });

  it('an invalid value or an unknown name is refused with INVALID_CONFIG', async () => {
    const topic = topicName('bad');
    await admin.createTopics({ topics: [{ topic }] });
    for (const entry of [
      { name: 'retention.ms', value: 'forever' },
      { name: 'retention.mss', value: '1' },
    ]) {
      const err = await admin.alterConfigs({ resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configEntries: [entry] }] }).catch((e: any) => e);
      expect(err?.type, String(err)).toBe('INVALID_CONFIG');
    }
  });

  it('max.message.bytes and compression.type take effect without a restart', async () => {
    const topic = topicName('live');
    await admin.createTopics({ topics: [{ topic }] });
    await admin.alterConfigs({
      resources: [
        {
          type: ConfigResourceTypes.TOPIC,
          name: topic,
          configEntries: [
            { name: 'max.message.bytes', value: '2000' },
            { name: 'compression.type', value: 'gzip' },
          ],
        },
      ],
    });
    const err = await producer.send({ topic, messages: [{ value: 'x'.repeat(5000) }] }).catch((e: any) => e);
    expect(err?.type ?? err?.cause?.type, String(err)).toBe('MESSAGE_TOO_LARGE');
    await producer.send({ topic, compression: CompressionTypes.None, messages: [{ value: 'small' }] });
    expect(storedCodec(broker.dataDir, topic)).toBe(1); // the broker recompressed to gzip
  });

  it('a topic change and a broker change survive a restart on the same data dir', async () => {
    const dataDir = tempDirs();
    const topic = topicName('restart');
    let b = await startBroker({ port: 0, host: '127.0.0.1', dataDir });
    let a = client(b.bootstrap).admin();
    await a.connect();
    await a.createTopics({ topics: [{ topic }] });
    await a.alterConfigs({
      resources: [
        { type: ConfigResourceTypes.TOPIC, name: topic, configEntries: [{ name: 'retention.ms', value: '3600000' }] },
        { type: ConfigResourceTypes.BROKER, name: '1', configEntries: [{ name: 'log.retention.bytes', value: '123456789' }] },
      ],
    });
    await a.disconnect();
    await b.close();

    b = await startBroker({ port: 0, host: '127.0.0.1', dataDir });
    a = client(b.bootstrap).admin();
    await a.connect();
    try {
      const res = await a.describeConfigs({
        includeSynonyms: true,
        resources: [
          topicResource(topic, ['retention.ms', 'retention.bytes']),
          { type: ConfigResourceTypes.BROKER, name: '1', configNames: ['log.retention.bytes'] },
        ],
      });
      const [t, br] = [0, 1].map((i) => Object.fromEntries(res.resources[i].configEntries.map((e: any) => [e.configName, e])));
      expect(t['retention.ms']).toMatchObject({ configValue: '3600000', configSource: ConfigSource.TOPIC_CONFIG });
      expect(t['retention.bytes']).toMatchObject({ configValue: '123456789', configSource: ConfigSource.DYNAMIC_BROKER_CONFIG });
      expect(br['log.retention.bytes']).toMatchObject({ configValue: '123456789', configSource: ConfigSource.DYNAMIC_BROKER_CONFIG, readOnly: false });
    } finally {
      await a.disconnect();
      await b.close();
    }
  });
});
