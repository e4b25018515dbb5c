// ListOffsets on a live broker: special timestamps and lookups by time.
import { beforeAll, describe, expect, it } from 'vitest';
import { useBrokerAndClient } from '../helpers.js';
import { API, createTopic, listOffsetsBody, produce, produceOk, uniqueTopic } from '../server/kafka.js';
import { buildBatch } from '../../protocol/record-batch.js';
import { CODEC_GZIP } from '../../protocol/compression/index.js';

const live = useBrokerAndClient();
let topic: string;
const T0 = 1_700_000_000_000;
beforeAll(async () => {
  topic = uniqueTopic('lo');
  await createTopic(live.client, topic, 2);
  // offsets 0-1 at T0+1000, T0+2000; 2 at T0+3000 (gzip batch with 3-5 at +4000, +5000, +4500); 6 at T0+6000
  await produceOk(live.client, topic, 0, [
    { value: 'a', timestamp: T0 + 1000 },
    { value: 'b', timestamp: T0 + 2000 },
  ]);
  const gz = buildBatch(
    [
      { value: 'c', timestamp: T0 + 3000 },
      { value: 'd', timestamp: T0 + 4000 },
      { value: 'e', timestamp: T0 + 5000 },
      { value: 'f', timestamp: T0 + 4500 },
    ],
    { compression: CODEC_GZIP },
  );
  expect((await produce(live.client, topic, 0, gz)).baseOffset).toBe(2);
  await produceOk(live.client, topic, 0, [{ value: 'g', timestamp: T0 + 6000 }]);
});

async function lookup(timestamp: number, version = 7, partition = 0, name = topic) {
  const res = await live.client.request(API.ListOffsets, version, listOffsetsBody(name, partition, timestamp));
  expect(res.topics).toHaveLength(1);
  expect(res.topics[0].name).toBe(name);
  return res.topics[0].partitions[0];
}

describe('ListOffsets', () => {
  it('-2 (earliest) is the log start offset, -1 (latest) the high watermark, for every version', async () => {
    for (const v of [1, 2, 4, 5, 6, 7, 8, 9, 10]) {
      expect(await lookup(-2, v)).toMatchObject({ partitionIndex: 0, errorCode: 0, offset: 0, timestamp: -1 });
      expect(await lookup(-1, v)).toMatchObject({ partitionIndex: 0, errorCode: 0, offset: 7, timestamp: -1 });
    }
    expect((await lookup(-1, 6)).leaderEpoch).toBe(0);
  });

  it('an empty partition answers 0 for both earliest and latest, -1 for max timestamp', async () => {
    expect(await lookup(-2, 7, 1)).toMatchObject({ errorCode: 0, offset: 0 });
    expect(await lookup(-1, 7, 1)).toMatchObject({ errorCode: 0, offset: 0 });
    expect(await lookup(-3, 7, 1)).toMatchObject({ errorCode: 0, offset: -1, timestamp: -1 });
    expect(await lookup(T0, 7, 1)).toMatchObject({ errorCode: 0, offset: -1, timestamp: -1 });
  });

  it('-3 (max timestamp, v7+) is the record with the largest timestamp, inside a compressed batch', async () => {
    expect(await lookup(-3, 7)).toMatchObject({ errorCode: 0, offset: 6, timestamp: T0 + 6000 });
    // before the last batch arrived the max was record 4 (e at +5000), inside the gzip batch
    const t2 = uniqueTopic('lo-max');
    await createTopic(live.client, t2);
    await produceOk(live.client, t2, 0, [{ value: 'x', timestamp: T0 + 10 }]);
    await produce(
      live.client,
      t2,
      0,
      buildBatch(
        [
          { value: 'y', timestamp: T0 + 30 },
          { value: 'z', timestamp: T0 + 20 },
        ],
        { compression: CODEC_GZIP },
      ),
    );
    const res = await live.client.request(API.ListOffsets, 8, listOffsetsBody(t2, 0, -3));
    expect(res.topics[0].partitions[0]).toMatchObject({ errorCode: 0, offset: 1, timestamp: T0 + 30 });
  });

  it('-4 (earliest local, v8+) is the log start offset; -5 (latest tiered, v9+) is -1 with epoch -1: nothing is tiered', async () => {
    for (const v of [8, 9, 10]) expect(await lookup(-4, v)).toMatchObject({ errorCode: 0, offset: 0, timestamp: -1 });
    for (const v of [9, 10]) expect(await lookup(-5, v)).toEqual({ partitionIndex: 0, errorCode: 0, offset: -1, timestamp: -1, leaderEpoch: -1 });
  });

  it('by timestamp: the first offset whose timestamp is at or after it', async () => {
    const cases: [number, number, number][] = [
      // [query, offset, timestamp found]
      [0, 0, T0 + 1000],
      [T0 + 1000, 0, T0 + 1000],
      [T0 + 1500, 1, T0 + 2000],
      [T0 + 2000, 1, T0 + 2000],
      [T0 + 2500, 2, T0 + 3000],
      [T0 + 3500, 3, T0 + 4000],
      [T0 + 4200, 4, T0 + 5000], // f (+4500) is at offset 5, after e (+5000) at offset 4
      [T0 + 5500, 6, T0 + 6000],
      [T0 + 6000, 6, T0 + 6000],
    ];
    for (const [query, offset, timestamp] of cases) {
      expect(await lookup(query, 1), `query ${query - T0}`).toMatchObject({ errorCode: 0, offset, timestamp });
    }
  });

  it('a timestamp beyond every record answers offset -1', async () => {
    expect(await lookup(T0 + 6001)).toMatchObject({ errorCode: 0, offset: -1, timestamp: -1 });
  });

  it('unknown topic or partition is UNKNOWN_TOPIC_OR_PARTITION', async () => {
    expect((await lookup(-1, 7, 0, uniqueTopic('none'))).errorCode).toBe(3);
    expect((await lookup(-1, 7, 9)).errorCode).toBe(3);
  });
});
