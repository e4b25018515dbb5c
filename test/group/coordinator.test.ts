// The classic group state machine, with fake timers and an in-memory store.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ErrorCode } from '../../protocol/errors.js';
import { GroupCoordinator, type JoinRequest } from '../../src/group/coordinator.js';
import type { StoreRecord } from '../../src/group/store.js';
import { decodeKey, decodeOffsetCommitValue, decodeGroupMetadataValue, partitionForGroup, javaStringHashCode } from '../../src/group/records.js';
import type { JoinResult } from '../../src/group/group.js';
import { settled } from '../helpers.js';

const meta = (s: string) => Buffer.from(s);

function join(over: Partial<JoinRequest> = {}): JoinRequest {
  return {
    groupId: 'g',
    memberId: '',
    groupInstanceId: null,
    protocolType: 'consumer',
    protocols: [
      { name: 'range', metadata: meta('r') },
      { name: 'roundrobin', metadata: meta('rr') },
    ],
    sessionTimeoutMs: 10_000,
    rebalanceTimeoutMs: 30_000,
    clientId: 'c',
    clientHost: '/127.0.0.1',
    requireKnownMemberId: true,
    ...over,
  };
}

let store: { groupId: string; records: StoreRecord[] }[];
let coord: GroupCoordinator;

beforeEach(() => {
  vi.useFakeTimers();
  store = [];
  coord = new GroupCoordinator({ store: { append: (groupId, records) => store.push({ groupId, records }) } });
});
afterEach(() => {
  coord.close();
  vi.useRealTimers();
});

/** Full KIP-394 join of a new dynamic member: MEMBER_ID_REQUIRED, then the join with the id. */
async function newMember(over: Partial<JoinRequest> = {}): Promise<{ id: string; join: Promise<JoinResult> }> {
  const first = await coord.joinGroup(join(over));
  expect(first.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
  expect(first.memberId).toMatch(/^c-/);
  return { id: first.memberId, join: coord.joinGroup(join({ ...over, memberId: first.memberId })) };
}

async function stableGroupOf(n: number): Promise<{ ids: string[]; generation: number }> {
  const a = await newMember();
  const ra = await a.join;
  let ids = [a.id];
  let gen = ra.generationId;
  await coord.syncGroup({
    groupId: 'g',
    generationId: gen,
    memberId: a.id,
    groupInstanceId: null,
    protocolType: null,
    protocolName: null,
    assignments: [{ memberId: a.id, assignment: meta('A') }],
  });
  for (let i = 1; i < n; i++) {
    const m = await newMember();
    expect(coord.heartbeat('g', ids[0], null, gen)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    const rejoins = ids.map((id) => coord.joinGroup(join({ memberId: id })));
    const results = await Promise.all([m.join, ...rejoins]);
    ids = [...ids, m.id];
    gen = results[0].generationId;
    const syncs = ids.map((id) =>
      coord.syncGroup({
        groupId: 'g',
        generationId: gen,
        memberId: id,
        groupInstanceId: null,
        protocolType: null,
        protocolName: null,
        assignments: id === ids[0] ? ids.map((x) => ({ memberId: x, assignment: meta(`asg-${x}`) })) : [],
      }),
    );
    for (const s of await Promise.all(syncs)) expect(s.errorCode).toBe(0);
  }
  expect(coord.group('g')!.state).toBe('Stable');
  return { ids, generation: gen };
}

describe('GroupCoordinator: join and sync', () => {
  it('KIP-394: a join without a member id gets MEMBER_ID_REQUIRED; the rejoin elects it leader', async () => {
    const m = await newMember();
    const r = await m.join;
    expect(r).toMatchObject({ errorCode: 0, generationId: 1, protocolName: 'range', leader: m.id, memberId: m.id, protocolType: 'consumer' });
    expect(r.members).toEqual([{ memberId: m.id, groupInstanceId: null, metadata: meta('r') }]);
    expect(coord.group('g')!.state).toBe('CompletingRebalance');
  });

  it('v0-3 joins (no member id required) are admitted at once', async () => {
    const r = await coord.joinGroup(join({ requireKnownMemberId: false }));
    expect(r.errorCode).toBe(0);
    expect(r.leader).toBe(r.memberId);
  });

  it('rejects bad session timeouts, empty group ids, unknown members and inconsistent protocols', async () => {
    expect((await coord.joinGroup(join({ sessionTimeoutMs: 1000 }))).errorCode).toBe(ErrorCode.INVALID_SESSION_TIMEOUT);
    expect((await coord.joinGroup(join({ groupId: '' }))).errorCode).toBe(ErrorCode.INVALID_GROUP_ID);
    expect((await coord.joinGroup(join({ memberId: 'nobody' }))).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    await stableGroupOf(1);
    expect((await coord.joinGroup(join({ protocolType: 'connect' }))).errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    expect((await coord.joinGroup(join({ protocols: [{ name: 'sticky', metadata: meta('') }] }))).errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
  });

  it('an empty group id is INVALID_GROUP_ID in SyncGroup, Heartbeat and LeaveGroup too, as in JoinGroup', async () => {
    const sync = { groupId: '', generationId: 1, memberId: 'm', groupInstanceId: null, protocolType: null, protocolName: null, assignments: [] };
    expect((await coord.syncGroup(sync)).errorCode).toBe(ErrorCode.INVALID_GROUP_ID);
    expect(coord.heartbeat('', 'm', null, 1)).toBe(ErrorCode.INVALID_GROUP_ID);
    expect(coord.leaveGroup('', [{ memberId: 'm', groupInstanceId: null }])).toEqual({ errorCode: ErrorCode.INVALID_GROUP_ID, members: [] });
  });

  it('followers wait in SyncGroup for the leader, then all get their assignment; the group is Stable', async () => {
    const { ids, generation } = await stableGroupOf(3);
    expect(generation).toBe(3);
    for (const id of ids) {
      const s = await coord.syncGroup({
        groupId: 'g',
        generationId: generation,
        memberId: id,
        groupInstanceId: null,
        protocolType: null,
        protocolName: null,
        assignments: [],
      });
      expect(s.assignment.toString()).toBe(`asg-${id}`);
    }
    // The assignment was persisted as GroupMetadataValue.
    const last = store.at(-1)!.records[0];
    expect(decodeKey(last.key)).toEqual({ type: 'group', group: 'g' });
    const v = decodeGroupMetadataValue(last.value!);
    expect(v).toMatchObject({ protocolType: 'consumer', generation: 3, protocol: 'range', leader: ids[0] });
    expect(v.members.map((m) => m.memberId)).toEqual(ids);
  });

  it("protocol selection follows the members' preference votes among common protocols", async () => {
    const a = await coord.joinGroup(
      join({
        requireKnownMemberId: false,
        protocols: [
          { name: 'rr', metadata: meta('1') },
          { name: 'range', metadata: meta('2') },
        ],
      }),
    );
    expect(a.protocolName).toBe('rr');
    const b = coord.joinGroup(
      join({
        requireKnownMemberId: false,
        protocols: [
          { name: 'range', metadata: meta('3') },
          { name: 'rr', metadata: meta('4') },
        ],
      }),
    );
    const c = coord.joinGroup(join({ requireKnownMemberId: false, protocols: [{ name: 'range', metadata: meta('5') }] }));
    const a2 = coord.joinGroup(
      join({
        memberId: a.memberId,
        protocols: [
          { name: 'rr', metadata: meta('1') },
          { name: 'range', metadata: meta('2') },
        ],
      }),
    );
    const results = await Promise.all([a2, b, c]);
    // Only range is common to all three.
    for (const r of results) expect(r.protocolName).toBe('range');
  });

  it('Heartbeat: NONE when stable, REBALANCE_IN_PROGRESS while rebalancing, ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID', async () => {
    const { ids, generation } = await stableGroupOf(1);
    expect(coord.heartbeat('g', ids[0], null, generation)).toBe(0);
    expect(coord.heartbeat('g', ids[0], null, generation + 1)).toBe(ErrorCode.ILLEGAL_GENERATION);
    expect(coord.heartbeat('g', 'x', null, generation)).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(coord.heartbeat('nope', ids[0], null, generation)).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    const b = await newMember();
    expect(coord.heartbeat('g', ids[0], null, generation)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    void b.join;
  });

  it('SyncGroup with a wrong generation is ILLEGAL_GENERATION; during PreparingRebalance REBALANCE_IN_PROGRESS', async () => {
    const { ids, generation } = await stableGroupOf(1);
    const s = { groupId: 'g', memberId: ids[0], groupInstanceId: null, protocolType: null, protocolName: null, assignments: [] };
    expect((await coord.syncGroup({ ...s, generationId: 99 })).errorCode).toBe(ErrorCode.ILLEGAL_GENERATION);
    const b = await newMember();
    expect((await coord.syncGroup({ ...s, generationId: generation })).errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    void b.join;
  });
});

describe('GroupCoordinator: timers', () => {
  it('session expiry removes a silent member and rebalances the others', async () => {
    const { ids, generation } = await stableGroupOf(2);
    // Member 0 keeps heartbeating, member 1 goes silent.
    for (let t = 0; t < 10; t++) {
      vi.advanceTimersByTime(1500);
      const code = coord.heartbeat('g', ids[0], null, generation);
      if (code !== 0) {
        expect(code).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
        break;
      }
    }
    expect(coord.group('g')!.members.has(ids[1])).toBe(false);
    expect(coord.group('g')!.state).toBe('PreparingRebalance');
    const r = await coord.joinGroup(join({ memberId: ids[0] }));
    expect(r).toMatchObject({ errorCode: 0, generationId: generation + 1, leader: ids[0] });
  });

  it('the rebalance completes after the rebalance timeout without members that did not rejoin', async () => {
    const { ids, generation } = await stableGroupOf(2);
    const c = await newMember({ rebalanceTimeoutMs: 20_000 });
    let done: JoinResult | null = null;
    void c.join.then((r) => (done = r));
    // ids[0] rejoins, ids[1] never does (but keeps heartbeating, so it is not expired by session).
    const j0 = coord.joinGroup(join({ memberId: ids[0] }));
    for (let t = 0; t < 5; t++) {
      vi.advanceTimersByTime(5000);
      coord.heartbeat('g', ids[1], null, generation);
      await Promise.resolve();
    }
    expect(done).toBeNull();
    vi.advanceTimersByTime(5000); // 30 s: the largest rebalance timeout
    const r0 = await j0;
    expect(r0.errorCode).toBe(0);
    expect(r0.members.map((m) => m.memberId).sort()).toEqual([ids[0], c.id].sort());
    expect(coord.group('g')!.members.has(ids[1])).toBe(false);
    expect(coord.heartbeat('g', ids[1], null, r0.generationId)).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('a pending member id (MEMBER_ID_REQUIRED) that never rejoins expires after the session timeout', async () => {
    const first = await coord.joinGroup(join());
    expect(coord.group('g')!.pendingMembers.size).toBe(1);
    vi.advanceTimersByTime(10_001);
    expect(coord.group('g')!.pendingMembers.size).toBe(0);
    expect((await coord.joinGroup(join({ memberId: first.memberId }))).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('group.initial.rebalance.delay.ms holds the first rebalance of an empty group', async () => {
    const delayed = new GroupCoordinator({ initialRebalanceDelayMs: 3000 });
    try {
      let r: JoinResult | null = null;
      void delayed.joinGroup(join({ requireKnownMemberId: false })).then((x) => (r = x));
      await Promise.resolve();
      expect(r).toBeNull();
      await vi.advanceTimersByTimeAsync(3000);
      expect(r!.errorCode).toBe(0);
    } finally {
      delayed.close();
    }
  });
});

describe('GroupCoordinator: leave and static membership', () => {
  it('LeaveGroup removes the member and rebalances; the last one leaving makes the group Empty', async () => {
    const { ids, generation } = await stableGroupOf(2);
    const res = coord.leaveGroup('g', [
      { memberId: ids[1], groupInstanceId: null },
      { memberId: 'ghost', groupInstanceId: null },
    ]);
    expect(res.members.map((m) => m.errorCode)).toEqual([0, ErrorCode.UNKNOWN_MEMBER_ID]);
    expect(coord.group('g')!.state).toBe('PreparingRebalance');
    expect(coord.heartbeat('g', ids[0], null, generation)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    const r = await coord.joinGroup(join({ memberId: ids[0] }));
    expect(r.generationId).toBe(generation + 1);
    coord.leaveGroup('g', [{ memberId: ids[0], groupInstanceId: null }]);
    await Promise.resolve();
    expect(coord.group('g')!.state).toBe('Empty');
  });

  it('KIP-345: a static member rejoining with unchanged metadata takes over without a rebalance; the old id is fenced', async () => {
    const a = await coord.joinGroup(join({ groupInstanceId: 'i-1' }));
    expect(a.errorCode).toBe(0); // static members need no MEMBER_ID_REQUIRED round trip
    await coord.syncGroup({
      groupId: 'g',
      generationId: a.generationId,
      memberId: a.memberId,
      groupInstanceId: 'i-1',
      protocolType: null,
      protocolName: null,
      assignments: [{ memberId: a.memberId, assignment: meta('mine') }],
    });
    expect(coord.group('g')!.state).toBe('Stable');
    const again = await coord.joinGroup(join({ groupInstanceId: 'i-1' }));
    expect(again.errorCode).toBe(0);
    expect(again.memberId).not.toBe(a.memberId);
    expect(again.generationId).toBe(a.generationId);
    expect(coord.group('g')!.state).toBe('Stable');
    expect(coord.heartbeat('g', a.memberId, 'i-1', a.generationId)).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect(coord.heartbeat('g', again.memberId, 'i-1', a.generationId)).toBe(0);
    const s = await coord.syncGroup({
      groupId: 'g',
      generationId: again.generationId,
      memberId: again.memberId,
      groupInstanceId: 'i-1',
      protocolType: null,
      protocolName: null,
      assignments: [],
    });
    expect(s.assignment.toString()).toBe('mine');
    expect(coord.leaveGroup('g', [{ memberId: a.memberId, groupInstanceId: 'i-1' }]).members[0].errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect(coord.leaveGroup('g', [{ memberId: '', groupInstanceId: 'i-1' }]).members[0].errorCode).toBe(0);
    expect(coord.group('g')!.state).toBe('Empty');
  });
});

describe('GroupCoordinator: offsets and admin', () => {
  const commit = (gen: number, member: string, offset: number) =>
    settled(coord.commitOffsets('g', gen, member, null, [{ name: 't', partitions: [{ partition: 0, offset, leaderEpoch: 0, metadata: 'm' }] }]));

  it('members of the current generation commit; others get UNKNOWN_MEMBER_ID / ILLEGAL_GENERATION', async () => {
    const { ids, generation } = await stableGroupOf(1);
    expect(commit(generation, ids[0], 42)[0].partitions[0].errorCode).toBe(0);
    expect(commit(generation - 1, ids[0], 43)[0].partitions[0].errorCode).toBe(ErrorCode.ILLEGAL_GENERATION);
    expect(commit(generation, 'x', 43)[0].partitions[0].errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(coord.fetchOffsets('g', [{ name: 't', partitionIndexes: [0, 1] }])).toEqual([
      {
        name: 't',
        partitions: [
          { partitionIndex: 0, committedOffset: 42, committedLeaderEpoch: 0, metadata: 'm', errorCode: 0 },
          { partitionIndex: 1, committedOffset: -1, committedLeaderEpoch: -1, metadata: '', errorCode: 0 },
        ],
      },
    ]);
    const rec = store.at(-1)!.records[0];
    expect(decodeKey(rec.key)).toEqual({ type: 'offset', key: { group: 'g', topic: 't', partition: 0 } });
    expect(decodeOffsetCommitValue(rec.value!)).toMatchObject({ offset: 42, leaderEpoch: 0, metadata: 'm' });
  });

  it('a simple consumer (generation -1) commits to an empty or unknown group; DeleteGroups needs it empty', async () => {
    expect(commit(-1, '', 7)[0].partitions[0].errorCode).toBe(0);
    expect(coord.group('g')!.state).toBe('Empty');
    expect(coord.fetchOffsets('g', null)[0].partitions[0].committedOffset).toBe(7);
    expect(coord.deleteGroup('g')).toBe(0);
    expect(coord.deleteGroup('g')).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
    expect(coord.fetchOffsets('g', null)).toEqual([]);
    // tombstones for the offset and the group
    expect(store.at(-1)!.records.map((r) => r.value)).toEqual([null, null]);
    await stableGroupOf(1);
    expect(coord.deleteGroup('g')).toBe(ErrorCode.NON_EMPTY_GROUP);
  });

  it('OffsetDelete refuses topics the consumer group subscribes to', async () => {
    // consumer protocol subscription v0: int16 version, [string] topics, bytes userData
    const sub = Buffer.from([0, 0, 0, 0, 0, 1, 0, 1, 0x74, 0xff, 0xff, 0xff, 0xff]);
    const a = await coord.joinGroup(join({ requireKnownMemberId: false, protocols: [{ name: 'range', metadata: sub }] }));
    await coord.syncGroup({
      groupId: 'g',
      generationId: a.generationId,
      memberId: a.memberId,
      groupInstanceId: null,
      protocolType: null,
      protocolName: null,
      assignments: [],
    });
    coord.commitOffsets('g', a.generationId, a.memberId, null, [
      { name: 't', partitions: [{ partition: 0, offset: 1, leaderEpoch: -1, metadata: '' }] },
      { name: 'u', partitions: [{ partition: 0, offset: 1, leaderEpoch: -1, metadata: '' }] },
    ]);
    const r = coord.deleteOffsets('g', [
      { name: 't', partitions: [0] },
      { name: 'u', partitions: [0] },
    ]);
    expect(r.topics.map((t) => t.partitions[0].errorCode)).toEqual([ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC, 0]);
    expect(coord.fetchOffsets('g', null).map((t) => t.name)).toEqual(['t']);
    expect(coord.deleteOffsets('nope', []).errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
  });
});

describe('records', () => {
  it('maps groups to partitions as Kafka does (abs(String.hashCode) % n)', () => {
    expect(javaStringHashCode('')).toBe(0);
    expect(javaStringHashCode('hello')).toBe(99162322);
    expect(javaStringHashCode('polygenelubricants')).toBe(-2147483648);
    expect(partitionForGroup('polygenelubricants', 50)).toBe(0);
    expect(partitionForGroup('hello', 50)).toBe(99162322 % 50);
    expect(partitionForGroup('my-group', 50)).toBe((javaStringHashCode('my-group') & 0x7fffffff) % 50);
  });
});
