// Transactions across a cluster: the coordinator (leader of the transactional id's __transaction_state
// partition) has the leaders of the other partitions write the commit and abort markers (WriteTxnMarkers),
// so a read_committed consumer sees every committed record and no aborted one, whichever broker leads.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kafka, logLevel } from 'kafkajs';
import { startCluster, type RunningCluster } from '../../src/index.js';
import { zookeeperInstalled } from '../../src/cluster/zookeeper-server.js';
import { waitFor } from './zk-helpers.js';

const skip = !zookeeperInstalled() && process.env.CI !== 'true';

describe.skipIf(skip)('transactions in a cluster', () => {
  let cluster: RunningCluster;
  beforeAll(async () => {
    cluster = await startCluster({ brokers: 3, logLevel: 'silent' });
  }, 90_000);
  afterAll(async () => {
    await cluster?.close();
  }, 60_000);

  it('commits and aborts on partitions led by every broker', async () => {
    const kafka = new Kafka({ brokers: cluster.bootstrap.split(','), logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    // Partition p led by broker p+1: the transaction spans the three brokers.
    await admin.createTopics({
      topics: [{ topic: 'txn-spread', replicaAssignment: [0, 1, 2].map((p) => ({ partition: p, replicas: [p + 1] })) }],
      waitForLeaders: true,
    });
    const producer = kafka.producer({ transactionalId: 'spread-txn', idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    const send = async (value: string, commit: boolean) => {
      const txn = await producer.transaction();
      await txn.send({ topic: 'txn-spread', messages: [0, 1, 2].map((partition) => ({ partition, value: `${value}-${partition}` })) });
      if (commit) await txn.commit();
      else await txn.abort();
    };
    await send('first', true);
    await send('dropped', false);
    await send('second', true);

    const consumer = kafka.consumer({ groupId: 'spread-reader', readUncommitted: false });
    const seen: string[] = [];
    await consumer.connect();
    await consumer.subscribe({ topic: 'txn-spread', fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => void seen.push(String(message.value)) });
    await waitFor(() => seen.length >= 6, 'the six committed records', 30_000);
    expect(seen.sort()).toEqual(['first-0', 'first-1', 'first-2', 'second-0', 'second-1', 'second-2']);
    // Every partition's last stable offset passed the markers: nothing is left open on any leader.
    const offsets = await admin.fetchTopicOffsets('txn-spread');
    for (const o of offsets) expect(Number(o.high)).toBe(6); // per partition: three records, three markers
    await consumer.disconnect();
    await producer.disconnect();
    await admin.disconnect();
  }, 90_000);
});
