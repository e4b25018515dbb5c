// An @confluentinc/kafka-javascript suite (its KafkaJS-compatible API) on the run's shared broker, as the
// README's recipe has it.
import { createRequire } from 'node:module';
import { expect, test } from 'vitest';

const require = createRequire(import.meta.url);
/* eslint-disable @typescript-eslint/no-explicit-any */
const { KafkaJS } = require('@confluentinc/kafka-javascript');

test('@confluentinc/kafka-javascript produces and consumes through KRILL_BOOTSTRAP', async () => {
  const kafka = new KafkaJS.Kafka({ kafkaJS: { brokers: [process.env.KRILL_BOOTSTRAP!], logLevel: KafkaJS.logLevel.NOTHING } });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'recipe-confluent' }] });
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic: 'recipe-confluent', messages: [{ key: 'k', value: 'from confluent' }] });
  const consumer = kafka.consumer({ kafkaJS: { groupId: 'recipe-confluent', fromBeginning: true } });
  await consumer.connect();
  await consumer.subscribe({ topics: ['recipe-confluent'] });
  const value = await new Promise<string>((resolve) => consumer.run({ eachMessage: async ({ message }: any) => resolve(message.value.toString()) }));
  expect(value).toBe('from confluent');
  await Promise.all([consumer.disconnect(), producer.disconnect(), admin.disconnect()]);
});
