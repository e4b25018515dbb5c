// Produce refuses records one by one as Kafka's LogValidator does, and says which (recordErrors, v8+):
// keyless records on a compacted topic (INVALID_RECORD), and with CreateTime, timestamps outside
// message.timestamp.before.max.ms / after.max.ms (INVALID_TIMESTAMP, KIP-937), compressed batches too.
// Nothing of a refused batch is stored.
import { describe, expect, it } from 'vitest';
import { useBrokerAndClient } from '../helpers.js';
import { createTopic, fetchOne, produce, uniqueTopic } from '../server/kafka.js';
import { buildBatch, type SimpleRecord } from '../../protocol/record-batch.js';
import { CODEC_GZIP } from '../../protocol/compression/index.js';
import type { Message } from '../../protocol/codec.js';

const live = useBrokerAndClient();
const INVALID_TIMESTAMP = 32;
const INVALID_RECORD = 87;
const HOUR = 3_600_000;

async function topicWith(configs: Record<string, string>): Promise<string> {
  const topic = uniqueTopic('recerr');
  await createTopic(live.client, topic, 1, configs);
  return topic;
}

async function expectNothingStored(topic: string): Promise<void> {
  expect((await fetchOne(live.client, topic, 0, 0)).highWatermark).toBe(0);
}

describe('keyless records on a compacted topic', () => {
  it("v9: INVALID_RECORD, each keyless record listed with Kafka's message, the summary showing three", async () => {
    const topic = await topicWith({ 'cleanup.policy': 'compact' });
    const records: SimpleRecord[] = [{ key: 'a', value: '0' }, { value: '1' }, { value: '2' }, { key: 'b', value: '3' }, { value: '4' }, { value: '5' }];
    const p = await produce(live.client, topic, 0, buildBatch(records), 9);
    expect(p.errorCode).toBe(INVALID_RECORD);
    const each = `Compacted topic cannot accept message without key in topic partition ${topic}-0.`;
    expect(p.recordErrors).toEqual([1, 2, 4, 5].map((batchIndex) => ({ batchIndex, batchIndexErrorMessage: each })));
    expect(p.errorMessage).toBe(
      `One or more records have been rejected due to 4 record errors in total, and only showing the first three errors at most: [${[1, 2, 4].map((i) => `RecordError(batchIndex=${i}, message='${each}')`).join(', ')}]`,
    );
    expect(p.logStartOffset).toBe(0);
    await expectNothingStored(topic);
  });

  it('a gzip batch on compact,delete; v7 gets the code without the list', async () => {
    const topic = await topicWith({ 'cleanup.policy': 'compact,delete' });
    const batch = buildBatch(
      [
        { key: 'a', value: '0' },
        { key: null, value: 'x' },
      ],
      { compression: CODEC_GZIP },
    );
    const v9 = await produce(live.client, topic, 0, batch, 9);
    expect(v9.recordErrors.map((e: Message) => e.batchIndex)).toEqual([1]);
    const v7 = await produce(live.client, topic, 0, buildBatch([{ key: null, value: 'x' }]), 7);
    expect(v7.errorCode).toBe(INVALID_RECORD);
    await expectNothingStored(topic);
  });
});

describe('CreateTime timestamp bounds (KIP-937)', () => {
  it('refuses records too far behind or ahead of the broker clock, listing each, and keeps the good batches', async () => {
    const topic = await topicWith({ 'message.timestamp.before.max.ms': String(HOUR), 'message.timestamp.after.max.ms': String(HOUR) });
    const now = Date.now();
    const batch = buildBatch([
      { key: 'a', value: 'ok', timestamp: now },
      { key: 'b', value: 'old', timestamp: now - 2 * HOUR },
      { key: 'c', value: 'ok', timestamp: now + HOUR / 2 },
      { key: 'd', value: 'future', timestamp: now + 3 * HOUR },
    ]);
    const p = await produce(live.client, topic, 0, batch, 11);
    expect(p.errorCode).toBe(INVALID_TIMESTAMP);
    expect(p.errorMessage).toBe('One or more records have been rejected due to invalid timestamp');
    expect(p.recordErrors.map((e: Message) => e.batchIndex)).toEqual([1, 3]);
    const m = /^Timestamp (\d+) of message with offset 1 is out of range\. The timestamp should be within \[(\d+), (\d+)\]$/.exec(
      p.recordErrors[0].batchIndexErrorMessage,
    );
    expect(m).not.toBeNull();
    expect(Number(m![1])).toBe(now - 2 * HOUR);
    expect(Number(m![3]) - Number(m![2])).toBe(2 * HOUR);
    expect(p.recordErrors[1].batchIndexErrorMessage).toMatch(new RegExp(`^Timestamp ${now + 3 * HOUR} of message with offset 3 is out of range`));
    await expectNothingStored(topic);
    const good = await produce(live.client, topic, 0, buildBatch([{ key: 'a', value: 'ok' }]), 11);
    expect(good.errorCode).toBe(0);
  });

  it('one bound alone; the deprecated difference.max.ms gives both; LogAppendTime topics check nothing', async () => {
    const old = Date.now() - 10 * HOUR;
    const future = Date.now() + 10 * HOUR;
    const ahead = await topicWith({ 'message.timestamp.after.max.ms': String(HOUR) });
    expect((await produce(live.client, ahead, 0, buildBatch([{ key: 'k', value: 'v', timestamp: old }]))).errorCode).toBe(0);
    const refused = await produce(live.client, ahead, 0, buildBatch([{ key: 'k', value: 'v', timestamp: future }]));
    expect(refused.errorCode).toBe(INVALID_TIMESTAMP);
    // The lower bound is Long.MAX_VALUE behind, in Kafka's Long arithmetic.
    expect(refused.recordErrors[0].batchIndexErrorMessage).toMatch(/within \[-9223\d{15}, \d+\]$/);

    const difference = await topicWith({ 'message.timestamp.difference.max.ms': String(HOUR) });
    expect((await produce(live.client, difference, 0, buildBatch([{ key: 'k', value: 'v', timestamp: old }]))).errorCode).toBe(INVALID_TIMESTAMP);
    expect((await produce(live.client, difference, 0, buildBatch([{ key: 'k', value: 'v', timestamp: future }]))).errorCode).toBe(INVALID_TIMESTAMP);

    const appendTime = await topicWith({ 'message.timestamp.type': 'LogAppendTime', 'message.timestamp.before.max.ms': String(HOUR) });
    expect((await produce(live.client, appendTime, 0, buildBatch([{ key: 'k', value: 'v', timestamp: old }]))).errorCode).toBe(0);
  });

  it('a keyless record with a bad timestamp on a compacted topic: INVALID_TIMESTAMP, the key reported for that record', async () => {
    const topic = await topicWith({ 'cleanup.policy': 'compact', 'message.timestamp.before.max.ms': String(HOUR) });
    const old = Date.now() - 10 * HOUR;
    const p = await produce(
      live.client,
      topic,
      0,
      buildBatch([
        { value: 'x', timestamp: old },
        { key: 'k', value: 'y', timestamp: old },
      ]),
    );
    expect(p.errorCode).toBe(INVALID_TIMESTAMP);
    expect(p.recordErrors[0].batchIndexErrorMessage).toMatch(/^Compacted topic cannot accept message without key/);
    expect(p.recordErrors[1].batchIndexErrorMessage).toMatch(/^Timestamp \d+ of message with offset 1 is out of range/);
  });
});
