// A cluster broker against requests that are not for it: the ZooKeeper-era inter-broker APIs exist only in
// cluster mode (ApiVersions); controller requests from an older controller epoch or for an older registration
// of the broker are refused (STALE_CONTROLLER_EPOCH, STALE_BROKER_EPOCH) and change nothing; ControlledShutdown
// goes to the controller only (NOT_CONTROLLER); Produce and Fetch go to the partition's leader only
// (NOT_LEADER_OR_FOLLOWER); group requests go to the group's coordinator only (NOT_COORDINATOR).
// Three brokers in this process, against a real ZooKeeper started by startCluster.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type RunningCluster } from '../../src/embedded-cluster.js';
import { BrokerClient, INTER_BROKER_VERSIONS } from '../../src/cluster/broker-client.js';
import { ErrorCode } from '../../protocol/errors.js';
import { API_KEYS } from '../../protocol/messages/index.js';
import { buildBatch } from '../../protocol/record-batch.js';
import { TestClient } from '../server/client.js';
import { API, fetchOne, produce, produceOk, recordsOf, values } from '../server/kafka.js';
import { withBroker } from '../helpers.js';
import { coordinatorOf, createTopicOk, leaderOf, metadata, zkState } from './cluster-probe.js';
import { waitFor } from './zk-helpers.js';

const OFFSET_COMMIT = 8;
const JOIN_GROUP = 11;
const OFFSET_FETCH = 9;
const DESCRIBE_GROUPS = 15;
const DELETE_GROUPS = 42;
const INTER_BROKER_KEYS = [API_KEYS.LeaderAndIsr, API_KEYS.StopReplica, API_KEYS.UpdateMetadata, API_KEYS.ControlledShutdown];

let cluster: RunningCluster;
const clients = new Map<number, TestClient>();
const brokerClients: BrokerClient[] = [];

beforeAll(async () => {
  cluster = await startCluster({
    brokers: 3,
    config: { 'offsets.topic.replication.factor': 1, 'offsets.topic.num.partitions': 6, 'transaction.state.log.replication.factor': 1 },
  });
  for (const b of cluster.brokers) clients.set(b.id, await TestClient.connect(b.port));
}, 120_000);

afterAll(async () => {
  for (const c of clients.values()) c.close();
  for (const c of brokerClients) c.close();
  await cluster?.close();
}, 60_000);

const client = (id: number): TestClient => clients.get(id)!;
const broker = (id: number) => cluster.brokers.find((b) => b.id === id)!;

/** A client that speaks to broker `id` as its controller would. */
function asController(id: number): BrokerClient {
  const c = new BrokerClient({ host: '127.0.0.1', port: broker(id).port, clientId: 'krill-controller-test', requestTimeoutMs: 20_000 });
  brokerClients.push(c);
  return c;
}

/** A topic of one partition on broker `leader`, with a few records; returns the topic's id. */
async function topicLedBy(name: string, leader: number): Promise<Buffer> {
  await createTopicOk(client(leader), name, -1, [{ partitionIndex: 0, brokerIds: [leader] }]);
  for (const id of cluster.brokers.map((b) => b.id)) expect(await leaderOf(client(id), name, 0)).toBe(leader);
  await produceOk(client(leader), name, 0, values(3));
  const md = await metadata(client(leader), [name]);
  return md.topics[0].topicId;
}

function otherThan(...ids: number[]): number {
  return cluster.brokers.map((b) => b.id).find((id) => !ids.includes(id))!;
}

async function apiKeys(c: TestClient): Promise<number[]> {
  const res = await c.request(API.ApiVersions, 3, { clientSoftwareName: 'krill-test', clientSoftwareVersion: '1' });
  expect(res.errorCode).toBe(0);
  return res.apiKeys.map((k: { apiKey: number }) => k.apiKey);
}

describe('ApiVersions', () => {
  it('a single broker lists none of the inter-broker APIs 4-7; a cluster broker lists them all', async () => {
    const single = await withBroker();
    const c = await TestClient.connect(single.port);
    try {
      const keys = await apiKeys(c);
      expect(keys).toContain(API.Produce);
      for (const k of INTER_BROKER_KEYS) expect(keys).not.toContain(k);
    } finally {
      c.close();
      await single.close();
    }
    const clusterKeys = await apiKeys(client(1));
    for (const k of INTER_BROKER_KEYS) expect(clusterKeys).toContain(k);
  });
});

describe('controller requests with stale epochs', () => {
  it('UpdateMetadata from an older controller epoch, or for an older broker epoch, is refused and changes nothing', async () => {
    const target = 2;
    const { controllerEpoch, controllerId, brokerEpochs } = await zkState(cluster.zookeeperConnect);
    const body = (epoch: number, brokerEpoch: number) => ({
      controllerId,
      isKRaftController: false,
      controllerEpoch: epoch,
      brokerEpoch,
      topicStates: [
        {
          topicName: 'ghost',
          topicId: Buffer.alloc(16, 7),
          partitionStates: [
            { partitionIndex: 0, controllerEpoch: epoch, leader: target, leaderEpoch: 0, isr: [target], zkVersion: 0, replicas: [target], offlineReplicas: [] },
          ],
        },
      ],
      liveBrokers: [{ id: target, endpoints: [{ port: broker(target).port, host: '127.0.0.1', listener: 'PLAINTEXT', securityProtocol: 0 }], rack: null }],
    });
    const c = asController(target);
    expect((await c.send(API_KEYS.UpdateMetadata, INTER_BROKER_VERSIONS.UpdateMetadata, body(controllerEpoch - 1, brokerEpochs.get(target)!))).errorCode).toBe(
      ErrorCode.STALE_CONTROLLER_EPOCH,
    );
    expect((await c.send(API_KEYS.UpdateMetadata, INTER_BROKER_VERSIONS.UpdateMetadata, body(controllerEpoch, brokerEpochs.get(target)! - 1))).errorCode).toBe(
      ErrorCode.STALE_BROKER_EPOCH,
    );
    // Still every broker, and no topic 'ghost', in its metadata or on its disk.
    const md = await metadata(client(target), ['ghost']);
    expect(md.brokers.map((b: { nodeId: number }) => b.nodeId).sort()).toEqual([1, 2, 3]);
    expect(md.topics[0].errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    expect(fs.existsSync(path.join(broker(target).dataDir, 'ghost-0'))).toBe(false);
  });

  it('LeaderAndIsr from an older controller epoch, or for an older broker epoch, is refused: the broker does not become leader', async () => {
    const leader = 1;
    const target = otherThan(leader);
    const topicId = await topicLedBy('fenced-lai', leader);
    const { controllerEpoch, controllerId, brokerEpochs } = await zkState(cluster.zookeeperConnect);
    const body = (epoch: number, brokerEpoch: number) => ({
      controllerId,
      isKRaftController: false,
      controllerEpoch: epoch,
      brokerEpoch,
      type: 0,
      topicStates: [
        {
          topicName: 'fenced-lai',
          topicId,
          partitionStates: [
            {
              partitionIndex: 0,
              controllerEpoch: epoch,
              leader: target,
              leaderEpoch: 100,
              isr: [target],
              partitionEpoch: 100,
              replicas: [target],
              addingReplicas: [],
              removingReplicas: [],
              isNew: false,
              leaderRecoveryState: 0,
            },
          ],
        },
      ],
      liveLeaders: [{ brokerId: target, hostName: '127.0.0.1', port: broker(target).port }],
    });
    const c = asController(target);
    expect((await c.send(API_KEYS.LeaderAndIsr, INTER_BROKER_VERSIONS.LeaderAndIsr, body(controllerEpoch - 1, brokerEpochs.get(target)!))).errorCode).toBe(
      ErrorCode.STALE_CONTROLLER_EPOCH,
    );
    expect((await c.send(API_KEYS.LeaderAndIsr, INTER_BROKER_VERSIONS.LeaderAndIsr, body(controllerEpoch, brokerEpochs.get(target)! - 1))).errorCode).toBe(
      ErrorCode.STALE_BROKER_EPOCH,
    );
    expect((await produce(client(target), 'fenced-lai', 0, buildBatch(values(1)))).errorCode).toBe(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    expect(await leaderOf(client(target), 'fenced-lai', 0)).toBe(leader);
    expect((await produce(client(leader), 'fenced-lai', 0, buildBatch(values(1)))).errorCode).toBe(0);
  });

  it('StopReplica with delete from an older controller epoch, or for an older broker epoch, is refused: the leader keeps its log', async () => {
    const leader = 3;
    await topicLedBy('fenced-stop', leader);
    const { controllerEpoch, controllerId, brokerEpochs } = await zkState(cluster.zookeeperConnect);
    const body = (epoch: number, brokerEpoch: number) => ({
      controllerId,
      isKRaftController: false,
      controllerEpoch: epoch,
      brokerEpoch,
      topicStates: [{ topicName: 'fenced-stop', partitionStates: [{ partitionIndex: 0, leaderEpoch: -2, deletePartition: true }] }],
    });
    const c = asController(leader);
    expect((await c.send(API_KEYS.StopReplica, INTER_BROKER_VERSIONS.StopReplica, body(controllerEpoch - 1, brokerEpochs.get(leader)!))).errorCode).toBe(
      ErrorCode.STALE_CONTROLLER_EPOCH,
    );
    expect((await c.send(API_KEYS.StopReplica, INTER_BROKER_VERSIONS.StopReplica, body(controllerEpoch, brokerEpochs.get(leader)! - 1))).errorCode).toBe(
      ErrorCode.STALE_BROKER_EPOCH,
    );
    expect(fs.existsSync(path.join(broker(leader).dataDir, 'fenced-stop-0'))).toBe(true);
    const fetched = await fetchOne(client(leader), 'fenced-stop', 0, 0);
    expect(fetched.errorCode).toBe(0);
    expect(recordsOf(fetched.records).map((r) => r.value)).toEqual(['v0', 'v1', 'v2']);
  });

  it('ControlledShutdown sent to a broker that is not the controller is NOT_CONTROLLER', async () => {
    const { controllerId, brokerEpochs } = await zkState(cluster.zookeeperConnect);
    const target = otherThan(controllerId);
    const other = otherThan(controllerId, target);
    const res = await asController(target).send(API_KEYS.ControlledShutdown, INTER_BROKER_VERSIONS.ControlledShutdown, {
      brokerId: other,
      brokerEpoch: brokerEpochs.get(other)!,
    });
    expect(res.errorCode).toBe(ErrorCode.NOT_CONTROLLER);
    expect(res.remainingPartitions).toEqual([]);
    // And nothing stopped: the broker still leads what it led.
    const md = await metadata(client(other), null);
    expect(md.brokers.map((b: { nodeId: number }) => b.nodeId).sort()).toEqual([1, 2, 3]);
  });
});

describe('requests sent to the wrong broker', () => {
  it('Produce and Fetch to a broker that does not lead the partition are NOT_LEADER_OR_FOLLOWER', async () => {
    const leader = 2;
    await topicLedBy('misdirected', leader);
    for (const id of cluster.brokers.map((b) => b.id).filter((id) => id !== leader)) {
      expect((await produce(client(id), 'misdirected', 0, buildBatch(values(1)))).errorCode).toBe(ErrorCode.NOT_LEADER_OR_FOLLOWER);
      expect((await fetchOne(client(id), 'misdirected', 0, 0)).errorCode).toBe(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    }
    // The leader has exactly what it acknowledged.
    const fetched = await fetchOne(client(leader), 'misdirected', 0, 0);
    expect(recordsOf(fetched.records).map((r) => r.value)).toEqual(['v0', 'v1', 'v2']);
  });

  it("JoinGroup and OffsetCommit to a broker that does not lead the group's __consumer_offsets partition are NOT_COORDINATOR", async () => {
    await createTopicOk(client(1), 'grouped', 1);
    const coordinator = await coordinatorOf(client(1), 'the-group');
    // Every broker names the same coordinator.
    for (const id of cluster.brokers.map((b) => b.id)) expect(await coordinatorOf(client(id), 'the-group')).toBe(coordinator);
    const join = {
      groupId: 'the-group',
      sessionTimeoutMs: 10_000,
      rebalanceTimeoutMs: 10_000,
      memberId: '',
      groupInstanceId: null,
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: Buffer.alloc(0) }],
      reason: null,
    };
    const commit = {
      groupId: 'the-group',
      generationIdOrMemberEpoch: -1,
      memberId: '',
      groupInstanceId: null,
      topics: [{ name: 'grouped', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: null }] }],
    };
    for (const id of cluster.brokers.map((b) => b.id).filter((id) => id !== coordinator)) {
      expect((await client(id).request(JOIN_GROUP, 5, join)).errorCode).toBe(ErrorCode.NOT_COORDINATOR);
      const res = await client(id).request(OFFSET_COMMIT, 8, commit);
      expect(res.topics[0].partitions[0].errorCode).toBe(ErrorCode.NOT_COORDINATOR);
    }
    // The coordinator takes them.
    expect((await client(coordinator).request(JOIN_GROUP, 5, join)).errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    await waitFor(
      async () => (await client(coordinator).request(OFFSET_COMMIT, 8, commit)).topics[0].partitions[0].errorCode === 0,
      'a commit at the coordinator',
    );
  });

  it('DescribeGroups, DeleteGroups and OffsetFetch v8 naming groups of two coordinators answer each group on its own', async () => {
    // Two groups with different coordinators (the six __consumer_offsets partitions are spread over three brokers).
    const here = 'the-group';
    const coordinator = await coordinatorOf(client(1), here);
    let elsewhere = '';
    for (let i = 0; !elsewhere; i++) if ((await coordinatorOf(client(1), `other-${i}`)) !== coordinator) elsewhere = `other-${i}`;
    const c = client(coordinator);
    const described = await c.request(DESCRIBE_GROUPS, 5, { groups: [here, elsewhere], includeAuthorizedOperations: false });
    expect(described.groups.map((g: { groupId: string; errorCode: number }) => [g.groupId, g.errorCode])).toEqual([
      [here, 0],
      [elsewhere, ErrorCode.NOT_COORDINATOR],
    ]);
    const fetched = await c.request(OFFSET_FETCH, 8, {
      groups: [
        { groupId: here, topics: null },
        { groupId: elsewhere, topics: null },
      ],
      requireStable: false,
    });
    expect(fetched.groups.map((g: { groupId: string; errorCode: number }) => [g.groupId, g.errorCode])).toEqual([
      [here, 0],
      [elsewhere, ErrorCode.NOT_COORDINATOR],
    ]);
    expect(fetched.groups[0].topics.map((t: { name: string }) => t.name)).toEqual(['grouped']);
    const deleted = await c.request(DELETE_GROUPS, 2, { groupsNames: [elsewhere] });
    expect(deleted.results).toEqual([{ groupId: elsewhere, errorCode: ErrorCode.NOT_COORDINATOR }]);
  });
});

describe('Metadata of all topics in a cluster', () => {
  it("lists the topics of the controller's metadata, not a local log the controller never described", async () => {
    const target = 1;
    const { controllerEpoch, controllerId, brokerEpochs } = await zkState(cluster.zookeeperConnect);
    // A LeaderAndIsr that passes the epoch checks but names a topic the controller does not have: the broker
    // makes its log, and its metadata still does not name it.
    const res = await asController(target).send(API_KEYS.LeaderAndIsr, INTER_BROKER_VERSIONS.LeaderAndIsr, {
      controllerId,
      isKRaftController: false,
      controllerEpoch,
      brokerEpoch: brokerEpochs.get(target)!,
      type: 0,
      topicStates: [
        {
          topicName: 'phantom',
          topicId: Buffer.alloc(16, 9),
          partitionStates: [
            {
              partitionIndex: 0,
              controllerEpoch,
              leader: target,
              leaderEpoch: 0,
              isr: [target],
              partitionEpoch: 0,
              replicas: [target],
              addingReplicas: [],
              removingReplicas: [],
              isNew: true,
              leaderRecoveryState: 0,
            },
          ],
        },
      ],
      liveLeaders: [],
    });
    expect(res.errorCode).toBe(0);
    expect(fs.existsSync(path.join(broker(target).dataDir, 'phantom-0'))).toBe(true);
    const names = (await metadata(client(target), null)).topics.map((t: { name: string }) => t.name);
    expect(names).toContain('misdirected');
    expect(names).not.toContain('phantom');
  });
});

// Last: it leaves broker 3 fenced against the real controller.
describe('a newer controller epoch seen in any controller request', () => {
  it("fences the older controller's UpdateMetadata, even when it came in a LeaderAndIsr", async () => {
    const target = 3;
    const { controllerEpoch, controllerId, brokerEpochs } = await zkState(cluster.zookeeperConnect);
    const c = asController(target);
    const newer = await c.send(API_KEYS.LeaderAndIsr, INTER_BROKER_VERSIONS.LeaderAndIsr, {
      controllerId,
      isKRaftController: false,
      controllerEpoch: controllerEpoch + 1,
      brokerEpoch: brokerEpochs.get(target)!,
      type: 0,
      topicStates: [],
      liveLeaders: [],
    });
    expect(newer.errorCode).toBe(0);
    const older = await c.send(API_KEYS.UpdateMetadata, INTER_BROKER_VERSIONS.UpdateMetadata, {
      controllerId,
      isKRaftController: false,
      controllerEpoch,
      brokerEpoch: brokerEpochs.get(target)!,
      topicStates: [],
      liveBrokers: [],
    });
    expect(older.errorCode).toBe(ErrorCode.STALE_CONTROLLER_EPOCH);
    expect((await metadata(client(target), null)).brokers).toHaveLength(3);
  });
});
