// OffsetForLeaderEpoch on a live broker: every partition is led in epoch 0, which ends at the log end offset;
// later epochs are unknown (-1, -1); currentLeaderEpoch fences older and newer clients.
import { describe, expect, it } from 'vitest';
import { useBrokerAndClient } from '../helpers.js';
import { createTopic, produceOk, uniqueTopic, values } from '../server/kafka.js';
import type { Message } from '../../protocol/codec.js';

const live = useBrokerAndClient();
const OFFSET_FOR_LEADER_EPOCH = 23;

function body(topic: string, partitions: { partition: number; currentLeaderEpoch?: number; leaderEpoch: number }[]) {
  return { replicaId: -1, topics: [{ topic, partitions: partitions.map((p) => ({ currentLeaderEpoch: -1, ...p })) }] };
}

describe('OffsetForLeaderEpoch', () => {
  for (const version of [2, 3, 4]) {
    it(`v${version}: epoch 0 ends at the log end offset; later and undefined epochs are (-1, -1)`, async () => {
      const topic = uniqueTopic('ofle');
      await createTopic(live.client, topic, 2);
      await produceOk(live.client, topic, 0, values(3));
      await produceOk(live.client, topic, 0, values(2));
      const res = await live.client.request(
        OFFSET_FOR_LEADER_EPOCH,
        version,
        body(topic, [
          { partition: 0, leaderEpoch: 0 },
          { partition: 1, leaderEpoch: 0, currentLeaderEpoch: 0 },
          { partition: 0, leaderEpoch: 1 },
          { partition: 0, leaderEpoch: -1 },
          { partition: 0, leaderEpoch: -5 },
        ]),
      );
      expect(res.throttleTimeMs).toBe(0);
      expect(res.topics).toEqual([
        {
          topic,
          partitions: [
            { errorCode: 0, partition: 0, leaderEpoch: 0, endOffset: 5 },
            { errorCode: 0, partition: 1, leaderEpoch: 0, endOffset: 0 },
            { errorCode: 0, partition: 0, leaderEpoch: -1, endOffset: -1 },
            { errorCode: 0, partition: 0, leaderEpoch: -1, endOffset: -1 },
            { errorCode: 0, partition: 0, leaderEpoch: -5, endOffset: 0 },
          ],
        },
      ]);
    });
  }

  it('fences a newer or older currentLeaderEpoch, and answers unknown partitions', async () => {
    const topic = uniqueTopic('ofle');
    await createTopic(live.client, topic, 1);
    const res = await live.client.request(
      OFFSET_FOR_LEADER_EPOCH,
      4,
      body(topic, [
        { partition: 0, leaderEpoch: 0, currentLeaderEpoch: 3 },
        { partition: 0, leaderEpoch: 0, currentLeaderEpoch: -2 },
        { partition: 4, leaderEpoch: 0 },
      ]),
    );
    expect(res.topics[0].partitions.map((p: Message) => [p.partition, p.errorCode, p.leaderEpoch, Number(p.endOffset)])).toEqual([
      [0, 75, -1, -1],
      [0, 74, -1, -1],
      [4, 3, -1, -1],
    ]);
    const unknown = await live.client.request(OFFSET_FOR_LEADER_EPOCH, 4, body('no-such-topic', [{ partition: 0, leaderEpoch: 0 }]));
    expect(unknown.topics[0].partitions[0].errorCode).toBe(3);
  });
});
