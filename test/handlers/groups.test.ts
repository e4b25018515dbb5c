// The group APIs on the wire: JoinGroup/SyncGroup/Heartbeat/LeaveGroup, OffsetCommit/OffsetFetch (v8 batched),
// ListGroups state filter, DescribeGroups, DeleteGroups, OffsetDelete.
import { beforeAll, describe, expect, it } from 'vitest';
import { useBrokerAndClient } from '../helpers.js';
import type { Message } from '../../protocol/codec.js';

const live = useBrokerAndClient();
beforeAll(async () => {
  await live.client.request(19, 7, {
    topics: [{ name: 'gt', numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }],
    timeoutMs: 5000,
    validateOnly: false,
  });
});

const joinBody = (memberId: string) => ({
  groupId: 'wire',
  sessionTimeoutMs: 10_000,
  rebalanceTimeoutMs: 10_000,
  memberId,
  groupInstanceId: null,
  protocolType: 'consumer',
  protocols: [{ name: 'range', metadata: Buffer.from('m') }],
  reason: null,
});

describe('group APIs on the wire', () => {
  it('join (MEMBER_ID_REQUIRED then join), sync, heartbeat, commit, fetch, list, describe, leave, delete', async () => {
    const first = await live.client.request(11, 9, joinBody(''));
    expect(first.errorCode).toBe(79);
    const joined = await live.client.request(11, 9, joinBody(first.memberId));
    expect(joined).toMatchObject({ errorCode: 0, generationId: 1, protocolType: 'consumer', protocolName: 'range', leader: first.memberId });
    const sync = await live.client.request(14, 5, {
      groupId: 'wire',
      generationId: 1,
      memberId: first.memberId,
      groupInstanceId: null,
      protocolType: 'consumer',
      protocolName: 'range',
      assignments: [{ memberId: first.memberId, assignment: Buffer.from('a') }],
    });
    expect(sync).toMatchObject({ errorCode: 0, protocolName: 'range' });
    expect(Buffer.from(sync.assignment).toString()).toBe('a');
    expect((await live.client.request(12, 4, { groupId: 'wire', generationId: 1, memberId: first.memberId, groupInstanceId: null })).errorCode).toBe(0);
    expect((await live.client.request(12, 0, { groupId: 'wire', generationId: 2, memberId: first.memberId })).errorCode).toBe(22);

    const commit = await live.client.request(8, 9, {
      groupId: 'wire',
      generationIdOrMemberEpoch: 1,
      memberId: first.memberId,
      groupInstanceId: null,
      topics: [
        {
          name: 'gt',
          partitions: [
            { partitionIndex: 0, committedOffset: 3, committedLeaderEpoch: 0, committedMetadata: null },
            { partitionIndex: 9, committedOffset: 1, committedLeaderEpoch: -1, committedMetadata: '' },
          ],
        },
      ],
    });
    expect(commit.topics[0].partitions.map((p: Message) => p.errorCode)).toEqual([0, 3]);
    const fetched = await live.client.request(9, 8, {
      groups: [
        { groupId: 'wire', topics: null },
        { groupId: 'none', topics: [{ name: 'gt', partitionIndexes: [0] }] },
      ],
      requireStable: false,
    });
    expect(fetched.groups[0].topics[0].partitions[0]).toMatchObject({ partitionIndex: 0, committedOffset: 3 });
    expect(fetched.groups[1].topics[0].partitions[0]).toMatchObject({ committedOffset: -1, errorCode: 0 });
    const v1 = await live.client.request(9, 1, { groupId: 'wire', topics: [{ name: 'gt', partitionIndexes: [0, 1] }] });
    expect(v1.topics[0].partitions.map((p: Message) => p.committedOffset)).toEqual([3, -1]);

    const stable = await live.client.request(16, 5, { statesFilter: ['stable'], typesFilter: [] });
    expect(stable.groups).toContainEqual({ groupId: 'wire', protocolType: 'consumer', groupState: 'Stable', groupType: 'classic' });
    expect((await live.client.request(16, 4, { statesFilter: ['Empty'] })).groups.map((g: Message) => g.groupId)).not.toContain('wire');
    const described = await live.client.request(15, 5, { groups: ['wire', 'none'], includeAuthorizedOperations: false });
    expect(described.groups[0]).toMatchObject({
      groupState: 'Stable',
      protocolData: 'range',
      members: [{ memberId: first.memberId, clientHost: '/127.0.0.1' }],
    });
    expect(described.groups[1]).toMatchObject({ groupId: 'none', groupState: 'Dead', errorCode: 0 });

    expect((await live.client.request(42, 2, { groupsNames: ['wire'] })).results[0].errorCode).toBe(68);
    const left = await live.client.request(13, 5, { groupId: 'wire', members: [{ memberId: first.memberId, groupInstanceId: null, reason: 'bye' }] });
    expect(left).toMatchObject({ errorCode: 0, members: [{ memberId: first.memberId, errorCode: 0 }] });
    const od = await live.client.request(47, 0, { groupId: 'wire', topics: [{ name: 'gt', partitions: [{ partitionIndex: 0 }] }] });
    expect(od).toMatchObject({ errorCode: 0, topics: [{ name: 'gt', partitions: [{ partitionIndex: 0, errorCode: 0 }] }] });
    const deleted = await live.client.request(42, 0, { groupsNames: ['wire', 'none'] });
    expect(deleted.results.map((r: Message) => r.errorCode)).toEqual([0, 69]);
  });

  it('__consumer_offsets is an internal topic with offsets.topic.num.partitions partitions', async () => {
    const md = await live.client.request(3, 12, {
      topics: [{ name: '__consumer_offsets', topicId: Buffer.alloc(16) }],
      allowAutoTopicCreation: false,
      includeTopicAuthorizedOperations: false,
    });
    expect(md.topics[0]).toMatchObject({ errorCode: 0, isInternal: true });
    expect(md.topics[0].partitions).toHaveLength(50);
  });
});
