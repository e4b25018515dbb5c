// Compatibility: kafkajs 2.2.4 producing and consuming under client quotas set on krill. Every record
// arrives; the responses that put a client over its quota carry throttle_time_ms (kafkajs reads it as
// clientSideThrottleTime and holds its next request back, KIP-219), read from kafkajs's debug log of each
// response; and the broker counts the throttled responses.

import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type RunningBroker } from '../../src/index.js';
import { TestClient } from '../../test/server/client.js';
import { API } from '../../test/server/kafka.js';

const require = createRequire(import.meta.url);
/* eslint-disable @typescript-eslint/no-explicit-any */
const { Kafka, logLevel, Partitioners } = require('kafkajs');

// The fetch responses' data is in kafkajs's debug log only with these set (read when a connection is made).
process.env.KAFKAJS_DEBUG_PROTOCOL_BUFFERS = '1';
process.env.KAFKAJS_DEBUG_EXTENDED_PROTOCOL_BUFFERS = '1';

/** A kafkajs client whose debug log of responses lands in `throttles`: the throttle of each response of `api`. */
function client(bootstrap: string, clientId: string, api: string, throttles: number[]): any {
  const logCreator = () => (entry: any) => {
    const data = entry.log?.data;
    if (typeof entry.log?.message === 'string' && entry.log.message.startsWith(`Response ${api}(`) && data && typeof data === 'object') {
      throttles.push(data.clientSideThrottleTime ?? 0);
    }
  };
  return new Kafka({ clientId, brokers: [bootstrap], logLevel: logLevel.DEBUG, logCreator, retry: { retries: 0 } });
}

async function setQuota(port: number, clientId: string, key: string, value: number): Promise<void> {
  const c = await TestClient.connect(port);
  try {
    const res = await c.request(API.AlterClientQuotas, 1, {
      entries: [{ entity: [{ entityType: 'client-id', entityName: clientId }], ops: [{ key, value, remove: false }] }],
      validateOnly: false,
    });
    expect(res.entries[0].errorCode).toBe(0);
  } finally {
    c.close();
  }
}

const VALUE = Buffer.alloc(10_000, 7);
const RECORDS = 13;

let broker: RunningBroker;
beforeAll(async () => {
  broker = await startBroker({ port: 0, host: '127.0.0.1', config: { 'krill.http.listener': '127.0.0.1:0' } });
});
afterAll(() => broker?.close());

async function throttledCount(type: string): Promise<number> {
  const text = await (await fetch(`http://${broker.http}/metrics`)).text();
  const m = text.match(new RegExp(`^kafka_server_quota_throttled_total\\{quota="${type}"\\} (\\d+)$`, 'm'));
  return m ? Number(m[1]) : 0;
}

describe('kafkajs under client quotas', { timeout: 60_000 }, () => {
  const topic = `kafkajs-quotas-${process.pid}`;

  it('a producer over producer_byte_rate is throttled and delivers every record', async () => {
    await setQuota(broker.port, 'quota-producer', 'producer_byte_rate', 10_000);
    const throttles: number[] = [];
    const kafka = client(broker.bootstrap, 'quota-producer', 'Produce', throttles);
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] });
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    // One record a request: 130 kB against 10 kB/s over the 10 s the first window spans
    for (let i = 0; i < RECORDS; i++) await producer.send({ topic, acks: 1, messages: [{ key: `k${i}`, value: VALUE }] });
    await producer.disconnect();
    const offsets = await admin.fetchTopicOffsets(topic);
    await admin.disconnect();
    expect(offsets).toEqual([expect.objectContaining({ partition: 0, high: String(RECORDS) })]);
    expect(throttles).toHaveLength(RECORDS);
    expect(throttles.filter((t) => t > 0).length).toBeGreaterThan(0);
    expect(await throttledCount('Produce')).toBeGreaterThan(0);
  });

  it('a consumer over consumer_byte_rate is throttled and reads every record', async () => {
    await setQuota(broker.port, 'quota-consumer', 'consumer_byte_rate', 10_000);
    const throttles: number[] = [];
    const kafka = client(broker.bootstrap, 'quota-consumer', 'Fetch', throttles);
    const consumer = kafka.consumer({ groupId: `quota-group-${process.pid}`, maxBytesPerPartition: 20_000, maxWaitTimeInMs: 100 });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const seen: string[] = [];
    const all = new Promise<void>((resolve) => {
      void consumer.run({
        eachMessage: async ({ message }: any) => {
          seen.push(message.key.toString());
          if (seen.length === RECORDS) resolve();
        },
      });
    });
    await all;
    await consumer.disconnect();
    expect(seen).toEqual(Array.from({ length: RECORDS }, (_, i) => `k${i}`));
    expect(throttles.filter((t) => t > 0).length).toBeGreaterThan(0);
    expect(await throttledCount('Fetch')).toBeGreaterThan(0);
  });
});
