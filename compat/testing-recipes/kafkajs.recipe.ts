// A kafkajs suite on the run's shared broker, as the README's recipe has it.
import { createRequire } from 'node:module';
import { expect, test } from 'vitest';

const require = createRequire(import.meta.url);
/* eslint-disable @typescript-eslint/no-explicit-any */
const { Kafka, logLevel, Partitioners } = require('kafkajs');

test('kafkajs produces and consumes through KRILL_BOOTSTRAP', async () => {
  const kafka = new Kafka({ brokers: [process.env.KRILL_BOOTSTRAP!], logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'recipe-kafkajs' }] });
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  await producer.send({ topic: 'recipe-kafkajs', messages: [{ key: 'k', value: 'from kafkajs' }] });
  const consumer = kafka.consumer({ groupId: 'recipe-kafkajs', maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topic: 'recipe-kafkajs', fromBeginning: true });
  const value = await new Promise<string>((resolve) => consumer.run({ eachMessage: async ({ message }: any) => resolve(message.value.toString()) }));
  expect(value).toBe('from kafkajs');
  await Promise.all([consumer.disconnect(), producer.disconnect(), admin.disconnect()]);
});
