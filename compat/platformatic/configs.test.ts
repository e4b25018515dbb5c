// Compatibility: @platformatic/kafka's Admin describeConfigs (v4, with documentation), alterConfigs (v2) and
// incrementalAlterConfigs (v1) against a real krill: the one Node client here with IncrementalAlterConfigs.
// SET / DELETE / APPEND / SUBTRACT on a topic and on the broker, INVALID_CONFIG for a bad value, changes the
// client's own producer feels at once, and dynamic configs read back after a restart on the same data dir.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Admin,
  type IncrementalAlterConfigsOptions,
  ConfigResourceTypes,
  ConfigSources,
  IncrementalAlterConfigOperationTypes as Op,
  Producer,
  ProduceAcks,
  stringSerializers,
} from '@platformatic/kafka';
import { startBroker, type RunningBroker } from '../../src/index.js';
import { useTempDirs } from '../../test/helpers.js';

const BASE = { clientId: 'krill-compat-platformatic-configs', retries: 0, retryDelay: 100, timeout: 10_000, connectTimeout: 3000 };
const tempDirs = useTempDirs('krill-platformatic-configs-');

let seq = 0;
const topicName = (label: string) => `platformatic-configs-${label}-${process.pid}-${++seq}`;

/** The error ids the client reports, however deep it wraps them. */
function apiIds(err: unknown): string[] {
  const e = err as { errors?: unknown[]; apiId?: string } | null;
  if (!e) return [];
  return [...(e.apiId ? [e.apiId] : []), ...(Array.isArray(e.errors) ? e.errors.flatMap(apiIds) : [])];
}

describe('@platformatic/kafka config admin against krill', { timeout: 30_000 }, () => {
  let dataDir: string;
  let broker: RunningBroker;
  let admin: Admin;

  const open = async () => {
    broker = await startBroker({ port: 0, host: '127.0.0.1', dataDir });
    admin = new Admin({ ...BASE, bootstrapBrokers: [broker.bootstrap] });
  };
  const shut = async () => {
    await admin?.close();
    await broker?.close();
  };

  beforeAll(async () => {
    dataDir = tempDirs();
    await open();
  });
  afterAll(shut);

  async function topicConfigs(topic: string, configurationKeys?: string[]) {
    const [d] = await admin.describeConfigs({
      resources: [{ resourceType: ConfigResourceTypes.TOPIC, resourceName: topic, configurationKeys }],
      includeSynonyms: true,
      includeDocumentation: true,
    });
    return Object.fromEntries(d.configs.map((c) => [c.name, c]));
  }

  it('describeConfigs v4: values, sources, synonyms, types and documentation', async () => {
    const topic = topicName('d');
    await admin.createTopics({ topics: [topic], configs: [{ name: 'retention.ms', value: '60000' }] });
    const c = await topicConfigs(topic);
    expect(c['retention.ms']).toMatchObject({ value: '60000', configSource: ConfigSources.TOPIC_CONFIG, configType: 5, readOnly: false, isSensitive: false });
    expect(c['retention.ms'].synonyms).toEqual([{ name: 'retention.ms', value: '60000', source: ConfigSources.TOPIC_CONFIG }]);
    expect(c['cleanup.policy']).toMatchObject({ value: 'delete', configSource: ConfigSources.DEFAULT_CONFIG, configType: 7 });
    expect(c['cleanup.policy'].documentation).toMatch(/compact/);
  });

  it('incrementalAlterConfigs on a topic: SET, APPEND, SUBTRACT, DELETE; validateOnly; INVALID_CONFIG', async () => {
    const topic = topicName('i');
    await admin.createTopics({ topics: [topic], configs: [{ name: 'retention.bytes', value: '100000' }] });
    const resource = (configs: IncrementalAlterConfigsOptions['resources'][number]['configs']) => ({
      resources: [{ resourceType: ConfigResourceTypes.TOPIC, resourceName: topic, configs }],
    });
    await admin.incrementalAlterConfigs({ ...resource([{ name: 'segment.ms', configOperation: Op.SET, value: '100000' }]), validateOnly: true });
    expect((await topicConfigs(topic, ['segment.ms']))['segment.ms'].configSource).toBe(ConfigSources.DEFAULT_CONFIG);
    await admin.incrementalAlterConfigs(
      resource([
        { name: 'segment.ms', configOperation: Op.SET, value: '100000' },
        { name: 'cleanup.policy', configOperation: Op.APPEND, value: 'compact' },
        { name: 'retention.bytes', configOperation: Op.DELETE },
      ]),
    );
    let c = await topicConfigs(topic);
    expect(c['segment.ms']).toMatchObject({ value: '100000', configSource: ConfigSources.TOPIC_CONFIG });
    expect(c['cleanup.policy']).toMatchObject({ value: 'delete,compact', configSource: ConfigSources.TOPIC_CONFIG });
    expect(c['retention.bytes']).toMatchObject({ value: '-1', configSource: ConfigSources.DEFAULT_CONFIG });
    await admin.incrementalAlterConfigs(resource([{ name: 'cleanup.policy', configOperation: Op.SUBTRACT, value: 'delete' }]));
    c = await topicConfigs(topic, ['cleanup.policy']);
    expect(c['cleanup.policy'].value).toBe('compact');
    const bad = await admin.incrementalAlterConfigs(resource([{ name: 'segment.ms', configOperation: Op.SET, value: '0' }])).catch((e) => e);
    expect(apiIds(bad)).toContain('INVALID_CONFIG');
    const notList = await admin.incrementalAlterConfigs(resource([{ name: 'segment.ms', configOperation: Op.APPEND, value: '5' }])).catch((e) => e);
    expect(apiIds(notList)).toContain('INVALID_CONFIG');
  });

  it("a lower message.max.bytes on the broker refuses the client's bigger batches at once; a topic of its own keeps its limit", async () => {
    const plain = topicName('p');
    const own = topicName('o');
    await admin.createTopics({ topics: [plain] });
    await admin.createTopics({ topics: [own], configs: [{ name: 'max.message.bytes', value: '100000' }] });
    // The client sends a BROKER resource to the broker its name parses to, so the cluster-wide "" (node 0 to
    // it) cannot be reached with it: this broker's own level (test/handlers/configs.test.ts covers "").
    await admin.incrementalAlterConfigs({
      resources: [
        { resourceType: ConfigResourceTypes.BROKER, resourceName: '1', configs: [{ name: 'message.max.bytes', configOperation: Op.SET, value: '2000' }] },
      ],
    });
    const producer = new Producer({ ...BASE, bootstrapBrokers: [broker.bootstrap], serializers: stringSerializers, acks: ProduceAcks.LEADER });
    try {
      const big = [{ key: 'k', value: 'x'.repeat(5000) }];
      const refused = await producer.send({ messages: big.map((m) => ({ ...m, topic: plain })) }).catch((e) => e);
      expect(apiIds(refused)).toContain('MESSAGE_TOO_LARGE');
      await producer.send({ messages: big.map((m) => ({ ...m, topic: own })) });
    } finally {
      await producer.close();
    }
    const [brokerDescribed] = await admin.describeConfigs({
      resources: [{ resourceType: ConfigResourceTypes.BROKER, resourceName: '1', configurationKeys: ['message.max.bytes'] }],
    });
    expect(brokerDescribed.configs.map((c) => [c.name, c.value, c.configSource, c.readOnly])).toEqual([
      ['message.max.bytes', '2000', ConfigSources.DYNAMIC_BROKER_CONFIG, false],
    ]);
    await admin.incrementalAlterConfigs({
      resources: [{ resourceType: ConfigResourceTypes.BROKER, resourceName: '1', configs: [{ name: 'message.max.bytes', configOperation: Op.DELETE }] }],
    });
    const refusedName = await admin
      .incrementalAlterConfigs({
        resources: [{ resourceType: ConfigResourceTypes.BROKER, resourceName: '1', configs: [{ name: 'log.dirs', configOperation: Op.SET, value: '/tmp/x' }] }],
      })
      .catch((e) => e);
    expect(apiIds(refusedName)).toContain('INVALID_REQUEST');
  });

  it('dynamic broker configs and topic overrides come back after a restart', async () => {
    const topic = topicName('r');
    await admin.createTopics({ topics: [topic] });
    await admin.alterConfigs({
      resources: [{ resourceType: ConfigResourceTypes.TOPIC, resourceName: topic, configs: [{ name: 'compression.type', value: 'zstd' }] }],
    });
    await admin.incrementalAlterConfigs({
      resources: [
        { resourceType: ConfigResourceTypes.BROKER, resourceName: '1', configs: [{ name: 'log.retention.ms', configOperation: Op.SET, value: '7200000' }] },
      ],
    });
    await shut();
    await open();
    const c = await topicConfigs(topic, ['compression.type', 'retention.ms']);
    expect(c['compression.type']).toMatchObject({ value: 'zstd', configSource: ConfigSources.TOPIC_CONFIG });
    expect(c['retention.ms']).toMatchObject({ value: '7200000', configSource: ConfigSources.DYNAMIC_BROKER_CONFIG });
    expect(c['retention.ms'].synonyms).toEqual([
      { name: 'log.retention.ms', value: '7200000', source: ConfigSources.DYNAMIC_BROKER_CONFIG },
      { name: 'log.retention.hours', value: '168', source: ConfigSources.DEFAULT_CONFIG },
    ]);
  });
});
