// Compatibility: kafkajs 2.2.4 transactions (producer.transaction(), KIP-98 classic protocol) against krill,
// with Kafka's behaviour as the reference:
// - commit makes every record of the transaction visible to read_committed consumers, in produce order per
//   partition; abort hides them; read_uncommitted consumers see both (the client hides the markers);
// - a second producer with the same transactional.id fences the first (InitProducerId bumps the epoch, the
//   old epoch then gets INVALID_PRODUCER_EPOCH: kafkajs speaks EndTxn/AddPartitionsToTxn v0-1, where
//   PRODUCER_FENCED is sent as 47);
// - a transaction left open past its transactionTimeout is aborted by the broker, which moves the last
//   stable offset past it so read_committed consumers continue;
// - sendOffsetsToTransaction: offsets committed with a transaction become the group's committed offsets
//   only when it commits (AddOffsetsToTxn + TxnOffsetCommit, then the marker on __consumer_offsets).
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type RunningBroker } from '../../src/index.js';

const require = createRequire(import.meta.url);
/* eslint-disable @typescript-eslint/no-explicit-any */
const { Kafka, logLevel, Partitioners } = require('kafkajs');

process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';

/** The broker aborts timed-out transactions this often (Kafka's default is 10 s). */
const ABORT_SCAN_MS = 200;

let seq = 0;
const unique = (label: string) => `kjs-txn-${label}-${process.pid}-${++seq}`;

function client(bootstrap: string): any {
  return new Kafka({
    clientId: 'krill-compat-txn',
    brokers: [bootstrap],
    logLevel: logLevel.NOTHING,
    connectionTimeout: 3000,
    requestTimeout: 10_000,
    retry: { retries: 5, initialRetryTime: 100, maxRetryTime: 1000 },
  });
}

interface Seen {
  topic: string;
  partition: number;
  offset: number;
  value: string;
}

async function waitFor(cond: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `value` of every record seen on topic/partition, in the order the consumer delivered them. */
const valuesOf = (seen: Seen[], topic: string, partition: number) => seen.filter((s) => s.topic === topic && s.partition === partition).map((s) => s.value);

describe('kafkajs transactions against krill', { timeout: 60_000 }, () => {
  let broker: RunningBroker;
  let kafka: any;
  let admin: any;
  const open: any[] = [];

  beforeAll(async () => {
    broker = await startBroker({ port: 0, host: '127.0.0.1', config: { 'transaction.abort.timed.out.transaction.cleanup.interval.ms': ABORT_SCAN_MS } });
    kafka = client(broker.bootstrap);
    admin = kafka.admin();
    await admin.connect();
  }, 30_000);

  afterAll(async () => {
    await Promise.allSettled(open.map((c) => c.disconnect()));
    await admin?.disconnect().catch(() => {});
    await broker?.close();
  }, 30_000);

  async function createTopics(partitions: number, ...topics: string[]): Promise<void> {
    expect(await admin.createTopics({ topics: topics.map((topic) => ({ topic, numPartitions: partitions })), timeout: 5000 })).toBe(true);
  }

  async function txnProducer(transactionalId: string, opts: { transactionTimeout?: number } = {}): Promise<any> {
    const producer = kafka.producer({
      transactionalId,
      idempotent: true,
      maxInFlightRequests: 1,
      createPartitioner: Partitioners.DefaultPartitioner,
      ...opts,
    });
    await producer.connect();
    open.push(producer);
    return producer;
  }

  /** A group consumer on `topics` from the beginning; what it delivers accumulates in the returned array. */
  async function consume(topics: string[], opts: { readUncommitted?: boolean } = {}): Promise<{ seen: Seen[]; consumer: any }> {
    const consumer = kafka.consumer({
      groupId: unique('reader'),
      readUncommitted: opts.readUncommitted ?? false,
      maxWaitTimeInMs: 100,
      sessionTimeout: 6000,
      heartbeatInterval: 500,
    });
    await consumer.connect();
    open.push(consumer);
    await consumer.subscribe({ topics, fromBeginning: true });
    const seen: Seen[] = [];
    await consumer.run({
      eachMessage: async ({ topic, partition, message }: any) => {
        seen.push({ topic, partition, offset: Number(message.offset), value: message.value.toString() });
      },
    });
    return { seen, consumer };
  }

  /** Sends `values` to every given partition of every topic inside `txn`, one send per topic. */
  async function sendAll(txn: any, topics: string[], partitions: number[], values: string[]): Promise<void> {
    for (const topic of topics) {
      await txn.send({ topic, messages: partitions.flatMap((partition) => values.map((v) => ({ partition, value: `${v}@${partition}` }))) });
    }
  }

  const tagged = (values: string[], partition: number) => values.map((v) => `${v}@${partition}`);

  it('commit, abort, commit across two topics and three partitions: read_committed sees only the committed records, in order', async () => {
    const [a, b] = [unique('a'), unique('b')];
    await createTopics(3, a, b);
    const producer = await txnProducer(unique('id'));
    const first = ['c1-0', 'c1-1', 'c1-2'];
    const aborted = ['ab-0', 'ab-1'];
    const second = ['c2-0', 'c2-1'];

    let txn = await producer.transaction();
    await sendAll(txn, [a, b], [0, 1, 2], first);
    await txn.commit();
    txn = await producer.transaction();
    await sendAll(txn, [a, b], [0, 1, 2], aborted);
    await txn.abort();
    txn = await producer.transaction();
    await sendAll(txn, [a, b], [0, 2], second); // partition 1 has no part in the last transaction
    await txn.commit();

    const committed = await consume([a, b]);
    const uncommitted = await consume([a, b], { readUncommitted: true });
    const committedCount = 2 * (3 * first.length + 2 * second.length);
    const allCount = committedCount + 2 * 3 * aborted.length;
    await waitFor(() => committed.seen.length >= committedCount && uncommitted.seen.length >= allCount, 20_000, 'both consumers to catch up');
    await new Promise((r) => setTimeout(r, 500)); // nothing more arrives

    for (const topic of [a, b]) {
      for (const p of [0, 1, 2]) {
        const expectedCommitted = [...tagged(first, p), ...(p === 1 ? [] : tagged(second, p))];
        expect(valuesOf(committed.seen, topic, p), `${topic}-${p} read_committed`).toEqual(expectedCommitted);
        expect(valuesOf(uncommitted.seen, topic, p), `${topic}-${p} read_uncommitted`).toEqual([
          ...tagged(first, p),
          ...tagged(aborted, p),
          ...(p === 1 ? [] : tagged(second, p)),
        ]);
        // offsets rise; the gaps are the markers (one per transaction that touched the partition)
        const offsets = uncommitted.seen.filter((s) => s.topic === topic && s.partition === p).map((s) => s.offset);
        expect(offsets).toEqual([...offsets].sort((x, y) => x - y));
        const markers = p === 1 ? 2 : 3;
        const end = (await admin.fetchTopicOffsets(topic)).find((o: any) => o.partition === p);
        expect(Number(end.high), `${topic}-${p} high watermark`).toBe(offsets.length + markers);
      }
    }
    expect(committed.seen).toHaveLength(committedCount);
    expect(uncommitted.seen).toHaveLength(allCount);
  });

  it('an aborted transaction between plain (non-transactional) records does not hide them', async () => {
    const topic = unique('mixed');
    await createTopics(1, topic);
    const plain = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await plain.connect();
    open.push(plain);
    const producer = await txnProducer(unique('id'));
    await plain.send({ topic, messages: [{ partition: 0, value: 'plain-1' }] });
    const txn = await producer.transaction();
    await txn.send({ topic, messages: [{ partition: 0, value: 'aborted-1' }] });
    await plain.send({ topic, messages: [{ partition: 0, value: 'plain-2' }] }); // inside the open transaction's range
    await txn.abort();
    await plain.send({ topic, messages: [{ partition: 0, value: 'plain-3' }] });

    const { seen } = await consume([topic]);
    await waitFor(() => seen.length >= 3, 15_000, 'the plain records');
    await new Promise((r) => setTimeout(r, 300));
    expect(valuesOf(seen, topic, 0)).toEqual(['plain-1', 'plain-2', 'plain-3']);
  });

  it('read_committed stops at an open transaction (the last stable offset) and continues once it commits', async () => {
    const topic = unique('lso');
    await createTopics(1, topic);
    const producer = await txnProducer(unique('id'));
    const plain = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await plain.connect();
    open.push(plain);
    await plain.send({ topic, messages: [{ partition: 0, value: 'before' }] });
    const txn = await producer.transaction();
    await txn.send({ topic, messages: [{ partition: 0, value: 'in-txn' }] });
    await plain.send({ topic, messages: [{ partition: 0, value: 'after' }] });

    const committed = await consume([topic]);
    const uncommitted = await consume([topic], { readUncommitted: true });
    await waitFor(() => committed.seen.length >= 1 && uncommitted.seen.length >= 3, 15_000, 'the readers');
    await new Promise((r) => setTimeout(r, 500));
    expect(valuesOf(committed.seen, topic, 0)).toEqual(['before']); // 'after' lies past the LSO
    expect(valuesOf(uncommitted.seen, topic, 0)).toEqual(['before', 'in-txn', 'after']);
    // ListOffsets latest under read_committed (kafkajs's default isolation for fetchTopicOffsets) is the LSO
    const [lso] = await admin.fetchTopicOffsets(topic);
    expect(Number(lso.high)).toBe(1);

    await txn.commit();
    await waitFor(() => committed.seen.length >= 3, 15_000, 'the committed transaction');
    expect(valuesOf(committed.seen, topic, 0)).toEqual(['before', 'in-txn', 'after']);
  });

  it('fencing: a second producer with the same transactionalId fences the first (INVALID_PRODUCER_EPOCH)', async () => {
    const topic = unique('fence');
    await createTopics(2, topic);
    const id = unique('id');
    const first = await txnProducer(id);
    const t1 = await first.transaction();
    await t1.send({ topic, messages: [{ partition: 0, value: 'first-open' }] });

    // the second incarnation: its InitProducerId aborts what the first left open and bumps the epoch
    const second = await txnProducer(id);
    const t2 = await second.transaction();
    await t2.send({ topic, messages: [{ partition: 0, value: 'second' }] });

    // the first's next send to a partition already in its transaction goes straight to Produce,
    // to a new partition through AddPartitionsToTxn first: both are refused with the old epoch
    await expect(t1.send({ topic, messages: [{ partition: 0, value: 'first-again' }] })).rejects.toMatchObject({ type: 'INVALID_PRODUCER_EPOCH' });
    await expect(t1.commit()).rejects.toMatchObject({ type: 'INVALID_PRODUCER_EPOCH' });
    await t2.commit();

    const { seen } = await consume([topic]);
    await waitFor(() => seen.length >= 1, 15_000, 'the committed record');
    await new Promise((r) => setTimeout(r, 300));
    expect(valuesOf(seen, topic, 0)).toEqual(['second']);
  });

  it('fencing on commit alone: the fenced producer cannot commit what it sent', async () => {
    const topic = unique('fence-commit');
    await createTopics(1, topic);
    const id = unique('id');
    const first = await txnProducer(id);
    const t1 = await first.transaction();
    await t1.send({ topic, messages: [{ partition: 0, value: 'never' }] });
    const second = await txnProducer(id);
    const t2 = await second.transaction(); // InitProducerId happens here
    await expect(t1.commit()).rejects.toMatchObject({ type: 'INVALID_PRODUCER_EPOCH' });
    await t2.send({ topic, messages: [{ partition: 0, value: 'later' }] });
    await t2.commit();

    const { seen } = await consume([topic]);
    await waitFor(() => seen.length >= 1, 15_000, 'the committed record');
    await new Promise((r) => setTimeout(r, 300));
    expect(valuesOf(seen, topic, 0)).toEqual(['later']);
  });

  it('a transaction open past its transactionTimeout is aborted by the broker; read_committed moves past it', async () => {
    const topic = unique('timeout');
    await createTopics(1, topic);
    const stale = await txnProducer(unique('id'), { transactionTimeout: 1000 });
    const plain = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await plain.connect();
    open.push(plain);
    const txn = await stale.transaction();
    await txn.send({
      topic,
      messages: [
        { partition: 0, value: 'abandoned-1' },
        { partition: 0, value: 'abandoned-2' },
      ],
    });
    await plain.send({ topic, messages: [{ partition: 0, value: 'after' }] });

    const committed = await consume([topic]);
    // the abort marker lands after 'after': the partition is abandoned-1, abandoned-2, after, marker
    await waitFor(() => committed.seen.length >= 1, 15_000, 'read_committed to pass the timed-out transaction');
    expect(valuesOf(committed.seen, topic, 0)).toEqual(['after']);
    const [end] = await admin.fetchTopicOffsets(topic);
    expect(Number(end.high)).toBe(4);

    // the broker fenced the timed-out producer: its commit fails with the old epoch
    await expect(txn.commit()).rejects.toMatchObject({ type: 'INVALID_PRODUCER_EPOCH' });
  });

  describe('sendOffsets (consume-transform-produce)', () => {
    async function committedOffsets(groupId: string, topic: string): Promise<number[]> {
      const [res] = await admin.fetchOffsets({ groupId, topics: [topic] });
      return res.partitions.sort((x: any, y: any) => x.partition - y.partition).map((p: any) => Number(p.offset));
    }

    it("offsets sent with a committed transaction become the group's committed offsets; with an aborted one they do not", async () => {
      const [input, output] = [unique('in'), unique('out')];
      await createTopics(2, input, output);
      const groupId = unique('ctp-group');
      const producer = await txnProducer(unique('id'));

      expect(await committedOffsets(groupId, input)).toEqual([-1, -1]);

      let txn = await producer.transaction();
      await txn.send({ topic: output, messages: [{ partition: 0, value: 'out-1' }] });
      await txn.sendOffsets({
        consumerGroupId: groupId,
        topics: [
          {
            topic: input,
            partitions: [
              { partition: 0, offset: '5' },
              { partition: 1, offset: '7' },
            ],
          },
        ],
      });
      await txn.commit();
      expect(await committedOffsets(groupId, input)).toEqual([5, 7]);

      txn = await producer.transaction();
      await txn.send({ topic: output, messages: [{ partition: 0, value: 'out-aborted' }] });
      await txn.sendOffsets({ consumerGroupId: groupId, topics: [{ topic: input, partitions: [{ partition: 0, offset: '9' }] }] });
      expect(await committedOffsets(groupId, input)).toEqual([5, 7]); // pending, not visible before commit
      await txn.abort();
      expect(await committedOffsets(groupId, input)).toEqual([5, 7]);

      txn = await producer.transaction();
      await txn.sendOffsets({ consumerGroupId: groupId, topics: [{ topic: input, partitions: [{ partition: 1, offset: '11' }] }] });
      await txn.commit(); // a transaction with only offsets in it
      expect(await committedOffsets(groupId, input)).toEqual([5, 11]);

      const { seen } = await consume([output]);
      await waitFor(() => seen.length >= 1, 15_000, 'the committed output');
      await new Promise((r) => setTimeout(r, 300));
      expect(valuesOf(seen, output, 0)).toEqual(['out-1']);
    });

    it("consume-transform-produce: a group consumer's input offsets and the output commit together", async () => {
      const [input, output] = [unique('ctp-in'), unique('ctp-out')];
      await createTopics(1, input, output);
      const groupId = unique('ctp-app');
      const plain = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
      await plain.connect();
      open.push(plain);
      await plain.send({ topic: input, messages: ['a', 'b', 'c', 'd'].map((value) => ({ partition: 0, value })) });

      const producer = await txnProducer(unique('id'));
      const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 100, sessionTimeout: 6000, heartbeatInterval: 500 });
      await consumer.connect();
      open.push(consumer);
      await consumer.subscribe({ topics: [input], fromBeginning: true });
      let processed = 0;
      await consumer.run({
        autoCommit: false,
        eachMessage: async ({ topic, partition, message }: any) => {
          const txn = await producer.transaction();
          await txn.send({ topic: output, messages: [{ partition: 0, value: message.value.toString().toUpperCase() }] });
          await txn.sendOffsets({ consumerGroupId: groupId, topics: [{ topic, partitions: [{ partition, offset: String(Number(message.offset) + 1) }] }] });
          // every other record's transaction is aborted: its output must never be visible
          if (Number(message.offset) % 2 === 1) await txn.abort();
          else await txn.commit();
          processed++;
        },
      });
      await waitFor(() => processed >= 4, 20_000, 'the consumer to process the input');
      await consumer.stop();
      // the last record ('d', offset 3) was aborted: the committed offset is that of 'c' + 1
      expect(await committedOffsets(groupId, input)).toEqual([3]);

      const { seen } = await consume([output]);
      await waitFor(() => seen.length >= 2, 15_000, 'the committed output');
      await new Promise((r) => setTimeout(r, 300));
      expect(valuesOf(seen, output, 0)).toEqual(['A', 'C']);
    });
  });
});
