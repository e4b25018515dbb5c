// KIP-430 authorized operations in Metadata (v8+), DescribeCluster and DescribeGroups (v3+). With no
// authorizer Kafka grants a client every operation the resource type supports, and reports them when asked;
// Integer.MIN_VALUE means "not asked for" (or, in Metadata, a topic id it does not know).
import { beforeAll, describe, expect, it } from 'vitest';
import { useBrokerAndClient } from '../helpers.js';
import { API, ZERO_UUID, createTopic, uniqueTopic } from '../server/kafka.js';
import type { Message } from '../../protocol/codec.js';

const OMITTED = -2147483648;

/** The bit field of a set of ACL operation codes (AclOperation: READ 3 … IDEMPOTENT_WRITE 12). */
function bits(...codes: number[]): number {
  return codes.reduce((acc, c) => acc | (1 << c), 0);
}
// Kafka's AclEntry.supportedOperations for each resource type.
const TOPIC = bits(3, 4, 5, 8, 6, 7, 10, 11); // READ WRITE CREATE DESCRIBE DELETE ALTER DESCRIBE_CONFIGS ALTER_CONFIGS
const GROUP = bits(3, 8, 6, 10, 11); // READ DESCRIBE DELETE DESCRIBE_CONFIGS ALTER_CONFIGS
const CLUSTER = bits(5, 9, 10, 11, 12, 7, 8); // CREATE CLUSTER_ACTION DESCRIBE_CONFIGS ALTER_CONFIGS IDEMPOTENT_WRITE ALTER DESCRIBE

const live = useBrokerAndClient();
const topic = uniqueTopic('authz');

beforeAll(async () => {
  await createTopic(live.client, topic);
});

function metadata(topics: Message[] | null, includeCluster: boolean, includeTopics: boolean): Message {
  return { topics, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: includeCluster, includeTopicAuthorizedOperations: includeTopics };
}

describe('authorized operations without an authorizer', () => {
  it('the values Kafka answers', () => {
    expect([TOPIC, GROUP, CLUSTER]).toEqual([3576, 3400, 8096]);
  });

  it('Metadata v8-v10 reports the cluster and topic operations when asked, MIN_VALUE when not', async () => {
    for (const v of [8, 10]) {
      const asked = await live.client.request(API.Metadata, v, metadata([{ name: topic, topicId: ZERO_UUID }], true, true));
      expect(asked.clusterAuthorizedOperations).toBe(CLUSTER);
      expect(asked.topics[0]).toMatchObject({ name: topic, errorCode: 0, topicAuthorizedOperations: TOPIC });
      const notAsked = await live.client.request(API.Metadata, v, metadata([{ name: topic, topicId: ZERO_UUID }], false, false));
      expect(notAsked.clusterAuthorizedOperations).toBe(OMITTED);
      expect(notAsked.topics[0].topicAuthorizedOperations).toBe(OMITTED);
    }
  });

  it('Metadata reports topic operations for an unknown name too, but not for an unknown topic id', async () => {
    const res = await live.client.request(API.Metadata, 12, metadata([{ name: uniqueTopic('authz-none'), topicId: ZERO_UUID }], false, true));
    expect(res.topics[0]).toMatchObject({ errorCode: 3, topicAuthorizedOperations: TOPIC });
    const all = await live.client.request(API.Metadata, 12, metadata(null, false, true));
    expect(all.topics.find((t: Message) => t.name === topic).topicAuthorizedOperations).toBe(TOPIC);
    const byId = await live.client.request(API.Metadata, 12, metadata([{ name: null, topicId: Buffer.alloc(16, 7) }], false, true));
    expect(byId.topics[0]).toMatchObject({ errorCode: 100, topicAuthorizedOperations: OMITTED });
  });

  it('DescribeCluster reports the cluster operations when asked', async () => {
    for (const v of [0, 1]) {
      const asked = await live.client.request(API.DescribeCluster, v, { includeClusterAuthorizedOperations: true, endpointType: 1 });
      expect(asked.clusterAuthorizedOperations).toBe(CLUSTER);
      const notAsked = await live.client.request(API.DescribeCluster, v, { includeClusterAuthorizedOperations: false, endpointType: 1 });
      expect(notAsked.clusterAuthorizedOperations).toBe(OMITTED);
    }
  });

  it('DescribeGroups v3+ reports group operations for a group described without error, a Dead one too', async () => {
    for (const v of [3, 5]) {
      const asked = await live.client.request(API.DescribeGroups, v, { groups: ['authz-nobody'], includeAuthorizedOperations: true });
      expect(asked.groups[0]).toMatchObject({ errorCode: 0, groupState: 'Dead', authorizedOperations: GROUP });
      const notAsked = await live.client.request(API.DescribeGroups, v, { groups: ['authz-nobody'], includeAuthorizedOperations: false });
      expect(notAsked.groups[0].authorizedOperations).toBe(OMITTED);
    }
    // Kafka describes the empty group id too, for backwards compatibility.
    const empty = await live.client.request(API.DescribeGroups, 5, { groups: [''], includeAuthorizedOperations: true });
    expect(empty.groups[0]).toMatchObject({ errorCode: 0, groupId: '', groupState: 'Dead', authorizedOperations: GROUP });
  });
});
