// A consume-transform-produce worker for compat/kafkajs/exactly-once.test.ts, run as its own process so the
// test can kill -9 it mid-stream. argv: bootstrap, input topic, output topic, group id, transactional id.
// For every input record, one transaction: the upper-cased value to the output topic, and the input offset
// committed with it (sendOffsets). It prints "processed <n>" after each commit.
const { Kafka, logLevel, Partitioners } = require('kafkajs');

const [bootstrap, input, output, groupId, transactionalId] = process.argv.slice(2);
const kafka = new Kafka({
  clientId: 'krill-eos-worker',
  brokers: [bootstrap],
  logLevel: logLevel.NOTHING,
  retry: { retries: 20, initialRetryTime: 100, maxRetryTime: 1000 },
});

async function main() {
  const producer = kafka.producer({ transactionalId, idempotent: true, maxInFlightRequests: 1, createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  const consumer = kafka.consumer({ groupId, sessionTimeout: 6000, heartbeatInterval: 500, readUncommitted: false });
  await consumer.connect();
  await consumer.subscribe({ topic: input, fromBeginning: true });
  let processed = 0;
  await consumer.run({
    autoCommit: false,
    eachMessage: async ({ topic, partition, message }) => {
      const txn = await producer.transaction();
      try {
        await txn.send({ topic: output, messages: [{ key: message.key, value: String(message.value).toUpperCase() }] });
        await txn.sendOffsets({ consumerGroupId: groupId, topics: [{ topic, partitions: [{ partition, offset: String(Number(message.offset) + 1) }] }] });
        await txn.commit();
      } catch (err) {
        await txn.abort().catch(() => {});
        throw err;
      }
      processed++;
      process.stdout.write(`processed ${processed}\n`);
    },
  });
}

main().catch((err) => {
  process.stderr.write(`worker failed: ${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
