// Offsets retention (KIP-211): expiry of committed offsets, run every offsets.retention.check.interval.ms,
// with fake timers (Date.now is faked too) and an in-memory store; then replay through __consumer_offsets.
import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ErrorCode } from '../../protocol/errors.js';
import { BrokerConfig, ConfigError } from '../../src/config.js';
import { GroupCoordinator } from '../../src/group/coordinator.js';
import type { StoreRecord } from '../../src/group/store.js';
import { OffsetsTopicStore } from '../../src/group/offsets-topic.js';
import { ReplicaManager } from '../../src/partition/replica-manager.js';
import { decodeKey, decodeOffsetCommitValue } from '../../src/group/records.js';
import { LogManager } from '../../src/storage/log-manager.js';
import { settled, tempDir } from '../helpers.js';

const RETENTION = 60_000;
const CHECK = 10_000;

/** ConsumerProtocolSubscription v0: topics and null user data. */
function subscription(topics: string[]): Buffer {
  const parts = [Buffer.from([0, 0]), Buffer.alloc(4)];
  parts[1].writeInt32BE(topics.length);
  for (const t of topics) {
    const len = Buffer.alloc(2);
    len.writeInt16BE(Buffer.byteLength(t));
    parts.push(len, Buffer.from(t));
  }
  parts.push(Buffer.from([0xff, 0xff, 0xff, 0xff]));
  return Buffer.concat(parts);
}

let store: { groupId: string; records: StoreRecord[] }[];
let failing: boolean;
let coord: GroupCoordinator;

beforeEach(() => {
  vi.useFakeTimers();
  store = [];
  failing = false;
  coord = new GroupCoordinator({
    store: {
      append: (groupId, records) => {
        if (failing) throw new Error('disk full');
        store.push({ groupId, records });
      },
    },
    offsetsRetentionMs: RETENTION,
    offsetsRetentionCheckIntervalMs: CHECK,
  });
});
afterEach(() => {
  coord.close();
  vi.useRealTimers();
});

/** A one-member consumer group, Stable, subscribed to `topics`. */
async function stableMember(groupId: string, topics: string[]): Promise<{ memberId: string; generation: number }> {
  const j = await coord.joinGroup({
    groupId,
    memberId: '',
    groupInstanceId: null,
    protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: subscription(topics) }],
    sessionTimeoutMs: 10_000,
    rebalanceTimeoutMs: 10_000,
    clientId: 'c',
    clientHost: '/127.0.0.1',
    requireKnownMemberId: false,
  });
  expect(j.errorCode).toBe(0);
  const s = await coord.syncGroup({
    groupId,
    generationId: j.generationId,
    memberId: j.memberId,
    groupInstanceId: null,
    protocolType: null,
    protocolName: null,
    assignments: [],
  });
  expect(s.errorCode).toBe(0);
  expect(coord.group(groupId)!.state).toBe('Stable');
  return { memberId: j.memberId, generation: j.generationId };
}

/** Lets `ms` pass while the member keeps its session alive with heartbeats. */
async function live(ms: number, groupId: string, m: { memberId: string; generation: number }): Promise<void> {
  for (let left = ms; left > 0; left -= 5000) {
    await vi.advanceTimersByTimeAsync(Math.min(5000, left));
    expect(coord.heartbeat(groupId, m.memberId, null, m.generation)).toBe(ErrorCode.NONE);
  }
}

const commit = (groupId: string, generation: number, memberId: string, topic: string, partitions: number[], offset = 7) =>
  settled(
    coord.commitOffsets(groupId, generation, memberId, null, [
      { name: topic, partitions: partitions.map((p) => ({ partition: p, offset, leaderEpoch: -1, metadata: '' })) },
    ]),
  );

const committed = (groupId: string, topic: string, partition: number) =>
  coord.fetchOffsets(groupId, [{ name: topic, partitionIndexes: [partition] }])[0].partitions[0].committedOffset;

/** Tombstones written for a group since `from`: offsets as "topic-partition", group metadata as "group". */
function tombstones(groupId: string, from = 0): string[] {
  const out: string[] = [];
  for (const { groupId: g, records } of store.slice(from)) {
    if (g !== groupId) continue;
    for (const r of records) {
      if (r.value !== null) continue;
      const k = decodeKey(r.key)!;
      out.push(k.type === 'offset' ? `${k.key.topic}-${k.key.partition}` : 'group');
    }
  }
  return out;
}

describe('offsets retention (KIP-211)', () => {
  it("a consumer group's offsets outlive retention while it has members, then expire retention after it became Empty", async () => {
    const m = await stableMember('g', ['t']);
    const { memberId, generation } = m;
    expect(commit('g', generation, memberId, 't', [0, 1]).every((t) => t.partitions.every((p) => p.errorCode === 0))).toBe(true);
    await live(RETENTION * 3, 'g', m); // committed long ago, but the topic is still subscribed
    expect(committed('g', 't', 0)).toBe(7);

    expect(coord.leaveGroup('g', [{ memberId, groupInstanceId: null }]).members[0].errorCode).toBe(0);
    const group = coord.group('g')!;
    expect(group.state).toBe('Empty');
    const emptySince = Date.now();
    expect(group.currentStateTimestamp).toBe(emptySince);
    const mark = store.length;

    await vi.advanceTimersByTimeAsync(RETENTION - CHECK);
    expect(committed('g', 't', 1)).toBe(7); // not yet: retention counts from the moment it became Empty
    expect(coord.group('g')).toBe(group);
    await vi.advanceTimersByTimeAsync(CHECK); // the next periodic check at or past emptySince + retention
    expect(coord.group('g')).toBeUndefined();
    expect(group.state).toBe('Dead');
    expect(committed('g', 't', 0)).toBe(-1);
    expect(tombstones('g', mark).sort()).toEqual(['group', 't-0', 't-1']);
    expect(coord.fetchOffsets('g', null)).toEqual([]);
  });

  it('a group that rejoins before expiry keeps its offsets', async () => {
    const a = await stableMember('g', ['t']);
    commit('g', a.generation, a.memberId, 't', [0]);
    coord.leaveGroup('g', [{ memberId: a.memberId, groupInstanceId: null }]);
    await vi.advanceTimersByTimeAsync(RETENTION - CHECK);
    const b = await stableMember('g', ['t']);
    await live(RETENTION * 2, 'g', b);
    expect(committed('g', 't', 0)).toBe(7);
  });

  it('simple (standalone) commits expire retention after their commit; a newer commit restarts the clock', async () => {
    expect(commit('simple', -1, '', 't', [0, 1])[0].partitions.map((p) => p.errorCode)).toEqual([0, 0]);
    await vi.advanceTimersByTimeAsync(RETENTION / 2);
    commit('simple', -1, '', 't', [1], 9);
    const mark = store.length;
    await vi.advanceTimersByTimeAsync(RETENTION / 2);
    expect(committed('simple', 't', 0)).toBe(-1);
    expect(committed('simple', 't', 1)).toBe(9);
    expect(tombstones('simple', mark)).toEqual(['t-0']);
    expect(coord.group('simple')!.state).toBe('Empty');
    await vi.advanceTimersByTimeAsync(RETENTION / 2);
    expect(coord.group('simple')).toBeUndefined();
    // Generation 0 (offsets only): no GroupMetadata tombstone, as in Kafka.
    expect(tombstones('simple', mark)).toEqual(['t-0', 't-1']);
  });

  it('a Stable consumer group loses the offsets of topics it no longer subscribes to, from their commit', async () => {
    const m = await stableMember('g', ['kept']);
    const { memberId, generation } = m;
    commit('g', generation, memberId, 'kept', [0]);
    commit('g', generation, memberId, 'dropped', [0, 1]);
    await live(RETENTION + CHECK, 'g', m);
    expect(committed('g', 'kept', 0)).toBe(7);
    expect(committed('g', 'dropped', 0)).toBe(-1);
    expect(committed('g', 'dropped', 1)).toBe(-1);
    expect(tombstones('g').sort()).toEqual(['dropped-0', 'dropped-1']);
    expect(coord.group('g')!.state).toBe('Stable');
  });

  it('an Empty group without offsets becomes Dead at the next check', async () => {
    const { memberId } = await stableMember('g', ['t']);
    coord.leaveGroup('g', [{ memberId, groupInstanceId: null }]);
    expect(coord.group('g')!.state).toBe('Empty');
    await vi.advanceTimersByTimeAsync(CHECK);
    expect(coord.group('g')).toBeUndefined();
    expect(tombstones('g')).toEqual(['group']);
    // The group id is free again: a new member starts at generation 1.
    const again = await stableMember('g', ['t']);
    expect(again.generation).toBe(1);
  });

  it('a failed tombstone write keeps the offsets until a later check succeeds', async () => {
    commit('simple', -1, '', 't', [0]);
    failing = true;
    await vi.advanceTimersByTimeAsync(RETENTION + CHECK);
    expect(committed('simple', 't', 0)).toBe(7);
    failing = false;
    await vi.advanceTimersByTimeAsync(CHECK);
    expect(committed('simple', 't', 0)).toBe(-1);
    expect(coord.group('simple')).toBeUndefined();
  });

  it("expireOffsets() can be called directly with a clock value; v1 records' expire timestamps win", () => {
    const now = Date.now();
    coord.loadOffset('old', 't', 0, { offset: 1, leaderEpoch: -1, metadata: '', commitTimestamp: now, expireTimestamp: now + 5 });
    coord.loadOffset('old', 't', 1, { offset: 2, leaderEpoch: -1, metadata: '', commitTimestamp: now, expireTimestamp: -1 });
    expect(coord.expireOffsets(now + 4)).toBe(0);
    expect(coord.expireOffsets(now + 5)).toBe(1);
    expect(committed('old', 't', 1)).toBe(2);
    expect(coord.expireOffsets(now + RETENTION)).toBe(1);
    expect(coord.group('old')).toBeUndefined();
  });

  it('a replayed group that still had members counts its Empty time from the load (Kafka reloads and expires them)', () => {
    const now = Date.now();
    const member = {
      memberId: 'm',
      groupInstanceId: null,
      clientId: 'c',
      clientHost: '',
      rebalanceTimeout: 1,
      sessionTimeout: 1,
      subscription: Buffer.alloc(0),
      assignment: Buffer.alloc(0),
    };
    coord.loadGroup('was-live', {
      protocolType: 'consumer',
      generation: 4,
      protocol: 'range',
      leader: 'm',
      currentStateTimestamp: now - 10 * RETENTION,
      members: [member],
    });
    coord.loadOffset('was-live', 't', 0, { offset: 1, leaderEpoch: -1, metadata: '', commitTimestamp: now - 10 * RETENTION });
    coord.loadGroup('was-empty', {
      protocolType: 'consumer',
      generation: 4,
      protocol: null,
      leader: null,
      currentStateTimestamp: now - RETENTION,
      members: [],
    });
    coord.loadOffset('was-empty', 't', 0, { offset: 1, leaderEpoch: -1, metadata: '', commitTimestamp: now - 10 * RETENTION });
    expect(coord.expireOffsets(now)).toBe(1);
    expect(coord.group('was-empty')).toBeUndefined();
    expect(coord.group('was-live')!.offsets.size).toBe(1);
    expect(coord.expireOffsets(now + RETENTION)).toBe(1);
    expect(coord.group('was-live')).toBeUndefined();
  });

  it('OffsetCommit v2-4 retentionTimeMs: an explicit expire timestamp, stored as OffsetCommitValue v1', async () => {
    const r = settled(
      coord.commitOffsets('old-client', -1, '', null, [{ name: 't', partitions: [{ partition: 0, offset: 4, leaderEpoch: -1, metadata: 'm' }] }], 15_000),
    );
    expect(r[0].partitions[0].errorCode).toBe(0);
    const rec = store[store.length - 1].records[0];
    expect(rec.value!.readInt16BE(0)).toBe(1);
    expect(decodeOffsetCommitValue(rec.value!)).toEqual({
      offset: 4,
      leaderEpoch: -1,
      metadata: 'm',
      commitTimestamp: Date.now(),
      expireTimestamp: Date.now() + 15_000,
    });
    await vi.advanceTimersByTimeAsync(CHECK);
    expect(committed('old-client', 't', 0)).toBe(4);
    await vi.advanceTimersByTimeAsync(CHECK); // well before offsets.retention.minutes
    expect(committed('old-client', 't', 0)).toBe(-1);
  });

  it('close() stops the periodic check', async () => {
    commit('simple', -1, '', 't', [0]);
    coord.close();
    await vi.advanceTimersByTimeAsync(RETENTION * 2);
    expect(coord.group('simple')!.offsets.size).toBe(1);
  });
});

describe('offsets retention across a restart', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  it('expired offsets stay gone after replay; replayed offsets expire on their original schedule (stored Empty timestamp / commit time)', async () => {
    const dir = tempDir();
    dirs.push(dir);
    let logs = LogManager.open({ dataDir: dir });
    let disk = OffsetsTopicStore.open(logs, new ReplicaManager(logs, 1), 3);
    let c = new GroupCoordinator({ store: disk, offsetsRetentionMs: RETENTION, offsetsRetentionCheckIntervalMs: CHECK });
    /** A member joins, commits offset 3 and leaves: the group is Empty from now on. */
    const visit = async (groupId: string) => {
      const j = await c.joinGroup({
        groupId,
        memberId: '',
        groupInstanceId: null,
        protocolType: 'consumer',
        protocols: [{ name: 'range', metadata: subscription(['t']) }],
        sessionTimeoutMs: 10_000,
        rebalanceTimeoutMs: 10_000,
        clientId: 'c',
        clientHost: '',
        requireKnownMemberId: false,
      });
      await c.syncGroup({
        groupId,
        generationId: j.generationId,
        memberId: j.memberId,
        groupInstanceId: null,
        protocolType: null,
        protocolName: null,
        assignments: [],
      });
      c.commitOffsets(groupId, j.generationId, j.memberId, null, [{ name: 't', partitions: [{ partition: 0, offset: 3, leaderEpoch: -1, metadata: '' }] }]);
      c.leaveGroup(groupId, [{ memberId: j.memberId, groupInstanceId: null }]);
    };
    await visit('grp');
    c.commitOffsets('simple', -1, '', null, [{ name: 't', partitions: [{ partition: 0, offset: 5, leaderEpoch: -1, metadata: '' }] }]);
    await vi.advanceTimersByTimeAsync(RETENTION / 2);
    c.commitOffsets('fresh', -1, '', null, [{ name: 't', partitions: [{ partition: 0, offset: 8, leaderEpoch: -1, metadata: '' }] }]);
    await visit('late'); // Empty since RETENTION / 2
    await vi.advanceTimersByTimeAsync(RETENTION / 2 + CHECK);
    expect(c.group('simple')).toBeUndefined();
    expect(c.group('grp')).toBeUndefined();
    c.close();
    logs.close();

    // Replayed: the expired groups stay gone, 'fresh' is back and still expires on time.
    logs = LogManager.open({ dataDir: dir });
    disk = OffsetsTopicStore.open(logs, new ReplicaManager(logs, 1), 3);
    c = new GroupCoordinator({ store: disk, offsetsRetentionMs: RETENTION, offsetsRetentionCheckIntervalMs: CHECK });
    disk.load(c);
    expect(c.group('grp')).toBeUndefined();
    expect(c.group('simple')).toBeUndefined();
    expect(c.fetchOffsets('fresh', null)[0].partitions[0].committedOffset).toBe(8);
    expect(c.group('late')).toMatchObject({ state: 'Empty', generationId: 2 });
    await vi.advanceTimersByTimeAsync(RETENTION / 2 - 2 * CHECK);
    expect(c.fetchOffsets('late', null)[0].partitions[0].committedOffset).toBe(3);
    expect(c.group('fresh')).toBeDefined();
    await vi.advanceTimersByTimeAsync(2 * CHECK); // both were due at 1.5 × RETENTION from the start
    expect(c.group('fresh')).toBeUndefined();
    expect(c.group('late')).toBeUndefined();
    c.close();
    logs.close();
  });
});

describe('retention configs', () => {
  it("offsets.retention.check.interval.ms defaults to Kafka's 600000 and must be at least 1", () => {
    const config = new BrokerConfig();
    expect(config.int('offsets.retention.check.interval.ms')).toBe(600_000);
    expect(config.int('offsets.retention.minutes')).toBe(10_080);
    expect(new BrokerConfig({ 'offsets.retention.check.interval.ms': '1' }).int('offsets.retention.check.interval.ms')).toBe(1);
    expect(() => new BrokerConfig({ 'offsets.retention.check.interval.ms': '0' })).toThrow(ConfigError);
  });
});
