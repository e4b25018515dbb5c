// CreatePartitions, DescribeLogDirs and the reassignment APIs on a live broker, by raw requests: Kafka's
// codes and messages, what Metadata shows after, what is on disk, and that it all survives a restart.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useBrokerAndClient, useTempDirs, withBroker } from '../helpers.js';
import { TestClient } from '../server/client.js';
import { API, createTopic, metadataBody, produceOk, uniqueTopic, values } from '../server/kafka.js';
import type { Message } from '../../protocol/codec.js';

const live = useBrokerAndClient({ config: { 'node.id': '1' } });
const tempDirs = useTempDirs('krill-partitions-');

const CREATE_PARTITIONS = 37;
const DESCRIBE_LOG_DIRS = 35;
const ALTER_REASSIGNMENTS = 45;
const LIST_REASSIGNMENTS = 46;

type Assignment = { brokerIds: number[] } | null;

async function createPartitions(
  client: TestClient,
  topics: { name: string; count: number; assignments?: Assignment[] | null }[],
  validateOnly = false,
  version = 3,
) {
  const res = await client.request(CREATE_PARTITIONS, version, {
    topics: topics.map((t) => ({ name: t.name, count: t.count, assignments: t.assignments ?? null })),
    timeoutMs: 5000,
    validateOnly,
  });
  return res.results as { name: string; errorCode: number; errorMessage: string | null }[];
}

async function partitionCount(client: TestClient, topic: string): Promise<number> {
  const md = await client.request(API.Metadata, 12, metadataBody([topic], false));
  expect(md.topics[0].errorCode).toBe(0);
  return md.topics[0].partitions.length;
}

describe('CreatePartitions', () => {
  for (const version of [0, 1, 2, 3]) {
    it(`v${version} grows a topic: Metadata lists the new partitions, each led by this broker, on disk and writable`, async () => {
      const topic = uniqueTopic('grow');
      await createTopic(live.client, topic, 1);
      expect(await createPartitions(live.client, [{ name: topic, count: 4 }], false, version)).toEqual([{ name: topic, errorCode: 0, errorMessage: null }]);
      const md = await live.client.request(API.Metadata, 12, metadataBody([topic], false));
      expect(md.topics[0].partitions.map((p: Message) => [p.partitionIndex, p.leaderId, p.replicaNodes])).toEqual([
        [0, 1, [1]],
        [1, 1, [1]],
        [2, 1, [1]],
        [3, 1, [1]],
      ]);
      for (let p = 0; p < 4; p++) expect(fs.existsSync(path.join(live.broker.dataDir, `${topic}-${p}`))).toBe(true);
      expect(await produceOk(live.client, topic, 3, values(2))).toBe(0);
    });
  }

  it("refuses a count that is not an increase, with the messages of Kafka's controller", async () => {
    const topic = uniqueTopic('shrink');
    await createTopic(live.client, topic, 3);
    expect(await createPartitions(live.client, [{ name: topic, count: 2 }])).toEqual([
      { name: topic, errorCode: 37, errorMessage: `The topic ${topic} currently has 3 partition(s); 2 would not be an increase.` },
    ]);
    expect(await createPartitions(live.client, [{ name: topic, count: 3 }])).toEqual([
      { name: topic, errorCode: 37, errorMessage: 'Topic already has 3 partition(s).' },
    ]);
    expect(await partitionCount(live.client, topic)).toBe(3);
  });

  it('unknown topic, over the per-topic limit, internal topic, duplicate name: each topic answered on its own', async () => {
    const ok = uniqueTopic('ok');
    const dup = uniqueTopic('dup');
    const big = uniqueTopic('big');
    for (const t of [ok, dup, big]) await createTopic(live.client, t, 1);
    await live.client.request(10, 4, { keyType: 0, coordinatorKeys: ['g'] }); // FindCoordinator creates __consumer_offsets
    const results = await createPartitions(live.client, [
      { name: ok, count: 2 },
      { name: 'no-such-topic', count: 2 },
      { name: dup, count: 2 },
      { name: dup, count: 3 },
      { name: big, count: 10_001 },
      { name: '__consumer_offsets', count: 100 },
    ]);
    expect(results.map((r) => [r.name, r.errorCode])).toEqual([
      [ok, 0],
      ['no-such-topic', 3],
      [dup, 42],
      [big, 37],
      ['__consumer_offsets', 37],
    ]);
    expect(results[2].errorMessage).toBe('Duplicate topic name.');
    expect(await partitionCount(live.client, ok)).toBe(2);
    expect(await partitionCount(live.client, dup)).toBe(1);
    expect(await partitionCount(live.client, big)).toBe(1);
  });

  it('validateOnly checks and changes nothing', async () => {
    const topic = uniqueTopic('dry');
    await createTopic(live.client, topic, 1);
    expect((await createPartitions(live.client, [{ name: topic, count: 5 }], true))[0].errorCode).toBe(0);
    expect((await createPartitions(live.client, [{ name: topic, count: 1 }], true))[0].errorCode).toBe(37);
    expect(await partitionCount(live.client, topic)).toBe(1);
    expect(fs.existsSync(path.join(live.broker.dataDir, `${topic}-1`))).toBe(false);
  });

  it('manual assignments: one per new partition, each this broker alone', async () => {
    const topic = uniqueTopic('assign');
    await createTopic(live.client, topic, 1);
    const attempt = async (assignments: Assignment[]) => (await createPartitions(live.client, [{ name: topic, count: 3, assignments }]))[0];
    expect(await attempt([{ brokerIds: [1] }])).toMatchObject({
      errorCode: 39,
      errorMessage: 'Attempted to add 2 additional partition(s), but only 1 assignment(s) were specified.',
    });
    expect(await attempt([{ brokerIds: [1] }, { brokerIds: [2] }])).toMatchObject({
      errorCode: 39,
      errorMessage: 'The manual partition assignment includes broker 2, but no such broker is registered.',
    });
    expect(await attempt([{ brokerIds: [1] }, { brokerIds: [1, 1] }])).toMatchObject({
      errorCode: 39,
      errorMessage: 'The manual partition assignment includes the broker 1 more than once.',
    });
    expect(await attempt([{ brokerIds: [1] }, { brokerIds: [] }])).toMatchObject({
      errorCode: 39,
      errorMessage: 'The manual partition assignment includes an empty replica list.',
    });
    expect(await partitionCount(live.client, topic)).toBe(1);
    expect(await attempt([{ brokerIds: [1] }, { brokerIds: [1] }])).toMatchObject({ errorCode: 0 });
    expect(await partitionCount(live.client, topic)).toBe(3);
  });

  it('the new count survives a restart', async () => {
    const dataDir = tempDirs();
    const topic = uniqueTopic('restart');
    let broker = await withBroker({ dataDir });
    let client = await TestClient.connect(broker.port);
    await createTopic(client, topic, 2);
    expect((await createPartitions(client, [{ name: topic, count: 6 }]))[0].errorCode).toBe(0);
    await produceOk(client, topic, 5, values(3));
    client.close();
    await broker.close();
    broker = await withBroker({ dataDir });
    client = await TestClient.connect(broker.port);
    try {
      expect(await partitionCount(client, topic)).toBe(6);
      expect(await produceOk(client, topic, 5, values(1))).toBe(3);
    } finally {
      client.close();
      await broker.close();
    }
  });
});

describe('DescribeLogDirs', () => {
  it('lists the data directory with the size of each partition asked for, and the volume (v4)', async () => {
    const topic = uniqueTopic('dirs');
    await createTopic(live.client, topic, 2);
    await produceOk(live.client, topic, 1, values(5));
    const res = await live.client.request(DESCRIBE_LOG_DIRS, 4, {
      topics: [
        { topic, partitions: [0, 1, 9] },
        { topic: 'no-such-topic', partitions: [0] },
      ],
    });
    expect(res.errorCode).toBe(0);
    expect(res.results).toHaveLength(1);
    const dir = res.results[0];
    expect(dir).toMatchObject({ errorCode: 0, logDir: path.resolve(live.broker.dataDir) });
    expect(Number(dir.totalBytes)).toBeGreaterThan(0);
    expect(Number(dir.usableBytes)).toBeGreaterThan(0);
    expect(Number(dir.usableBytes)).toBeLessThanOrEqual(Number(dir.totalBytes));
    expect(dir.topics).toHaveLength(1);
    const sizes = dir.topics[0].partitions.map((p: Message) => [p.partitionIndex, Number(p.partitionSize), Number(p.offsetLag), p.isFutureKey]);
    const onDisk = (p: number) =>
      fs
        .readdirSync(path.join(live.broker.dataDir, `${topic}-${p}`))
        .filter((f) => f.endsWith('.log'))
        .reduce((n, f) => n + fs.statSync(path.join(live.broker.dataDir, `${topic}-${p}`, f)).size, 0);
    expect(sizes).toEqual([
      [0, 0, 0, false],
      [1, onDisk(1), 0, false],
    ]);
    expect(onDisk(1)).toBeGreaterThan(0);
  });

  it('null topics lists every partition; v1 has no volume fields', async () => {
    const topic = uniqueTopic('all');
    await createTopic(live.client, topic, 3);
    const res = await live.client.request(DESCRIBE_LOG_DIRS, 1, { topics: null });
    const entry = res.results[0].topics.find((t: Message) => t.name === topic);
    expect(entry.partitions.map((p: Message) => p.partitionIndex).sort()).toEqual([0, 1, 2]);
  });
});

describe('partition reassignments', () => {
  it('List answers an empty list, for every topic or for those named', async () => {
    const topic = uniqueTopic('reassign');
    await createTopic(live.client, topic, 2);
    for (const topics of [null, [{ name: topic, partitionIndexes: [0, 1, 2] }], [{ name: 'no-such-topic', partitionIndexes: [0] }]]) {
      expect(await live.client.request(LIST_REASSIGNMENTS, 0, { timeoutMs: 1000, topics })).toEqual({
        throttleTimeMs: 0,
        errorCode: 0,
        errorMessage: null,
        topics: [],
      });
    }
  });

  it('Alter: this broker completes at once, others are invalid, cancel has nothing to cancel, unknowns are unknown', async () => {
    const topic = uniqueTopic('reassign');
    await createTopic(live.client, topic, 2);
    const res = await live.client.request(ALTER_REASSIGNMENTS, 0, {
      timeoutMs: 1000,
      topics: [
        {
          name: topic,
          partitions: [
            { partitionIndex: 0, replicas: [1] },
            { partitionIndex: 1, replicas: [2, 1] },
            { partitionIndex: 1, replicas: null },
            { partitionIndex: 7, replicas: [1] },
          ],
        },
        { name: 'no-such-topic', partitions: [{ partitionIndex: 0, replicas: [1] }] },
      ],
    });
    expect(res.errorCode).toBe(0);
    expect(res.responses).toEqual([
      {
        name: topic,
        partitions: [
          { partitionIndex: 0, errorCode: 0, errorMessage: null },
          { partitionIndex: 1, errorCode: 39, errorMessage: 'The manual partition assignment includes broker 2, but no such broker is registered.' },
          { partitionIndex: 1, errorCode: 85, errorMessage: 'No partition reassignment is in progress.' },
          { partitionIndex: 7, errorCode: 3, errorMessage: `Unable to find partition ${topic}:7.` },
        ],
      },
      { name: 'no-such-topic', partitions: [{ partitionIndex: 0, errorCode: 3, errorMessage: 'Unable to find a topic named no-such-topic.' }] },
    ]);
  });
});
