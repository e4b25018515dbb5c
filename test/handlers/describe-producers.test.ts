// DescribeProducers on a live broker: the idempotent producers each partition remembers.
import { describe, expect, it } from 'vitest';
import { buildBatch } from '../../protocol/record-batch.js';
import { useBrokerAndClient } from '../helpers.js';
import { createTopic, produce, uniqueTopic } from '../server/kafka.js';
import type { Message } from '../../protocol/codec.js';

const live = useBrokerAndClient();
const INIT_PRODUCER_ID = 22;
const DESCRIBE_PRODUCERS = 61;

describe('DescribeProducers', () => {
  it("lists each partition's idempotent producers with their epoch and last sequence, and unknown partitions as errors", async () => {
    const topic = uniqueTopic('producers');
    await createTopic(live.client, topic, 2);
    const init = await live.client.request(INIT_PRODUCER_ID, 4, { transactionalId: null, transactionTimeoutMs: 60_000, producerId: -1, producerEpoch: -1 });
    expect(init.errorCode).toBe(0);
    const { producerId } = init;
    const records = [
      { key: 'k', value: 'a', timestamp: 1_700_000_000_000 },
      { key: 'k', value: 'b', timestamp: 1_700_000_000_001 },
    ];
    for (const baseSequence of [0, 2]) {
      const p = await produce(live.client, topic, 0, buildBatch(records, { producerId, producerEpoch: 0, baseSequence }));
      expect(p.errorCode).toBe(0);
    }
    await produce(live.client, topic, 1, buildBatch([{ key: 'plain', value: 'x' }]));
    const res = await live.client.request(DESCRIBE_PRODUCERS, 0, { topics: [{ name: topic, partitionIndexes: [0, 1, 7] }] });
    const parts = res.topics[0].partitions;
    expect(parts.map((p: Message) => [p.partitionIndex, p.errorCode])).toEqual([
      [0, 0],
      [1, 0],
      [7, 3],
    ]);
    expect(parts[0].activeProducers).toEqual([
      { producerId, producerEpoch: 0, lastSequence: 3, lastTimestamp: 1_700_000_000_001, coordinatorEpoch: -1, currentTxnStartOffset: -1 },
    ]);
    expect(parts[1].activeProducers).toEqual([]);
  });
});
