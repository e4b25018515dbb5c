// /metrics after reset(): the scrape reads the broker's new state, not what the reset removed.
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type RunningBroker } from '../../src/index.js';
import { commitOffset } from '../server/kafka.js';

const require = createRequire(import.meta.url);
const { Kafka, logLevel, Partitioners } = require('kafkajs');

let broker: RunningBroker;
beforeAll(async () => {
  broker = await startBroker({ port: 0, host: '127.0.0.1', config: { 'krill.http.listener': '127.0.0.1:0' } });
});
afterAll(() => broker?.close());

const scrape = async () => (await fetch(`http://${broker.http}/metrics`)).text();

describe('/metrics across a reset', () => {
  it('forgets the topics and groups the reset removed, and counts what comes after', async () => {
    const kafka = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    await broker.createTopics(['before']);
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    await producer.send({ topic: 'before', messages: [{ value: 'x' }] });
    await commitOffset(broker.port, 'metrics-g', 'before', 1);
    const old = await scrape();
    expect(old).toContain('kafka_server_brokertopicmetrics_messagesin_total{topic="before"} 1');
    expect(old).toMatch(/kafka_consumergroup_current_offset\{consumergroup="metrics-g",topic="before",partition="0"\} 1/);

    await producer.disconnect();
    await broker.reset();
    await broker.createTopics(['after']);
    const fresh = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await fresh.connect();
    await fresh.send({ topic: 'after', messages: [{ value: 'y' }, { value: 'z' }] });
    await fresh.disconnect();
    const now = await scrape();
    expect(now).not.toContain('topic="before"');
    expect(now).not.toContain('consumergroup="metrics-g"');
    expect(now).toContain('kafka_server_brokertopicmetrics_messagesin_total{topic="after"} 2');
    await admin.disconnect();
  });
});
