// __consumer_offsets persistence: commits and group metadata written through the partition log, replayed.
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { LogManager } from '../../src/storage/log-manager.js';
import { GroupCoordinator } from '../../src/group/coordinator.js';
import { OFFSETS_TOPIC, OffsetsTopicStore } from '../../src/group/offsets-topic.js';
import { ReplicaManager } from '../../src/partition/replica-manager.js';
import { partitionForGroup } from '../../src/group/records.js';
import { tempDir } from '../helpers.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('OffsetsTopicStore', () => {
  it("creates a compacted internal topic on first write, appends to the group's partition and replays on open", async () => {
    const dir = tempDir();
    dirs.push(dir);
    let logs = LogManager.open({ dataDir: dir });
    let store = OffsetsTopicStore.open(logs, new ReplicaManager(logs, 1), 5);
    expect(logs.getTopic(OFFSETS_TOPIC)).toBeUndefined(); // nothing written yet
    store.ensureTopic();
    expect(logs.getTopic(OFFSETS_TOPIC)).toMatchObject({ partitions: 5 });
    expect(logs.getTopic(OFFSETS_TOPIC)!.configs['cleanup.policy']).toBe('compact');
    let coord = new GroupCoordinator({ store });
    const a = await coord.joinGroup({
      groupId: 'grp',
      memberId: '',
      groupInstanceId: null,
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: Buffer.from('x') }],
      sessionTimeoutMs: 10_000,
      rebalanceTimeoutMs: 10_000,
      clientId: 'c',
      clientHost: '',
      requireKnownMemberId: false,
    });
    await coord.syncGroup({
      groupId: 'grp',
      generationId: 1,
      memberId: a.memberId,
      groupInstanceId: null,
      protocolType: null,
      protocolName: null,
      assignments: [],
    });
    coord.commitOffsets('grp', 1, a.memberId, null, [
      {
        name: 't',
        partitions: [
          { partition: 0, offset: 10, leaderEpoch: 0, metadata: 'meta' },
          { partition: 1, offset: 20, leaderEpoch: 0, metadata: '' },
        ],
      },
    ]);
    coord.commitOffsets('simple', -1, '', null, [{ name: 't', partitions: [{ partition: 0, offset: 5, leaderEpoch: -1, metadata: '' }] }]);
    coord.commitOffsets('gone', -1, '', null, [{ name: 't', partitions: [{ partition: 0, offset: 5, leaderEpoch: -1, metadata: '' }] }]);
    expect(coord.deleteGroup('gone')).toBe(0);
    const p = partitionForGroup('grp', 5);
    expect(logs.partition(OFFSETS_TOPIC, p)!.logEndOffset).toBeGreaterThanOrEqual(3);
    coord.close();
    logs.close();

    logs = LogManager.open({ dataDir: dir });
    store = OffsetsTopicStore.open(logs, new ReplicaManager(logs, 1), 50); // an existing topic keeps its partition count
    expect(store.numPartitions).toBe(5);
    coord = new GroupCoordinator({ store });
    store.load(coord);
    const g = coord.group('grp')!;
    expect(g).toMatchObject({ state: 'Empty', generationId: 1, protocolType: 'consumer' });
    expect(g.members.size).toBe(0);
    expect(coord.fetchOffsets('grp', null)).toEqual([
      {
        name: 't',
        partitions: [
          { partitionIndex: 0, committedOffset: 10, committedLeaderEpoch: 0, metadata: 'meta', errorCode: 0 },
          { partitionIndex: 1, committedOffset: 20, committedLeaderEpoch: 0, metadata: '', errorCode: 0 },
        ],
      },
    ]);
    expect(coord.fetchOffsets('simple', null)[0].partitions[0].committedOffset).toBe(5);
    expect(coord.group('gone')).toBeUndefined();
    coord.close();
    logs.close();
  });
});
