// Shared by the tests of what operators ask of the controller (ElectLeaders, partition reassignments, the
// automatic leader balance): a ZooKeeper session on the cluster's chroot, which broker is the controller,
// one raw request to one broker, partition states rewritten as a tool (or a leader's AlterPartition) would
// write them, and a new controller term, which makes the controller read everything again.
import { startCluster, type RunningCluster } from '../../src/embedded-cluster.js';
import type { ConfigValue } from '../../src/config.js';
import { settled } from '../../compat/cluster/cluster-util.js';
import { createTopicOk } from './cluster-probe.js';
import { ZkClient, ZkError } from '../../src/cluster/zk/zk-client.js';
import { KafkaZk, type PartitionLeadership } from '../../src/cluster/zk/kafka-zk.js';
import type { Message } from '../../protocol/codec.js';
import { TestClient } from '../server/client.js';
import { quietLog, waitFor } from './zk-helpers.js';

/**
 * Three brokers with `config`, a ZooKeeper session on their chroot, and `topics` (name → each partition's
 * replicas) created and led on every broker.
 */
export async function startWithTopics(
  config: Record<string, ConfigValue>,
  topics: Record<string, number[][]>,
): Promise<{ cluster: RunningCluster; zk: KafkaZk }> {
  const cluster = await startCluster({ brokers: 3, logLevel: 'silent', config });
  const zk = await openZk(cluster);
  const client = await TestClient.connect(cluster.brokers[0].port);
  try {
    for (const [name, replicas] of Object.entries(topics)) {
      await createTopicOk(
        client,
        name,
        -1,
        replicas.map((brokerIds, partitionIndex) => ({ partitionIndex, brokerIds })),
      );
    }
  } finally {
    client.close();
  }
  for (const [name, replicas] of Object.entries(topics)) await settled(cluster, name, replicas.length);
  return { cluster, zk };
}

export async function openZk(cluster: RunningCluster): Promise<KafkaZk> {
  return new KafkaZk(await ZkClient.connect({ connect: cluster.zookeeperConnect, sessionTimeoutMs: 10_000, connectionTimeoutMs: 10_000, log: quietLog }));
}

/** The controller's broker id and port, once a running broker is the controller. */
export async function controllerOf(cluster: RunningCluster, zk: KafkaZk): Promise<{ id: number; port: number }> {
  let id: number | null = null;
  await waitFor(async () => (id = await zk.getControllerId()) !== null && !!cluster.brokers.find((b) => b.id === id)?.running, 'a controller');
  return { id: id!, port: cluster.brokers.find((b) => b.id === id)!.port };
}

/** One request to the broker on `port`, on a connection of its own. */
export async function requestTo(port: number, apiKey: number, version: number, body: Message): Promise<Message> {
  const client = await TestClient.connect(port);
  try {
    return await client.request(apiKey, version, body);
  } finally {
    client.close();
  }
}

/** Rewrites a partition's state znode (fenced by the current controller epoch as the controller's writes are), retrying when it moved on meanwhile. */
export async function rewriteState(
  zk: KafkaZk,
  topic: string,
  partition: number,
  change: (s: PartitionLeadership) => Partial<PartitionLeadership>,
): Promise<PartitionLeadership> {
  for (let attempt = 0; ; attempt++) {
    const current = (await zk.getPartitionStates(topic)).get(partition)!;
    const epoch = (await zk.getControllerEpoch())!;
    const next = { ...current, ...change(current) };
    try {
      await zk.updatePartitionState(topic, partition, next, current.zkVersion, epoch.zkVersion);
      return next;
    } catch (err) {
      if (attempt >= 20 || (err instanceof ZkError && err.code !== 'BAD_VERSION')) throw err;
    }
  }
}

/** Makes a new controller term (as operators move the controller, by deleting /controller), which reads ZooKeeper afresh. */
export async function newControllerTerm(zk: KafkaZk): Promise<void> {
  const before = (await zk.getControllerEpoch())!.epoch;
  await zk.zk.delete('/controller');
  await waitFor(async () => ((await zk.getControllerEpoch())?.epoch ?? 0) > before && (await zk.getControllerId()) !== null, 'a new controller term');
}
