// The idempotent producer on a live broker, as Apache Kafka 3.x/4.0 behaves: InitProducerId without a
// transactional id hands out fresh ids at epoch 0, and each partition keeps per-producer state checked on
// every batch with producerId >= 0:
// - an epoch lower than the last seen one is INVALID_PRODUCER_EPOCH (47);
// - at the same epoch the batch must start at lastSequence + 1 (0 after Int32 max), else
//   OUT_OF_ORDER_SEQUENCE_NUMBER (45); a higher epoch must start at 0; a producer the partition has never
//   seen is accepted at any sequence;
// - a batch equal in (producerId, epoch, first and last sequence) to one of the producer's last 5 on the
//   partition is a retry: it is not appended again and the answer is success with the ORIGINAL baseOffset.
// Records are counted by fetching them back. The restart side is test/cli/producer-state-restart.test.ts.
import { describe, expect, it } from 'vitest';
import { useBrokerAndClient } from '../helpers.js';
import {
  API,
  batchesOf,
  createTopic,
  fetchOne,
  idempotentBatch,
  initProducerId,
  produce,
  produceOk,
  recordsOf,
  uniqueTopic,
  values,
  type ProducerSeq,
} from '../server/kafka.js';
import { TestClient } from '../server/client.js';
import { buildBatch } from '../../protocol/record-batch.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { Message } from '../../protocol/codec.js';

const live = useBrokerAndClient();

const { OUT_OF_ORDER_SEQUENCE_NUMBER, INVALID_PRODUCER_EPOCH } = ErrorCode;

async function newProducer(client: TestClient): Promise<number> {
  const res = await initProducerId(client);
  expect(res.errorCode).toBe(0);
  expect(res.producerEpoch).toBe(0);
  return Number(res.producerId);
}

/** Every record value in the partition, in offset order, and the high watermark. */
async function partitionValues(client: TestClient, topic: string, partition: number): Promise<{ values: (string | null)[]; highWatermark: number }> {
  const p = await fetchOne(client, topic, partition, 0);
  expect(p.errorCode).toBe(0);
  const recs = recordsOf(p.records);
  expect(recs.map((r) => r.offset)).toEqual(recs.map((_, i) => i));
  return { values: recs.map((r) => r.value), highWatermark: Number(p.highWatermark) };
}

/** Produces an idempotent batch of `n` records tagged `tag`; returns the partition response. */
function send(client: TestClient, topic: string, partition: number, seq: ProducerSeq, n: number, tag: string) {
  return produce(client, topic, partition, idempotentBatch(seq, values(n, `${tag}-`)));
}

describe('InitProducerId without a transactional id', () => {
  for (let v = 0; v <= 5; v++) {
    it(`v${v}: a fresh producer id at epoch 0, a different one on every call`, async () => {
      const body = { transactionalId: null, transactionTimeoutMs: 60_000, producerId: -1, producerEpoch: -1 };
      const a = await live.client.request(API.InitProducerId, v, body);
      const b = await live.client.request(API.InitProducerId, v, body);
      for (const r of [a, b]) {
        expect(r).toMatchObject({ throttleTimeMs: 0, errorCode: 0, producerEpoch: 0 });
        expect(Number(r.producerId)).toBeGreaterThanOrEqual(0);
      }
      expect(Number(a.producerId)).not.toBe(Number(b.producerId));
    });
  }

  it('ids are never handed out twice, across versions and connections', async () => {
    const other = await TestClient.connect(live.broker.port);
    try {
      const ids = new Set<number>();
      for (let i = 0; i < 24; i++) {
        const res = await initProducerId(i % 2 ? other : live.client, i % 6);
        expect(res.errorCode).toBe(0);
        ids.add(Number(res.producerId));
      }
      expect(ids.size).toBe(24);
    } finally {
      other.close();
    }
  });

  it('v3+: passing an existing id and epoch without a transactional id still gets a new id at epoch 0 (as Kafka)', async () => {
    const old = await newProducer(live.client);
    const res = await live.client.request(API.InitProducerId, 3, { transactionalId: null, transactionTimeoutMs: 60_000, producerId: old, producerEpoch: 0 });
    expect(res.errorCode).toBe(0);
    expect(res.producerEpoch).toBe(0);
    expect(Number(res.producerId)).not.toBe(old);
  });
});

describe('Produce with producer state', () => {
  it('in-sequence batches append; the stored batches keep producer id, epoch and base sequence', async () => {
    const topic = uniqueTopic('idem-seq');
    await createTopic(live.client, topic);
    const producerId = await newProducer(live.client);
    const offsets = [];
    let baseSequence = 0;
    for (const n of [3, 1, 4]) {
      const p = await send(live.client, topic, 0, { producerId, producerEpoch: 0, baseSequence }, n, `b${baseSequence}`);
      expect(p.errorCode).toBe(0);
      offsets.push(Number(p.baseOffset));
      baseSequence += n;
    }
    expect(offsets).toEqual([0, 3, 4]);
    const f = await fetchOne(live.client, topic, 0, 0);
    expect(batchesOf(f.records).map((b) => [b.baseOffset, b.producerId, b.producerEpoch, b.baseSequence])).toEqual([
      [0, producerId, 0, 0],
      [3, producerId, 0, 3],
      [4, producerId, 0, 4],
    ]);
  });

  it('re-sending the last batch is answered with its original baseOffset and not appended again', async () => {
    const topic = uniqueTopic('idem-dup');
    await createTopic(live.client, topic);
    const producerId = await newProducer(live.client);
    const first = idempotentBatch({ producerId, producerEpoch: 0, baseSequence: 0 }, values(2, 'a'));
    const second = idempotentBatch({ producerId, producerEpoch: 0, baseSequence: 2 }, values(3, 'b'));
    expect(await produce(live.client, topic, 0, first)).toMatchObject({ errorCode: 0, baseOffset: 0 });
    expect(await produce(live.client, topic, 0, second)).toMatchObject({ errorCode: 0, baseOffset: 2 });
    for (let i = 0; i < 3; i++) expect(await produce(live.client, topic, 0, second)).toMatchObject({ errorCode: 0, baseOffset: 2 });
    const got = await partitionValues(live.client, topic, 0);
    expect(got.highWatermark).toBe(5);
    expect(got.values).toEqual(['a0', 'a1', 'b0', 'b1', 'b2']);
    // the producer continues right after the retried batch
    expect(await send(live.client, topic, 0, { producerId, producerEpoch: 0, baseSequence: 5 }, 1, 'c')).toMatchObject({ errorCode: 0, baseOffset: 5 });
  });

  it('any of the last 5 batches is recognised as a duplicate; one 6 batches back is out of order', async () => {
    const topic = uniqueTopic('idem-five');
    await createTopic(live.client, topic);
    const producerId = await newProducer(live.client);
    const batches: { batch: Buffer; baseOffset: number }[] = [];
    for (let i = 0; i < 6; i++) {
      const batch = idempotentBatch({ producerId, producerEpoch: 0, baseSequence: i * 2 }, values(2, `b${i}-`));
      const p = await produce(live.client, topic, 0, batch);
      expect(p.errorCode).toBe(0);
      batches.push({ batch, baseOffset: Number(p.baseOffset) });
    }
    // batches 1..5 are the last five: each retry answers its own original offset
    for (const { batch, baseOffset } of batches.slice(1).reverse()) {
      expect(await produce(live.client, topic, 0, batch)).toMatchObject({ errorCode: 0, baseOffset });
    }
    // batch 0 has fallen out of the window: its sequence is simply not the next one
    expect((await produce(live.client, topic, 0, batches[0].batch)).errorCode).toBe(OUT_OF_ORDER_SEQUENCE_NUMBER);
    expect((await partitionValues(live.client, topic, 0)).highWatermark).toBe(12);
  });

  it('a duplicate must match the sequence range exactly: same first sequence, different length is out of order', async () => {
    const topic = uniqueTopic('idem-range');
    await createTopic(live.client, topic);
    const producerId = await newProducer(live.client);
    expect((await send(live.client, topic, 0, { producerId, producerEpoch: 0, baseSequence: 0 }, 3, 'a')).errorCode).toBe(0);
    expect((await send(live.client, topic, 0, { producerId, producerEpoch: 0, baseSequence: 0 }, 2, 'a')).errorCode).toBe(OUT_OF_ORDER_SEQUENCE_NUMBER);
    expect((await partitionValues(live.client, topic, 0)).highWatermark).toBe(3);
  });

  it('a gap or a step back in the sequence is OUT_OF_ORDER_SEQUENCE_NUMBER (45) and writes nothing', async () => {
    const topic = uniqueTopic('idem-ooo');
    await createTopic(live.client, topic);
    const producerId = await newProducer(live.client);
    expect((await send(live.client, topic, 0, { producerId, producerEpoch: 0, baseSequence: 0 }, 3, 'a')).errorCode).toBe(0);
    for (const baseSequence of [4, 10, 1, 2]) {
      const p = await send(live.client, topic, 0, { producerId, producerEpoch: 0, baseSequence }, 1, 'x');
      expect(p.errorCode, `baseSequence ${baseSequence}`).toBe(OUT_OF_ORDER_SEQUENCE_NUMBER);
      expect(Number(p.baseOffset)).toBe(-1);
    }
    expect(await partitionValues(live.client, topic, 0)).toEqual({ values: ['a-0', 'a-1', 'a-2'], highWatermark: 3 });
    expect(await send(live.client, topic, 0, { producerId, producerEpoch: 0, baseSequence: 3 }, 1, 'b')).toMatchObject({ errorCode: 0, baseOffset: 3 });
  });

  it('the sequence wraps: after a batch ending at Int32 max the next starts at 0', async () => {
    const topic = uniqueTopic('idem-wrap');
    await createTopic(live.client, topic);
    const producerId = await newProducer(live.client);
    const max = 0x7fffffff;
    // never seen: accepted at any sequence, here one that ends exactly at Int32 max
    expect((await send(live.client, topic, 0, { producerId, producerEpoch: 0, baseSequence: max - 1 }, 2, 'a')).errorCode).toBe(0);
    expect(await send(live.client, topic, 0, { producerId, producerEpoch: 0, baseSequence: 0 }, 2, 'b')).toMatchObject({ errorCode: 0, baseOffset: 2 });
    expect((await partitionValues(live.client, topic, 0)).values).toEqual(['a-0', 'a-1', 'b-0', 'b-1']);
  });

  it('a lower epoch is INVALID_PRODUCER_EPOCH (47); a higher epoch must start at sequence 0', async () => {
    const topic = uniqueTopic('idem-epoch');
    await createTopic(live.client, topic);
    const producerId = await newProducer(live.client);
    expect((await send(live.client, topic, 0, { producerId, producerEpoch: 0, baseSequence: 0 }, 2, 'e0')).errorCode).toBe(0);
    // a new epoch not starting at 0
    expect((await send(live.client, topic, 0, { producerId, producerEpoch: 1, baseSequence: 2 }, 1, 'x')).errorCode).toBe(OUT_OF_ORDER_SEQUENCE_NUMBER);
    expect((await send(live.client, topic, 0, { producerId, producerEpoch: 1, baseSequence: 5 }, 1, 'x')).errorCode).toBe(OUT_OF_ORDER_SEQUENCE_NUMBER);
    // the new epoch from 0
    expect(await send(live.client, topic, 0, { producerId, producerEpoch: 1, baseSequence: 0 }, 2, 'e1')).toMatchObject({ errorCode: 0, baseOffset: 2 });
    // the old epoch is now fenced, even in sequence
    const stale = await send(live.client, topic, 0, { producerId, producerEpoch: 0, baseSequence: 2 }, 1, 'x');
    expect(stale.errorCode).toBe(INVALID_PRODUCER_EPOCH);
    expect(Number(stale.baseOffset)).toBe(-1);
    // and so is a retry of an old-epoch batch
    expect((await send(live.client, topic, 0, { producerId, producerEpoch: 0, baseSequence: 0 }, 2, 'e0')).errorCode).toBe(INVALID_PRODUCER_EPOCH);
    expect(await send(live.client, topic, 0, { producerId, producerEpoch: 1, baseSequence: 2 }, 1, 'e1b')).toMatchObject({ errorCode: 0, baseOffset: 4 });
    expect((await partitionValues(live.client, topic, 0)).values).toEqual(['e0-0', 'e0-1', 'e1-0', 'e1-1', 'e1b-0']);
  });

  it('a producer the partition has never seen is accepted at any sequence (here 7), and continues from there', async () => {
    const topic = uniqueTopic('idem-new');
    await createTopic(live.client, topic);
    const producerId = await newProducer(live.client);
    expect(await send(live.client, topic, 0, { producerId, producerEpoch: 0, baseSequence: 7 }, 2, 'a')).toMatchObject({ errorCode: 0, baseOffset: 0 });
    expect(await send(live.client, topic, 0, { producerId, producerEpoch: 0, baseSequence: 9 }, 1, 'b')).toMatchObject({ errorCode: 0, baseOffset: 2 });
    expect(await send(live.client, topic, 0, { producerId, producerEpoch: 0, baseSequence: 7 }, 2, 'a')).toMatchObject({ errorCode: 0, baseOffset: 0 });
    expect((await send(live.client, topic, 0, { producerId, producerEpoch: 0, baseSequence: 7 }, 1, 'x')).errorCode).toBe(OUT_OF_ORDER_SEQUENCE_NUMBER);
    expect((await partitionValues(live.client, topic, 0)).values).toEqual(['a-0', 'a-1', 'b-0']);
  });

  it('state is per partition and per producer: sequences of one do not affect another', async () => {
    const topic = uniqueTopic('idem-part');
    await createTopic(live.client, topic, 2);
    const p1 = await newProducer(live.client);
    const p2 = await newProducer(live.client);
    expect((await send(live.client, topic, 0, { producerId: p1, producerEpoch: 0, baseSequence: 0 }, 3, 'p1-0')).errorCode).toBe(0);
    // partition 1 starts its own sequence for the same producer
    expect(await send(live.client, topic, 1, { producerId: p1, producerEpoch: 0, baseSequence: 0 }, 2, 'p1-1')).toMatchObject({ errorCode: 0, baseOffset: 0 });
    // a batch equal to partition 0's is not a duplicate on partition 1: it is out of order there
    expect((await send(live.client, topic, 1, { producerId: p1, producerEpoch: 0, baseSequence: 0 }, 3, 'p1-0')).errorCode).toBe(OUT_OF_ORDER_SEQUENCE_NUMBER);
    // another producer on partition 0 has its own sequence
    expect(await send(live.client, topic, 0, { producerId: p2, producerEpoch: 0, baseSequence: 0 }, 1, 'p2-0')).toMatchObject({ errorCode: 0, baseOffset: 3 });
    // an epoch bump of p1 on partition 1 does not fence p1 on partition 0
    expect((await send(live.client, topic, 1, { producerId: p1, producerEpoch: 1, baseSequence: 0 }, 1, 'p1-1e1')).errorCode).toBe(0);
    expect(await send(live.client, topic, 0, { producerId: p1, producerEpoch: 0, baseSequence: 3 }, 1, 'p1-0b')).toMatchObject({ errorCode: 0, baseOffset: 4 });
    // both partitions in one request: one in sequence, one out of order; the errors stay per partition
    const res = await live.client.request(API.Produce, 9, {
      transactionalId: null,
      acks: -1,
      timeoutMs: 5000,
      topicData: [
        {
          name: topic,
          partitionData: [
            { index: 0, records: idempotentBatch({ producerId: p1, producerEpoch: 0, baseSequence: 4 }, values(1, 'ok')) },
            { index: 1, records: idempotentBatch({ producerId: p1, producerEpoch: 1, baseSequence: 3 }, values(1, 'gap')) },
          ],
        },
      ],
    });
    expect(res.responses[0].partitionResponses.map((p: Message) => [p.index, p.errorCode, Number(p.baseOffset)])).toEqual([
      [0, 0, 5],
      [1, OUT_OF_ORDER_SEQUENCE_NUMBER, -1],
    ]);
    expect((await partitionValues(live.client, topic, 0)).values).toEqual(['p1-0-0', 'p1-0-1', 'p1-0-2', 'p2-0-0', 'p1-0b-0', 'ok0']);
    expect((await partitionValues(live.client, topic, 1)).values).toEqual(['p1-1-0', 'p1-1-1', 'p1-1e1-0']);
  });

  it('a non-idempotent batch (producerId -1) is unaffected: sent twice, appended twice, also between idempotent ones', async () => {
    const topic = uniqueTopic('idem-plain');
    await createTopic(live.client, topic);
    const plain = buildBatch(values(2, 'plain'));
    expect(await produce(live.client, topic, 0, plain)).toMatchObject({ errorCode: 0, baseOffset: 0 });
    expect(await produce(live.client, topic, 0, plain)).toMatchObject({ errorCode: 0, baseOffset: 2 });
    const producerId = await newProducer(live.client);
    expect((await send(live.client, topic, 0, { producerId, producerEpoch: 0, baseSequence: 0 }, 1, 'i')).errorCode).toBe(0);
    expect(await produceOk(live.client, topic, 0, values(1, 'after'))).toBe(5);
    expect(await send(live.client, topic, 0, { producerId, producerEpoch: 0, baseSequence: 1 }, 1, 'j')).toMatchObject({ errorCode: 0, baseOffset: 6 });
    expect((await partitionValues(live.client, topic, 0)).values).toEqual(['plain0', 'plain1', 'plain0', 'plain1', 'i-0', 'after0', 'j-0']);
  });
});
