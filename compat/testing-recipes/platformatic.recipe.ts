// An @platformatic/kafka suite on the run's shared broker, as the README's recipe has it.
import { expect, test } from 'vitest';
import { Admin, Consumer, MessagesStreamModes, Producer, stringDeserializers, stringSerializers } from '@platformatic/kafka';

test('@platformatic/kafka produces and consumes through KRILL_BOOTSTRAP', async () => {
  const bootstrapBrokers = [process.env.KRILL_BOOTSTRAP!];
  const admin = new Admin({ clientId: 'recipe', bootstrapBrokers });
  await admin.createTopics({ topics: ['recipe-platformatic'], partitions: 1, replicas: 1 });
  const producer = new Producer({ clientId: 'recipe', bootstrapBrokers, serializers: stringSerializers });
  await producer.send({ messages: [{ topic: 'recipe-platformatic', key: 'k', value: 'from platformatic' }] });
  const consumer = new Consumer({ clientId: 'recipe', groupId: 'recipe-platformatic', bootstrapBrokers, deserializers: stringDeserializers, maxWaitTime: 100 });
  const stream = await consumer.consume({ topics: ['recipe-platformatic'], mode: MessagesStreamModes.EARLIEST });
  let value: string | undefined;
  for await (const message of stream) {
    value = message.value;
    break;
  }
  expect(value).toBe('from platformatic');
  await stream.close();
  await Promise.all([consumer.close(), producer.close(), admin.close()]);
});
