// Cases of the classic group protocol and offsets: FindCoordinator, JoinGroup, SyncGroup, Heartbeat,
// LeaveGroup, OffsetCommit, OffsetFetch, DescribeGroups, ListGroups, DeleteGroups, OffsetDelete.
import type { Message } from '../../protocol/codec.js';
import type { Case, CaseContext } from './case.js';

const PROTOCOLS = [{ name: 'range', metadata: Buffer.from([0, 1, 2, 3]) }];

function joinBody(groupId: string, memberId: string): Message {
  return {
    groupId,
    sessionTimeoutMs: 30_000,
    rebalanceTimeoutMs: 30_000,
    memberId,
    groupInstanceId: null,
    protocolType: 'consumer',
    protocols: PROTOCOLS,
    reason: null,
  };
}

/** A one-member group through JoinGroup (v4+: the MEMBER_ID_REQUIRED round first) and SyncGroup, outside the transcript. */
async function stableGroup(ctx: Pick<CaseContext, 'side'>, groupId: string): Promise<{ memberId: string; generationId: number }> {
  await ctx.side.awaitCoordinator(groupId, 0);
  const join = (memberId: string) => ctx.side.quiet(11, 7, joinBody(groupId, memberId));
  let res = await join('');
  if (res.errorCode === 79) res = await join(res.memberId);
  await ctx.side.quiet(14, 5, {
    groupId,
    generationId: res.generationId,
    memberId: res.memberId,
    groupInstanceId: null,
    protocolType: 'consumer',
    protocolName: 'range',
    assignments: [{ memberId: res.memberId, assignment: Buffer.from('a') }],
  });
  return { memberId: res.memberId, generationId: res.generationId };
}

function commitBody(groupId: string, topic: string, generation: number, memberId: string, offset = 3n): Message {
  return {
    groupId,
    generationIdOrMemberEpoch: generation,
    memberId,
    groupInstanceId: null,
    retentionTimeMs: -1n,
    topics: [{ name: topic, partitions: [{ partitionIndex: 0, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: 'm' }] }],
  };
}

function offsetFetchBody(v: number, groupId: string, topic: string | null, partitions = [0, 1]): Message {
  const topics = topic === null ? null : [{ name: topic, partitionIndexes: partitions }];
  return v >= 8 ? { groups: [{ groupId, memberId: null, memberEpoch: -1, topics }], requireStable: true } : { groupId, topics, requireStable: true };
}

export const GROUP_CASES: Case[] = [
  {
    name: 'FindCoordinator for a group and a transactional id',
    api: 10,
    async run({ send, v, name, side }) {
      await side.awaitCoordinator(name(`g-v${v}`), 0);
      await side.awaitCoordinator(name(`tx-v${v}`), 1);
      const body = (key: string, keyType: number) => (v >= 4 ? { keyType, coordinatorKeys: [key] } : { key, keyType });
      await send('group', 10, v, body(name(`g-v${v}`), 0));
      if (v >= 1) await send('transaction', 10, v, body(name(`tx-v${v}`), 1));
      if (v >= 1) await send('bad key type', 10, v, body(name('x'), 5));
    },
  },
  {
    name: 'JoinGroup, SyncGroup, Heartbeat, LeaveGroup: one member',
    api: 11,
    async run({ send, v, name, side }) {
      const groupId = name(`g-v${v}`);
      await side.awaitCoordinator(groupId, 0);
      let res = await send('join', 11, v, joinBody(groupId, ''));
      if (res.errorCode === 79) res = await send('join with id', 11, v, joinBody(groupId, res.memberId));
      const member = res.memberId;
      const hbV = Math.min(v, 4);
      const syncV = Math.min(v, 5);
      await send('sync', 14, syncV, {
        groupId,
        generationId: res.generationId,
        memberId: member,
        groupInstanceId: null,
        protocolType: 'consumer',
        protocolName: 'range',
        assignments: [{ memberId: member, assignment: Buffer.from('assigned') }],
      });
      await send('heartbeat', 12, hbV, { groupId, generationId: res.generationId, memberId: member, groupInstanceId: null });
      await send('heartbeat stale generation', 12, hbV, { groupId, generationId: res.generationId - 1, memberId: member, groupInstanceId: null });
      await send('heartbeat unknown member', 12, hbV, { groupId, generationId: res.generationId, memberId: 'nobody', groupInstanceId: null });
      await send('join bad session timeout', 11, v, { ...joinBody(groupId, ''), sessionTimeoutMs: 1 });
      await send('join another protocol type', 11, v, { ...joinBody(groupId, member), protocolType: 'connect' });
      await send('sync stale generation', 14, syncV, {
        groupId,
        generationId: res.generationId + 5,
        memberId: member,
        groupInstanceId: null,
        protocolType: 'consumer',
        protocolName: 'range',
        assignments: [],
      });
      const leaveV = Math.min(v, 5);
      const leave = (memberId: string) => (leaveV >= 3 ? { groupId, members: [{ memberId, groupInstanceId: null, reason: null }] } : { groupId, memberId });
      await send('leave unknown member', 13, leaveV, leave('nobody'));
      await send('leave', 13, leaveV, leave(member));
      await send('heartbeat after leave', 12, hbV, { groupId, generationId: res.generationId, memberId: member, groupInstanceId: null });
    },
  },
  {
    name: 'OffsetCommit and OffsetFetch: group member and simple',
    api: 8,
    async setup({ side, name }) {
      await side.createTopics([{ name: name('t'), partitions: 2 }]);
    },
    async run({ send, v, name, side }) {
      const t = name('t');
      const simple = name(`simple-v${v}`);
      await side.awaitCoordinator(simple, 0);
      await send('simple commit', 8, v, commitBody(simple, t, -1, ''));
      await send('simple commit unknown topic', 8, v, commitBody(simple, name('missing'), -1, ''));
      const groupId = name(`member-v${v}`);
      const { memberId, generationId } = await stableGroup({ side }, groupId);
      await send('member commit', 8, v, commitBody(groupId, t, generationId, memberId, 5n));
      await send('stale generation', 8, v, commitBody(groupId, t, generationId + 1, memberId));
      await send('unknown member', 8, v, commitBody(groupId, t, generationId, 'nobody'));
      const fv = Math.min(v, 9);
      await send('fetch simple', 9, fv, offsetFetchBody(fv, simple, t));
      await send('fetch member group', 9, fv, offsetFetchBody(fv, groupId, t));
    },
  },
  {
    name: 'OffsetFetch: all topics, unknown group',
    api: 9,
    async setup({ side, name }) {
      await side.createTopics([{ name: name('t') }]);
      await side.awaitCoordinator(name('g'), 0);
      await side.quiet(8, 8, commitBody(name('g'), name('t'), -1, ''));
    },
    async run({ send, v, name, side }) {
      await side.awaitCoordinator(name('none'), 0);
      if (v >= 2) await send('all topics', 9, v, offsetFetchBody(v, name('g'), null));
      await send('unknown group', 9, v, offsetFetchBody(v, name('none'), name('t')));
      await send('unknown topic', 9, v, offsetFetchBody(v, name('g'), name('missing')));
    },
  },
  {
    name: 'DescribeGroups, ListGroups, DeleteGroups, OffsetDelete',
    api: 15,
    async setup({ side, name }) {
      await side.createTopics([{ name: name('t') }]);
      await stableGroup({ side }, name('live'));
    },
    async run({ send, v, name, side }) {
      const empty = name(`empty-v${v}`);
      await side.awaitCoordinator(empty, 0);
      await side.quiet(8, 8, commitBody(empty, name('t'), -1, ''));
      await send('describe', 15, v, { groups: [name('live'), empty, name('missing')], includeAuthorizedOperations: true });
      const lv = Math.min(v, 5);
      const listed = await send('list filtered', 16, lv, { statesFilter: ['Stable'], typesFilter: ['classic'] });
      // Other cases' groups are there too: only this case's are compared.
      listed.groups = listed.groups.filter((g: Message) => g.groupId.startsWith(name('')));
      const dv = Math.min(v, 2);
      await send('offset delete of a live group', 47, 0, { groupId: name('live'), topics: [{ name: name('t'), partitions: [{ partitionIndex: 0 }] }] });
      await send('offset delete', 47, 0, { groupId: empty, topics: [{ name: name('t'), partitions: [{ partitionIndex: 0 }] }] });
      await send('delete', 42, dv, { groupsNames: [empty, name('live'), name('missing')] });
    },
  },
];
