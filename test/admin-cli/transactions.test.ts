// krill transactions against a real krill and a kafkajs transactional producer left with an open transaction.
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withBroker } from '../helpers.js';
import type { RunningBroker } from '../../src/index.js';
import { json, krillAgainst } from './run.js';

const require = createRequire(import.meta.url);
/* eslint-disable @typescript-eslint/no-explicit-any */
const { Kafka, logLevel } = require('kafkajs');

describe('krill transactions', { timeout: 60_000 }, () => {
  let broker: RunningBroker;
  let kafka: any;
  let admin: any;
  let producer: any;
  const krill = krillAgainst(() => broker.bootstrap);

  beforeAll(async () => {
    broker = await withBroker();
    kafka = new Kafka({ clientId: 'cli-test', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
    admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'tx', numPartitions: 1 }] });
    producer = kafka.producer({ transactionalId: 'tid', idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
    await producer.connect();
    const committed = await producer.transaction();
    await committed.send({ topic: 'tx', messages: [{ value: 'kept' }] });
    await committed.commit();
    // Left open: the hanging transaction abort ends.
    const open = await producer.transaction();
    await open.send({ topic: 'tx', messages: [{ value: 'hanging' }] });
  });
  afterAll(async () => {
    await producer?.disconnect();
    await admin?.disconnect();
    await broker?.close();
  });

  it('lists and describes a transactional id with its open transaction', async () => {
    const listed = await json(krill, ['transactions', 'list']);
    expect(listed).toEqual([{ transactionalId: 'tid', producerId: expect.any(Number), state: 'Ongoing', coordinator: 1 }]);
    const d = await json(krill, ['transactions', 'describe', 'tid']);
    expect(d).toMatchObject({ transactionalId: 'tid', coordinator: 1, state: 'Ongoing', producerId: listed[0].producerId, partitions: ['tx-0'] });
    expect(d.startTimeMs).toBeGreaterThan(0);
    expect((await krill(['transactions', 'describe', 'tid'])).stdout).toMatch(
      /^TRANSACTIONAL-ID\s+COORDINATOR\s+PRODUCER-ID.*\ntid\s+1\s+\d+\s+\d+\s+Ongoing\s+\d+\s+\d+\s+tx-0\n$/,
    );
    const unknown = await krill(['transactions', 'describe', 'nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/TRANSACTIONAL_ID_NOT_FOUND/);
  });

  it('aborts a hanging transaction by its start offset, which read_committed readers then pass', async () => {
    const [producerState] = await json(krill, ['transactions', 'describe-producers', '--topic', 'tx', '--partition', '0']);
    // Offset 0 is the committed record, 1 its commit marker, 2 the open transaction's first record.
    expect(producerState.currentTxnStartOffset).toBe(2);
    const stable = async () => Number((await admin.fetchTopicOffsets('tx'))[0].high);
    expect(await stable()).toBe(2);
    const wrong = await krill(['transactions', 'abort', '--topic', 'tx', '--partition', '0', '--start-offset', '1']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/INVALID_TXN_STATE.*no open transaction starts at offset 1/);
    const aborted = await json(krill, ['transactions', 'abort', '--topic', 'tx', '--partition', '0', '--start-offset', '2']);
    expect(aborted).toMatchObject({ topic: 'tx', partition: 0, producerId: producerState.producerId, aborted: true });
    // The abort marker at offset 3 ends the transaction: the last stable offset passes it.
    expect(await stable()).toBe(4);
    expect((await krill(['consume', 'tx', '--isolation-level', 'read_committed'])).stdout).toBe('kept\n');
    expect((await krill(['consume', 'tx'])).stdout).toBe('kept\nhanging\n');
  });
});
