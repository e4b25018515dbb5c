// Transactions across a restart of the built CLI, on the raw wire, as in Kafka: a transaction left open when
// the broker dies (SIGKILL, or a clean SIGTERM) is still open after the restart — its partition's last stable
// offset stays at the transaction's first offset, so read_committed fetches stop there — until the
// producer's next incarnation calls InitProducerId with the same transactional id, which aborts it (abort
// marker, the transaction listed in AbortedTransactions) and bumps the epoch twice (fence, then the init
// proper). A transaction committed before the crash stays committed.
import { afterAll, describe, expect, it } from 'vitest';
import { buildBatch, type SimpleRecord } from '../../protocol/record-batch.js';
import type { Message } from '../../protocol/codec.js';
import { ErrorCode } from '../../protocol/errors.js';
import { spawnCli, useTempDirs, type CliBroker } from '../helpers.js';
import { TestClient } from '../server/client.js';
import { API, batchesOf, createTopic, fetchBody, produceBody, produceOk, uniqueTopic, values } from '../server/kafka.js';

const newDir = useTempDirs('krill-txn-restart-');
const running = new Set<CliBroker>();
afterAll(() => {
  for (const b of running) b.kill('SIGKILL');
});

const TXN_API = { AddPartitionsToTxn: 24, EndTxn: 26 } as const;

async function start(dataDir: string): Promise<{ broker: CliBroker; client: TestClient }> {
  const broker = await spawnCli(['--port', '0', '--data-dir', dataDir], { npx: true });
  running.add(broker);
  return { broker, client: await TestClient.connect(broker.port) };
}

async function stop(b: { broker: CliBroker; client: TestClient }, signal: NodeJS.Signals): Promise<void> {
  b.client.close();
  b.broker.kill(signal);
  expect(await b.broker.exited).toBe(signal === 'SIGKILL' ? 'SIGKILL' : 0);
  running.delete(b.broker);
}

interface TxnProducer {
  transactionalId: string;
  producerId: number;
  producerEpoch: number;
  nextSequence: number;
}

/** InitProducerId v4 with a transactional id, retried while the coordinator answers CONCURRENT_TRANSACTIONS (as clients do). */
async function initTransactions(client: TestClient, transactionalId: string): Promise<TxnProducer> {
  for (let attempt = 0; ; attempt++) {
    const res = await client.request(API.InitProducerId, 4, { transactionalId, transactionTimeoutMs: 60_000, producerId: -1, producerEpoch: -1 });
    if (res.errorCode === ErrorCode.CONCURRENT_TRANSACTIONS && attempt < 50) {
      await new Promise((r) => setTimeout(r, 100));
      continue;
    }
    expect(res.errorCode).toBe(0);
    return { transactionalId, producerId: Number(res.producerId), producerEpoch: res.producerEpoch, nextSequence: 0 };
  }
}

async function addPartition(client: TestClient, p: TxnProducer, topic: string, partition: number): Promise<void> {
  const res = await client.request(TXN_API.AddPartitionsToTxn, 3, {
    v3AndBelowTransactionalId: p.transactionalId,
    v3AndBelowProducerId: p.producerId,
    v3AndBelowProducerEpoch: p.producerEpoch,
    v3AndBelowTopics: [{ name: topic, partitions: [partition] }],
  });
  expect(res.resultsByTopicV3AndBelow[0].resultsByPartition[0].partitionErrorCode).toBe(0);
}

/** One transactional batch (sequences continue across transactions of the same epoch); returns its base offset. */
async function produceTxn(client: TestClient, p: TxnProducer, topic: string, partition: number, records: SimpleRecord[]): Promise<number> {
  const batch = buildBatch(records, { producerId: p.producerId, producerEpoch: p.producerEpoch, baseSequence: p.nextSequence, isTransactional: true });
  const res = await client.request(API.Produce, 9, { ...produceBody(topic, partition, batch, -1), transactionalId: p.transactionalId });
  const part = res.responses[0].partitionResponses[0];
  expect(part.errorCode).toBe(0);
  p.nextSequence += records.length;
  return Number(part.baseOffset);
}

async function endTxn(client: TestClient, p: TxnProducer, committed: boolean): Promise<void> {
  const res = await client.request(TXN_API.EndTxn, 3, {
    transactionalId: p.transactionalId,
    producerId: p.producerId,
    producerEpoch: p.producerEpoch,
    committed,
  });
  expect(res.errorCode).toBe(0);
}

/** A read_committed Fetch (v11) of one partition from offset 0. */
async function fetchCommitted(client: TestClient, topic: string, partition: number): Promise<Message> {
  const res = await client.request(API.Fetch, 11, { ...fetchBody(11, topic, [{ partition, fetchOffset: 0 }]), isolationLevel: 1 });
  return res.responses[0].partitions[0];
}

/**
 * What a read_committed consumer keeps of a fetch: data records, minus those of a producer's aborted
 * transaction (from its firstOffset up to that producer's next control batch), as Kafka clients filter them.
 */
function committedValues(p: Message): string[] {
  const pending = [...(p.abortedTransactions ?? [])].map((a: Message) => ({ producerId: Number(a.producerId), firstOffset: Number(a.firstOffset) }));
  const abortedNow = new Set<number>();
  const out: string[] = [];
  for (const b of batchesOf(p.records)) {
    while (pending.length && pending[0].firstOffset <= b.baseOffset) abortedNow.add(pending.shift()!.producerId);
    const pid = Number(b.producerId);
    if (b.isControl) {
      abortedNow.delete(pid);
      continue;
    }
    if (b.isTransactional && abortedNow.has(pid)) continue;
    for (const r of b.records) out.push(r.value!.toString());
  }
  return out;
}

describe('transactions across a restart of the CLI', () => {
  for (const signal of ['SIGKILL', 'SIGTERM'] as const) {
    it(`${signal}: an open transaction holds the last stable offset until its producer re-inits; the committed one stays visible`, async () => {
      const dataDir = newDir();
      const topic = uniqueTopic('txn-restart');
      const transactionalId = `${topic}-id`;

      // offsets: 0-1 committed txn, 2 commit marker, 3-4 open txn, 5 a plain record after it
      let run = await start(dataDir);
      await createTopic(run.client, topic, 1);
      const producer = await initTransactions(run.client, transactionalId);
      expect(producer.producerEpoch).toBe(0);
      await addPartition(run.client, producer, topic, 0);
      expect(await produceTxn(run.client, producer, topic, 0, values(2, 'committed-'))).toBe(0);
      await endTxn(run.client, producer, true);
      await addPartition(run.client, producer, topic, 0);
      expect(await produceTxn(run.client, producer, topic, 0, values(2, 'open-'))).toBe(3);
      expect(await produceOk(run.client, topic, 0, [{ key: null, value: 'plain' }])).toBe(5);
      let p = await fetchCommitted(run.client, topic, 0);
      expect([Number(p.highWatermark), Number(p.lastStableOffset)]).toEqual([6, 3]);
      await stop(run, signal);

      // after the restart the transaction is still open: read_committed stops at offset 3
      run = await start(dataDir);
      p = await fetchCommitted(run.client, topic, 0);
      expect(p.errorCode).toBe(0);
      expect([Number(p.highWatermark), Number(p.lastStableOffset)]).toEqual([6, 3]);
      expect(committedValues(p)).toEqual(['committed-0', 'committed-1']);
      expect(batchesOf(p.records).every((b) => b.baseOffset < 3)).toBe(true);
      // ...and stays so (no timeout: the transaction's 60 s have not passed)
      await new Promise((r) => setTimeout(r, 500));
      expect(Number((await fetchCommitted(run.client, topic, 0)).lastStableOffset)).toBe(3);

      // the producer's next incarnation: InitProducerId aborts the open transaction, epoch 0 -> 2
      const next = await initTransactions(run.client, transactionalId);
      expect(next.producerId).toBe(producer.producerId);
      expect.soft(next.producerEpoch).toBe(2); // Kafka: fence to 1 (the abort marker), answer 51, the retry bumps to 2
      p = await fetchCommitted(run.client, topic, 0);
      // the abort marker at 6 ends the transaction: LSO = HW = 7
      expect([Number(p.highWatermark), Number(p.lastStableOffset)]).toEqual([7, 7]);
      expect(p.abortedTransactions.map((a: Message) => [Number(a.producerId), Number(a.firstOffset)])).toEqual([[producer.producerId, 3]]);
      expect(committedValues(p)).toEqual(['committed-0', 'committed-1', 'plain']);
      const markers = batchesOf(p.records).filter((b) => b.isControl);
      expect(markers.map((b) => [b.baseOffset, b.producerEpoch])).toEqual([
        [2, 0],
        [6, 1],
      ]); // the abort carries the fence epoch

      // the new incarnation commits normally (a new epoch starts at sequence 0)
      await addPartition(run.client, next, topic, 0);
      expect(await produceTxn(run.client, next, topic, 0, values(1, 'after-restart-'))).toBe(7);
      await endTxn(run.client, next, true);
      p = await fetchCommitted(run.client, topic, 0);
      expect(Number(p.lastStableOffset)).toBe(9);
      expect(committedValues(p)).toEqual(['committed-0', 'committed-1', 'plain', 'after-restart-0']);
      await stop(run, 'SIGTERM');
    });
  }
});
