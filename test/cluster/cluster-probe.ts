// Shared by the cluster tests: what a cluster looks like from a client (Metadata, leaders, FindCoordinator)
// and from ZooKeeper (the controller epoch, each broker's epoch), polling with a bound where the cluster
// converges asynchronously.
import { expect } from 'vitest';
import { TestClient } from '../server/client.js';
import { API, ZERO_UUID } from '../server/kafka.js';
import { ZkClient } from '../../src/cluster/zk/zk-client.js';
import { KafkaZk } from '../../src/cluster/zk/kafka-zk.js';
import type { Message } from '../../protocol/codec.js';
import { quietLog, waitFor } from './zk-helpers.js';

export const FIND_COORDINATOR = 10;

/** Broker configs for a cluster that notices a stopped broker, and refills a follower, within a test's time. */
export const QUICK_REPLICATION = {
  'zookeeper.session.timeout.ms': 6000,
  'replica.fetch.wait.max.ms': 100,
  'replica.fetch.backoff.ms': 100,
  'controlled.shutdown.retry.backoff.ms': 200,
};

/** Connections to a cluster's brokers by id (`ports` gives their ports), each new; closeAll() closes them. */
export function brokerClients(ports: () => number[]): { to(brokerId: number): Promise<TestClient>; closeAll(): void } {
  const open: TestClient[] = [];
  return {
    async to(brokerId) {
      const c = await TestClient.connect(ports()[brokerId - 1]);
      open.push(c);
      return c;
    },
    closeAll: () => open.splice(0).forEach((c) => c.close()),
  };
}

export async function metadata(client: TestClient, topics: string[] | null): Promise<Message> {
  return client.request(API.Metadata, 12, {
    topics: topics === null ? null : topics.map((name) => ({ topicId: ZERO_UUID, name })),
    allowAutoTopicCreation: false,
    includeTopicAuthorizedOperations: false,
  });
}

/** The leader of topic-partition as `client`'s broker sees it, once it has one (polled). */
export async function leaderOf(client: TestClient, topic: string, partition: number): Promise<number> {
  let leader = -1;
  await waitFor(async () => {
    const res = await metadata(client, [topic]);
    leader = res.topics[0]?.partitions?.find((p: Message) => p.partitionIndex === partition)?.leaderId ?? -1;
    return leader >= 0;
  }, `a leader for ${topic}-${partition}`);
  return leader;
}

/** The coordinator of a group, once FindCoordinator names one (the first lookups create __consumer_offsets). */
export async function coordinatorOf(client: TestClient, groupId: string): Promise<number> {
  let nodeId = -1;
  await waitFor(
    async () => {
      const res = await client.request(FIND_COORDINATOR, 4, { keyType: 0, coordinatorKeys: [groupId] });
      const c = res.coordinators[0];
      nodeId = c.errorCode === 0 ? c.nodeId : -1;
      return nodeId >= 0;
    },
    `a coordinator for group ${groupId}`,
    60_000,
  );
  return nodeId;
}

export async function createTopicOk(
  client: TestClient,
  name: string,
  numPartitions: number,
  assignments: { partitionIndex: number; brokerIds: number[] }[] = [],
): Promise<void> {
  const res = await client.request(API.CreateTopics, 7, {
    topics: [{ name, numPartitions: assignments.length ? -1 : numPartitions, replicationFactor: assignments.length ? -1 : 1, assignments, configs: [] }],
    timeoutMs: 30_000,
    validateOnly: false,
  });
  expect(res.topics[0].errorCode, res.topics[0].errorMessage).toBe(0);
}

/** The cluster's state in ZooKeeper: the controller's epoch and every live broker's epoch. */
export async function zkState(connect: string): Promise<{ controllerEpoch: number; controllerId: number; brokerEpochs: Map<number, number> }> {
  const client = await ZkClient.connect({ connect, sessionTimeoutMs: 10_000, connectionTimeoutMs: 20_000, log: quietLog });
  try {
    const zk = new KafkaZk(client);
    const epoch = await zk.getControllerEpoch();
    const controllerId = await zk.getControllerId();
    const brokers = await zk.getBrokers();
    return { controllerEpoch: epoch!.epoch, controllerId: controllerId ?? -1, brokerEpochs: new Map(brokers.map((b) => [b.id, b.epoch])) };
  } finally {
    await client.close();
  }
}
