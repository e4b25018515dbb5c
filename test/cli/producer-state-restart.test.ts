// Idempotent producer state survives a restart of the built CLI, as in Kafka: a clean stop (SIGTERM) writes
// `<20-digit offset>.snapshot` files next to the segments, a kill -9 leaves the state to be rebuilt from the
// log. Either way, after the restart a re-sent last batch of a producer is still a duplicate (success, its
// original baseOffset, nothing appended), the next sequence continues, a gap is still out of order, and
// InitProducerId never hands out an id it handed out before the restart.
import { afterAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { spawnCli, useTempDirs, type CliBroker } from '../helpers.js';
import { TestClient } from '../server/client.js';
import { createTopic, fetchOne, idempotentBatch, initProducerId, produce, recordsOf, uniqueTopic, values, type ProducerSeq } from '../server/kafka.js';
import { ErrorCode } from '../../protocol/errors.js';

const newDir = useTempDirs('krill-pstate-');
const running = new Set<CliBroker>();
afterAll(() => {
  for (const b of running) b.kill('SIGKILL');
});

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

async function newProducer(client: TestClient): Promise<number> {
  const res = await initProducerId(client);
  expect(res.errorCode).toBe(0);
  expect(res.producerEpoch).toBe(0);
  return Number(res.producerId);
}

async function partitionValues(client: TestClient, topic: string, partition: number): Promise<(string | null)[]> {
  const p = await fetchOne(client, topic, partition, 0);
  expect(p.errorCode).toBe(0);
  const recs = recordsOf(p.records);
  expect(recs.map((r) => r.offset)).toEqual(recs.map((_, i) => i));
  expect(Number(p.highWatermark)).toBe(recs.length);
  return recs.map((r) => r.value);
}

const SNAPSHOT = /^\d{20}\.snapshot$/;

/** How the broker goes down between the two runs. */
const stops = [
  { name: 'SIGTERM', signal: 'SIGTERM', segmentBytes: null },
  { name: 'SIGKILL', signal: 'SIGKILL', segmentBytes: null },
  // several segments: the state comes from the snapshot written at the last roll plus the batches after it,
  // and producer b's last batch on partition 0 lies before that roll
  { name: 'SIGKILL after segment rolls', signal: 'SIGKILL', segmentBytes: '250' },
] as const;

describe('idempotent producer state across a restart of the CLI', () => {
  for (const how of stops) {
    it(`${how.name}: the last batch is still a duplicate, the sequence continues, producer ids are not reused`, async () => {
      const dataDir = newDir();
      const topic = uniqueTopic('pstate');

      // 1. two producers on two partitions; a third id handed out and never used
      let run = await start(dataDir);
      await createTopic(run.client, topic, 2, how.segmentBytes ? { 'segment.bytes': how.segmentBytes } : {});
      const a = await newProducer(run.client);
      const b = await newProducer(run.client);
      const handedOut = new Set([a, b, await newProducer(run.client)]);
      const seqA = { producerId: a, producerEpoch: 0 };
      const seqB = { producerId: b, producerEpoch: 0 };
      const sent: { partition: number; seq: ProducerSeq; batch: Buffer; baseOffset: number }[] = [];
      const sendOk = async (partition: number, seq: ProducerSeq, n: number, tag: string) => {
        const batch = idempotentBatch(seq, values(n, `${tag}-`));
        const p = await produce(run.client, topic, partition, batch);
        expect(p.errorCode).toBe(0);
        sent.push({ partition, seq, batch, baseOffset: Number(p.baseOffset) });
      };
      await sendOk(0, { ...seqA, baseSequence: 0 }, 3, 'a0');
      await sendOk(0, { ...seqB, baseSequence: 0 }, 2, 'b0');
      await sendOk(1, { ...seqA, baseSequence: 0 }, 1, 'a1');
      await sendOk(0, { ...seqA, baseSequence: 3 }, 2, 'a0');
      await sendOk(1, { ...seqA, baseSequence: 1 }, 4, 'a1');
      await sendOk(0, { ...seqB, baseSequence: 2 }, 1, 'b0');
      if (how.segmentBytes) {
        // push b's last batch on partition 0 into an older segment
        await sendOk(0, { ...seqA, baseSequence: 5 }, 1, 'a0');
        await sendOk(0, { ...seqA, baseSequence: 6 }, 1, 'a0');
        expect(fs.readdirSync(path.join(dataDir, `${topic}-0`)).filter((f) => f.endsWith('.log')).length).toBeGreaterThan(2);
      }
      const nextSeqA0 = how.segmentBytes ? 7 : 5;
      const end0 = how.segmentBytes ? 10 : 8;
      const before = [await partitionValues(run.client, topic, 0), await partitionValues(run.client, topic, 1)];
      expect(before[0]).toHaveLength(end0);
      expect(before[1]).toHaveLength(5);

      // 2. down and up again on the same data dir
      await stop(run, how.signal);
      const partitionDir = path.join(dataDir, `${topic}-0`);
      if (how.signal === 'SIGTERM') {
        // a clean stop snapshots the producer state at the log end offset, as Kafka does on close
        expect(fs.readdirSync(partitionDir).filter((f) => SNAPSHOT.test(f))).toContain(`${String(end0).padStart(20, '0')}.snapshot`);
      }
      run = await start(dataDir);
      try {
        // 3. the last batch of each producer on each partition is a duplicate: original offset, nothing appended
        const lastOf = (partition: number, producerId: number) => sent.filter((s) => s.partition === partition && s.seq.producerId === producerId).at(-1)!;
        for (const last of [lastOf(0, a), lastOf(0, b), lastOf(1, a)]) {
          const p = await produce(run.client, topic, last.partition, last.batch);
          expect(p.errorCode, `re-sent batch of ${last.seq.producerId} on ${last.partition}`).toBe(0);
          expect(Number(p.baseOffset)).toBe(last.baseOffset);
        }
        expect(await partitionValues(run.client, topic, 0)).toEqual(before[0]);
        expect(await partitionValues(run.client, topic, 1)).toEqual(before[1]);

        // 4. the state is really there: a gap is out of order (a producer the partition never saw would be accepted)
        const gap = await produce(run.client, topic, 0, idempotentBatch({ ...seqA, baseSequence: nextSeqA0 + 4 }, values(1, 'gap')));
        expect(gap.errorCode).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);

        // 5. and the sequence continues where it stopped
        const next = await produce(run.client, topic, 0, idempotentBatch({ ...seqA, baseSequence: nextSeqA0 }, values(1, 'next')));
        expect(next).toMatchObject({ errorCode: 0 });
        expect(Number(next.baseOffset)).toBe(end0);
        const nextB = await produce(run.client, topic, 1, idempotentBatch({ ...seqA, baseSequence: 5 }, values(1, 'next')));
        expect(Number(nextB.baseOffset)).toBe(5);
        expect(await partitionValues(run.client, topic, 0)).toEqual([...before[0], 'next0']);

        // 6. producer ids handed out before the restart are not handed out again
        for (let i = 0; i < 5; i++) {
          const id = await newProducer(run.client);
          expect(handedOut.has(id), `id ${id} was handed out before the restart`).toBe(false);
          handedOut.add(id);
        }
      } finally {
        await stop(run, 'SIGTERM');
      }
    }, 60_000);
  }

  it('ids stay unique across several restarts, clean and killed', async () => {
    const dataDir = newDir();
    const seen = new Set<number>();
    for (const signal of ['SIGKILL', 'SIGTERM', 'SIGKILL'] as const) {
      const run = await start(dataDir);
      for (let i = 0; i < 3; i++) {
        const id = await newProducer(run.client);
        expect(seen.has(id), `id ${id} reused`).toBe(false);
        seen.add(id);
      }
      await stop(run, signal);
    }
  }, 60_000);
});
