// Every API the broker serves, refused without an ACL and served with one: a table over the handler
// registry (an API without a case fails the suite), each case a real request over a real connection from
// 127.0.0.1, with the ACLs it needs granted from 127.0.0.2, whose connection holds ALLOW ALL on everything
// (from krill-acls.json, written before the start: the file format is read as an operator would write it).
// Refused means the response carries the API's *_AUTHORIZATION_FAILED code; served, that it carries none.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type RunningBroker } from '../../src/index.js';
import { HANDLERS } from '../../src/handlers/index.js';
import { TestClient } from '../server/client.js';
import { API, createTopic, listOffsetsBody, metadataBody, produceBody, uniqueTopic, values } from '../server/kafka.js';
import { buildBatch } from '../../protocol/record-batch.js';
import { useTempDirs } from '../helpers.js';
import type { Message } from '../../protocol/codec.js';
import { ErrorCode } from '../../protocol/errors.js';
import { Operation as Op, ResourceType } from '../../src/security/acl.js';

const ADMIN_HOST = '127.0.0.2';
const T = { TOPIC: ResourceType.TOPIC, GROUP: ResourceType.GROUP, CLUSTER: ResourceType.CLUSTER, TXN: ResourceType.TRANSACTIONAL_ID } as const;
const E = { TOPIC: 29, GROUP: 30, CLUSTER: 31, TXN: 53 } as const;
const AUTHORIZATION_CODES = new Set<number>(Object.values(E));

type Grant = [resourceType: number, name: string, operation: number];

interface Case {
  label: string;
  apiKey: number;
  version: number;
  body: () => Message;
  grants: Grant[];
  /** The code refused entries carry; or, for the APIs that only hide, a check of the response each way. */
  refused: number | ((res: Message) => void);
  served?: (res: Message) => void;
}

/** Every error code in a response (errorCode, partitionErrorCode), at any depth. */
function codes(value: unknown, out: number[] = []): number[] {
  if (Array.isArray(value)) for (const v of value) codes(v, out);
  else if (value && typeof value === 'object' && !Buffer.isBuffer(value)) {
    for (const [k, v] of Object.entries(value)) {
      if (/errorCode$/i.test(k) && typeof v === 'number') out.push(v);
      else codes(v, out);
    }
  }
  return out;
}

const dirs = useTempDirs('krill-authz-');
const topic = uniqueTopic('authz');
const doomed = uniqueTopic('authz-doomed');
const group = `authz-group-${process.pid}`;
const txn = `authz-txn-${process.pid}`;
const fresh = uniqueTopic('authz-new');
const cluster = (op: number): Grant => [T.CLUSTER, 'kafka-cluster', op];
const onTopic = (op: number, name = topic): Grant => [T.TOPIC, name, op];
const onGroup = (op: number): Grant => [T.GROUP, group, op];
const onTxn = (op: number): Grant => [T.TXN, txn, op];

const CASES: Case[] = [
  { label: 'Produce', apiKey: 0, version: 9, body: () => produceBody(topic, 0, buildBatch(values(1))), grants: [onTopic(Op.WRITE)], refused: E.TOPIC },
  {
    label: 'Fetch',
    apiKey: 1,
    version: 12,
    body: () => ({ replicaId: -1, maxWaitMs: 0, minBytes: 0, topics: [{ topic, partitions: [{ partition: 0, fetchOffset: 0, partitionMaxBytes: 1024 }] }] }),
    grants: [onTopic(Op.READ)],
    refused: E.TOPIC,
  },
  { label: 'ListOffsets', apiKey: 2, version: 7, body: () => listOffsetsBody(topic, 0, -1), grants: [onTopic(Op.DESCRIBE)], refused: E.TOPIC },
  { label: 'Metadata', apiKey: 3, version: 12, body: () => metadataBody([topic], false), grants: [onTopic(Op.DESCRIBE)], refused: E.TOPIC },
  {
    label: 'Metadata by an unknown topic id: UNKNOWN_TOPIC_ID, nothing to hide',
    apiKey: 3,
    version: 12,
    body: () => ({ topics: [{ name: null, topicId: Buffer.alloc(16, 7) }], allowAutoTopicCreation: false }),
    grants: [],
    refused: (res) => expect(res.topics.map((t: Message) => t.errorCode)).toEqual([100]),
  },
  {
    label: 'Metadata auto-creating without CREATE',
    apiKey: 3,
    version: 12,
    body: () => metadataBody([`${fresh}-auto`], true),
    grants: [onTopic(Op.DESCRIBE, `${fresh}-auto`), onTopic(Op.CREATE, `${fresh}-auto`)],
    refused: E.TOPIC,
  },
  {
    label: 'OffsetCommit',
    apiKey: 8,
    version: 8,
    body: () => ({
      groupId: group,
      generationIdOrMemberEpoch: -1,
      memberId: '',
      topics: [{ name: topic, partitions: [{ partitionIndex: 0, committedOffset: 0 }] }],
    }),
    grants: [onGroup(Op.READ), onTopic(Op.READ)],
    refused: E.GROUP,
  },
  {
    label: 'OffsetFetch',
    apiKey: 9,
    version: 7,
    body: () => ({ groupId: group, topics: [{ name: topic, partitionIndexes: [0] }] }),
    grants: [onGroup(Op.DESCRIBE), onTopic(Op.DESCRIBE)],
    refused: E.GROUP,
  },
  {
    label: 'OffsetFetch v8, topics of an allowed group',
    apiKey: 9,
    version: 8,
    body: () => ({ groups: [{ groupId: group, topics: [{ name: topic, partitionIndexes: [0] }] }] }),
    grants: [onGroup(Op.DESCRIBE), onTopic(Op.DESCRIBE)],
    refused: E.GROUP,
  },
  {
    label: 'OffsetFetch v8 of all topics leaves out those not described',
    apiKey: 9,
    version: 8,
    body: () => ({ groups: [{ groupId: group, topics: null }] }),
    grants: [onGroup(Op.DESCRIBE)],
    refused: (res) => expect(res.groups[0].errorCode).toBe(E.GROUP),
    served: (res) => expect(res.groups[0]).toMatchObject({ errorCode: 0, topics: [] }),
  },
  { label: 'FindCoordinator', apiKey: 10, version: 3, body: () => ({ key: group, keyType: 0 }), grants: [onGroup(Op.DESCRIBE)], refused: E.GROUP },
  {
    label: 'JoinGroup',
    apiKey: 11,
    version: 5,
    body: () => ({
      groupId: group,
      sessionTimeoutMs: 6000,
      rebalanceTimeoutMs: 1000,
      memberId: '',
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: Buffer.alloc(0) }],
    }),
    grants: [onGroup(Op.READ)],
    refused: E.GROUP,
  },
  {
    label: 'Heartbeat',
    apiKey: 12,
    version: 3,
    body: () => ({ groupId: group, generationId: 1, memberId: 'm' }),
    grants: [onGroup(Op.READ)],
    refused: E.GROUP,
  },
  { label: 'LeaveGroup', apiKey: 13, version: 3, body: () => ({ groupId: group, members: [{ memberId: 'm' }] }), grants: [onGroup(Op.READ)], refused: E.GROUP },
  {
    label: 'SyncGroup',
    apiKey: 14,
    version: 3,
    body: () => ({ groupId: group, generationId: 1, memberId: 'm', assignments: [] }),
    grants: [onGroup(Op.READ)],
    refused: E.GROUP,
  },
  { label: 'DescribeGroups', apiKey: 15, version: 5, body: () => ({ groups: [group] }), grants: [onGroup(Op.DESCRIBE)], refused: E.GROUP },
  {
    label: 'ListGroups hides groups',
    apiKey: 16,
    version: 4,
    body: () => ({ statesFilter: [] }),
    grants: [onGroup(Op.DESCRIBE)],
    refused: (res) => expect(res.groups.map((g: Message) => g.groupId)).not.toContain(group),
    served: (res) => expect(res.groups.map((g: Message) => g.groupId)).toContain(group),
  },
  {
    label: 'ApiVersions needs nothing',
    apiKey: 18,
    version: 3,
    body: () => ({ clientSoftwareName: 'test', clientSoftwareVersion: '1' }),
    grants: [],
    refused: (res) => expect(res.errorCode).toBe(0),
  },
  {
    // On a PLAINTEXT listener both SASL APIs answer ILLEGAL_SASL_STATE, whatever the ACLs.
    label: 'SaslHandshake needs nothing',
    apiKey: 17,
    version: 1,
    body: () => ({ mechanism: 'PLAIN' }),
    grants: [],
    refused: (res) => expect(res.errorCode).toBe(ErrorCode.ILLEGAL_SASL_STATE),
  },
  {
    label: 'SaslAuthenticate needs nothing',
    apiKey: 36,
    version: 2,
    body: () => ({ authBytes: Buffer.alloc(0) }),
    grants: [],
    refused: (res) => expect(res.errorCode).toBe(ErrorCode.ILLEGAL_SASL_STATE),
  },
  {
    label: 'DescribeUserScramCredentials',
    apiKey: 50,
    version: 0,
    body: () => ({ users: null }),
    grants: [cluster(Op.DESCRIBE)],
    refused: E.CLUSTER,
  },
  {
    label: 'AlterUserScramCredentials',
    apiKey: 51,
    version: 0,
    body: () => ({
      deletions: [],
      upsertions: [{ name: 'authz-user', mechanism: 1, iterations: 4096, salt: Buffer.from('salt'), saltedPassword: Buffer.alloc(32, 1) }],
    }),
    grants: [cluster(Op.ALTER)],
    refused: E.CLUSTER,
  },
  {
    label: 'CreateTopics',
    apiKey: 19,
    version: 5,
    body: () => ({ topics: [{ name: fresh, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: true }),
    grants: [onTopic(Op.CREATE, fresh)],
    refused: E.TOPIC,
  },
  {
    label: 'CreateTopics with CREATE on the cluster',
    apiKey: 19,
    version: 5,
    body: () => CASES.find((c) => c.label === 'CreateTopics')!.body(),
    grants: [cluster(Op.CREATE)],
    refused: E.TOPIC,
  },
  {
    label: 'DeleteTopics',
    apiKey: 20,
    version: 5,
    body: () => ({ topicNames: [doomed], timeoutMs: 5000 }),
    grants: [onTopic(Op.DELETE, doomed)],
    refused: E.TOPIC,
  },
  {
    label: 'DeleteRecords',
    apiKey: 21,
    version: 2,
    body: () => ({ topics: [{ name: topic, partitions: [{ partitionIndex: 0, offset: 0 }] }], timeoutMs: 5000 }),
    grants: [onTopic(Op.DELETE)],
    refused: E.TOPIC,
  },
  {
    label: 'InitProducerId, idempotent',
    apiKey: 22,
    version: 4,
    body: () => ({ transactionalId: null, transactionTimeoutMs: 60_000 }),
    grants: [cluster(Op.IDEMPOTENT_WRITE)],
    refused: E.CLUSTER,
  },
  {
    label: 'InitProducerId, idempotent with WRITE on a topic',
    apiKey: 22,
    version: 4,
    body: () => ({ transactionalId: null, transactionTimeoutMs: 60_000 }),
    grants: [onTopic(Op.WRITE)],
    refused: E.CLUSTER,
  },
  {
    label: 'InitProducerId, transactional',
    apiKey: 22,
    version: 4,
    body: () => ({ transactionalId: txn, transactionTimeoutMs: 60_000 }),
    grants: [onTxn(Op.WRITE)],
    refused: E.TXN,
  },
  {
    label: 'OffsetForLeaderEpoch',
    apiKey: 23,
    version: 4,
    body: () => ({ replicaId: -1, topics: [{ topic, partitions: [{ partition: 0, currentLeaderEpoch: -1, leaderEpoch: 0 }] }] }),
    grants: [onTopic(Op.DESCRIBE)],
    refused: E.TOPIC,
  },
  {
    label: 'AddPartitionsToTxn',
    apiKey: 24,
    version: 3,
    body: () => ({ v3AndBelowTransactionalId: txn, v3AndBelowProducerId: 0, v3AndBelowProducerEpoch: 0, v3AndBelowTopics: [{ name: topic, partitions: [0] }] }),
    grants: [onTxn(Op.WRITE), onTopic(Op.WRITE)],
    refused: E.TXN,
  },
  {
    label: 'AddOffsetsToTxn',
    apiKey: 25,
    version: 3,
    body: () => ({ transactionalId: txn, producerId: 0, producerEpoch: 0, groupId: group }),
    grants: [onTxn(Op.WRITE), onGroup(Op.READ)],
    refused: E.TXN,
  },
  {
    label: 'EndTxn',
    apiKey: 26,
    version: 3,
    body: () => ({ transactionalId: txn, producerId: 0, producerEpoch: 0, committed: false }),
    grants: [onTxn(Op.WRITE)],
    refused: E.TXN,
  },
  {
    label: 'WriteTxnMarkers',
    apiKey: 27,
    version: 1,
    body: () => ({
      markers: [{ producerId: 999, producerEpoch: 0, transactionResult: false, topics: [{ name: topic, partitionIndexes: [0] }], coordinatorEpoch: 0 }],
    }),
    grants: [cluster(Op.CLUSTER_ACTION)],
    refused: E.CLUSTER,
  },
  {
    label: 'TxnOffsetCommit',
    apiKey: 28,
    version: 3,
    body: () => ({
      transactionalId: txn,
      groupId: group,
      producerId: 0,
      producerEpoch: 0,
      generationId: -1,
      memberId: '',
      groupInstanceId: null,
      topics: [{ name: topic, partitions: [{ partitionIndex: 0, committedOffset: 0 }] }],
    }),
    grants: [onTxn(Op.WRITE), onGroup(Op.READ), onTopic(Op.READ)],
    refused: E.TXN,
  },
  {
    label: 'DescribeAcls',
    apiKey: 29,
    version: 3,
    body: () => ({
      resourceTypeFilter: 1,
      resourceNameFilter: null,
      patternTypeFilter: 1,
      principalFilter: null,
      hostFilter: null,
      operation: 1,
      permissionType: 1,
    }),
    grants: [cluster(Op.DESCRIBE)],
    refused: E.CLUSTER,
  },
  {
    label: 'CreateAcls',
    apiKey: 30,
    version: 3,
    body: () => ({
      creations: [
        { resourceType: 2, resourceName: 'x', resourcePatternType: 3, principal: 'User:ANONYMOUS', host: '127.0.0.1', operation: 3, permissionType: 3 },
      ],
    }),
    grants: [cluster(Op.ALTER)],
    refused: E.CLUSTER,
  },
  {
    label: 'DeleteAcls',
    apiKey: 31,
    version: 3,
    body: () => ({
      filters: [
        {
          resourceTypeFilter: 2,
          resourceNameFilter: 'x',
          patternTypeFilter: 3,
          principalFilter: null,
          hostFilter: '127.0.0.1',
          operation: 1,
          permissionType: 1,
        },
      ],
    }),
    grants: [cluster(Op.ALTER)],
    refused: E.CLUSTER,
  },
  {
    label: 'DescribeConfigs, topic',
    apiKey: 32,
    version: 4,
    body: () => ({ resources: [{ resourceType: 2, resourceName: topic, configurationKeys: null }] }),
    grants: [onTopic(Op.DESCRIBE_CONFIGS)],
    refused: E.TOPIC,
  },
  {
    label: 'DescribeConfigs, broker',
    apiKey: 32,
    version: 4,
    body: () => ({ resources: [{ resourceType: 4, resourceName: '1', configurationKeys: ['num.partitions'] }] }),
    grants: [cluster(Op.DESCRIBE_CONFIGS)],
    refused: E.CLUSTER,
  },
  {
    label: 'AlterConfigs',
    apiKey: 33,
    version: 2,
    body: () => ({ resources: [{ resourceType: 2, resourceName: topic, configs: [{ name: 'retention.ms', value: '100000' }] }], validateOnly: true }),
    grants: [onTopic(Op.ALTER_CONFIGS)],
    refused: E.TOPIC,
  },
  { label: 'DescribeLogDirs', apiKey: 35, version: 4, body: () => ({ topics: null }), grants: [cluster(Op.DESCRIBE)], refused: E.CLUSTER },
  {
    label: 'CreatePartitions',
    apiKey: 37,
    version: 3,
    body: () => ({ topics: [{ name: topic, count: 2, assignments: null }], timeoutMs: 5000, validateOnly: true }),
    grants: [onTopic(Op.ALTER)],
    refused: E.TOPIC,
  },
  {
    label: 'DeleteGroups',
    apiKey: 42,
    version: 2,
    body: () => ({ groupsNames: [`${group}-gone`] }),
    grants: [[T.GROUP, `${group}-gone`, Op.DELETE]],
    refused: E.GROUP,
  },
  {
    label: 'ElectLeaders',
    apiKey: 43,
    version: 2,
    body: () => ({ electionType: 0, topicPartitions: [{ topic, partitions: [0] }], timeoutMs: 5000 }),
    grants: [cluster(Op.ALTER)],
    refused: E.CLUSTER,
  },
  {
    label: 'IncrementalAlterConfigs',
    apiKey: 44,
    version: 1,
    body: () => ({
      resources: [{ resourceType: 2, resourceName: topic, configs: [{ name: 'retention.ms', configOperation: 0, value: '100000' }] }],
      validateOnly: true,
    }),
    grants: [onTopic(Op.ALTER_CONFIGS)],
    refused: E.TOPIC,
  },
  {
    label: 'AlterPartitionReassignments',
    apiKey: 45,
    version: 0,
    body: () => ({ timeoutMs: 5000, topics: [{ name: topic, partitions: [{ partitionIndex: 0, replicas: null }] }] }),
    grants: [cluster(Op.ALTER)],
    refused: E.CLUSTER,
  },
  {
    label: 'ListPartitionReassignments',
    apiKey: 46,
    version: 0,
    body: () => ({ timeoutMs: 5000, topics: null }),
    grants: [cluster(Op.DESCRIBE)],
    refused: E.CLUSTER,
  },
  {
    label: 'OffsetDelete',
    apiKey: 47,
    version: 0,
    body: () => ({ groupId: group, topics: [{ name: topic, partitions: [{ partitionIndex: 0 }] }] }),
    grants: [onGroup(Op.DELETE), onTopic(Op.READ)],
    refused: E.GROUP,
  },
  {
    label: 'DescribeCluster reports the operations granted',
    apiKey: 60,
    version: 1,
    body: () => ({ includeClusterAuthorizedOperations: true, endpointType: 1 }),
    grants: [cluster(Op.DESCRIBE)],
    refused: (res) => expect(res.clusterAuthorizedOperations).toBe(0),
    served: (res) => expect(res.clusterAuthorizedOperations).toBe(1 << Op.DESCRIBE),
  },
  {
    label: 'DescribeProducers',
    apiKey: 61,
    version: 0,
    body: () => ({ topics: [{ name: topic, partitionIndexes: [0] }] }),
    grants: [onTopic(Op.READ)],
    refused: E.TOPIC,
  },
  { label: 'DescribeTransactions', apiKey: 65, version: 0, body: () => ({ transactionalIds: [txn] }), grants: [onTxn(Op.DESCRIBE)], refused: E.TXN },
  {
    label: 'ListTransactions hides transactional ids',
    apiKey: 66,
    version: 1,
    body: () => ({ stateFilters: [], producerIdFilters: [], durationFilter: -1 }),
    grants: [onTxn(Op.DESCRIBE)],
    refused: (res) => expect(res.transactionStates.map((t: Message) => t.transactionalId)).not.toContain(txn),
    served: (res) => expect(res.transactionStates.map((t: Message) => t.transactionalId)).toContain(txn),
  },
  {
    label: 'DescribeClientQuotas',
    apiKey: 48,
    version: 1,
    body: () => ({ components: [{ entityType: 'client-id', matchType: 0, match: 'authz-client' }], strict: false }),
    grants: [cluster(Op.DESCRIBE_CONFIGS)],
    refused: E.CLUSTER,
  },
  {
    label: 'AlterClientQuotas',
    apiKey: 49,
    version: 1,
    body: () => ({
      entries: [{ entity: [{ entityType: 'client-id', entityName: 'authz-client' }], ops: [{ key: 'producer_byte_rate', value: 1048576, remove: false }] }],
      validateOnly: false,
    }),
    grants: [cluster(Op.ALTER_CONFIGS)],
    refused: E.CLUSTER,
  },
  {
    label: 'DescribeTopicPartitions',
    apiKey: 75,
    version: 0,
    body: () => ({ topics: [{ name: topic }], responsePartitionLimit: 10, cursor: null }),
    grants: [onTopic(Op.DESCRIBE)],
    refused: E.TOPIC,
  },
];

let broker: RunningBroker;
let admin: TestClient;
let client: TestClient;

async function acls(apiKey: 30 | 31, body: Message): Promise<void> {
  const res = await admin.request(apiKey, 3, body);
  expect(codes(res).every((c) => c === 0)).toBe(true);
}

const binding = ([resourceType, resourceName, operation]: Grant) => ({
  resourceType,
  resourceName,
  resourcePatternType: 3,
  principal: 'User:ANONYMOUS',
  host: '127.0.0.1',
  operation,
  permissionType: 3,
});

beforeAll(async () => {
  const dataDir = dirs();
  const all = (resourceType: string, resourceName: string) => ({
    resourceType,
    patternType: 'LITERAL',
    resourceName,
    principal: 'User:ANONYMOUS',
    host: ADMIN_HOST,
    operation: 'ALL',
    permissionType: 'ALLOW',
  });
  const file = { version: 1, acls: [all('CLUSTER', 'kafka-cluster'), all('TOPIC', '*'), all('GROUP', '*'), all('TRANSACTIONAL_ID', '*')] };
  fs.writeFileSync(path.join(dataDir, 'krill-acls.json'), JSON.stringify(file));
  broker = await startBroker({ port: 0, host: '127.0.0.1', dataDir, config: { 'authorizer.class.name': 'kafka.security.authorizer.AclAuthorizer' } });
  admin = await TestClient.connect(broker.port, ADMIN_HOST);
  client = await TestClient.connect(broker.port);
  await createTopic(admin, topic);
  await createTopic(admin, doomed);
  // A group and a transactional id for the listings to show or hide.
  await admin.request(API.OffsetCommit, 8, CASES.find((c) => c.label === 'OffsetCommit')!.body());
  await admin.request(API.InitProducerId, 4, { transactionalId: txn, transactionTimeoutMs: 60_000 });
});

afterAll(async () => {
  admin?.close();
  client?.close();
  await broker?.close();
});

describe('every API, refused without an ACL and served with one', () => {
  it('has a case for each API the broker serves', () => {
    const covered = new Set(CASES.map((c) => c.apiKey));
    expect(HANDLERS.map((h) => h.apiKey).filter((k) => !covered.has(k))).toEqual([]);
  });

  for (const c of CASES) {
    it(c.label, async () => {
      const refused = await client.request(c.apiKey, c.version, c.body());
      if (typeof c.refused === 'number') expect(codes(refused)).toContain(c.refused);
      else c.refused(refused);
      if (c.grants.length === 0) return;
      await acls(30, { creations: c.grants.map(binding) });
      try {
        const served = await client.request(c.apiKey, c.version, c.body());
        if (c.served) c.served(served);
        else expect(codes(served).filter((code) => AUTHORIZATION_CODES.has(code))).toEqual([]);
      } finally {
        await acls(31, {
          filters: [
            {
              resourceTypeFilter: 1,
              resourceNameFilter: null,
              patternTypeFilter: 1,
              principalFilter: null,
              hostFilter: '127.0.0.1',
              operation: 1,
              permissionType: 1,
            },
          ],
        });
      }
    });
  }
});
