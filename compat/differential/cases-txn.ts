// Cases of the transaction APIs: InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn, TxnOffsetCommit, EndTxn,
// DescribeTransactions, ListTransactions, and what a transaction leaves in the log (read_committed fetches,
// aborted transactions). Each version gets transactional ids of its own, so that no step waits for the
// end of another version's transaction.
import type { Message } from '../../protocol/codec.js';
import { buildBatch } from '../../protocol/record-batch.js';
import type { Case, CaseContext } from './case.js';
import { produceBody } from './harness.js';
import { eventually } from '../util.js';
import { NOW, fetchBody, listOffsetsBody } from './cases-log.js';

interface Producer {
  transactionalId: string;
  producerId: number;
  producerEpoch: number;
}

async function transactionalProducer(ctx: Pick<CaseContext, 'side'>, transactionalId: string): Promise<Producer> {
  return { transactionalId, ...(await ctx.side.initProducerId(transactionalId)) };
}

function addPartitionsBody(v: number, p: Producer, topics: { name: string; partitions: number[] }[]): Message {
  return v >= 4
    ? { transactions: [{ transactionalId: p.transactionalId, producerId: p.producerId, producerEpoch: p.producerEpoch, verifyOnly: false, topics }] }
    : { v3AndBelowTransactionalId: p.transactionalId, v3AndBelowProducerId: p.producerId, v3AndBelowProducerEpoch: p.producerEpoch, v3AndBelowTopics: topics };
}

function endTxnBody(p: Producer, committed: boolean): Message {
  return { transactionalId: p.transactionalId, producerId: p.producerId, producerEpoch: p.producerEpoch, committed };
}

function txnBatch(p: Producer, baseSequence: number, n = 2): Buffer {
  const records = Array.from({ length: n }, (_, i) => ({ key: `k${i}`, value: `t${baseSequence + i}`, timestamp: NOW }));
  return buildBatch(records, { producerId: Number(p.producerId), producerEpoch: p.producerEpoch, baseSequence, isTransactional: true });
}

/**
 * Waits until a transaction that is ending has ended: Kafka writes its markers after answering EndTxn, and
 * answers CONCURRENT_TRANSACTIONS to the producer's next request until then.
 */
async function awaitEnded(ctx: Pick<CaseContext, 'side'>, transactionalId: string): Promise<void> {
  await eventually(`${ctx.side.name}: the end of ${transactionalId}`, async () => {
    const res = await ctx.side.quiet(65, 0, { transactionalIds: [transactionalId] });
    return /^Prepare/.test(res.transactionStates[0].transactionState) ? undefined : true;
  });
}

/** Waits until the markers of ended transactions are in: the last stable offset has reached `offset`. */
async function awaitStable(ctx: Pick<CaseContext, 'side'>, topic: string, offset: bigint): Promise<void> {
  await eventually(`${ctx.side.name}: last stable offset of ${topic} at ${offset}`, async () => {
    const res = await ctx.side.quiet(2, 7, { ...listOffsetsBody(topic, [{ partitionIndex: 0, timestamp: -1n }]), isolationLevel: 1 });
    return res.topics[0].partitions[0].offset >= offset ? true : undefined;
  });
}

export const TXN_CASES: Case[] = [
  {
    name: 'InitProducerId: idempotent, transactional, bad timeout, epoch bump',
    api: 22,
    async run({ send, v, name, side }) {
      const txnId = name(`init-v${v}`);
      await side.awaitCoordinator(txnId, 1);
      const body = (transactionalId: string | null, transactionTimeoutMs = 60_000, producerId = -1, producerEpoch = -1) => ({
        transactionalId,
        transactionTimeoutMs,
        producerId,
        producerEpoch,
      });
      await send('idempotent', 22, v, body(null));
      const first = await send('transactional', 22, v, body(txnId));
      await send('again', 22, v, body(txnId));
      await send('timeout too long', 22, v, body(name(`init-long-v${v}`), 1_000_000_000));
      await send('timeout zero', 22, v, body(name(`init-zero-v${v}`), 0));
      if (v >= 3) {
        await send('bump with the current epoch', 22, v, body(txnId, 60_000, first.producerId, first.producerEpoch + 1));
        await send('bump with a stale epoch', 22, v, body(txnId, 60_000, first.producerId, 0));
        await send('bump with a wrong producer id', 22, v, body(txnId, 60_000, first.producerId + 1000, first.producerEpoch + 1));
      }
    },
  },
  {
    name: 'AddPartitionsToTxn: ordinary, unknown topic, fenced epoch, unknown producer',
    api: 24,
    async setup({ side, name }) {
      await side.createTopics([{ name: name('t'), partitions: 2 }]);
    },
    async run(ctx) {
      const { send, v, name } = ctx;
      const p = await transactionalProducer(ctx, name(`apt-v${v}`));
      await send('ordinary', 24, v, addPartitionsBody(v, p, [{ name: name('t'), partitions: [0, 1] }]));
      await send('again', 24, v, addPartitionsBody(v, p, [{ name: name('t'), partitions: [0] }]));
      await send(
        'unknown topic and partition',
        24,
        v,
        addPartitionsBody(v, p, [
          { name: name('missing'), partitions: [0] },
          { name: name('t'), partitions: [7] },
        ]),
      );
      await send(
        'fenced epoch, unknown topic',
        24,
        v,
        addPartitionsBody(v, { ...p, producerEpoch: p.producerEpoch - 1 }, [{ name: name('missing'), partitions: [0] }]),
      );
      await send('fenced epoch', 24, v, addPartitionsBody(v, { ...p, producerEpoch: p.producerEpoch - 1 }, [{ name: name('t'), partitions: [1] }]));
      await send('wrong producer id', 24, v, addPartitionsBody(v, { ...p, producerId: p.producerId + 1000 }, [{ name: name('t'), partitions: [1] }]));
      await send(
        'unknown transactional id',
        24,
        v,
        addPartitionsBody(v, { ...p, transactionalId: name(`apt-none-v${v}`) }, [{ name: name('t'), partitions: [1] }]),
      );
      await send('abort', 26, 3, endTxnBody(p, false));
    },
  },
  {
    name: 'EndTxn: commit and abort, then read_committed',
    api: 26,
    async setup({ side, name }) {
      await side.createTopics([0, 1, 2, 3, 4, 5].map((v) => ({ name: name(`end-v${v}`) })));
    },
    async run(ctx) {
      const { send, v, name } = ctx;
      const topic = name(`end-v${v}`);
      let p = await transactionalProducer(ctx, name(`end-v${v}`));
      let sequence = 0;
      // From v5 (KIP-890) an ended transaction bumps the epoch and the answer says so; the sequence restarts.
      const end = async (step: string, q: Producer, committed: boolean) => {
        const res = await send(step, 26, v, endTxnBody(q, committed));
        await awaitEnded(ctx, p.transactionalId);
        if (q !== p || res.errorCode !== 0 || v < 5 || res.producerEpoch === p.producerEpoch) return;
        p = { ...p, producerEpoch: res.producerEpoch };
        sequence = 0;
      };
      const produce = async (step: string) => {
        await send(`add for ${step}`, 24, 3, addPartitionsBody(3, p, [{ name: topic, partitions: [0] }]));
        await send(step, 0, 9, produceBody(topic, 0, txnBatch(p, sequence), -1, p.transactionalId));
        sequence += 2;
      };
      await end('end with nothing added', p, true);
      await produce('produce to commit');
      await end('commit', p, true);
      await awaitStable(ctx, topic, 3n);
      await end('commit again', p, true);
      await end('abort after commit', p, false);
      await end('stale epoch', { ...p, producerEpoch: p.producerEpoch - 1 }, false);
      await end('unknown transactional id', { ...p, transactionalId: name(`end-none-v${v}`) }, true);
      await produce('produce to abort');
      await end('abort', p, false);
      await awaitStable(ctx, topic, 6n);
      await send('read_committed', 1, 11, fetchBody({ ...ctx, v: 11 }, topic, [{ partition: 0, fetchOffset: 0 }], 1));
      await send('read_uncommitted', 1, 11, fetchBody({ ...ctx, v: 11 }, topic, [{ partition: 0, fetchOffset: 0 }], 0));
    },
  },
  {
    name: 'AddOffsetsToTxn and TxnOffsetCommit',
    api: 28,
    async setup({ side, name }) {
      await side.createTopics([{ name: name('t') }]);
    },
    async run(ctx) {
      const { send, v, name, side } = ctx;
      const group = name(`group-v${v}`);
      await side.awaitCoordinator(group, 0);
      const p = await transactionalProducer(ctx, name(`offsets-v${v}`));
      const addV = Math.min(v, 4);
      const addOffsets = (q: Producer, groupId = group) => ({
        transactionalId: q.transactionalId,
        producerId: q.producerId,
        producerEpoch: q.producerEpoch,
        groupId,
      });
      const commit = (q: Producer, topic = name('t')) => ({
        transactionalId: q.transactionalId,
        groupId: group,
        producerId: q.producerId,
        producerEpoch: q.producerEpoch,
        generationId: -1,
        memberId: '',
        groupInstanceId: null,
        topics: [{ name: topic, partitions: [{ partitionIndex: 0, committedOffset: 5n, committedLeaderEpoch: -1, committedMetadata: 'txn' }] }],
      });
      await send('commit before add', 28, v, commit(p));
      await send('add offsets', 25, addV, addOffsets(p));
      await send('add offsets stale epoch', 25, addV, addOffsets({ ...p, producerEpoch: p.producerEpoch - 1 }));
      await send('commit', 28, v, commit(p));
      await send('commit unknown topic', 28, v, commit(p, name('missing')));
      await send('commit stale epoch', 28, v, commit({ ...p, producerEpoch: p.producerEpoch - 1 }));
      await send('end', 26, 3, endTxnBody(p, true));
    },
  },
  {
    name: 'DescribeTransactions and ListTransactions',
    api: 65,
    async setup(ctx) {
      const { side, name } = ctx;
      await side.createTopics([{ name: name('t') }]);
      const open = await transactionalProducer(ctx, name('open'));
      await side.quiet(24, 3, addPartitionsBody(3, open, [{ name: name('t'), partitions: [0] }]));
      await transactionalProducer(ctx, name('empty'));
    },
    async run({ send, v, name }) {
      await send('describe', 65, v, { transactionalIds: [name('open'), name('empty'), name('missing')] });
      for (const lv of [0, 1]) {
        const listed = await send(`list v${lv}`, 66, lv, { stateFilters: ['Ongoing', 'Empty'], producerIdFilters: [], durationFilter: -1n });
        // Other cases' transactions are there too: only this case's are compared.
        listed.transactionStates = listed.transactionStates.filter((t: Message) => t.transactionalId.startsWith(name('')));
      }
      await send('list unknown state', 66, 1, { stateFilters: ['Sleeping'], producerIdFilters: [], durationFilter: -1n });
    },
  },
];
