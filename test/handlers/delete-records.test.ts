// DeleteRecords (API 21) on a live broker, every version: the low watermark it answers, Kafka's
// per-partition errors, what Fetch and ListOffsets see afterwards, and a waiting fetch woken by it.
import { describe, expect, it } from 'vitest';
import { useBrokerAndClient } from '../helpers.js';
import { API, createTopic, fetchBody, fetchOne, listOffsetsBody, produceOk, uniqueTopic } from '../server/kafka.js';
import { ErrorCode } from '../../protocol/errors.js';

const DELETE_RECORDS = 21;
const live = useBrokerAndClient();

async function deleteRecords(version: number, topic: string, partitions: { partitionIndex: number; offset: number }[]) {
  const res = await live.client.request(DELETE_RECORDS, version, { topics: [{ name: topic, partitions }], timeoutMs: 5000 });
  expect(res.throttleTimeMs).toBe(0);
  expect(res.topics).toHaveLength(1);
  expect(res.topics[0].name).toBe(topic);
  return res.topics[0].partitions as { partitionIndex: number; lowWatermark: number; errorCode: number }[];
}

async function topicWith(records: number, configs: Record<string, string> = {}): Promise<string> {
  const topic = uniqueTopic('dr');
  await createTopic(live.client, topic, 2, { 'segment.bytes': '100', ...configs });
  for (let i = 0; i < records; i++) await produceOk(live.client, topic, 0, [{ value: `v${i}` }]);
  return topic;
}

describe('DeleteRecords', () => {
  for (const version of [0, 1, 2]) {
    it(`v${version}: moves the low watermark; -1 is the high watermark; lower offsets change nothing`, async () => {
      const topic = await topicWith(5);
      expect(await deleteRecords(version, topic, [{ partitionIndex: 0, offset: 3 }])).toEqual([{ partitionIndex: 0, lowWatermark: 3, errorCode: 0 }]);
      expect(await deleteRecords(version, topic, [{ partitionIndex: 0, offset: 1 }])).toEqual([{ partitionIndex: 0, lowWatermark: 3, errorCode: 0 }]);
      expect(
        await deleteRecords(version, topic, [
          { partitionIndex: 0, offset: -1 },
          { partitionIndex: 1, offset: -1 },
        ]),
      ).toEqual([
        { partitionIndex: 0, lowWatermark: 5, errorCode: 0 },
        { partitionIndex: 1, lowWatermark: 0, errorCode: 0 },
      ]);
    });
  }

  it('errors per partition: past the high watermark, below -1, unknown partition or topic, internal topics, compact only', async () => {
    const topic = await topicWith(2);
    expect(
      await deleteRecords(2, topic, [
        { partitionIndex: 0, offset: 3 },
        { partitionIndex: 0, offset: -5 },
        { partitionIndex: 7, offset: 0 },
      ]),
    ).toEqual([
      { partitionIndex: 0, lowWatermark: -1, errorCode: ErrorCode.OFFSET_OUT_OF_RANGE },
      { partitionIndex: 0, lowWatermark: -1, errorCode: ErrorCode.OFFSET_OUT_OF_RANGE },
      { partitionIndex: 7, lowWatermark: -1, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION },
    ]);
    expect(await deleteRecords(2, uniqueTopic('never'), [{ partitionIndex: 0, offset: 0 }])).toEqual([
      { partitionIndex: 0, lowWatermark: -1, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION },
    ]);
    for (const internal of ['__consumer_offsets', '__transaction_state']) {
      expect(await deleteRecords(2, internal, [{ partitionIndex: 0, offset: 0 }])).toEqual([
        { partitionIndex: 0, lowWatermark: -1, errorCode: ErrorCode.INVALID_TOPIC_EXCEPTION },
      ]);
    }
    const compact = await topicWith(0, { 'cleanup.policy': 'compact' });
    expect(await deleteRecords(2, compact, [{ partitionIndex: 0, offset: 0 }])).toEqual([
      { partitionIndex: 0, lowWatermark: -1, errorCode: ErrorCode.POLICY_VIOLATION },
    ]);
  });

  it('Fetch below the new log start is OFFSET_OUT_OF_RANGE (offsets -1, as Kafka); ListOffsets earliest answers it; the high watermark stays', async () => {
    const topic = await topicWith(4);
    await deleteRecords(2, topic, [{ partitionIndex: 0, offset: 2 }]);
    const below = await fetchOne(live.client, topic, 0, 1);
    expect(below).toMatchObject({ errorCode: ErrorCode.OFFSET_OUT_OF_RANGE, logStartOffset: -1, highWatermark: -1 });
    const at = await fetchOne(live.client, topic, 0, 2);
    expect(at.errorCode).toBe(0);
    expect(at.highWatermark).toBe(4);
    const earliest = await live.client.request(API.ListOffsets, 7, listOffsetsBody(topic, 0, -2));
    expect(earliest.topics[0].partitions[0]).toMatchObject({ errorCode: 0, offset: 2 });
    const latest = await live.client.request(API.ListOffsets, 7, listOffsetsBody(topic, 0, -1));
    expect(latest.topics[0].partitions[0]).toMatchObject({ errorCode: 0, offset: 4 });
  });

  it('wakes a waiting fetch whose offset it puts below the log start: OFFSET_OUT_OF_RANGE at once', { timeout: 15_000 }, async () => {
    const topic = await topicWith(3);
    const { TestClient } = await import('../server/client.js');
    const waiter = await TestClient.connect(live.broker.port);
    try {
      // Waits for more bytes than there are; maxWaitMs far beyond the test's timeout: only the wake-up
      // can answer it in time. (A fetch still within the log keeps waiting, as Kafka's DelayedFetch does.)
      const waiting = waiter.request(API.Fetch, 11, fetchBody(11, topic, [{ partition: 0, fetchOffset: 1 }], { maxWaitMs: 60_000, minBytes: 1 << 20 }));
      await new Promise((r) => setTimeout(r, 100));
      await deleteRecords(2, topic, [{ partitionIndex: 0, offset: 3 }]);
      const res = await waiting;
      expect(res.responses[0].partitions[0]).toMatchObject({ errorCode: ErrorCode.OFFSET_OUT_OF_RANGE, logStartOffset: -1, highWatermark: -1 });
    } finally {
      waiter.close();
    }
  });
});
