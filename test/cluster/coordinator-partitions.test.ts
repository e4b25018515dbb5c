// The coordinators of a cluster broker follow their partitions' leadership, one partition at a time
// (Kafka's onElection/onResignation): elected, a partition of __consumer_offsets / __transaction_state is
// replayed from the local log (load in progress meanwhile) and the transactions it left prepared are
// completed under the new coordinator epoch; resigned, its groups and transactional ids leave memory and
// the members waiting in it are told NOT_COORDINATOR. Other partitions are untouched. Real logs on disk.
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../protocol/errors.js';
import { LogManager } from '../../src/storage/log-manager.js';
import { ReplicaManager, clusterStart } from '../../src/partition/replica-manager.js';
import { GroupCoordinator } from '../../src/group/coordinator.js';
import { OffsetsTopicStore } from '../../src/group/offsets-topic.js';
import { TransactionCoordinator, type TxnCoordinatorHost } from '../../src/txn/coordinator.js';
import { TransactionStateTopic } from '../../src/txn/state-topic.js';
import { OFFSETS_TOPIC } from '../../src/group/offsets-topic.js';
import { checkCoordinator } from '../../src/cluster/coordinator-guard.js';
import { KafkaError } from '../../protocol/errors.js';
import { useTempDirs } from '../helpers.js';
import { ServedPartitions } from '../../src/group/served-partitions.js';

const tempDir = useTempDirs('krill-coordinator-partitions-');
const PARTITIONS = 5;

/** Two keys that land in different partitions. */
function twoKeys(prefix: string, partitionOf: (key: string) => number): [string, string] {
  const first = `${prefix}-0`;
  for (let i = 1; ; i++) {
    const other = `${prefix}-${i}`;
    if (partitionOf(other) !== partitionOf(first)) return [first, other];
  }
}

const join = (coord: GroupCoordinator, groupId: string, memberId = '') =>
  coord.joinGroup({
    groupId,
    memberId,
    groupInstanceId: null,
    protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: Buffer.from('m') }],
    sessionTimeoutMs: 10_000,
    rebalanceTimeoutMs: 10_000,
    clientId: 'c',
    clientHost: '',
    requireKnownMemberId: false,
  });

const commit = (coord: GroupCoordinator, groupId: string, offset: number) =>
  coord.commitOffsets(groupId, -1, '', null, [{ name: 't', partitions: [{ partition: 0, offset, leaderEpoch: -1, metadata: '' }] }]);

const committed = (coord: GroupCoordinator, groupId: string) =>
  coord.fetchOffsets(groupId, [{ name: 't', partitionIndexes: [0] }])[0].partitions[0].committedOffset;

describe('group coordinator, per __consumer_offsets partition', () => {
  it('loads an elected partition only, answers load in progress meanwhile, and unloads it on resignation', async () => {
    const logs = LogManager.open({ dataDir: tempDir() });
    const store = OffsetsTopicStore.open(logs, new ReplicaManager(logs, 1), PARTITIONS);
    const [a, b] = twoKeys('group', (g) => store.partitionFor(g));
    const [pa, pb] = [store.partitionFor(a), store.partitionFor(b)];
    // What an earlier leader wrote (the log a follower copied).
    const writer = new GroupCoordinator({ store, partitionOf: (g) => store.partitionFor(g) });
    expect(commit(writer, a, 10)).toEqual([{ name: 't', partitions: [{ partitionIndex: 0, errorCode: ErrorCode.NONE }] }]);
    commit(writer, b, 20);
    writer.close();

    const coord = new GroupCoordinator({ store, partitionOf: (g) => store.partitionFor(g), served: ServedPartitions.byElection() });
    try {
      expect(coord.coordinates(a)).toBe(false); // nothing is loaded before an election
      expect(coord.group(a)).toBeUndefined();

      const loaded = coord.onElection(pa, () => store.loadPartition(coord, pa));
      expect(coord.isLoading(a)).toBe(true);
      expect(coord.coordinates(a)).toBe(false);
      expect(coord.isLoading(b)).toBe(false);
      expect(coord.isLoadingAny()).toBe(true); // ListGroups says so
      await loaded;
      expect(coord.isLoading(a)).toBe(false);
      expect(coord.isLoadingAny()).toBe(false);
      expect(coord.coordinates(a)).toBe(true);
      expect(committed(coord, a)).toBe(10);
      expect(coord.group(b)).toBeUndefined(); // another partition's group: not loaded

      await coord.onElection(pb, () => store.loadPartition(coord, pb));
      expect(committed(coord, b)).toBe(20);
      // Elected again (a newer leader epoch of a leadership kept): nothing is reloaded.
      let reloaded = false;
      await coord.onElection(pb, () => void (reloaded = true));
      expect(reloaded).toBe(false);

      // A member of group a waits in a JoinGroup (the first member has not rejoined) when a resigns.
      const first = await join(coord, a);
      expect(first.errorCode).toBe(ErrorCode.NONE);
      const waiting = join(coord, a);
      coord.onResignation(pa);
      expect((await waiting).errorCode).toBe(ErrorCode.NOT_COORDINATOR);
      expect(coord.group(a)).toBeUndefined();
      expect(coord.coordinates(a)).toBe(false);
      expect(committed(coord, b)).toBe(20); // the other partition's group is untouched
      expect(coord.coordinates(b)).toBe(true);

      // Elected again later: the partition's groups come back from the log.
      await coord.onElection(pa, () => store.loadPartition(coord, pa));
      expect(committed(coord, a)).toBe(10);
      expect(coord.group(a)!.state).toBe('Empty');
    } finally {
      coord.close();
      logs.close();
    }
  });

  it('a resignation before the load ran makes that load moot', async () => {
    const coord = new GroupCoordinator({ partitionOf: () => 3, served: ServedPartitions.byElection() });
    let ran = false;
    const loaded = coord.onElection(3, () => void (ran = true));
    coord.onResignation(3);
    await loaded;
    expect(ran).toBe(false);
    expect(coord.coordinates('g')).toBe(false);
    expect(coord.isLoading('g')).toBe(false);
    coord.close();
  });
});

describe('replicated coordinator writes', () => {
  /** A store whose writes are replicated when the test says, with the outcome it says. */
  function replicatingStore() {
    const waits: ((code: number) => void)[] = [];
    return {
      waits,
      store: {
        append: () => {},
        replicated: () => new Promise<number>((resolve) => waits.push(resolve)),
      },
    };
  }

  it('answers OffsetCommit once the ISR has the offsets, mapping a failure as Kafka does', async () => {
    const { store, waits } = replicatingStore();
    const coord = new GroupCoordinator({ store });
    try {
      const answered = commit(coord, 'g', 5);
      expect(answered).toBeInstanceOf(Promise);
      expect(committed(coord, 'g')).toBe(-1); // not visible before it is replicated
      waits.shift()!(ErrorCode.NONE);
      expect((await answered)[0].partitions[0].errorCode).toBe(ErrorCode.NONE);
      expect(committed(coord, 'g')).toBe(5);

      const short = commit(coord, 'g', 6);
      waits.shift()!(ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND);
      expect((await short)[0].partitions[0].errorCode).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
      const moved = commit(coord, 'g', 7);
      waits.shift()!(ErrorCode.NOT_LEADER_OR_FOLLOWER);
      expect((await moved)[0].partitions[0].errorCode).toBe(ErrorCode.NOT_COORDINATOR);
      expect(committed(coord, 'g')).toBe(5); // failed commits leave the offsets as they were
    } finally {
      coord.close();
    }
  });

  it('hands out the SyncGroup assignment once the ISR has it; a failure makes the group rebalance', async () => {
    const { store, waits } = replicatingStore();
    const coord = new GroupCoordinator({ store });
    try {
      const member = await join(coord, 'g'); // the Empty group's generation record: not waited for
      waits.length = 0;
      const sync = () =>
        coord.syncGroup({
          groupId: 'g',
          generationId: member.generationId,
          memberId: member.memberId,
          groupInstanceId: null,
          protocolType: null,
          protocolName: null,
          assignments: [{ memberId: member.memberId, assignment: Buffer.from('a') }],
        });
      let settled = false;
      const first = sync().then((r) => ((settled = true), r));
      await new Promise((r) => setImmediate(r));
      expect(settled).toBe(false);
      expect(coord.group('g')!.state).toBe('CompletingRebalance');
      waits.shift()!(ErrorCode.REQUEST_TIMED_OUT);
      expect((await first).errorCode).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
      expect(coord.group('g')!.state).toBe('PreparingRebalance');

      const again = await join(coord, 'g', member.memberId);
      waits.length = 0;
      const second = coord.syncGroup({
        groupId: 'g',
        generationId: again.generationId,
        memberId: member.memberId,
        groupInstanceId: null,
        protocolType: null,
        protocolName: null,
        assignments: [{ memberId: member.memberId, assignment: Buffer.from('b') }],
      });
      waits.shift()!(ErrorCode.NONE);
      const r = await second;
      expect(r.errorCode).toBe(ErrorCode.NONE);
      expect(r.assignment.toString()).toBe('b');
      expect(coord.group('g')!.state).toBe('Stable');
    } finally {
      coord.close();
    }
  });
});

describe('transaction coordinator, per __transaction_state partition', () => {
  it("loads an elected partition, completes what it left prepared under the partition's leader epoch, and unloads it", async () => {
    const logs = LogManager.open({ dataDir: tempDir() });
    const state = TransactionStateTopic.open(logs, new ReplicaManager(logs, 1), PARTITIONS, 100 * 1024 * 1024);
    const [a, b] = twoKeys('txn', (id) => state.partitionFor(id));
    const [pa, pb] = [state.partitionFor(a), state.partitionFor(b)];
    let nextId = 1000;
    const markers: string[] = [];
    const host = (deliver: boolean): TxnCoordinatorHost => ({
      generateProducerId: () => nextId++,
      persist: (m) => state.persist(m),
      forget: (id) => state.forget(id),
      writeMarker: (topic, p, producerId, _producerEpoch, commit, coordinatorEpoch) => {
        markers.push(`${topic}-${p}:${producerId}:${commit ? 'commit' : 'abort'}@${coordinatorEpoch}`);
        return deliver;
      },
      partitionExists: () => true,
      now: () => Date.now(),
    });
    // An earlier coordinator prepared a's commit, whose marker never arrived, and left b idle.
    const writer = new TransactionCoordinator(host(false), { maxTimeoutMs: 60_000, partitionOf: (id) => state.partitionFor(id) });
    const pid = writer.initProducerId(a, 30_000, -1, -1).producerId;
    expect(
      writer
        .addPartitions(a, pid, 0, [{ name: 't', partitions: [0] }])
        .get('t')!
        .get(0),
    ).toBe(ErrorCode.NONE);
    expect(writer.endTxn(a, pid, 0, true)).toBe(ErrorCode.NONE);
    expect(writer.get(a)!.state).toBe('PrepareCommit');
    writer.initProducerId(b, 30_000, -1, -1);
    expect(markers).toEqual([`t-0:${pid}:commit@0`]); // a single broker's coordinator epoch
    markers.length = 0;

    const coord = new TransactionCoordinator(host(true), {
      maxTimeoutMs: 60_000,
      partitionOf: (id) => state.partitionFor(id),
      served: ServedPartitions.byElection(),
    });
    try {
      expect(coord.get(a)).toBeUndefined();
      const loaded = coord.onElection(pa, 7, () => state.loadPartition(coord, pa));
      expect(coord.isLoading(a)).toBe(true);
      expect(coord.isLoadingAny()).toBe(true); // ListTransactions says so
      expect(coord.coordinates(a)).toBe(false);
      await loaded;
      expect(coord.coordinates(a)).toBe(true);
      expect(markers).toEqual([`t-0:${pid}:commit@7`]); // resent, fenced against the old coordinator's
      expect(coord.get(a)!.state).toBe('CompleteCommit');
      expect(coord.get(b)).toBeUndefined(); // not elected for b's partition
      expect(coord.coordinates(b)).toBe(false);

      await coord.onElection(pb, 2, () => state.loadPartition(coord, pb));
      expect(coord.get(b)!.state).toBe('Empty');
      // Leader again in a newer epoch: the markers take it, nothing is reloaded.
      await coord.onElection(pa, 9, () => {
        throw new Error('not reloaded');
      });
      expect(coord.coordinatorEpoch(a)).toBe(9);
      expect(coord.coordinatorEpoch(b)).toBe(2);

      coord.onResignation(pa);
      expect(coord.get(a)).toBeUndefined();
      expect(coord.coordinates(a)).toBe(false);
      expect(coord.get(b)!.state).toBe('Empty'); // the other partition's id is untouched
    } finally {
      logs.close();
    }
  });
});

describe('coordinator writes on a replicated __consumer_offsets partition', () => {
  it('a commit is answered once the followers have fetched it; refused without enough in-sync replicas or the leadership', async () => {
    const logs = LogManager.open({ dataDir: tempDir() });
    const replicas = new ReplicaManager(logs, 1, clusterStart(logs.dataDir));
    const store = OffsetsTopicStore.open(logs, replicas, PARTITIONS);
    logs.createTopic(OFFSETS_TOPIC, PARTITIONS, { 'cleanup.policy': 'compact', 'min.insync.replicas': '2' });
    const p = store.partitionFor('g');
    const partition = replicas.partition(OFFSETS_TOPIC, p)!;
    partition.setLeaderState({ leaderId: 1, leaderEpoch: 4, replicas: [1, 2, 3], isr: [1, 2, 3] });
    const coord = new GroupCoordinator({ store, partitionOf: (g) => store.partitionFor(g), served: ServedPartitions.byElection() });
    try {
      await coord.onElection(p, () => store.loadPartition(coord, p));
      const answered = commit(coord, 'g', 42);
      expect(answered).toBeInstanceOf(Promise);
      let settled = false;
      void Promise.resolve(answered).then(() => (settled = true));
      await new Promise((r) => setImmediate(r));
      expect(settled).toBe(false); // the followers have not fetched it
      expect(committed(coord, 'g')).toBe(-1);
      const now = Date.now();
      replicas.recordFollowerFetch(partition, 2, partition.logEndOffset, now);
      replicas.recordFollowerFetch(partition, 3, partition.logEndOffset, now);
      expect((await answered)[0].partitions[0].errorCode).toBe(ErrorCode.NONE);
      expect(committed(coord, 'g')).toBe(42);

      // The ISR below the topic's min.insync.replicas: refused before anything is written.
      const end = partition.logEndOffset;
      partition.setLeaderState({ leaderId: 1, leaderEpoch: 4, replicas: [1, 2, 3], isr: [1] });
      expect((await commit(coord, 'g', 43))[0].partitions[0].errorCode).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
      expect(partition.logEndOffset).toBe(end);

      // Leadership lost while a commit waits for the followers: NOT_COORDINATOR, the offset not taken.
      partition.setLeaderState({ leaderId: 1, leaderEpoch: 4, replicas: [1, 2, 3], isr: [1, 2, 3] });
      const waiting = commit(coord, 'g', 44);
      partition.setLeaderState({ leaderId: 2, leaderEpoch: 5, replicas: [1, 2, 3], isr: [2, 3] });
      replicas.leadershipChanged(partition);
      coord.onResignation(p);
      expect((await waiting)[0].partitions[0].errorCode).toBe(ErrorCode.NOT_COORDINATOR);
      expect(commit(coord, 'g', 45)).toEqual([{ name: 't', partitions: [{ partitionIndex: 0, errorCode: ErrorCode.NOT_COORDINATOR }] }]);
    } finally {
      coord.close();
      logs.close();
    }
  });
});

describe('the coordinator guard', () => {
  const owner = {
    coordinatesGroup: (g: string) => g !== 'elsewhere',
    coordinatesTransactionalId: () => true,
    groupLoading: (g: string) => g === 'loading',
    transactionalIdLoading: (t: string) => t === 'loading',
  };
  const codeOf = (apiKey: number, request: Record<string, unknown>) => {
    try {
      checkCoordinator(apiKey, request, owner);
      return ErrorCode.NONE;
    } catch (err) {
      return (err as KafkaError).code;
    }
  };

  it('answers NOT_COORDINATOR for keys coordinated elsewhere, COORDINATOR_LOAD_IN_PROGRESS for keys being loaded here', () => {
    expect(codeOf(11, { groupId: 'elsewhere' })).toBe(ErrorCode.NOT_COORDINATOR);
    expect(codeOf(11, { groupId: 'loading' })).toBe(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
    expect(codeOf(8, { groupId: 'here' })).toBe(ErrorCode.NONE);
    expect(codeOf(26, { transactionalId: 'loading' })).toBe(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
    expect(codeOf(22, { transactionalId: null })).toBe(ErrorCode.NONE); // an idempotent producer: any broker
  });
});
