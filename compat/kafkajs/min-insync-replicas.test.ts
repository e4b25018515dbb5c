// Compatibility: kafkajs 2.2.4 against min.insync.replicas. One broker is one in-sync replica: a topic asking
// for two refuses acks=all (-1) produces with NOT_ENOUGH_REPLICAS, as Kafka's leader does, and still takes
// acks=1; the same topic altered back to one takes acks=all again, without a restart.
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type RunningBroker } from '../../src/index.js';

const require = createRequire(import.meta.url);
/* eslint-disable @typescript-eslint/no-explicit-any */
const { Kafka, logLevel, Partitioners } = require('kafkajs');

process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';

describe(`kafkajs ${require('kafkajs/package.json').version}: min.insync.replicas`, { timeout: 60_000 }, () => {
  let broker: RunningBroker;
  let admin: any;
  let producer: any;
  const topic = `kafkajs-min-isr-${process.pid}`;

  beforeAll(async () => {
    broker = await startBroker({ port: 0, host: '127.0.0.1' });
    const kafka = new Kafka({ clientId: 'krill-compat-min-isr', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 0 } });
    admin = kafka.admin();
    producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, allowAutoTopicCreation: false, retry: { retries: 0 } });
    await admin.connect();
    await producer.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 1, configEntries: [{ name: 'min.insync.replicas', value: '2' }] }] });
  }, 30_000);

  afterAll(async () => {
    await Promise.allSettled([admin?.disconnect(), producer?.disconnect()]);
    await broker?.close();
  }, 30_000);

  it('refuses acks=all with NOT_ENOUGH_REPLICAS, takes acks=1, and takes acks=all once the topic asks for one replica', async () => {
    const refused = await producer.send({ topic, acks: -1, messages: [{ value: 'needs two replicas' }] }).catch((err: any) => err);
    expect(refused).toBeInstanceOf(Error);
    // kafkajs wraps the broker's error in its retrier's, as its cause.
    expect(refused.cause).toMatchObject({ type: 'NOT_ENOUGH_REPLICAS', code: 19 });

    const [taken] = await producer.send({ topic, acks: 1, messages: [{ value: 'one replica is enough' }] });
    expect(taken).toMatchObject({ errorCode: 0, baseOffset: '0' });

    await admin.alterConfigs({ validateOnly: false, resources: [{ type: 2, name: topic, configEntries: [{ name: 'min.insync.replicas', value: '1' }] }] });
    const [now] = await producer.send({ topic, acks: -1, messages: [{ value: 'now enough' }] });
    expect(now).toMatchObject({ errorCode: 0, baseOffset: '1' });
    // Nothing of the refused produce was written.
    const offsets = await admin.fetchTopicOffsets(topic);
    expect(offsets).toEqual([expect.objectContaining({ partition: 0, low: '0', high: '2' })]);
  });
});
