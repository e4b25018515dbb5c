// ACLs in a three-broker krill cluster, kept in ZooKeeper as Kafka's AclAuthorizer keeps them: an ACL
// created through one broker is written to /kafka-acl (with Kafka's JSON and a change notification) and
// takes effect on every broker; deleted, it stops. The cluster runs with allow.everyone.if.no.acl.found, so
// the brokers' own requests (CLUSTER_ACTION, on a cluster no ACL names) and the admin pass; the tested client
// connects from 127.0.0.2 and is refused once a DENY names that host.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningCluster } from '../../src/embedded-cluster.js';
import { TestClient } from '../../test/server/client.js';
import { buildBatch } from '../../protocol/record-batch.js';
import { describeCluster, eventually, formCluster, unique, ZkReader } from './cluster-util.js';
import type { Message } from '../../protocol/codec.js';

const PRODUCE = 0;
const CREATE_ACLS = 30;
const DESCRIBE_ACLS = 29;
const DELETE_ACLS = 31;
const CREATE_TOPICS = 19;
const TOPIC = 2;
const WRITE = 4;
const DENY = 2;
const TOPIC_AUTHORIZATION_FAILED = 29;

let cluster: RunningCluster;
let zk: ZkReader;

/** One request to one broker, from `localAddress`. */
async function ask(port: number, apiKey: number, version: number, body: Message, localAddress?: string): Promise<Message> {
  const client = await TestClient.connect(port, localAddress);
  try {
    return await client.request(apiKey, version, body);
  } finally {
    client.close();
  }
}

const produceCode = async (port: number, topic: string) => {
  const body = {
    transactionalId: null,
    acks: 1,
    timeoutMs: 5000,
    topicData: [{ name: topic, partitionData: [{ index: 0, records: buildBatch([{ key: 'k', value: 'v' }]) }] }],
  };
  const res = await ask(port, PRODUCE, 9, body, '127.0.0.2');
  return res.responses[0].partitionResponses[0].errorCode as number;
};

const filterOn = (topic: string) => ({
  resourceTypeFilter: TOPIC,
  resourceNameFilter: topic,
  patternTypeFilter: 3,
  principalFilter: null,
  hostFilter: null,
  operation: 1,
  permissionType: 1,
});

describeCluster('ACLs in a krill cluster, through ZooKeeper', { timeout: 90_000 }, () => {
  beforeAll(async () => {
    cluster = await formCluster('acls', {
      brokers: 3,
      config: { 'authorizer.class.name': 'kafka.security.authorizer.AclAuthorizer', 'allow.everyone.if.no.acl.found': true },
    });
    zk = await ZkReader.open(cluster.zookeeperConnect);
  });
  afterAll(async () => {
    await zk?.close();
    await cluster?.close();
  });

  it('an ACL created on one broker is in ZooKeeper as Kafka writes it, and in force on every broker', async () => {
    const topic = unique('acl');
    const [first, ...others] = cluster.brokers;
    const created = await ask(first.port, CREATE_TOPICS, 5, {
      topics: [{ name: topic, numPartitions: 1, replicationFactor: 3, assignments: [], configs: [] }],
      timeoutMs: 10_000,
      validateOnly: false,
    });
    expect(created.topics[0].errorCode).toBe(0);
    // No ACL names the topic: open to everyone.
    const leader = await eventually('a leader that takes the write', async () => {
      for (const b of cluster.brokers) if ((await produceCode(b.port, topic)) === 0) return b;
      return undefined;
    });

    const deny = {
      resourceType: TOPIC,
      resourceName: topic,
      resourcePatternType: 3,
      principal: 'User:ANONYMOUS',
      host: '127.0.0.2',
      operation: WRITE,
      permissionType: DENY,
    };
    const res = await ask(others[0].port, CREATE_ACLS, 3, { creations: [deny] });
    expect(res.results).toEqual([{ errorCode: 0, errorMessage: null }]);

    const node = await zk.get(`/kafka-acl/Topic/${topic}`);
    expect(node?.json).toEqual({ version: 1, acls: [{ principal: 'User:ANONYMOUS', permissionType: 'Deny', operation: 'Write', host: '127.0.0.2' }] });
    expect((await zk.children('/kafka-acl-changes')).length).toBeGreaterThan(0);

    // Every broker learns it from the change notification.
    for (const b of cluster.brokers) {
      await eventually(`broker ${b.id} lists the ACL`, async () => {
        const listed = await ask(b.port, DESCRIBE_ACLS, 3, filterOn(topic));
        return listed.resources.length === 1 ? true : undefined;
      });
      expect(await produceCode(b.port, topic)).toBe(TOPIC_AUTHORIZATION_FAILED);
    }

    const deleted = await ask(first.port, DELETE_ACLS, 3, { filters: [filterOn(topic)] });
    expect(deleted.filterResults[0].matchingAcls).toHaveLength(1);
    expect(await zk.get(`/kafka-acl/Topic/${topic}`)).toBeNull();
    await eventually(`broker ${leader.id} takes writes again`, async () => ((await produceCode(leader.port, topic)) === 0 ? true : undefined));
  });

  it('a broker answers for its own changes at once: a change notification read meanwhile does not undo them', async () => {
    // kafkajs's own deleteAcls spec: create, delete, then describe, all on one broker, back to back. The
    // notification of the create, read while the delete was being written, once put the deleted ACL back.
    const b = cluster.brokers[0];
    for (let i = 0; i < 10; i++) {
      const topic = unique('acl-own');
      const allow = { resourceType: TOPIC, resourceName: topic, resourcePatternType: 3, principal: 'User:alice', host: '*', operation: 2, permissionType: 3 };
      const deny = { ...allow, principal: 'User:bob', permissionType: DENY };
      expect((await ask(b.port, CREATE_ACLS, 3, { creations: [deny, allow] })).results).toHaveLength(2);
      const deleted = await ask(b.port, DELETE_ACLS, 3, { filters: [{ ...filterOn(topic), permissionType: 3 }] });
      expect(deleted.filterResults[0].matchingAcls).toHaveLength(1);
      const listed = await ask(b.port, DESCRIBE_ACLS, 3, { ...filterOn(topic), permissionType: 3 });
      expect(listed.resources).toEqual([]);
    }
  });
});
