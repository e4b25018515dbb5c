// CreateTopics and DeleteTopics on a live broker, including what they leave on disk.
import { describe, expect, it, vi } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { useBrokerAndClient, withBroker } from '../helpers.js';
import { TestClient } from '../server/client.js';
import { API, ZERO_UUID, createTopic, metadataBody, produceOk, uniqueTopic, values } from '../server/kafka.js';
import type { Message } from '../../protocol/codec.js';

// Deleted topics' directories are renamed at once and removed log.segment.delete.delay.ms later: at once here.
const live = useBrokerAndClient({ config: { 'num.partitions': '2', 'log.segment.delete.delay.ms': '0' } });
const removed = (check: () => void) => vi.waitFor(check, { timeout: 5_000, interval: 20 });

interface Spec {
  name: string;
  numPartitions?: number;
  replicationFactor?: number;
  configs?: Record<string, string | null>;
  assignments?: { partitionIndex: number; brokerIds: number[] }[];
}

async function create(specs: Spec[], opts: { version?: number; validateOnly?: boolean } = {}) {
  const res = await live.client.request(API.CreateTopics, opts.version ?? 7, {
    topics: specs.map((s) => ({
      name: s.name,
      numPartitions: s.numPartitions ?? 1,
      replicationFactor: s.replicationFactor ?? 1,
      assignments: s.assignments ?? [],
      configs: Object.entries(s.configs ?? {}).map(([name, value]) => ({ name, value })),
    })),
    timeoutMs: 5000,
    validateOnly: opts.validateOnly ?? false,
  });
  // A name given twice is answered once.
  expect(res.topics).toHaveLength(new Set(specs.map((s) => s.name)).size);
  return res.topics;
}

async function exists(name: string): Promise<boolean> {
  const res = await live.client.request(API.Metadata, 9, metadataBody([name], false));
  return res.topics[0].errorCode === 0;
}

function partitionDirs(name: string): string[] {
  return fs.readdirSync(live.broker.dataDir).filter((d) => d.startsWith(`${name}-`));
}

describe('CreateTopics', () => {
  it('creates a topic: v7 returns its id, partitions, replication factor and configs', async () => {
    const name = uniqueTopic('c');
    const [t] = await create([{ name, numPartitions: 3, configs: { 'compression.type': 'zstd', 'max.message.bytes': '2000' } }]);
    expect(t).toMatchObject({ name, errorCode: 0, errorMessage: null, numPartitions: 3, replicationFactor: 1 });
    expect(t.topicId.equals(ZERO_UUID)).toBe(false);
    const byName = Object.fromEntries(t.configs.map((c: Message) => [c.name, c]));
    expect(byName['compression.type']).toMatchObject({ value: 'zstd', readOnly: false, configSource: 1, isSensitive: false });
    expect(byName['max.message.bytes']).toMatchObject({ value: '2000', configSource: 1 });
    expect(byName['message.timestamp.type']).toMatchObject({ value: 'CreateTime', configSource: 5 });
    expect(partitionDirs(name).sort()).toEqual([`${name}-0`, `${name}-1`, `${name}-2`]);
    const md = await live.client.request(API.Metadata, 10, metadataBody([name], false));
    expect(md.topics[0].topicId.equals(t.topicId)).toBe(true);
    expect(md.topics[0].partitions).toHaveLength(3);
  });

  it('echoes configs from v5, and v2-4 still create', async () => {
    for (const v of [2, 3, 4, 5, 6]) {
      const name = uniqueTopic(`v${v}`);
      const [t] = await create([{ name, numPartitions: 1, configs: { 'cleanup.policy': 'delete' } }], { version: v });
      expect(t.errorCode).toBe(0);
      if (v >= 5) {
        expect(t.numPartitions).toBe(1);
        expect(t.configs.find((c: Message) => c.name === 'cleanup.policy')).toMatchObject({ value: 'delete', configSource: 1 });
      }
      expect(await exists(name)).toBe(true);
    }
  });

  it('numPartitions and replicationFactor -1 take the broker defaults', async () => {
    const name = uniqueTopic('dflt');
    const [t] = await create([{ name, numPartitions: -1, replicationFactor: -1 }]);
    expect(t).toMatchObject({ errorCode: 0, numPartitions: 2, replicationFactor: 1 });
  });

  it('validateOnly checks and answers like a creation, but creates nothing', async () => {
    const name = uniqueTopic('vo');
    const [t] = await create([{ name, numPartitions: 4, configs: { 'compression.type': 'gzip' } }], { validateOnly: true });
    expect(t).toMatchObject({ name, errorCode: 0, numPartitions: 4, replicationFactor: 1 });
    expect(t.configs.find((c: Message) => c.name === 'compression.type').value).toBe('gzip');
    expect(await exists(name)).toBe(false);
    expect(partitionDirs(name)).toEqual([]);
    const [bad] = await create([{ name, numPartitions: 0 }], { validateOnly: true });
    expect(bad.errorCode).toBe(37);
  });

  it('TOPIC_ALREADY_EXISTS for an existing topic', async () => {
    const name = uniqueTopic('dup');
    await createTopic(live.client, name);
    const [t] = await create([{ name, numPartitions: 1 }]);
    expect(t.errorCode).toBe(36);
    expect(t.errorMessage).toContain(name);
  });

  it('INVALID_PARTITIONS for 0 and -5', async () => {
    for (const n of [0, -5]) {
      const name = uniqueTopic('ip');
      const [t] = await create([{ name, numPartitions: n }]);
      expect(t).toMatchObject({ errorCode: 37, numPartitions: -1, replicationFactor: -1, configs: [] });
      expect(await exists(name)).toBe(false);
    }
  });

  it('INVALID_REPLICATION_FACTOR for 3 (and 0)', async () => {
    for (const rf of [3, 0]) {
      const name = uniqueTopic('rf');
      const [t] = await create([{ name, replicationFactor: rf }]);
      expect(t.errorCode).toBe(38);
      expect(await exists(name)).toBe(false);
    }
  });

  it('INVALID_CONFIG for an unknown config name and for bad values', async () => {
    const cases: Record<string, string | null>[] = [
      { 'no.such.config': '1' },
      { 'compression.type': 'brotli' },
      { 'max.message.bytes': 'abc' },
      { 'max.message.bytes': '-1' },
      { 'message.timestamp.type': 'Whenever' },
      { 'cleanup.policy': 'shred' },
      { 'segment.bytes': null },
    ];
    for (const configs of cases) {
      const name = uniqueTopic('cfg');
      const [t] = await create([{ name, configs }]);
      expect(t.errorCode, JSON.stringify(configs)).toBe(40);
      expect(t.errorMessage).toBeTruthy();
      expect(await exists(name)).toBe(false);
    }
  });

  it('INVALID_TOPIC_EXCEPTION for illegal names', async () => {
    for (const name of ['a/b', 'x'.repeat(250), '..', '']) {
      const [t] = await create([{ name }]);
      expect(t.errorCode, name).toBe(17);
    }
  });

  it('a name given twice in one request fails with INVALID_REQUEST, answered once; the other topics are created', async () => {
    const twice = uniqueTopic('twice');
    const other = uniqueTopic('other');
    const res = await create([{ name: twice }, { name: other }, { name: twice }]);
    expect(res.map((t: Message) => [t.name, t.errorCode])).toEqual([
      [twice, 42],
      [other, 0],
    ]);
    expect(await exists(twice)).toBe(false);
    expect(await exists(other)).toBe(true);
  });

  it("names that collide once '.' reads as '_' are INVALID_TOPIC_EXCEPTION (Kafka's metric-name rule)", async () => {
    const base = uniqueTopic('col');
    const dotted = `${base}.x.y`;
    await createTopic(live.client, dotted);
    const [t] = await create([{ name: `${base}_x_y` }]);
    expect(t.errorCode).toBe(17);
    expect(t.errorMessage).toContain(dotted);
    const [mixed] = await create([{ name: `${base}_x.y` }], { validateOnly: true });
    expect(mixed.errorCode).toBe(17);
    // auto-creation through Metadata follows the same rule
    const md = await live.client.request(API.Metadata, 9, metadataBody([`${base}.x_y`]));
    expect(md.topics[0].errorCode).toBe(17);
    expect(await exists(`${base}_x_y`)).toBe(false);
    // the same name is TOPIC_ALREADY_EXISTS, not a collision
    expect((await create([{ name: dotted }]))[0].errorCode).toBe(36);
  });

  it('manual assignments onto this broker are accepted; onto another broker they are not', async () => {
    const ok = uniqueTopic('asg');
    const [t] = await create([
      {
        name: ok,
        numPartitions: -1,
        replicationFactor: -1,
        assignments: [
          { partitionIndex: 0, brokerIds: [1] },
          { partitionIndex: 1, brokerIds: [1] },
        ],
      },
    ]);
    expect(t).toMatchObject({ errorCode: 0, numPartitions: 2 });
    const [bad] = await create([{ name: uniqueTopic('asg'), numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 0, brokerIds: [2] }] }]);
    expect(bad.errorCode).toBe(39);
  });
});

describe('DeleteTopics', () => {
  it('deletes by name (v1-5) and removes the partition directories', async () => {
    for (const v of [1, 4, 5]) {
      const name = uniqueTopic(`del${v}`);
      await createTopic(live.client, name, 2);
      await produceOk(live.client, name, 0, values(3));
      expect(partitionDirs(name)).toHaveLength(2);
      const res = await live.client.request(API.DeleteTopics, v, { topicNames: [name], timeoutMs: 5000 });
      expect(res.responses).toHaveLength(1);
      expect(res.responses[0]).toMatchObject({ name, errorCode: 0 });
      expect(await exists(name)).toBe(false);
      await removed(() => expect(partitionDirs(name)).toEqual([]));
    }
  });

  it('deletes by id (v6) and by name (v6)', async () => {
    const byId = uniqueTopic('delid');
    const byName = uniqueTopic('delname');
    const created = await createTopic(live.client, byId, 1);
    await createTopic(live.client, byName, 1);
    const res = await live.client.request(API.DeleteTopics, 6, {
      topics: [
        { name: null, topicId: created.topicId },
        { name: byName, topicId: ZERO_UUID },
      ],
      timeoutMs: 5000,
    });
    expect(res.responses).toHaveLength(2);
    expect(res.responses[0]).toMatchObject({ name: byId, errorCode: 0, errorMessage: null });
    expect(res.responses[0].topicId.equals(created.topicId)).toBe(true);
    expect(res.responses[1]).toMatchObject({ name: byName, errorCode: 0 });
    expect(await exists(byId)).toBe(false);
    expect(await exists(byName)).toBe(false);
    await removed(() => expect(partitionDirs(byId)).toEqual([]));
    await removed(() => expect(partitionDirs(byName)).toEqual([]));
  });

  it('unknown names are UNKNOWN_TOPIC_OR_PARTITION, unknown ids UNKNOWN_TOPIC_ID', async () => {
    const missing = uniqueTopic('gone');
    const v4 = await live.client.request(API.DeleteTopics, 4, { topicNames: [missing], timeoutMs: 5000 });
    expect(v4.responses[0]).toMatchObject({ name: missing, errorCode: 3 });
    const v6 = await live.client.request(API.DeleteTopics, 6, {
      topics: [
        { name: null, topicId: Buffer.alloc(16, 5) },
        { name: missing, topicId: ZERO_UUID },
      ],
      timeoutMs: 5000,
    });
    expect(v6.responses.map((r: Message) => r.errorCode)).toEqual([100, 3]);
    expect(v6.responses[0].name).toBeNull();
  });

  it('a deleted topic can be recreated empty, with a new id', async () => {
    const name = uniqueTopic('again');
    const first = await createTopic(live.client, name, 1);
    await produceOk(live.client, name, 0, values(5));
    await live.client.request(API.DeleteTopics, 5, { topicNames: [name], timeoutMs: 5000 });
    const second = await createTopic(live.client, name, 1);
    expect(second.topicId.equals(first.topicId)).toBe(false);
    const res = await live.client.request(API.ListOffsets, 7, {
      replicaId: -1,
      isolationLevel: 0,
      topics: [{ name, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1 }] }],
    });
    expect(res.topics[0].partitions[0]).toMatchObject({ errorCode: 0, offset: 0 });
  });

  // The partition directory is renamed to `<topic>-<p>.<id>-delete` before removal; like Kafka
  // (LocalLog.logDirNameWithSuffixCappedLength), the topic part is shortened to fit 255 bytes.
  it('deletes a topic with a 249-character name', async () => {
    const name =
      'd'.repeat(240) +
      uniqueTopic('')
        .slice(-9)
        .replace(/[^a-z0-9]/gi, 'x');
    expect(name.length).toBe(249);
    await createTopic(live.client, name, 2);
    const c = await TestClient.connect(live.broker.port);
    try {
      const res = await c.request(API.DeleteTopics, 6, { topics: [{ name, topicId: ZERO_UUID }], timeoutMs: 5000 });
      expect(res.responses[0]).toMatchObject({ name, errorCode: 0 });
      await removed(() => expect(fs.readdirSync(live.broker.dataDir).filter((d) => d.startsWith(name.slice(0, 200)))).toEqual([]));
    } finally {
      c.close();
    }
  });

  it('delete.topic.enable=false answers TOPIC_DELETION_DISABLED and keeps the topic', async () => {
    const b = await withBroker({ config: { 'delete.topic.enable': 'false' } });
    const c = await TestClient.connect(b.port);
    try {
      const name = uniqueTopic('keep');
      await createTopic(c, name);
      const res = await c.request(API.DeleteTopics, 6, { topics: [{ name, topicId: ZERO_UUID }], timeoutMs: 5000 });
      expect(res.responses[0].errorCode).toBe(73);
      expect(fs.existsSync(path.join(b.dataDir, `${name}-0`))).toBe(true);
    } finally {
      c.close();
      await b.close();
    }
  });
});
