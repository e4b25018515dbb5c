// Apache Kafka 4.4.0's kafka-consumer-groups, kafka-producer-perf-test, kafka-consumer-perf-test and
// kafka-transactions (find-hanging too, with a transaction its coordinator lost) against real krill CLI
// processes. Asserted: the tables the tools print (members, lag, new offsets, states), and the committed
// offsets read back with kafkajs, an independent client.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { describeWithToolchain } from '../toolchain.js';
import { BrokerPool, eventually } from '../util.js';
import type { CliBroker } from '../../test/helpers.js';
import { MAIN_CLASS, firstCommittedRecord, javaArgs, rows, runTool, tool, toolsMissing, unique } from './tools.js';

const pool = new BrokerPool();
let broker: CliBroker;
let bs: string[];
let kafka: Kafka;
let admin: Admin;

const committed = async (group: string, topic: string) =>
  (await admin.fetchOffsets({ groupId: group, topics: [topic] }))[0].partitions.map((p) => [p.partition, Number(p.offset)]).sort((a, b) => a[0] - b[0]);

async function produce(topic: string, perPartition: number[]) {
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({
    topic,
    messages: perPartition.flatMap((n, partition) => Array.from({ length: n }, (_, i) => ({ partition, value: `p${partition}-${i}` }))),
  });
  await producer.disconnect();
}

describeWithToolchain('Kafka 4.4.0 command-line tools: consumer groups, perf tests, transactions', toolsMissing, { timeout: 120_000 }, () => {
  beforeAll(async () => {
    broker = await pool.start(['--data-dir', pool.dir('krill-tools-groups-')]);
    bs = ['--bootstrap-server', broker.bootstrap];
    kafka = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
    admin = kafka.admin();
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.disconnect();
    await pool.cleanup();
  });

  it('kafka-consumer-groups: --list, --describe (members, state, lag), --reset-offsets, --delete-offsets, --delete', async () => {
    const topic = unique('groups');
    const group = unique('group');
    await admin.createTopics({ topics: [{ topic, numPartitions: 2 }] });
    const t0 = Date.now();
    await produce(topic, [3, 2]);

    // A console consumer in the group, running until stopped (as a user leaves it running in a terminal).
    const [java, ...jvm] = javaArgs(MAIN_CLASS['kafka-console-consumer']);
    const consumer = spawn(java, [...jvm, ...bs, '--topic', topic, '--group', group, '--from-beginning'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise((r) => consumer.on('exit', r));
    let out = '';
    consumer.stdout.on('data', (d) => (out += d));
    try {
      await eventually('the console consumer printing all 5 records', () => (out.trim().split('\n').length === 5 ? true : undefined), 30_000);
      expect((await tool('kafka-consumer-groups', [...bs, '--list'])).stdout.split('\n')).toContain(group);
      const members = rows((await tool('kafka-consumer-groups', [...bs, '--describe', '--group', group, '--members'])).stdout, /^GROUP\s+CONSUMER-ID/);
      expect(members).toHaveLength(1);
      expect(members[0]).toEqual([group, expect.stringMatching(/^console-consumer-/), '/127.0.0.1', 'console-consumer', '2']);
      const state = rows((await tool('kafka-consumer-groups', [...bs, '--describe', '--group', group, '--state'])).stdout, /^GROUP\s+COORDINATOR/);
      expect(state).toEqual([[group, broker.bootstrap, '(1)', 'range', 'Stable', '1']]);
      // A group with a member cannot be deleted.
      const refused = await runTool('kafka-consumer-groups', [...bs, '--delete', '--group', group]);
      expect(refused.stdout + refused.stderr).toContain(`Group '${group}' could not be deleted due to: org.apache.kafka.common.errors.GroupNotEmptyException`);
    } finally {
      consumer.kill('SIGTERM'); // the console consumer's shutdown hook closes it: it commits and leaves the group
      await exited;
    }
    expect(await committed(group, topic)).toEqual([
      [0, 3],
      [1, 2],
    ]);

    await produce(topic, [0, 4]);
    const describe = await tool('kafka-consumer-groups', [...bs, '--describe', '--group', group]);
    expect(describe.stdout + describe.stderr).toContain(`Consumer group '${group}' has no active members.`);
    expect(rows(describe.stdout, /^GROUP\s+TOPIC\s+PARTITION\s+CURRENT-OFFSET\s+LOG-END-OFFSET\s+LAG/)).toEqual([
      [group, topic, '0', '3', '3', '0', '-', '-', '-'],
      [group, topic, '1', '2', '6', '4', '-', '-', '-'],
    ]);

    const reset = async (...args: string[]) =>
      rows((await tool('kafka-consumer-groups', [...bs, '--reset-offsets', '--group', group, ...args])).stdout, /^GROUP\s+TOPIC\s+PARTITION\s+NEW-OFFSET/).sort(
        (a, b) => a[2].localeCompare(b[2]),
      );
    // --dry-run prints the plan and changes nothing.
    expect(await reset('--topic', topic, '--to-earliest', '--dry-run')).toEqual([
      [group, topic, '0', '0'],
      [group, topic, '1', '0'],
    ]);
    expect(await committed(group, topic)).toEqual([
      [0, 3],
      [1, 2],
    ]);
    expect(await reset('--topic', `${topic}:1`, '--to-offset', '5', '--execute')).toEqual([[group, topic, '1', '5']]);
    expect(await committed(group, topic)).toEqual([
      [0, 3],
      [1, 5],
    ]);
    // By time: every record is newer than t0 - 1 hour (earliest), and none is newer than now + 1 hour (latest).
    const iso = (ms: number) => new Date(ms).toISOString(); // with its Z: the JVM's own time zone does not matter
    expect(await reset('--all-topics', '--to-datetime', iso(t0 - 3_600_000), '--execute')).toEqual([
      [group, topic, '0', '0'],
      [group, topic, '1', '0'],
    ]);
    expect(await reset('--topic', topic, '--to-datetime', iso(Date.now() + 3_600_000), '--dry-run')).toEqual([
      [group, topic, '0', '3'],
      [group, topic, '1', '6'],
    ]);
    expect(await committed(group, topic)).toEqual([
      [0, 0],
      [1, 0],
    ]);

    const delOffsets = await tool('kafka-consumer-groups', [...bs, '--delete-offsets', '--group', group, '--topic', `${topic}:0`]);
    expect(delOffsets.stdout).toContain(`Request succeeded for deleting offsets from group ${group}.`);
    expect(rows(delOffsets.stdout, /^TOPIC\s+PARTITION\s+STATUS/)).toEqual([[topic, '0', 'Successful']]);
    expect(await committed(group, topic)).toEqual([
      [0, -1],
      [1, 0],
    ]);

    const deleted = await tool('kafka-consumer-groups', [...bs, '--delete', '--group', group]);
    expect(deleted.stdout).toContain(`Deletion of requested consumer groups ('${group}') was successful.`);
    expect((await admin.listGroups()).groups.map((g) => g.groupId)).not.toContain(group);
  });

  it('kafka-producer-perf-test and kafka-consumer-perf-test: every record sent is consumed', async () => {
    const topic = unique('perf');
    await admin.createTopics({ topics: [{ topic, numPartitions: 2 }] });
    const produced = await tool('kafka-producer-perf-test', [
      '--topic',
      topic,
      '--num-records',
      '1000',
      '--record-size',
      '100',
      '--throughput',
      '-1',
      ...bs,
      '--command-property',
      'acks=all',
    ]);
    expect(produced.stdout).toMatch(/^1000 records sent, [\d.]+ records\/sec/m);
    expect((await admin.fetchTopicOffsets(topic)).reduce((n, p) => n + Number(p.high), 0)).toBe(1000);

    const consumed = await tool('kafka-consumer-perf-test', [...bs, '--topic', topic, '--num-records', '1000', '--timeout', '30000']);
    const [header, line] = consumed.stdout.trim().split('\n').slice(-2);
    const fields = Object.fromEntries(header.split(', ').map((k, i) => [k, line.split(', ')[i]]));
    expect(fields['data.consumed.in.nMsg']).toBe('1000');
    expect(Number(fields['data.consumed.in.MB'])).toBeCloseTo((1000 * 100) / (1024 * 1024), 4);
  });

  it('kafka-transactions: list, describe, describe-producers, find-hanging for an open and a committed transaction', async () => {
    const topic = unique('txn');
    const txnId = unique('txn-id');
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] });
    await produce(topic, [2]); // two records before the transaction: it starts at offset 2
    const producer = kafka.producer({ transactionalId: txnId, idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    const txn = await producer.transaction();
    await txn.send({ topic, messages: [{ value: 'in the transaction' }] });
    try {
      const listed = rows((await tool('kafka-transactions', [...bs, 'list'])).stdout, /^TransactionalId\s+Coordinator\s+ProducerId\s+TransactionState/);
      const mine = listed.find((r) => r[0] === txnId);
      expect(mine).toEqual([txnId, '1', expect.stringMatching(/^\d+$/), 'Ongoing']);
      const producerId = mine![2];

      const described = rows((await tool('kafka-transactions', [...bs, 'describe', '--transactional-id', txnId])).stdout, /^CoordinatorId\s+TransactionalId/);
      expect(described[0].slice(0, 6)).toEqual(['1', txnId, producerId, '0', 'Ongoing', '60000']);
      expect(described[0][8]).toBe(`${topic}-0`);

      const producers = rows(
        (await tool('kafka-transactions', [...bs, 'describe-producers', '--topic', topic, '--partition', '0'])).stdout,
        /^ProducerId\s+ProducerEpoch/,
      );
      // ProducerId, ProducerEpoch, LatestCoordinatorEpoch (no marker yet), LastSequence, LastTimestamp,
      // CurrentTransactionStartOffset (the transaction's first record).
      expect(producers.find((r) => r[0] === producerId)).toEqual([producerId, '0', '-1', '0', expect.stringMatching(/^\d+$/), '2']);

      // An open transaction the coordinator knows of is not hanging, however long it has been open.
      const hanging = await tool('kafka-transactions', [...bs, 'find-hanging', '--broker-id', '1', '--max-transaction-timeout', '0']);
      expect(rows(hanging.stdout, /^Topic\s+Partition\s+ProducerId/)).toEqual([]);
    } finally {
      await txn.commit();
      await producer.disconnect();
    }
    const after = rows((await tool('kafka-transactions', [...bs, 'describe', '--transactional-id', txnId])).stdout, /^CoordinatorId\s+TransactionalId/);
    expect(after[0][4]).toBe('CompleteCommit');
    const producers = rows(
      (await tool('kafka-transactions', [...bs, 'describe-producers', '--topic', topic, '--partition', '0'])).stdout,
      /^ProducerId\s+ProducerEpoch/,
    );
    expect(producers.every((r) => r[5] === 'None')).toBe(true);
  });

  it('kafka-transactions abort --start-offset: a transaction left open is aborted on its partition, read_committed reads on', async () => {
    const topic = unique('abort');
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] });
    const producer = kafka.producer({ transactionalId: unique('abort-txn'), idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    const txn = await producer.transaction();
    await txn.send({ topic, messages: [{ value: 'left open' }] });
    try {
      const describe = async () =>
        rows((await tool('kafka-transactions', [...bs, 'describe-producers', '--topic', topic, '--partition', '0'])).stdout, /^ProducerId\s+ProducerEpoch/);
      const [open] = await describe();
      expect(open[5]).toBe('0');
      const aborted = await tool('kafka-transactions', [...bs, 'abort', '--topic', topic, '--partition', '0', '--start-offset', '0']);
      expect(aborted.stdout.trim()).toBe('');
      // The abort marker (offset 1) ended it: no open transaction, the marker's coordinator epoch remembered.
      const [after] = await describe();
      expect([after[0], after[2], after[5]]).toEqual([open[0], '0', 'None']);
      await produce(topic, [1]);
      expect(await firstCommittedRecord(bs, topic)).toBe('Offset:2\tp0-0');
    } finally {
      await producer.disconnect();
    }
  });
  it('kafka-transactions find-hanging: a transaction its coordinator lost is found, and abort ends it', async () => {
    // A hanging transaction as Kafka users meet one: open on its partition, unknown to its coordinator, here
    // because the coordinator's log (__transaction_state) was lost while the broker was down.
    const dataDir = pool.dir('krill-tools-hanging-');
    let b = await pool.start(['--data-dir', dataDir]);
    const topic = unique('hanging');
    const k = new Kafka({ brokers: [b.bootstrap], logLevel: logLevel.NOTHING });
    const a = k.admin();
    await a.connect();
    await a.createTopics({ topics: [{ topic, numPartitions: 1 }] });
    await a.disconnect();
    const producer = k.producer({ transactionalId: unique('hanging-txn'), idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    const txn = await producer.transaction();
    await txn.send({ topic, messages: [{ value: 'left hanging' }] });
    await producer.disconnect(); // kafkajs leaves the transaction open
    const producers = async (bootstrap: string) =>
      rows(
        (await tool('kafka-transactions', ['--bootstrap-server', bootstrap, 'describe-producers', '--topic', topic, '--partition', '0'])).stdout,
        /^ProducerId\s+ProducerEpoch/,
      );
    const [open] = await producers(b.bootstrap);
    expect(open[5]).toBe('0');
    const findHanging = async (bootstrap: string) =>
      rows(
        (await tool('kafka-transactions', ['--bootstrap-server', bootstrap, 'find-hanging', '--broker-id', '1', '--max-transaction-timeout', '0'])).stdout,
        /^Topic\s+Partition\s+ProducerId/,
      );
    // Known to its coordinator, the open transaction is not hanging.
    expect(await findHanging(b.bootstrap)).toEqual([]);

    expect(await pool.stop(b)).toBe(0);
    const lost = fs.readdirSync(dataDir).filter((d) => d.startsWith('__transaction_state-'));
    expect(lost.length).toBeGreaterThan(0);
    for (const d of lost) fs.rmSync(path.join(dataDir, d), { recursive: true, force: true });
    b = await pool.start(['--data-dir', dataDir]);

    // Topic, Partition, ProducerId, ProducerEpoch, CoordinatorEpoch, StartOffset, LastTimestamp, Duration(min).
    const [hanging, ...more] = await findHanging(b.bootstrap);
    expect(more).toEqual([]);
    expect(hanging.slice(0, 6)).toEqual([topic, '0', open[0], open[1], '-1', '0']);
    const aborted = await tool('kafka-transactions', ['--bootstrap-server', b.bootstrap, 'abort', '--topic', topic, '--partition', '0', '--start-offset', '0']);
    expect(aborted.stdout.trim()).toBe('');
    expect(await findHanging(b.bootstrap)).toEqual([]);
    expect((await producers(b.bootstrap))[0][5]).toBe('None');
    // read_committed reads past it: the hanging record at 0 aborted by the marker at 1, the next record at 2.
    const after = new Kafka({ brokers: [b.bootstrap], logLevel: logLevel.NOTHING }).producer();
    await after.connect();
    await after.send({ topic, messages: [{ value: 'after the abort' }] });
    await after.disconnect();
    expect(await firstCommittedRecord(['--bootstrap-server', b.bootstrap], topic)).toBe('Offset:2\tafter the abort');
  });
});
