// Fetch on a live broker: long polls, size limits (KIP-74), offsets and sessions.
import { describe, expect, it } from 'vitest';
import { useBrokerAndClient } from '../helpers.js';
import { TestClient } from '../server/client.js';
import { API, batchesOf, createTopic, fetchBody, fetchOne, produceOk, recordsOf, uniqueTopic, values } from '../server/kafka.js';
import type { Message } from '../../protocol/codec.js';

const live = useBrokerAndClient();

describe('Fetch long poll', () => {
  it('is woken by an append and returns the new record', async () => {
    const topic = uniqueTopic('wake');
    await createTopic(live.client, topic);
    const poller = await TestClient.connect(live.broker.port);
    try {
      const pending = poller.request(API.Fetch, 12, fetchBody(12, topic, [{ partition: 0, fetchOffset: 0 }], { maxWaitMs: 10_000, minBytes: 1 }));
      let settled = false;
      pending.then(
        () => (settled = true),
        () => (settled = true),
      );
      // let the fetch reach the broker and park (a later request on another connection is answered meanwhile)
      await new Promise((r) => setTimeout(r, 50));
      await live.client.request(API.Metadata, 1, { topics: null });
      expect(settled).toBe(false);
      await produceOk(live.client, topic, 0, [{ key: 'k', value: 'woken' }]);
      const res = await pending;
      const p = res.responses[0].partitions[0];
      expect(p.errorCode).toBe(0);
      expect(p.highWatermark).toBe(1);
      expect(recordsOf(p.records).map((r) => [r.offset, r.value])).toEqual([[0, 'woken']]);
    } finally {
      poller.close();
    }
  }, 8000);

  it('is woken by an append to any partition of the request', async () => {
    const topic = uniqueTopic('wake2');
    await createTopic(live.client, topic, 3);
    const poller = await TestClient.connect(live.broker.port);
    try {
      const pending = poller.request(
        API.Fetch,
        11,
        fetchBody(
          11,
          topic,
          [0, 1, 2].map((partition) => ({ partition, fetchOffset: 0 })),
          { maxWaitMs: 10_000, minBytes: 1 },
        ),
      );
      await new Promise((r) => setTimeout(r, 50));
      await produceOk(live.client, topic, 2, [{ value: 'p2' }]);
      const res = await pending;
      const parts = res.responses[0].partitions;
      expect(parts.map((p: Message) => [p.partitionIndex, p.highWatermark, recordsOf(p.records).length])).toEqual([
        [0, 0, 0],
        [1, 0, 0],
        [2, 1, 1],
      ]);
    } finally {
      poller.close();
    }
  }, 8000);

  it('is answered when its topic is deleted, long before maxWaitMs', async () => {
    const topic = uniqueTopic('gone');
    await createTopic(live.client, topic);
    const poller = await TestClient.connect(live.broker.port);
    try {
      const pending = poller.request(API.Fetch, 12, fetchBody(12, topic, [{ partition: 0, fetchOffset: 0 }], { maxWaitMs: 60_000, minBytes: 1 }));
      await new Promise((r) => setTimeout(r, 50));
      const deleted = await live.client.request(API.DeleteTopics, 5, { topicNames: [topic], timeoutMs: 5000 });
      expect(deleted.responses[0].errorCode).toBe(0);
      const res = await pending; // the test's timeout is far below maxWaitMs
      expect(res.responses[0].partitions[0].errorCode).toBe(3); // UNKNOWN_TOPIC_OR_PARTITION
    } finally {
      poller.close();
    }
  }, 8000);

  it('returns empty records when maxWaitMs expires with no data', async () => {
    const topic = uniqueTopic('idle');
    await createTopic(live.client, topic);
    const res = await live.client.request(API.Fetch, 12, fetchBody(12, topic, [{ partition: 0, fetchOffset: 0 }], { maxWaitMs: 100, minBytes: 1 }));
    expect(res.errorCode).toBe(0);
    const p = res.responses[0].partitions[0];
    expect(p.errorCode).toBe(0);
    expect(p.highWatermark).toBe(0);
    expect(p.records === null || p.records.length === 0).toBe(true);
  });

  it('answers at once when minBytes is already satisfied', async () => {
    const topic = uniqueTopic('ready');
    await createTopic(live.client, topic);
    await produceOk(live.client, topic, 0, values(2));
    const p = await fetchOne(live.client, topic, 0, 0, 12, { maxWaitMs: 60_000, minBytes: 1 });
    expect(recordsOf(p.records)).toHaveLength(2);
  });
});

describe('Fetch offsets and sizes', () => {
  it('fetchOffset past the high watermark is OFFSET_OUT_OF_RANGE; at the HWM it is empty', async () => {
    const topic = uniqueTopic('oor');
    await createTopic(live.client, topic);
    await produceOk(live.client, topic, 0, values(3));
    const past = await fetchOne(live.client, topic, 0, 4);
    expect(past.errorCode).toBe(1);
    const at = await fetchOne(live.client, topic, 0, 3);
    expect(at.errorCode).toBe(0);
    expect(at.highWatermark).toBe(3);
    expect(at.records === null || at.records.length === 0).toBe(true);
    const negative = await fetchOne(live.client, topic, 0, -1);
    expect(negative.errorCode).toBe(1);
  });

  it('reports highWatermark, lastStableOffset and logStartOffset', async () => {
    const topic = uniqueTopic('hwm');
    await createTopic(live.client, topic);
    await produceOk(live.client, topic, 0, values(4));
    await produceOk(live.client, topic, 0, values(3));
    const p = await fetchOne(live.client, topic, 0, 0, 11);
    expect(p).toMatchObject({ partitionIndex: 0, errorCode: 0, highWatermark: 7, lastStableOffset: 7, logStartOffset: 0, preferredReadReplica: -1 });
    expect(batchesOf(p.records).map((b) => [b.baseOffset, b.recordCount])).toEqual([
      [0, 4],
      [4, 3],
    ]);
  });

  it('KIP-74: a first batch bigger than partitionMaxBytes is returned whole', async () => {
    const topic = uniqueTopic('kip74');
    await createTopic(live.client, topic);
    await produceOk(live.client, topic, 0, [{ value: Buffer.alloc(2000, 1) }]);
    await produceOk(live.client, topic, 0, [{ value: Buffer.alloc(2000, 2) }]);
    const p = await fetchOne(live.client, topic, 0, 0, 12, { partitionMaxBytes: 100 });
    expect(p.errorCode).toBe(0);
    const batches = batchesOf(p.records);
    expect(batches).toHaveLength(1);
    expect(batches[0].size).toBe(p.records.length);
    expect(batches[0].records[0].value!.length).toBe(2000);
    // and the response maxBytes does not cut it either
    const small = await fetchOne(live.client, topic, 0, 1, 12, { partitionMaxBytes: 100, maxBytes: 10 });
    expect(batchesOf(small.records).map((b) => b.baseOffset)).toEqual([1]);
  });

  it('partitionMaxBytes stops after the batches that fit', async () => {
    const topic = uniqueTopic('pmb');
    await createTopic(live.client, topic);
    for (let i = 0; i < 5; i++) await produceOk(live.client, topic, 0, [{ value: Buffer.alloc(500, i) }]);
    const one = batchesOf((await fetchOne(live.client, topic, 0, 0)).records)[0];
    const p = await fetchOne(live.client, topic, 0, 0, 12, { partitionMaxBytes: one.size * 2 + 10 });
    expect(batchesOf(p.records).map((b) => b.baseOffset)).toEqual([0, 1]);
    expect(p.highWatermark).toBe(5);
  });

  it('response maxBytes is shared across partitions: later partitions get nothing once it is used', async () => {
    const topic = uniqueTopic('maxb');
    await createTopic(live.client, topic, 3);
    for (const part of [0, 1, 2]) for (let i = 0; i < 3; i++) await produceOk(live.client, topic, part, [{ value: Buffer.alloc(400, i) }]);
    const sizeOne = batchesOf((await fetchOne(live.client, topic, 0, 0)).records)[0].size;
    // room for four batches in total: three from partition 0, one from partition 1, none from 2
    const res = await live.client.request(
      API.Fetch,
      12,
      fetchBody(
        12,
        topic,
        [0, 1, 2].map((partition) => ({ partition, fetchOffset: 0 })),
        { maxBytes: sizeOne * 4 + 10 },
      ),
    );
    const parts = res.responses[0].partitions;
    expect(parts.map((p: Message) => batchesOf(p.records).length)).toEqual([3, 1, 0]);
    for (const p of parts) {
      expect(p.errorCode).toBe(0);
      expect(p.highWatermark).toBe(3);
    }
    const total = parts.reduce((n: number, p: Message) => n + (p.records?.length ?? 0), 0);
    expect(total).toBeLessThanOrEqual(sizeOne * 4 + 10);
  });

  it('unknown topic / partition / topic id are reported per partition', async () => {
    const topic = uniqueTopic('fx');
    await createTopic(live.client, topic);
    const unknown = await fetchOne(live.client, uniqueTopic('missing'), 0, 0, 12);
    expect(unknown.errorCode).toBe(3);
    const badPart = await fetchOne(live.client, topic, 5, 0, 12);
    expect(badPart.errorCode).toBe(3);
    const byId = await fetchOne(live.client, Buffer.alloc(16, 9), 0, 0, 13);
    expect(byId.errorCode).toBe(100);
  });
});

describe('Fetch sessions', () => {
  it('are declined: full requests get sessionId 0', async () => {
    const topic = uniqueTopic('sess');
    await createTopic(live.client, topic);
    const res = await live.client.request(API.Fetch, 12, { ...fetchBody(12, topic, [{ partition: 0, fetchOffset: 0 }]), sessionId: 0, sessionEpoch: 0 });
    expect(res.errorCode).toBe(0);
    expect(res.sessionId).toBe(0);
  });

  it('a request naming a session gets FETCH_SESSION_ID_NOT_FOUND', async () => {
    const topic = uniqueTopic('sess2');
    await createTopic(live.client, topic);
    const res = await live.client.request(API.Fetch, 12, { ...fetchBody(12, topic, [{ partition: 0, fetchOffset: 0 }]), sessionId: 1234, sessionEpoch: 1 });
    expect(res.errorCode).toBe(70);
    expect(res.sessionId).toBe(0);
    expect(res.responses).toEqual([]);
  });
});
