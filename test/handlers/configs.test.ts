// DescribeConfigs, AlterConfigs and IncrementalAlterConfigs on a live broker, over the wire: values,
// sources and synonyms as Kafka gives them, each error in its resource's slot, changes that Produce and
// the logs see at once, and dynamic configs that survive a restart on the same data dir.
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { useBrokerAndClient, useTempDirs, withBroker } from '../helpers.js';
import { TestClient } from '../server/client.js';
import { batchesOf, createTopic, fetchOne, produce, produceOk, uniqueTopic, values } from '../server/kafka.js';
import { buildBatch } from '../../protocol/record-batch.js';
import { ErrorCode } from '../../protocol/errors.js';
import { Broker } from '../../src/broker.js';
import { BrokerConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import type { Message } from '../../protocol/codec.js';

const live = useBrokerAndClient({ config: { 'log.segment.bytes': '1048576', 'log.retention.hours': '24' } });
const tempDirs = useTempDirs('krill-configs-');

const TOPIC = 2;
const BROKER = 4;
const BROKER_LOGGER = 8;
const [SET, DELETE, APPEND, SUBTRACT] = [0, 1, 2, 3];

interface Resource {
  resourceType: number;
  resourceName: string;
  configurationKeys?: string[] | null;
}

async function describeConfigs(
  resources: Resource[],
  opts: { version?: number; includeSynonyms?: boolean; includeDocumentation?: boolean; client?: TestClient } = {},
) {
  const res = await (opts.client ?? live.client).request(32, opts.version ?? 4, {
    resources: resources.map((r) => ({ configurationKeys: null, ...r })),
    includeSynonyms: opts.includeSynonyms ?? false,
    includeDocumentation: opts.includeDocumentation ?? false,
  });
  return res.results;
}

async function topicConfigs(name: string, opts: Parameters<typeof describeConfigs>[1] = {}): Promise<Message> {
  const [r] = await describeConfigs([{ resourceType: TOPIC, resourceName: name }], { includeSynonyms: true, ...opts });
  expect(r.errorCode, r.errorMessage).toBe(0);
  return Object.fromEntries(r.configs.map((c: Message) => [c.name, c]));
}

async function alter(resourceType: number, resourceName: string, configs: Record<string, string | null>, validateOnly = false, client = live.client) {
  const res = await client.request(33, 2, {
    resources: [{ resourceType, resourceName, configs: Object.entries(configs).map(([name, value]) => ({ name, value })) }],
    validateOnly,
  });
  return res.responses[0];
}

async function incremental(resourceType: number, resourceName: string, ops: [string, number, string | null][], validateOnly = false, client = live.client) {
  const res = await client.request(44, 1, {
    resources: [{ resourceType, resourceName, configs: ops.map(([name, configOperation, value]) => ({ name, configOperation, value })) }],
    validateOnly,
  });
  return res.responses[0];
}

describe('DescribeConfigs', () => {
  it("lists a topic's configs with Kafka's sources and synonyms", async () => {
    const name = uniqueTopic('dc');
    await createTopic(live.client, name, 1, { 'max.message.bytes': '5000' });
    const c = await topicConfigs(name);
    // As Kafka (and kafkajs's own test) has it: a default with a broker default names it, DEFAULT_CONFIG.
    expect(c['compression.type']).toMatchObject({
      value: 'producer',
      readOnly: false,
      isSensitive: false,
      configSource: 5,
      synonyms: [{ name: 'compression.type', value: 'producer', source: 5 }],
    });
    // The topic's own override first, then the broker's chain from message.max.bytes on.
    expect(c['max.message.bytes']).toMatchObject({
      value: '5000',
      configSource: 1,
      synonyms: [
        { name: 'max.message.bytes', value: '5000', source: 1 },
        { name: 'message.max.bytes', value: '1048588', source: 5 },
      ],
    });
    // Set at start: STATIC_BROKER_CONFIG, then the default.
    expect(c['segment.bytes']).toMatchObject({
      value: '1048576',
      configSource: 4,
      synonyms: [
        { name: 'log.segment.bytes', value: '1048576', source: 4 },
        { name: 'log.segment.bytes', value: '1073741824', source: 5 },
      ],
    });
    // log.retention.ms has no value anywhere, so Kafka lists no synonym (log.retention.hours comes after it).
    expect(c['retention.ms']).toMatchObject({ value: String(24 * 3_600_000), configSource: 5, synonyms: [] });
    expect(c['cleanup.policy']).toMatchObject({ value: 'delete', configSource: 5 });
    expect(Object.keys(c)).toContain('min.insync.replicas');
  });

  it("keeps and lists Kafka's topic configs krill has no use for, with their values checked", async () => {
    const name = uniqueTopic('kafka-only');
    await createTopic(live.client, name, 1, { 'unclean.leader.election.enable': 'false', 'flush.messages': '1', 'segment.index.bytes': '4096' });
    const c = await topicConfigs(name);
    expect(c['unclean.leader.election.enable']).toMatchObject({ value: 'false', configSource: 1 });
    expect(c['flush.messages']).toMatchObject({ value: '1', configSource: 1 });
    expect(c['preallocate']).toMatchObject({ value: 'false', configSource: 5, synonyms: [] });
    expect(c['segment.index.bytes']).toMatchObject({ value: '4096', configSource: 1 });
    const [typed] = await describeConfigs([{ resourceType: TOPIC, resourceName: name, configurationKeys: ['preallocate', 'flush.ms'] }], {
      version: 3,
      includeDocumentation: true,
    });
    expect(typed.configs.map((e: { name: string; configType: number }) => [e.name, e.configType])).toEqual([
      ['flush.ms', 5],
      ['preallocate', 1],
    ]);
    expect(typed.configs[1].documentation).toMatch(/no effect on krill/);
    expect(await incremental(TOPIC, name, [['preallocate', SET, 'maybe']])).toMatchObject({
      errorCode: ErrorCode.INVALID_CONFIG,
      errorMessage: "preallocate: 'maybe' is not true or false",
    });
    expect(await incremental(TOPIC, name, [['preallocate', SET, 'true']])).toMatchObject({ errorCode: 0 });
    expect((await topicConfigs(name))['preallocate']).toMatchObject({ value: 'true', configSource: 1 });
  });

  it('lists only the keys asked for; an unknown key is just not listed', async () => {
    const name = uniqueTopic('dk');
    await createTopic(live.client, name);
    const [r] = await describeConfigs([{ resourceType: TOPIC, resourceName: name, configurationKeys: ['cleanup.policy', 'no.such.config'] }]);
    expect(r.configs.map((c: Message) => c.name)).toEqual(['cleanup.policy']);
    const [all] = await describeConfigs([{ resourceType: TOPIC, resourceName: name, configurationKeys: [] }]);
    expect(all.configs.length).toBeGreaterThan(10);
  });

  it('v0 says isDefault; v1-2 leave synonyms out unless asked; v3+ give the type and the documentation', async () => {
    const name = uniqueTopic('dv');
    await createTopic(live.client, name, 1, { 'retention.ms': '1000' });
    const v0 = await topicConfigs(name, { version: 0 });
    expect(v0['retention.ms']).toMatchObject({ value: '1000', isDefault: false });
    expect(v0['cleanup.policy']).toMatchObject({ isDefault: true });
    const v1 = await topicConfigs(name, { version: 1, includeSynonyms: false });
    expect(v1['retention.ms']).toMatchObject({ configSource: 1, synonyms: [] });
    const v3 = await topicConfigs(name, { version: 3, includeDocumentation: true });
    expect(v3['retention.ms']).toMatchObject({ configType: 5 });
    expect(v3['cleanup.policy']).toMatchObject({ configType: 7 });
    expect(v3['min.cleanable.dirty.ratio']).toMatchObject({ configType: 6 });
    expect(v3['max.message.bytes']).toMatchObject({ configType: 3 });
    expect(v3['compression.type']).toMatchObject({ configType: 2 });
    expect(v3['retention.ms'].documentation).toMatch(/deleted/);
    const undocumented = await topicConfigs(name, { version: 3 });
    expect(undocumented['retention.ms'].documentation).toBeNull();
  });

  it('describes the broker: static, default, read-only and dynamic configs', async () => {
    const [r] = await describeConfigs([{ resourceType: BROKER, resourceName: '1' }], { includeSynonyms: true });
    expect(r.errorCode).toBe(0);
    const c = Object.fromEntries(r.configs.map((e: Message) => [e.name, e]));
    expect(c['log.segment.bytes']).toMatchObject({ value: '1048576', configSource: 4, readOnly: false });
    expect(c['log.retention.hours']).toMatchObject({
      value: '24',
      configSource: 4,
      readOnly: true,
      synonyms: [
        { name: 'log.retention.hours', value: '24', source: 4 },
        { name: 'log.retention.hours', value: '168', source: 5 },
      ],
    });
    expect(c['log.retention.ms']).toMatchObject({ value: null, configSource: 5, readOnly: false });
    expect(c['num.partitions']).toMatchObject({ value: '1', configSource: 5, readOnly: true });
    expect(c['message.max.bytes']).toMatchObject({ readOnly: false, configSource: 5 });
  });

  it('answers each resource on its own: unknown topic, illegal name, another broker, a broker logger', async () => {
    const name = uniqueTopic('dr');
    await createTopic(live.client, name);
    const results = await describeConfigs([
      { resourceType: TOPIC, resourceName: 'no-such-topic-x' },
      { resourceType: TOPIC, resourceName: 'bad name' },
      { resourceType: BROKER, resourceName: '7' },
      { resourceType: BROKER, resourceName: 'x' },
      { resourceType: BROKER_LOGGER, resourceName: '1' },
      { resourceType: 99, resourceName: 'a' },
      { resourceType: TOPIC, resourceName: name, configurationKeys: ['segment.ms'] },
    ]);
    expect(results.map((r: Message) => r.errorCode)).toEqual([
      ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
      ErrorCode.INVALID_TOPIC_EXCEPTION,
      ErrorCode.INVALID_REQUEST,
      ErrorCode.INVALID_REQUEST,
      0,
      ErrorCode.INVALID_REQUEST,
      0,
    ]);
    expect(results[2].errorMessage).toMatch(/expected 1/);
    expect(results[4].configs).toMatchObject([{ name: 'root', configSource: 6 }]);
    expect(results[6].configs).toMatchObject([{ name: 'segment.ms', value: '604800000' }]);
  });
});

describe('AlterConfigs and IncrementalAlterConfigs on a topic', () => {
  it('AlterConfigs replaces the whole set of overrides; validateOnly changes nothing', async () => {
    const name = uniqueTopic('at');
    await createTopic(live.client, name, 1, { 'retention.ms': '1000' });
    expect(await alter(TOPIC, name, { 'cleanup.policy': 'compact' }, true)).toMatchObject({ errorCode: 0, errorMessage: null });
    expect((await topicConfigs(name))['cleanup.policy'].value).toBe('delete');
    expect(await alter(TOPIC, name, { 'cleanup.policy': 'compact', 'segment.ms': '60000' })).toMatchObject({
      errorCode: 0,
      resourceName: name,
      resourceType: TOPIC,
    });
    const c = await topicConfigs(name);
    expect(c['cleanup.policy']).toMatchObject({ value: 'compact', configSource: 1 });
    expect(c['segment.ms']).toMatchObject({ value: '60000', configSource: 1 });
    // Left out, so back to the default.
    expect(c['retention.ms']).toMatchObject({ value: String(24 * 3_600_000), configSource: 5 });
    const saved = JSON.parse(fs.readFileSync(path.join(live.broker.dataDir, 'krill-topics.json'), 'utf8'));
    expect(saved.topics.find((t: Message) => t.name === name).configs).toEqual({ 'cleanup.policy': 'compact', 'segment.ms': '60000' });
  });

  it('IncrementalAlterConfigs: SET, DELETE, APPEND and SUBTRACT (LIST configs only)', async () => {
    const name = uniqueTopic('it');
    await createTopic(live.client, name, 1, { 'retention.bytes': '1000' });
    // APPEND starts from the default ("delete") when the topic does not set the config.
    expect(
      await incremental(TOPIC, name, [
        ['cleanup.policy', APPEND, 'compact'],
        ['retention.bytes', DELETE, null],
        ['segment.bytes', SET, '20000'],
      ]),
    ).toMatchObject({ errorCode: 0 });
    let c = await topicConfigs(name);
    expect(c['cleanup.policy']).toMatchObject({ value: 'delete,compact', configSource: 1 });
    expect(c['retention.bytes']).toMatchObject({ value: '-1', configSource: 5 });
    expect(c['segment.bytes']).toMatchObject({ value: '20000', configSource: 1 });
    expect(await incremental(TOPIC, name, [['cleanup.policy', SUBTRACT, 'delete']])).toMatchObject({ errorCode: 0 });
    c = await topicConfigs(name);
    expect(c['cleanup.policy'].value).toBe('compact');
    const refused = await incremental(TOPIC, name, [['segment.bytes', APPEND, '5']]);
    expect(refused).toMatchObject({ errorCode: ErrorCode.INVALID_CONFIG, errorMessage: "Can't APPEND to key segment.bytes because its type is not LIST." });
    // DELETE of a config the topic does not set (even an unknown name) is nothing to do, as in Kafka.
    expect(await incremental(TOPIC, name, [['no.such.config', DELETE, null]])).toMatchObject({ errorCode: 0 });
  });

  it('refuses unknown names and bad values with INVALID_CONFIG and a reason, and changes nothing', async () => {
    const name = uniqueTopic('ir');
    await createTopic(live.client, name);
    const cases: [Record<string, string | null>, RegExp][] = [
      [{ 'no.such.config': '1' }, /unknown topic config 'no.such.config'/],
      [{ 'retention.ms': 'soon' }, /retention.ms: 'soon' is not an integer/],
      [{ 'cleanup.policy': 'shred' }, /'shred' is not one of delete, compact/],
      [{ 'min.cleanable.dirty.ratio': '1.5' }, /above the maximum 1/],
      [{ 'min.compaction.lag.ms': '10', 'max.compaction.lag.ms': '5' }, /min.compaction.lag.ms \(10\) > max.compaction.lag.ms \(5\)/],
    ];
    for (const [configs, message] of cases) {
      const r = await alter(TOPIC, name, configs);
      expect(r.errorCode).toBe(ErrorCode.INVALID_CONFIG);
      expect(r.errorMessage).toMatch(message);
      const i = await incremental(
        TOPIC,
        name,
        Object.entries(configs).map(([k, v]) => [k, SET, v]),
      );
      expect(i.errorCode).toBe(ErrorCode.INVALID_CONFIG);
    }
    const c = await topicConfigs(name);
    expect(Object.values(c).filter((e: Message) => e.configSource === 1)).toEqual([]);
  });

  it("answers the request's own mistakes per resource: unknown topic, duplicates, null values, unknown operations", async () => {
    const name = uniqueTopic('iq');
    await createTopic(live.client, name);
    expect(await alter(TOPIC, 'no-such-topic-y', { 'retention.ms': '1' })).toMatchObject({ errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION });
    expect(await alter(TOPIC, name, { 'retention.ms': null })).toMatchObject({
      errorCode: ErrorCode.INVALID_REQUEST,
      errorMessage: 'Null value not supported for : retention.ms',
    });
    expect(
      await incremental(TOPIC, name, [
        ['retention.ms', SET, '1'],
        ['retention.ms', DELETE, null],
      ]),
    ).toMatchObject({ errorCode: ErrorCode.INVALID_REQUEST });
    expect(await incremental(TOPIC, name, [['retention.ms', 9, '1']])).toMatchObject({ errorCode: ErrorCode.INVALID_REQUEST });
    const twice = await live.client.request(44, 1, {
      resources: [0, 1].map(() => ({ resourceType: TOPIC, resourceName: name, configs: [{ name: 'retention.ms', configOperation: SET, value: '5' }] })),
      validateOnly: false,
    });
    expect(twice.responses.map((r: Message) => r.errorCode)).toEqual([ErrorCode.INVALID_REQUEST, ErrorCode.INVALID_REQUEST]);
    expect((await topicConfigs(name))['retention.ms'].configSource).toBe(5);
    expect(await incremental(BROKER_LOGGER, '1', [['root', SET, 'DEBUG']])).toMatchObject({ errorCode: ErrorCode.INVALID_REQUEST });
    expect(await alter(BROKER_LOGGER, '1', { root: 'DEBUG' })).toMatchObject({ errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Unknown resource type 8' });
  });

  it('takes effect at once: max.message.bytes, compression.type, message.timestamp.type, segment.bytes', async () => {
    const name = uniqueTopic('ie');
    await createTopic(live.client, name);
    const big = buildBatch([{ key: 'k', value: 'x'.repeat(3000) }]);
    expect((await produce(live.client, name, 0, big)).errorCode).toBe(0);
    expect(
      await incremental(TOPIC, name, [
        ['max.message.bytes', SET, '1000'],
        ['compression.type', SET, 'gzip'],
        ['message.timestamp.type', SET, 'LogAppendTime'],
      ]),
    ).toMatchObject({ errorCode: 0 });
    expect((await produce(live.client, name, 0, big)).errorCode).toBe(ErrorCode.MESSAGE_TOO_LARGE);
    const before = Date.now();
    const offset = await produceOk(live.client, name, 0, [{ key: 'k', value: 'small', timestamp: 1 }]);
    const fetched = await fetchOne(live.client, name, 0, offset);
    const [batch] = batchesOf(fetched.records);
    expect(batch.compression).toBe(1); // gzip, recompressed by the broker
    expect(batch.timestampType).toBe(1);
    expect(batch.maxTimestamp).toBeGreaterThanOrEqual(before);
    // segment.bytes reaches the partition log: the next appends roll.
    expect(await incremental(TOPIC, name, [['segment.bytes', SET, '200']])).toMatchObject({ errorCode: 0 });
    const segments = () => fs.readdirSync(path.join(live.broker.dataDir, `${name}-0`)).filter((f) => f.endsWith('.log')).length;
    const had = segments();
    for (let i = 0; i < 3; i++) await produceOk(live.client, name, 0, values(3, `s${i}-`));
    expect(segments()).toBeGreaterThan(had);
  });
});

describe('dynamic broker configs', () => {
  it('refuses configs that are not dynamic, bad values and another broker (INVALID_REQUEST)', async () => {
    const cases: [string, Record<string, string>, RegExp][] = [
      ['1', { 'num.partitions': '3' }, /Cannot update these configs dynamically: num.partitions/],
      ['', { 'log.retention.hours': '1' }, /Cannot update these configs dynamically: log.retention.hours/],
      ['', { 'num.io.threads': '3' }, /Cannot update these configs dynamically: num.io.threads/],
      ['1', { 'message.max.bytes': 'big' }, /message.max.bytes: 'big' is not an integer/],
      ['1', { 'max.connections.per.ip': '0' }, /only with max.connections.per.ip.overrides/],
      ['2', { 'message.max.bytes': '100' }, /Unexpected broker id, expected 1, but received 2/],
    ];
    for (const [resourceName, configs, message] of cases) {
      const r = await alter(BROKER, resourceName, configs);
      expect(r.errorCode, JSON.stringify(configs)).toBe(ErrorCode.INVALID_REQUEST);
      expect(r.errorMessage).toMatch(message);
    }
    const [broker] = await describeConfigs([{ resourceType: BROKER, resourceName: '' }]);
    expect(broker.configs).toEqual([]);
  });

  it('stores a name no broker config has, as Kafka does (kafkajs sets cleanup.policy on a broker), unused and not described', async () => {
    const dir = tempDirs();
    let broker = await withBroker({ dataDir: dir });
    let client = await TestClient.connect(broker.port);
    try {
      expect(await alter(BROKER, '1', { 'cleanup.policy': 'delete', 'log.cleanup.policy': 'compact' }, false, client)).toMatchObject({ errorCode: 0 });
      const stored = JSON.parse(fs.readFileSync(path.join(dir, 'krill-broker-configs.json'), 'utf8'));
      expect(stored.brokers['1']).toEqual({ 'log.cleanup.policy': 'compact', 'cleanup.policy': 'delete' });
      const [b] = await describeConfigs([{ resourceType: BROKER, resourceName: '1', configurationKeys: ['cleanup.policy', 'log.cleanup.policy'] }], { client });
      expect(b.configs.map((c: { name: string; value: string }) => [c.name, c.value])).toEqual([['log.cleanup.policy', 'compact']]);
      // An incremental change keeps it; after a restart it is still stored.
      expect(await incremental(BROKER, '1', [['log.cleanup.policy', DELETE, null]], false, client)).toMatchObject({ errorCode: 0 });
      client.close();
      await broker.close();
      broker = await withBroker({ dataDir: dir });
      client = await TestClient.connect(broker.port);
      expect(JSON.parse(fs.readFileSync(path.join(dir, 'krill-broker-configs.json'), 'utf8')).brokers['1']).toEqual({ 'cleanup.policy': 'delete' });
      // AlterConfigs replaces the whole set: it goes.
      expect(await alter(BROKER, '1', { 'message.max.bytes': '2000000' }, false, client)).toMatchObject({ errorCode: 0 });
      expect(JSON.parse(fs.readFileSync(path.join(dir, 'krill-broker-configs.json'), 'utf8')).brokers['1']).toEqual({ 'message.max.bytes': '2000000' });
    } finally {
      client.close();
      await broker.close();
    }
  });

  it('a cluster-wide default, then a per-broker value: precedence, sources, synonyms and every topic without an override', async () => {
    const dir = tempDirs();
    const broker = await withBroker({ dataDir: dir, config: { 'message.max.bytes': '900000' } });
    const client = await TestClient.connect(broker.port);
    try {
      const plain = uniqueTopic('bp');
      const own = uniqueTopic('bo');
      await createTopic(client, plain);
      await createTopic(client, own, 1, { 'max.message.bytes': '7000' });
      expect(
        await incremental(
          BROKER,
          '',
          [
            ['message.max.bytes', SET, '2000'],
            ['log.retention.ms', SET, '60000'],
            ['log.cleanup.policy', APPEND, 'compact'],
          ],
          false,
          client,
        ),
      ).toMatchObject({ errorCode: 0 });
      const [cluster] = await describeConfigs([{ resourceType: BROKER, resourceName: '' }], { includeSynonyms: true, client });
      expect(cluster.configs.map((c: Message) => [c.name, c.value, c.configSource])).toEqual([
        ['log.cleanup.policy', 'delete,compact', 3],
        ['log.retention.ms', '60000', 3],
        ['message.max.bytes', '2000', 3],
      ]);
      let c = await topicConfigs(plain, { client });
      expect(c['max.message.bytes']).toMatchObject({
        value: '2000',
        configSource: 3,
        synonyms: [
          { name: 'message.max.bytes', value: '2000', source: 3 },
          { name: 'message.max.bytes', value: '900000', source: 4 },
          { name: 'message.max.bytes', value: '1048588', source: 5 },
        ],
      });
      expect(c['retention.ms']).toMatchObject({ value: '60000', configSource: 3 });
      expect(c['cleanup.policy']).toMatchObject({ value: 'delete,compact', configSource: 3 });
      expect((await topicConfigs(own, { client }))['max.message.bytes']).toMatchObject({ value: '7000', configSource: 1 });
      // Produce sees the new default at once; the topic with its own value keeps it.
      const batch = buildBatch([{ key: 'k', value: 'x'.repeat(3000) }]);
      expect((await produce(client, plain, 0, batch)).errorCode).toBe(ErrorCode.MESSAGE_TOO_LARGE);
      expect((await produce(client, own, 0, batch)).errorCode).toBe(0);

      // This broker's own value wins over the cluster-wide one.
      expect(await alter(BROKER, '1', { 'message.max.bytes': '5000' }, false, client)).toMatchObject({ errorCode: 0 });
      c = await topicConfigs(plain, { client });
      expect(c['max.message.bytes']).toMatchObject({ value: '5000', configSource: 2 });
      expect(c['max.message.bytes'].synonyms.map((s: Message) => s.source)).toEqual([2, 3, 4, 5]);
      expect((await produce(client, plain, 0, batch)).errorCode).toBe(0);

      const file = JSON.parse(fs.readFileSync(path.join(dir, 'krill-broker-configs.json'), 'utf8'));
      expect(file).toEqual({
        version: 1,
        cluster: { 'message.max.bytes': '2000', 'log.retention.ms': '60000', 'log.cleanup.policy': 'delete,compact' },
        brokers: { 1: { 'message.max.bytes': '5000' } },
      });
    } finally {
      client.close();
      await broker.close();
    }

    // Same data dir: every layer comes back.
    const again = await withBroker({ dataDir: dir, config: { 'message.max.bytes': '900000' } });
    const client2 = await TestClient.connect(again.port);
    try {
      const [b] = await describeConfigs([{ resourceType: BROKER, resourceName: '1', configurationKeys: ['message.max.bytes', 'log.retention.ms'] }], {
        includeSynonyms: true,
        client: client2,
      });
      expect(b.configs).toMatchObject([
        { name: 'log.retention.ms', value: '60000', configSource: 3 },
        { name: 'message.max.bytes', value: '5000', configSource: 2, synonyms: [{ source: 2 }, { source: 3 }, { source: 4 }, { source: 5 }] },
      ]);
      // AlterConfigs on a level replaces it whole: the cluster-wide defaults go.
      expect(await alter(BROKER, '', {}, false, client2)).toMatchObject({ errorCode: 0 });
      const [cluster] = await describeConfigs([{ resourceType: BROKER, resourceName: '' }], { client: client2 });
      expect(cluster.configs).toEqual([]);
      const name = uniqueTopic('br');
      await createTopic(client2, name);
      const c = await topicConfigs(name, { client: client2 });
      expect(c['retention.ms']).toMatchObject({ value: '604800000', configSource: 5 });
      expect(c['max.message.bytes']).toMatchObject({ value: '5000', configSource: 2 });
    } finally {
      client2.close();
      await again.close();
    }
  });

  it('connection quotas change for new connections; open ones stay', async () => {
    const broker = await withBroker();
    const client = await TestClient.connect(broker.port);
    try {
      expect(await incremental(BROKER, '1', [['max.connections.per.ip', SET, '1']], false, client)).toMatchObject({ errorCode: 0 });
      const refused = await TestClient.connect(broker.port);
      await expect(refused.request(18, 3, { clientSoftwareName: 'x', clientSoftwareVersion: '1' })).rejects.toThrow(/connection closed/);
      // The open one still works, and can lift the quota again.
      expect(await incremental(BROKER, '1', [['max.connections.per.ip', DELETE, null]], false, client)).toMatchObject({ errorCode: 0 });
      const admitted = await TestClient.connect(broker.port);
      expect((await admitted.request(18, 3, { clientSoftwareName: 'x', clientSoftwareVersion: '1' })).errorCode).toBe(0);
      admitted.close();
    } finally {
      client.close();
      await broker.close();
    }
  });

  it("reschedules the log cleaner when log.cleaner.threads changes, within Kafka's half-to-double rule", async () => {
    const dir = tempDirs();
    const broker = await Broker.start(new BrokerConfig({ listeners: 'PLAINTEXT://127.0.0.1:0', 'log.dirs': dir }), createLogger('warn'));
    const client = await TestClient.connect(broker.listener.port);
    const tasks = () => [0, 1, 2].map((i) => broker.scheduler.has(`log-cleaner-${i}`));
    try {
      expect(tasks()).toEqual([true, false, false]);
      expect(await incremental(BROKER, '1', [['log.cleaner.threads', SET, '2']], false, client)).toMatchObject({ errorCode: 0 });
      expect(tasks()).toEqual([true, true, false]);
      expect(await incremental(BROKER, '1', [['log.cleaner.threads', SET, '0']], false, client)).toMatchObject({
        errorCode: ErrorCode.INVALID_REQUEST,
        errorMessage: 'Log cleaner threads should be at least 1',
      });
      expect(await incremental(BROKER, '1', [['log.cleaner.threads', SET, '5']], false, client)).toMatchObject({
        errorCode: ErrorCode.INVALID_REQUEST,
        errorMessage: 'Log cleaner threads cannot be increased to more than double the current value 2',
      });
      expect(await incremental(BROKER, '', [['log.cleaner.threads', SET, '65']], false, client)).toMatchObject({ errorCode: ErrorCode.INVALID_REQUEST });
      expect(tasks()).toEqual([true, true, false]);
      expect(await incremental(BROKER, '1', [['log.cleaner.threads', DELETE, null]], false, client)).toMatchObject({ errorCode: 0 });
      expect(tasks()).toEqual([true, false, false]);
    } finally {
      client.close();
      await broker.close();
    }
  });

  it('reaches the partition logs: a lower log.segment.bytes rolls segments of topics without an override', async () => {
    const dir = tempDirs();
    const broker = await withBroker({ dataDir: dir });
    const client = await TestClient.connect(broker.port);
    try {
      const name = uniqueTopic('bs');
      await createTopic(client, name);
      expect(await incremental(BROKER, '1', [['log.segment.bytes', SET, '300']], false, client)).toMatchObject({ errorCode: 0 });
      for (let i = 0; i < 5; i++) await produceOk(client, name, 0, values(3, `r${i}-`));
      const segments = fs.readdirSync(path.join(dir, `${name}-0`)).filter((f) => f.endsWith('.log'));
      expect(segments.length).toBeGreaterThan(1);
    } finally {
      client.close();
      await broker.close();
    }
  });

  it("at start, checks the stored levels together: a cluster-wide value may need this broker's", async () => {
    const dir = tempDirs();
    fs.writeFileSync(
      path.join(dir, 'krill-broker-configs.json'),
      JSON.stringify({
        version: 1,
        cluster: { 'max.connections.per.ip': '0', 'log.retention.ms': '5000' },
        brokers: { 1: { 'max.connections.per.ip.overrides': '127.0.0.1:5' } },
      }),
    );
    const broker = await withBroker({ dataDir: dir });
    const client = await TestClient.connect(broker.port);
    try {
      const [b] = await describeConfigs(
        [{ resourceType: BROKER, resourceName: '1', configurationKeys: ['max.connections.per.ip', 'max.connections.per.ip.overrides', 'log.retention.ms'] }],
        { client },
      );
      expect(b.configs.map((c: Message) => [c.name, c.value, c.configSource])).toEqual([
        ['log.retention.ms', '5000', 3],
        ['max.connections.per.ip', '0', 3],
        ['max.connections.per.ip.overrides', '127.0.0.1:5', 2],
      ]);
    } finally {
      client.close();
      await broker.close();
    }
  });

  it('a stored value no longer valid is dropped with the rest kept; an unreadable file stops the start', async () => {
    const dir = tempDirs();
    fs.writeFileSync(
      path.join(dir, 'krill-broker-configs.json'),
      JSON.stringify({
        version: 1,
        cluster: { 'message.max.bytes': '3000', 'num.partitions': '4' },
        brokers: { 1: { 'log.retention.ms': 'x' }, 2: { 'message.max.bytes': '1' } },
      }),
    );
    const broker = await withBroker({ dataDir: dir, logLevel: 'error' }); // the two dropped entries are warned about
    const client = await TestClient.connect(broker.port);
    try {
      const [b] = await describeConfigs(
        [{ resourceType: BROKER, resourceName: '1', configurationKeys: ['message.max.bytes', 'num.partitions', 'log.retention.ms'] }],
        { client },
      );
      expect(b.configs.map((c: Message) => [c.name, c.value, c.configSource])).toEqual([
        ['log.retention.ms', null, 5],
        ['message.max.bytes', '3000', 3],
        ['num.partitions', '1', 5],
      ]);
      // Another node id's entry is kept as it was.
      expect(await alter(BROKER, '1', { 'log.roll.ms': '1000' }, false, client)).toMatchObject({ errorCode: 0 });
      const file = JSON.parse(fs.readFileSync(path.join(dir, 'krill-broker-configs.json'), 'utf8'));
      expect(file.brokers).toEqual({ 1: { 'log.roll.ms': '1000' }, 2: { 'message.max.bytes': '1' } });
    } finally {
      client.close();
      await broker.close();
    }
    fs.writeFileSync(path.join(dir, 'krill-broker-configs.json'), '{ not json');
    await expect(withBroker({ dataDir: dir })).rejects.toThrow(/krill-broker-configs.json is unusable/);
  });
});
