// Metadata on a live broker: topic listing, auto-creation, name validation, ids, node id and cluster id.
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import { tempDir, useBrokerAndClient, withBroker } from '../helpers.js';
import { TestClient } from '../server/client.js';
import { API, ZERO_UUID, createTopic, metadataBody, uniqueTopic } from '../server/kafka.js';
import type { Message } from '../../protocol/codec.js';

const live = useBrokerAndClient({ config: { 'num.partitions': '3' } });

describe('Metadata', () => {
  it('a null topic list (v1+) and an empty one (v0) list every topic', async () => {
    const a = uniqueTopic('all-a');
    const b = uniqueTopic('all-b');
    await createTopic(live.client, a, 2);
    await createTopic(live.client, b, 1);
    for (const v of [1, 4, 9, 12]) {
      const res = await live.client.request(API.Metadata, v, metadataBody(null));
      const names = res.topics.map((t: Message) => t.name);
      expect(names).toContain(a);
      expect(names).toContain(b);
      const ta = res.topics.find((t: Message) => t.name === a);
      expect(ta.errorCode).toBe(0);
      expect(ta.partitions.map((p: Message) => p.partitionIndex).sort()).toEqual([0, 1]);
    }
    const v0 = await live.client.request(API.Metadata, 0, { topics: [] });
    expect(v0.topics.map((t: Message) => t.name)).toEqual(expect.arrayContaining([a, b]));
  });

  it('an empty list at v1+ lists no topics', async () => {
    await createTopic(live.client, uniqueTopic('exists'));
    const res = await live.client.request(API.Metadata, 9, metadataBody([]));
    expect(res.topics).toEqual([]);
  });

  it('auto-creates an unknown topic with num.partitions, the broker as leader/replica/ISR', async () => {
    const name = uniqueTopic('auto');
    const res = await live.client.request(API.Metadata, 10, metadataBody([name]));
    expect(res.topics).toHaveLength(1);
    const t = res.topics[0];
    expect(t).toMatchObject({ errorCode: 0, name, isInternal: false });
    expect(t.topicId.equals(ZERO_UUID)).toBe(false);
    expect(t.partitions).toHaveLength(3);
    for (const [i, p] of t.partitions.entries()) {
      expect(p).toMatchObject({ errorCode: 0, partitionIndex: i, leaderId: 1, leaderEpoch: 0, replicaNodes: [1], isrNodes: [1], offlineReplicas: [] });
    }
    // the same topic on the next request, same id
    const again = await live.client.request(API.Metadata, 10, metadataBody([name]));
    expect(again.topics[0].topicId.equals(t.topicId)).toBe(true);
  });

  it('allowAutoTopicCreation=false (v4+) answers UNKNOWN_TOPIC_OR_PARTITION and creates nothing', async () => {
    const name = uniqueTopic('noauto');
    const res = await live.client.request(API.Metadata, 9, metadataBody([name], false));
    expect(res.topics[0]).toMatchObject({ errorCode: 3, name, partitions: [] });
    const all = await live.client.request(API.Metadata, 9, metadataBody(null));
    expect(all.topics.map((t: Message) => t.name)).not.toContain(name);
  });

  it('invalid names are INVALID_TOPIC_EXCEPTION, a 249-char name is fine', async () => {
    for (const name of ['a/b', 'x'.repeat(250), '..', '.', 'sp ace', 'ümlaut']) {
      const res = await live.client.request(API.Metadata, 9, metadataBody([name]));
      expect(res.topics[0], name).toMatchObject({ errorCode: 17, name, partitions: [] });
    }
    const ok = 'y'.repeat(249);
    const res = await live.client.request(API.Metadata, 9, metadataBody([ok]));
    expect(res.topics[0]).toMatchObject({ errorCode: 0, name: ok });
    expect(fs.readdirSync(live.broker.dataDir).some((d) => d.includes('/') || d === '..')).toBe(false);
  });

  it('looks topics up by id (v12: name null, topicId set), unknown ids are UNKNOWN_TOPIC_ID', async () => {
    const name = uniqueTopic('byid');
    const created = await createTopic(live.client, name, 2);
    const res = await live.client.request(API.Metadata, 12, {
      topics: [
        { name: null, topicId: created.topicId },
        { name: null, topicId: Buffer.alloc(16, 7) },
      ],
      allowAutoTopicCreation: false,
      includeTopicAuthorizedOperations: false,
    });
    expect(res.topics).toHaveLength(2);
    expect(res.topics[0]).toMatchObject({ errorCode: 0, name });
    expect(res.topics[0].topicId.equals(created.topicId)).toBe(true);
    expect(res.topics[0].partitions).toHaveLength(2);
    expect(res.topics[1]).toMatchObject({ errorCode: 100, name: null, partitions: [] });
    expect(res.topics[1].topicId.equals(Buffer.alloc(16, 7))).toBe(true);
  });

  it('answers a request with any topic id by ids alone, as Kafka: the Java client sends name "" beside the id', async () => {
    const name = uniqueTopic('byid-java');
    const other = uniqueTopic('byid-ignored');
    const created = await createTopic(live.client, name, 3);
    await createTopic(live.client, other, 1);
    const res = await live.client.request(API.Metadata, 12, {
      topics: [
        { name: '', topicId: created.topicId },
        { name: '', topicId: Buffer.alloc(16, 9) },
        { name: other, topicId: ZERO_UUID },
        { name: '', topicId: created.topicId },
      ],
      allowAutoTopicCreation: false,
      includeTopicAuthorizedOperations: false,
    });
    expect(res.topics.map((t: Message) => [t.errorCode, t.name, t.partitions.length])).toEqual([
      [0, name, 3],
      [100, null, 0],
    ]);
    expect(res.topics[0].topicId.equals(created.topicId)).toBe(true);
    expect(res.topics[1].topicId.equals(Buffer.alloc(16, 9))).toBe(true);
  });

  it('brokers, controller and cluster id', async () => {
    const res = await live.client.request(API.Metadata, 12, metadataBody(null));
    expect(res.brokers).toEqual([{ nodeId: 1, host: '127.0.0.1', port: live.broker.port, rack: null }]);
    expect(res.controllerId).toBe(1);
    expect(res.clusterId).toBe(live.broker.clusterId);
    expect(typeof res.clusterId).toBe('string');
    expect(res.clusterId.length).toBeGreaterThan(0);
  });
});

describe('Metadata with broker configs', () => {
  it('auto.create.topics.enable=false answers UNKNOWN_TOPIC_OR_PARTITION even when the request allows creation', async () => {
    const b = await withBroker({ config: { 'auto.create.topics.enable': 'false' } });
    const c = await TestClient.connect(b.port);
    try {
      const name = uniqueTopic('off');
      for (const v of [1, 4, 12]) {
        const res = await c.request(API.Metadata, v, metadataBody([name], true));
        expect(res.topics[0]).toMatchObject({ errorCode: 3, name });
      }
      // CreateTopics still works
      await createTopic(c, name);
      const res = await c.request(API.Metadata, 12, metadataBody([name]));
      expect(res.topics[0].errorCode).toBe(0);
    } finally {
      c.close();
      await b.close();
    }
  });

  it('node.id=7 is the broker id, every leader, and the controller', async () => {
    const b = await withBroker({ config: { 'node.id': '7' } });
    const c = await TestClient.connect(b.port);
    try {
      const name = uniqueTopic('n7');
      const res = await c.request(API.Metadata, 12, metadataBody([name]));
      expect(res.brokers[0].nodeId).toBe(7);
      expect(res.controllerId).toBe(7);
      expect(res.topics[0].partitions[0]).toMatchObject({ leaderId: 7, replicaNodes: [7], isrNodes: [7] });
      const v1 = await c.request(API.Metadata, 1, { topics: null });
      expect(v1.controllerId).toBe(7);
    } finally {
      c.close();
      await b.close();
    }
  });

  it('clusterId and topic ids are stable across a restart on the same data dir', async () => {
    const dir = tempDir();
    try {
      const name = uniqueTopic('stable');
      const b1 = await withBroker({ dataDir: dir });
      const c1 = await TestClient.connect(b1.port);
      const r1 = await c1.request(API.Metadata, 12, metadataBody([name]));
      c1.close();
      await b1.close();
      expect(fs.existsSync(dir)).toBe(true);
      const b2 = await withBroker({ dataDir: dir });
      const c2 = await TestClient.connect(b2.port);
      const r2 = await c2.request(API.Metadata, 12, metadataBody([name], false));
      c2.close();
      await b2.close();
      expect(b2.clusterId).toBe(b1.clusterId);
      expect(r2.clusterId).toBe(r1.clusterId);
      expect(r2.topics[0].errorCode).toBe(0);
      expect(r2.topics[0].topicId.equals(r1.topics[0].topicId)).toBe(true);
      // a different data dir is a different cluster
      const b3 = await withBroker();
      await b3.close();
      expect(b3.clusterId).not.toBe(b1.clusterId);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
