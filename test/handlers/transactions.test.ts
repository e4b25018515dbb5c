// The transaction coordinator's APIs on the wire: a transaction from InitProducerId to EndTxn, markers on
// its partitions, read_committed fetches, DescribeTransactions and ListTransactions, fencing.
import { describe, expect, it } from 'vitest';
import { buildBatch } from '../../protocol/record-batch.js';
import { useBrokerAndClient } from '../helpers.js';
import { API, createTopic, fetchBody, produce, uniqueTopic } from '../server/kafka.js';
import type { Message } from '../../protocol/codec.js';

const live = useBrokerAndClient();
const req = (api: number, v: number, body: object) => live.client.request(api, v, body);

async function init(transactionalId: string) {
  const r = await req(22, 4, { transactionalId, transactionTimeoutMs: 60_000, producerId: -1, producerEpoch: -1 });
  expect(r.errorCode).toBe(0);
  return { producerId: r.producerId as number, producerEpoch: r.producerEpoch as number };
}

const txnBatch = (producerId: number, producerEpoch: number, baseSequence: number, value: string) =>
  buildBatch([{ value, timestamp: 1_000 }], { producerId, producerEpoch, baseSequence, isTransactional: true });

describe('transactions on the wire', () => {
  it('commits and aborts across partitions; read_committed sees committed records only, with the aborted ones listed', async () => {
    const topic = uniqueTopic('txn');
    await createTopic(live.client, topic, 2);
    const id = `tid-${topic}`;
    const { producerId, producerEpoch } = await init(id);
    const add = await req(24, 3, {
      v3AndBelowTransactionalId: id,
      v3AndBelowProducerId: producerId,
      v3AndBelowProducerEpoch: producerEpoch,
      v3AndBelowTopics: [{ name: topic, partitions: [0, 1] }],
    });
    expect(add.resultsByTopicV3AndBelow[0].resultsByPartition.map((p: Message) => p.partitionErrorCode)).toEqual([0, 0]);
    const body = (partition: number, batch: Buffer) => ({
      transactionalId: id,
      acks: -1,
      timeoutMs: 5000,
      topicData: [{ name: topic, partitionData: [{ index: partition, records: batch }] }],
    });
    expect((await req(API.Produce, 9, body(0, txnBatch(producerId, producerEpoch, 0, 'c0')))).responses[0].partitionResponses[0].errorCode).toBe(0);
    expect((await req(API.Produce, 9, body(1, txnBatch(producerId, producerEpoch, 0, 'c1')))).responses[0].partitionResponses[0].errorCode).toBe(0);

    const described = await req(65, 0, { transactionalIds: [id, 'nobody'] });
    expect(described.transactionStates[0]).toMatchObject({ errorCode: 0, transactionState: 'Ongoing', producerId, topics: [{ topic, partitions: [0, 1] }] });
    expect(described.transactionStates[1].errorCode).toBe(105);
    const listed = await req(66, 1, { stateFilters: ['Ongoing', 'Bogus'], producerIdFilters: [], durationFilter: -1 });
    expect(listed.unknownStateFilters).toEqual(['Bogus']);
    expect(listed.transactionStates).toContainEqual({ transactionalId: id, producerId, transactionState: 'Ongoing' });

    // Open: read_committed stops before the transaction's records.
    const fetchCommitted = () =>
      req(API.Fetch, 12, {
        ...fetchBody(
          12,
          topic,
          [
            { partition: 0, fetchOffset: 0 },
            { partition: 1, fetchOffset: 0 },
          ],
          { maxWaitMs: 0 },
        ),
        isolationLevel: 1,
      });
    let f = await fetchCommitted();
    expect(f.responses[0].partitions.map((p: Message) => [p.lastStableOffset, p.highWatermark])).toEqual([
      [0, 1],
      [0, 1],
    ]);
    expect((await req(26, 3, { transactionalId: id, producerId, producerEpoch, committed: true })).errorCode).toBe(0);
    f = await fetchCommitted();
    expect(f.responses[0].partitions.map((p: Message) => [p.lastStableOffset, p.highWatermark, p.abortedTransactions])).toEqual([
      [2, 2, []],
      [2, 2, []],
    ]);

    // A second transaction, aborted.
    await req(24, 3, {
      v3AndBelowTransactionalId: id,
      v3AndBelowProducerId: producerId,
      v3AndBelowProducerEpoch: producerEpoch,
      v3AndBelowTopics: [{ name: topic, partitions: [0] }],
    });
    await req(API.Produce, 9, body(0, txnBatch(producerId, producerEpoch, 1, 'a0')));
    expect((await req(26, 3, { transactionalId: id, producerId, producerEpoch, committed: false })).errorCode).toBe(0);
    f = await fetchCommitted();
    expect(f.responses[0].partitions[0].abortedTransactions).toEqual([{ producerId, firstOffset: 2 }]);
    // Retrying the abort is fine; committing it now is INVALID_TXN_STATE.
    expect((await req(26, 3, { transactionalId: id, producerId, producerEpoch, committed: false })).errorCode).toBe(0);
    expect((await req(26, 3, { transactionalId: id, producerId, producerEpoch, committed: true })).errorCode).toBe(48);
  });

  it('refuses a transactional write to a partition not in the transaction, and fences an older epoch', async () => {
    const topic = uniqueTopic('txn-fence');
    await createTopic(live.client, topic, 1);
    const id = `tid-${topic}`;
    const first = await init(id);
    const p = await produce(live.client, topic, 0, txnBatch(first.producerId, first.producerEpoch, 0, 'x'));
    expect(p.errorCode).toBe(48); // INVALID_TXN_STATE (no transactional id / not added), Produce v9
    const second = await init(id);
    expect([second.producerId, second.producerEpoch]).toEqual([first.producerId, first.producerEpoch + 1]);
    const add = await req(24, 3, {
      v3AndBelowTransactionalId: id,
      v3AndBelowProducerId: first.producerId,
      v3AndBelowProducerEpoch: first.producerEpoch,
      v3AndBelowTopics: [{ name: topic, partitions: [0] }],
    });
    expect(add.resultsByTopicV3AndBelow[0].resultsByPartition[0].partitionErrorCode).toBe(90); // PRODUCER_FENCED
    const end = await req(26, 1, { transactionalId: id, producerId: first.producerId, producerEpoch: first.producerEpoch, committed: true });
    expect(end.errorCode).toBe(47); // INVALID_PRODUCER_EPOCH below v2
  });

  it('keeps TxnOffsetCommit offsets pending (UNSTABLE_OFFSET_COMMIT under requireStable) until the commit marker', async () => {
    const topic = uniqueTopic('txn-offsets');
    await createTopic(live.client, topic, 1);
    const id = `tid-${topic}`;
    const group = `g-${topic}`;
    const { producerId, producerEpoch } = await init(id);
    expect((await req(25, 3, { transactionalId: id, producerId, producerEpoch, groupId: group })).errorCode).toBe(0);
    const commit = await req(28, 3, {
      transactionalId: id,
      groupId: group,
      producerId,
      producerEpoch,
      generationId: -1,
      memberId: '',
      groupInstanceId: null,
      topics: [{ name: topic, partitions: [{ partitionIndex: 0, committedOffset: 42, committedLeaderEpoch: -1, committedMetadata: 'm' }] }],
    });
    expect(commit.topics[0].partitions[0].errorCode).toBe(0);
    const fetchOffsets = (requireStable: boolean) => req(9, 7, { groupId: group, topics: [{ name: topic, partitionIndexes: [0] }], requireStable });
    expect((await fetchOffsets(false)).topics[0].partitions[0].committedOffset).toBe(-1);
    expect((await fetchOffsets(true)).topics[0].partitions[0].errorCode).toBe(88);
    expect((await req(26, 3, { transactionalId: id, producerId, producerEpoch, committed: true })).errorCode).toBe(0);
    const after = (await fetchOffsets(true)).topics[0].partitions[0];
    expect([after.errorCode, after.committedOffset, after.metadata]).toEqual([0, 42, 'm']);
    // A TxnOffsetCommit for a group whose partition was not added is INVALID_TXN_STATE (v3).
    const other = await req(28, 3, {
      transactionalId: id,
      groupId: `${group}-other`,
      producerId,
      producerEpoch,
      generationId: -1,
      memberId: '',
      groupInstanceId: null,
      topics: [{ name: topic, partitions: [{ partitionIndex: 0, committedOffset: 1, committedLeaderEpoch: -1, committedMetadata: null }] }],
    });
    expect(other.topics[0].partitions[0].errorCode).toBe(48);
  });

  it('serves the batched v4 form: adds for one transaction, verifies (verifyOnly) for another', async () => {
    const topic = uniqueTopic('txn-v4');
    await createTopic(live.client, topic, 2);
    const a = await init(`tid-a-${topic}`);
    const b = await init(`tid-b-${topic}`);
    const res = await req(24, 4, {
      transactions: [
        {
          transactionalId: `tid-a-${topic}`,
          producerId: a.producerId,
          producerEpoch: a.producerEpoch,
          verifyOnly: false,
          topics: [{ name: topic, partitions: [0] }],
        },
        {
          transactionalId: `tid-b-${topic}`,
          producerId: b.producerId,
          producerEpoch: b.producerEpoch,
          verifyOnly: true,
          topics: [{ name: topic, partitions: [1] }],
        },
      ],
    });
    expect(res.errorCode).toBe(0);
    const codes = res.resultsByTransaction.map((t: Message) => t.topicResults[0].resultsByPartition[0].partitionErrorCode);
    expect(codes).toEqual([0, 120]); // added; not in b's (empty) transaction: TRANSACTION_ABORTABLE
    const verify = await req(24, 5, {
      transactions: [
        {
          transactionalId: `tid-a-${topic}`,
          producerId: a.producerId,
          producerEpoch: a.producerEpoch,
          verifyOnly: true,
          topics: [{ name: topic, partitions: [0, 1] }],
        },
      ],
    });
    expect(verify.resultsByTransaction[0].topicResults[0].resultsByPartition.map((p: Message) => p.partitionErrorCode)).toEqual([0, 120]);
  });

  it('serves EndTxn v5 (KIP-890 part 2): every end bumps the epoch, returned for the next transaction; a retry is recognised', async () => {
    const topic = uniqueTopic('txn-v5');
    await createTopic(live.client, topic, 1);
    const id = `tid-${topic}`;
    const { producerId, producerEpoch } = await init(id);
    await req(24, 3, {
      v3AndBelowTransactionalId: id,
      v3AndBelowProducerId: producerId,
      v3AndBelowProducerEpoch: producerEpoch,
      v3AndBelowTopics: [{ name: topic, partitions: [0] }],
    });
    const body = {
      transactionalId: id,
      acks: -1,
      timeoutMs: 5000,
      topicData: [{ name: topic, partitionData: [{ index: 0, records: txnBatch(producerId, producerEpoch, 0, 'v5') }] }],
    };
    expect((await req(API.Produce, 9, body)).responses[0].partitionResponses[0].errorCode).toBe(0);
    const end = await req(26, 5, { transactionalId: id, producerId, producerEpoch, committed: true });
    expect([end.errorCode, end.producerId, end.producerEpoch]).toEqual([0, producerId, producerEpoch + 1]);
    const retry = await req(26, 5, { transactionalId: id, producerId, producerEpoch, committed: true });
    expect([retry.errorCode, retry.producerEpoch]).toEqual([0, producerEpoch + 1]);
    const stale = await req(26, 5, { transactionalId: id, producerId, producerEpoch: producerEpoch + 5, committed: true });
    expect(stale.errorCode).toBe(90); // PRODUCER_FENCED
    // The next transaction runs at the new epoch from sequence 0; the committed record is readable.
    await req(24, 3, {
      v3AndBelowTransactionalId: id,
      v3AndBelowProducerId: producerId,
      v3AndBelowProducerEpoch: producerEpoch + 1,
      v3AndBelowTopics: [{ name: topic, partitions: [0] }],
    });
    const next = { ...body, topicData: [{ name: topic, partitionData: [{ index: 0, records: txnBatch(producerId, producerEpoch + 1, 0, 'v5-2') }] }] };
    expect((await req(API.Produce, 9, next)).responses[0].partitionResponses[0].errorCode).toBe(0);
    const f = await req(API.Fetch, 12, { ...fetchBody(12, topic, [{ partition: 0, fetchOffset: 0 }], { maxWaitMs: 0 }), isolationLevel: 1 });
    expect(f.responses[0].partitions[0].lastStableOffset).toBe(2); // record 0 and its marker; record 2 is still open
  });
});
