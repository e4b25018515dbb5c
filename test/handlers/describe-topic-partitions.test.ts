// DescribeTopicPartitions (KIP-966) on a live broker: every topic or the named ones in name order, paged by
// the response partition limit and the cursor, and the errors Kafka's handler gives.
import { beforeAll, describe, expect, it } from 'vitest';
import { useBrokerAndClient } from '../helpers.js';
import { API, createTopic, uniqueTopic } from '../server/kafka.js';
import type { Message } from '../../protocol/codec.js';

const live = useBrokerAndClient({ config: { 'max.request.partition.size.limit': '6' } });
const prefix = uniqueTopic('dtp');
const [a, b, c] = [`${prefix}-a`, `${prefix}-b`, `${prefix}-c`];

beforeAll(async () => {
  // Created out of order: the answer is in name order all the same.
  await createTopic(live.client, c, 2);
  await createTopic(live.client, a, 3);
  await createTopic(live.client, b, 1);
});

const request = (names: string[], responsePartitionLimit = 2000, cursor: Message | null = null): Promise<Message> =>
  live.client.request(API.DescribeTopicPartitions, 0, { topics: names.map((name) => ({ name })), responsePartitionLimit, cursor });
const pages = (res: Message): [string, number[]][] => res.topics.map((t: Message) => [t.name, t.partitions.map((p: Message) => p.partitionIndex)]);

describe('DescribeTopicPartitions', () => {
  it('describes the named topics in name order, with ids, leaders, replicas, ISR and empty ELRs', async () => {
    const res = await request([c, a, b]);
    expect(pages(res)).toEqual([
      [a, [0, 1, 2]],
      [b, [0]],
      [c, [0, 1]],
    ]);
    expect(res.nextCursor).toBeNull();
    const md = await live.client.request(API.Metadata, 12, {
      topics: [{ name: a, topicId: Buffer.alloc(16) }],
      allowAutoTopicCreation: false,
      includeTopicAuthorizedOperations: false,
    });
    expect(res.topics[0]).toMatchObject({ errorCode: 0, name: a, isInternal: false, topicAuthorizedOperations: 3576 });
    expect(res.topics[0].topicId.equals(md.topics[0].topicId)).toBe(true);
    expect(res.topics[0].partitions[1]).toEqual({
      errorCode: 0,
      partitionIndex: 1,
      leaderId: 1,
      leaderEpoch: 0,
      replicaNodes: [1],
      isrNodes: [1],
      eligibleLeaderReplicas: [],
      lastKnownElr: [],
      offlineReplicas: [],
    });
  });

  it('pages by the response partition limit: the cursor names the next partition, or the next topic', async () => {
    const first = await request([a, b, c], 2);
    expect(pages(first)).toEqual([[a, [0, 1]]]);
    expect(first.nextCursor).toEqual({ topicName: a, partitionIndex: 2 });
    const second = await request([a, b, c], 2, first.nextCursor);
    expect(pages(second)).toEqual([
      [a, [2]],
      [b, [0]],
    ]);
    // The limit was reached at a topic's end: the cursor points at the start of the next one.
    expect(second.nextCursor).toEqual({ topicName: c, partitionIndex: 0 });
    const third = await request([a, b, c], 2, second.nextCursor);
    expect(pages(third)).toEqual([[c, [0, 1]]]);
    expect(third.nextCursor).toBeNull();
  });

  it('caps a page at max.request.partition.size.limit, and serves at least one partition', async () => {
    const capped = await request([a, b, c], 100);
    expect(pages(capped)).toEqual([
      [a, [0, 1, 2]],
      [b, [0]],
      [c, [0, 1]],
    ]);
    const big = await request([a, b, c, `${prefix}-d`], 100, { topicName: a, partitionIndex: 0 });
    expect(big.nextCursor).toEqual({ topicName: `${prefix}-d`, partitionIndex: 0 });
    const one = await request([a], 0);
    expect(pages(one)).toEqual([[a, [0]]]);
    expect(one.nextCursor).toEqual({ topicName: a, partitionIndex: 1 });
  });

  it('every topic when none is named, from the cursor on; unknown and invalid names are errors only when named', async () => {
    const all = await request([], 2000, { topicName: b, partitionIndex: 0 });
    const names = all.topics.map((t: Message) => t.name);
    expect(names).toContain(b);
    expect(names).toContain(c);
    expect(names).not.toContain(a);
    expect(names).toEqual([...names].sort());
    const named = await request([`${prefix}-none`, 'bad name!']);
    expect(named.topics.map((t: Message) => [t.name, t.errorCode, t.partitions])).toEqual([
      ['bad name!', 17, []],
      [`${prefix}-none`, 3, []],
    ]);
  });

  it('a cursor outside the named topics, or with a negative partition, is INVALID_REQUEST', async () => {
    const outside = await request([a, b], 2000, { topicName: c, partitionIndex: 0 });
    expect(outside.topics.map((t: Message) => [t.name, t.errorCode])).toEqual([
      [a, 42],
      [b, 42],
    ]);
    const negative = await request([a], 2000, { topicName: a, partitionIndex: -1 });
    expect(negative.topics.map((t: Message) => [t.name, t.errorCode])).toEqual([[a, 42]]);
  });
});
