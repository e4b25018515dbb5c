// Config administration from Python, against a real krill on a real port (Debian's /usr/bin/python3):
// confluent-kafka-python's AdminClient (librdkafka) describe_configs / alter_configs, and kafka-python's
// KafkaAdminClient describe_configs / alter_configs, via compat/python/configs_client.py. Values, sources
// and synonyms as each client reports them, INVALID_CONFIG with its message, a change a producer feels at
// once, and changes that survive a restart on the same data dir. (Neither client version here has
// incremental_alter_configs: confluent-kafka-python gained it in 2.2; test/handlers/configs.test.ts
// drives IncrementalAlterConfigs over the wire instead.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type RunningBroker } from '../../src/index.js';
import { useTempDirs } from '../../test/helpers.js';
import { encodeRecord, py } from './py.js';
import type { Json } from '../util.js';

const TEST_TIMEOUT = 60_000;
const configs = <T = Json>(command: string, args: object) => py<T>('configs_client.py', command, args);
const tempDirs = useTempDirs('krill-py-configs-');

let seq = 0;
const topicName = (label: string) => `py-configs-${label}-${process.pid}-${++seq}`;

let broker: RunningBroker;
let dataDir: string;

beforeAll(async () => {
  dataDir = tempDirs();
  broker = await startBroker({ port: 0, host: '127.0.0.1', dataDir, config: { 'log.segment.bytes': '2097152' } });
});
afterAll(() => broker?.close());

async function createTopic(name: string, config: Record<string, string> = {}, bootstrap = broker.bootstrap) {
  const res = await py('ck_client.py', 'create_topics', { bootstrap, topics: [{ name, partitions: 1, config }] });
  expect(res.results[name], JSON.stringify(res)).toEqual({ ok: true });
}

describe('confluent-kafka-python AdminClient', { timeout: TEST_TIMEOUT }, () => {
  it("describe_configs: a topic's values, sources and synonyms, and the broker's", async () => {
    const topic = topicName('ck');
    await createTopic(topic, { 'retention.ms': '3600000' });
    const res = await configs('ck_describe', {
      bootstrap: broker.bootstrap,
      resources: [
        { type: 'topic', name: topic },
        { type: 'broker', name: '1' },
      ],
    });
    const [t, b] = res.results.map((r: Json) => r.configs);
    expect(t['retention.ms']).toMatchObject({
      value: '3600000',
      source: 1,
      is_default: false,
      is_read_only: false,
      synonyms: [['retention.ms', '3600000', 1]],
    });
    // The client keeps synonyms in a dict by name: of log.segment.bytes STATIC and DEFAULT, the last one stays.
    expect(t['segment.bytes']).toMatchObject({ value: '2097152', source: 4, synonyms: [['log.segment.bytes', '1073741824', 5]] });
    expect(t['cleanup.policy']).toMatchObject({ value: 'delete', source: 5, is_default: true, synonyms: [['log.cleanup.policy', 'delete', 5]] });
    expect(b['log.segment.bytes']).toMatchObject({ value: '2097152', source: 4, is_read_only: false });
    expect(b['num.partitions']).toMatchObject({ value: '1', source: 5, is_read_only: true });
  });

  it('alter_configs: validate_only, a change, and INVALID_CONFIG / INVALID_REQUEST / UNKNOWN_TOPIC_OR_PARTITION with their messages', async () => {
    const topic = topicName('ca');
    await createTopic(topic);
    const boot = { bootstrap: broker.bootstrap };
    expect(
      (await configs('ck_alter', { ...boot, validate_only: true, resources: [{ type: 'topic', name: topic, configs: { 'cleanup.policy': 'compact' } }] }))
        .results,
    ).toEqual([{ ok: true }]);
    let t = (await configs('ck_describe', { ...boot, resources: [{ type: 'topic', name: topic }] })).results[0].configs;
    expect(t['cleanup.policy'].value).toBe('delete');
    const res = await configs('ck_alter', {
      ...boot,
      resources: [
        { type: 'topic', name: topic, configs: { 'cleanup.policy': 'compact', 'min.compaction.lag.ms': '1000' } },
        { type: 'topic', name: 'py-configs-no-such-topic', configs: { 'retention.ms': '1' } },
        { type: 'broker', name: '1', configs: { 'num.io.threads': '4' } },
      ],
    });
    expect(res.results).toEqual([
      { ok: true },
      { error: 'UNKNOWN_TOPIC_OR_PART', code: 3, message: "Topic 'py-configs-no-such-topic' does not exist." },
      { error: 'INVALID_REQUEST', code: 42, message: 'Cannot update these configs dynamically: num.io.threads' },
    ]);
    t = (await configs('ck_describe', { ...boot, resources: [{ type: 'topic', name: topic }] })).results[0].configs;
    expect(t['cleanup.policy']).toMatchObject({ value: 'compact', source: 1 });
    expect(t['min.compaction.lag.ms']).toMatchObject({ value: '1000', source: 1 });
    const bad = await configs('ck_alter', { ...boot, resources: [{ type: 'topic', name: topic, configs: { 'retention.ms': 'x' } }] });
    expect(bad.results).toEqual([{ error: 'INVALID_CONFIG', code: 40, message: "retention.ms: 'x' is not an integer" }]);
    const unknown = await configs('ck_alter', { ...boot, resources: [{ type: 'topic', name: topic, configs: { 'retention.msec': '1' } }] });
    expect(unknown.results).toEqual([{ error: 'INVALID_CONFIG', code: 40, message: "unknown topic config 'retention.msec'" }]);
  });

  it('a lower max.message.bytes refuses a bigger message at once (MSG_SIZE_TOO_LARGE)', async () => {
    const topic = topicName('cm');
    await createTopic(topic);
    const record = (n: number) => encodeRecord({ key: 'k', value: 'x'.repeat(n) });
    const send = (n: number) => py('ck_client.py', 'produce', { bootstrap: broker.bootstrap, topic, records: [record(n)], codec: 'none' });
    expect((await send(4000)).reports[0].error).toBeUndefined();
    expect(
      (await configs('ck_alter', { bootstrap: broker.bootstrap, resources: [{ type: 'topic', name: topic, configs: { 'max.message.bytes': '1500' } }] }))
        .results,
    ).toEqual([{ ok: true }]);
    expect((await send(4000)).reports[0]).toMatchObject({ error: 'MSG_SIZE_TOO_LARGE' });
    expect((await send(100)).reports[0].error).toBeUndefined();
  });
});

describe('kafka-python KafkaAdminClient', { timeout: TEST_TIMEOUT }, () => {
  it('describe_configs with synonyms (v2) for a topic and the broker; alter_configs answers per resource', async () => {
    const topic = topicName('kp');
    await createTopic(topic, { 'compression.type': 'lz4' });
    const boot = { bootstrap: broker.bootstrap };
    const res = await configs('kp_describe', {
      ...boot,
      include_synonyms: true,
      resources: [
        { type: 'topic', name: topic, keys: ['compression.type', 'retention.ms'] },
        { type: 'broker', name: '1', keys: ['compression.type', 'log.dirs'] },
      ],
    });
    const [t, b] = res.results;
    expect(t).toMatchObject({ error_code: 0, version: 2 });
    // [value, read_only, source, is_sensitive, synonyms]
    expect(t.configs['compression.type']).toEqual([
      'lz4',
      false,
      1,
      false,
      [
        ['compression.type', 'lz4', 1],
        ['compression.type', 'producer', 5],
      ],
    ]);
    expect(t.configs['retention.ms']).toEqual(['604800000', false, 5, false, []]);
    expect(b.configs['compression.type']).toEqual(['producer', false, 5, false, [['compression.type', 'producer', 5]]]);
    expect(b.configs['log.dirs']).toEqual([dataDir, true, 4, false, [['log.dirs', dataDir, 4]]]);

    const altered = await configs('kp_alter', {
      ...boot,
      resources: [
        { type: 'topic', name: topic, configs: { 'retention.ms': '-2' } },
        { type: 'topic', name: topic, configs: { 'retention.ms': '120000' } },
      ],
    });
    expect(altered.results).toEqual([{ responses: [[40, 'retention.ms: -2 is below the minimum -1', 2, topic]] }, { responses: [[0, null, 2, topic]] }]);
    const after = await configs('kp_describe', { ...boot, resources: [{ type: 'topic', name: topic, keys: ['retention.ms', 'compression.type'] }] });
    // AlterConfigs replaced the whole set: compression.type is back to its default.
    expect(after.results[0].configs['retention.ms'].slice(0, 3)).toEqual(['120000', false, 1]);
    expect(after.results[0].configs['compression.type'].slice(0, 3)).toEqual(['producer', false, 5]);
  });
});

describe('round trips across a restart', { timeout: TEST_TIMEOUT }, () => {
  it('what confluent-kafka-python sets, kafka-python reads back after a restart on the same data dir', async () => {
    const dir = tempDirs();
    const topic = topicName('rt');
    let b = await startBroker({ port: 0, host: '127.0.0.1', dataDir: dir });
    try {
      await createTopic(topic, {}, b.bootstrap);
      const set = await configs('ck_alter', {
        bootstrap: b.bootstrap,
        resources: [
          { type: 'topic', name: topic, configs: { 'retention.bytes': '1048576', 'segment.ms': '600000' } },
          { type: 'broker', name: '1', configs: { 'log.cleaner.delete.retention.ms': '1000', 'max.connections': '1000' } },
        ],
      });
      expect(set.results).toEqual([{ ok: true }, { ok: true }]);
    } finally {
      await b.close();
    }
    b = await startBroker({ port: 0, host: '127.0.0.1', dataDir: dir });
    try {
      const res = await configs('kp_describe', {
        bootstrap: b.bootstrap,
        include_synonyms: true,
        resources: [
          { type: 'topic', name: topic, keys: ['retention.bytes', 'segment.ms', 'delete.retention.ms'] },
          { type: 'broker', name: '1', keys: ['max.connections', 'log.cleaner.delete.retention.ms'] },
        ],
      });
      const [t, br] = res.results.map((r: Json) => r.configs);
      expect(t['retention.bytes'].slice(0, 3)).toEqual(['1048576', false, 1]);
      expect(t['segment.ms'].slice(0, 3)).toEqual(['600000', false, 1]);
      expect(t['delete.retention.ms']).toEqual([
        '1000',
        false,
        2,
        false,
        [
          ['log.cleaner.delete.retention.ms', '1000', 2],
          ['log.cleaner.delete.retention.ms', '86400000', 5],
        ],
      ]);
      expect(br['max.connections'].slice(0, 3)).toEqual(['1000', false, 2]);
    } finally {
      await b.close();
    }
  });
});
