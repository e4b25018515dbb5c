// Fault injection (startBroker().faults) against kafkajs, unmodified: the broker fails on purpose and the
// client's own retry logic is what is tested. Each test asserts what the client delivered or received, and
// how many requests the fault caught.
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, FaultSpecError, type RunningBroker } from '../../src/index.js';
import { KafkajsReader, simplify } from '../kafkajs-reader.js';

const require = createRequire(import.meta.url);
/* eslint-disable @typescript-eslint/no-explicit-any */
const { Kafka, logLevel, Partitioners } = require('kafkajs');

process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';

let seq = 0;
const topicName = (label: string) => `faults-${label}-${process.pid}-${++seq}`;

describe('fault injection with kafkajs', { timeout: 60_000 }, () => {
  let broker: RunningBroker;
  let admin: any;
  let reader: KafkajsReader;
  const kafka = (clientId = 'krill-faults') =>
    new Kafka({ clientId, brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 5, initialRetryTime: 50, maxRetryTime: 500 } });

  beforeAll(async () => {
    broker = await startBroker({ port: 0, host: '127.0.0.1', config: { 'group.initial.rebalance.delay.ms': 0 } });
    admin = kafka().admin();
    await admin.connect();
    reader = new KafkajsReader(broker.bootstrap);
  });
  afterAll(async () => {
    await Promise.allSettled([admin?.disconnect(), reader?.close()]);
    await broker?.close();
  });

  const createTopic = async (topic: string, numPartitions = 1) => expect(await admin.createTopics({ topics: [{ topic, numPartitions }] })).toBe(true);
  const values = async (topic: string, minCount: number) => (await reader.readPartition(topic, 0, { minCount })).records.map((r) => simplify(r).value);

  it('an idempotent producer retries NOT_LEADER_OR_FOLLOWER and delivers each record once', async () => {
    const topic = topicName('not-leader');
    await createTopic(topic);
    const producer = kafka().producer({ idempotent: true, createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    // The first two answers say NOT_LEADER_OR_FOLLOWER although the batch was appended, as when leadership
    // moves while the response is on its way: only the producer's sequence numbers keep the retries out.
    const fault = broker.faults.inject({ api: 'Produce', topic, error: 'NOT_LEADER_OR_FOLLOWER', after: true, count: 2 });
    await producer.send({ topic, messages: [{ value: 'a' }, { value: 'b' }] });
    expect(fault.hits).toBe(2);
    await producer.send({ topic, messages: [{ value: 'c' }] });
    await producer.disconnect();
    expect(await values(topic, 3)).toEqual(['a', 'b', 'c']);
    expect(broker.faults.list()).toEqual([]);
  });

  it('a producer whose connection drops before the answer delivers once with idempotence', async () => {
    const topic = topicName('dropped-produce');
    await createTopic(topic);
    const producer = kafka().producer({ idempotent: true, createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    const fault = broker.faults.inject({ api: 'Produce', topic, drop: true, after: true });
    await producer.send({ topic, messages: [{ value: 'only-once' }] });
    await fault.fired();
    await producer.disconnect();
    expect(await values(topic, 1)).toEqual(['only-once']);
  });

  it('a group consumer survives a dropped Fetch connection and misses nothing', async () => {
    const topic = topicName('dropped-fetch');
    await createTopic(topic);
    const producer = kafka().producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    const consumer = kafka('krill-faults-consumer').consumer({ groupId: `g-${topic}`, maxWaitTimeInMs: 100 });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const seen: string[] = [];
    let arrived: () => void = () => {};
    const reached = (n: number) => new Promise<void>((resolve) => (arrived = () => seen.length >= n && resolve()));
    const first = reached(5);
    await consumer.run({
      eachMessage: async ({ message }: any) => {
        seen.push(message.value.toString());
        arrived();
      },
    });
    await producer.send({ topic, messages: Array.from({ length: 5 }, (_, i) => ({ value: `m${i}` })) });
    await first;
    const fault = broker.faults.inject({ api: 'Fetch', topic, drop: true });
    await fault.fired();
    const rest = reached(10);
    await producer.send({ topic, messages: Array.from({ length: 5 }, (_, i) => ({ value: `m${i + 5}` })) });
    await rest;
    await Promise.all([consumer.disconnect(), producer.disconnect()]);
    expect(seen).toEqual(Array.from({ length: 10 }, (_, i) => `m${i}`));
  });

  it('a frozen leader holds a produce until it is thawed', async () => {
    const topic = topicName('frozen');
    await createTopic(topic);
    const producer = kafka().producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    const frozen = broker.faults.freezeLeader(topic, 0);
    let delivered = false;
    const sent = producer.send({ topic, messages: [{ value: 'held' }] }).then((r: unknown) => ((delivered = true), r));
    await frozen.fired(1);
    // The request is held by the broker: no answer can reach the producer before the thaw.
    expect(delivered).toBe(false);
    frozen.remove();
    const [result] = await sent;
    expect(result).toMatchObject({ topicName: topic, partition: 0, errorCode: 0, baseOffset: '0' });
    await producer.disconnect();
    expect(await values(topic, 1)).toEqual(['held']);
  });

  it('aims at one client id and one topic, and leaves the others alone', async () => {
    const [aimed, other] = [topicName('aimed'), topicName('other')];
    await createTopic(aimed);
    await createTopic(other);
    const victim = kafka('victim').producer({ createPartitioner: Partitioners.DefaultPartitioner, retry: { retries: 0 } });
    const bystander = kafka('bystander').producer({ createPartitioner: Partitioners.DefaultPartitioner, retry: { retries: 0 } });
    await Promise.all([victim.connect(), bystander.connect()]);
    const fault = broker.faults.inject({ api: 'Produce', clientId: 'victim', topic: aimed, error: 'TOPIC_AUTHORIZATION_FAILED', count: 'always' });
    await expect(victim.send({ topic: aimed, messages: [{ value: 'x' }] })).rejects.toMatchObject({ type: 'TOPIC_AUTHORIZATION_FAILED' });
    await victim.send({ topic: other, messages: [{ value: 'v-other' }] });
    await bystander.send({ topic: aimed, messages: [{ value: 'b-aimed' }] });
    expect(fault.hits).toBe(1);
    fault.remove();
    await victim.send({ topic: aimed, messages: [{ value: 'v-aimed' }] });
    await Promise.all([victim.disconnect(), bystander.disconnect()]);
    expect(await values(aimed, 2)).toEqual(['b-aimed', 'v-aimed']);
    expect(await values(other, 1)).toEqual(['v-other']);
  });

  it('refuses a fault that makes no sense, naming what is wrong', () => {
    expect(() => broker.faults.inject({ api: 'Produce' })).toThrow(FaultSpecError);
    expect(() => broker.faults.inject({ api: 'Produse', error: 6 })).toThrow(/api: 'Produse' is not an API/);
    expect(() => broker.faults.inject({ api: 'Fetch', error: 'NOT_AN_ERROR' })).toThrow(/error: 'NOT_AN_ERROR' is not a Kafka error name/);
    expect(() => broker.faults.inject({ api: 'Fetch', drop: true, hold: true })).toThrow(/one of error, drop and hold/);
    expect(() => broker.faults.inject({ api: 'Fetch', delayMs: -1 })).toThrow(/delayMs: -1/);
    expect(() => broker.faults.inject({ api: 'Fetch', drop: true, partition: 0 })).toThrow(/partition: needs a topic/);
    expect(broker.faults.list()).toEqual([]);
  });
});
