// connections.max.idle.ms with a real client: krill closes a kafkajs producer's idle connections, as Kafka
// does, and kafkajs reconnects on its next send without the application noticing.
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type RunningBroker } from '../../src/index.js';
import { KafkajsReader } from '../kafkajs-reader.js';

const require = createRequire(import.meta.url);
/* eslint-disable @typescript-eslint/no-explicit-any */
const { Kafka, logLevel, Partitioners } = require('kafkajs');

const IDLE_MS = 400;

describe('kafkajs and connections.max.idle.ms', { timeout: 30_000 }, () => {
  let broker: RunningBroker;
  let kafka: any;
  /** What kafkajs logs: it says so when the server closes a connection. */
  const clientLog: string[] = [];

  beforeAll(async () => {
    broker = await startBroker({ port: 0, host: '127.0.0.1', config: { 'connections.max.idle.ms': IDLE_MS } });
    kafka = new Kafka({
      clientId: 'krill-idle',
      brokers: [broker.bootstrap],
      logLevel: logLevel.DEBUG,
      logCreator:
        () =>
        ({ log }: any) =>
          clientLog.push(log.message),
      retry: { retries: 3, initialRetryTime: 100 },
    });
  });
  afterAll(async () => {
    await broker?.close();
  });

  it('closes the idle producer connection, and the next send reconnects and lands', async () => {
    const topic = `idle-${process.pid}`;
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] });
    await admin.disconnect();

    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    let disconnects = 0;
    const events: string[] = [];
    // kafkajs's instrumentation reports every request it sends
    producer.on(producer.events.REQUEST, (e: any) => events.push(`${e.payload.apiName}@${e.payload.broker}`));
    producer.on(producer.events.DISCONNECT, () => disconnects++);
    await producer.connect();
    await producer.send({ topic, messages: [{ key: 'k', value: 'before the idle close' }] });
    const requestsBefore = events.length;
    expect(clientLog).not.toContain('Kafka server has closed connection');

    // Past the idle timeout (and a sweep or two): krill closes the connection.
    await new Promise((r) => setTimeout(r, IDLE_MS * 4));
    await producer.send({ topic, messages: [{ key: 'k', value: 'after the idle close' }] });
    expect(clientLog).toContain('Kafka server has closed connection');
    expect(events.slice(requestsBefore).map((e) => e.split('@')[0])).toContain('Produce');
    await producer.disconnect();
    expect(disconnects).toBe(1); // only the application's own disconnect: the reconnect was invisible to it

    const reader = new KafkajsReader(broker.bootstrap);
    try {
      const read = await reader.readPartition(topic, 0, { minCount: 2 });
      expect(read.records.map((r) => String(r.value))).toEqual(['before the idle close', 'after the idle close']);
    } finally {
      await reader.close();
    }
  });
});
