// The classic group coordinator (Kafka's GroupCoordinator + GroupMetadataManager, classic protocol): the
// groups it serves, their loading and unloading, and the admin requests on them. The rebalance protocol
// (JoinGroup, SyncGroup, Heartbeat, LeaveGroup and the group's states) lives in rebalance-protocol.ts;
// committed offsets and their retention in offsets.ts. Group metadata is replayed from __consumer_offsets
// at start (groups come back Empty).
//
// Which groups: a single broker coordinates every group, loaded at start. In a cluster (ServedPartitions.byElection()) the
// coordinator serves the groups of the __consumer_offsets partitions this broker leads, as Kafka's
// onElection/onResignation: elected, a partition is replayed from the local log (its replica) in a task of
// its own, and its groups are COORDINATOR_LOAD_IN_PROGRESS meanwhile (isLoading); resigned, its groups are
// dropped from memory and their members' waiting JoinGroup/SyncGroup answered NOT_COORDINATOR, so that
// the clients look the new coordinator up.
import { ErrorCode } from '../../protocol/errors.js';
import { Group, GroupTable, type CommittedOffset, type JoinResult, type SyncResult } from './group.js';
import { encodeGroupMetadataKey, type GroupMetadataValue } from './records.js';
import { GroupOffsets, offsetTombstones, storeFailure, type OffsetsOptions } from './offsets.js';
import { RebalanceProtocol, type JoinRequest, type LeaveResult, type RebalanceOptions, type SyncRequest } from './rebalance-protocol.js';
import { realTimers, type CoordinatorStore, type Timers } from './store.js';
import { Scheduler } from '../scheduler.js';
import { ServedPartitions } from './served-partitions.js';

export interface CoordinatorOptions extends OffsetsOptions, RebalanceOptions {
  timers?: Timers;
  /** The __consumer_offsets partition of a group; default: all in one. */
  partitionOf?: (groupId: string) => number;
  /** Runs the periodic offsets expiration; the broker's. Without one the coordinator keeps its own. */
  scheduler?: Scheduler;
  store?: CoordinatorStore;
  /**
   * Which partitions of its topic it serves: default ServedPartitions.all() (a single broker); a broker of a
   * cluster gives ServedPartitions.byElection(), the partitions it was elected for (onElection).
   */
  served?: ServedPartitions;
}

export type { CommitPartition } from './offsets.js';
export type { JoinRequest, SyncRequest } from './rebalance-protocol.js';

export class GroupCoordinator {
  private readonly groups = new GroupTable();
  private readonly timers: Timers;
  private readonly store: CoordinatorStore | null;
  private readonly rebalance: RebalanceProtocol;
  private readonly offsets: GroupOffsets;
  /** A scheduler made for this coordinator alone (none was given), closed with it. */
  private readonly ownScheduler: Scheduler | null;
  /** The __consumer_offsets partition of a group (where its transaction markers land). */
  private readonly partitionOf: (groupId: string) => number;
  private closed = false;
  /** The __consumer_offsets partitions served: all on a single broker, those it leads in a cluster. */
  private readonly served: ServedPartitions;

  constructor(options: CoordinatorOptions = {}) {
    this.served = options.served ?? ServedPartitions.all();
    this.timers = options.timers ?? realTimers;
    this.store = options.store ?? null;
    this.ownScheduler = options.scheduler ? null : new Scheduler({ error: () => {} });
    this.partitionOf = options.partitionOf ?? (() => 0);
    const isClosed = () => this.closed;
    this.rebalance = new RebalanceProtocol({ groups: this.groups, store: this.store, timers: this.timers, isClosed }, options);
    this.offsets = new GroupOffsets(
      {
        groups: this.groups,
        store: this.store,
        timers: this.timers,
        scheduler: options.scheduler ?? this.ownScheduler!,
        isClosed,
        touch: (group, member) => this.rebalance.scheduleHeartbeat(group, member),
        dropGroup: (group) => this.dropGroup(group),
        coordinates: (groupId) => this.coordinates(groupId),
      },
      options,
    );
  }

  group(groupId: string): Group | undefined {
    return this.groups.get(groupId);
  }

  /** Calls `listener` with each group that enters a state (tests wait for Stable with it); returns what stops it. */
  onGroupState(listener: (group: Group) => void): () => void {
    return this.groups.onStateChange(listener);
  }

  allGroups(): Group[] {
    return [...this.groups.values()];
  }

  // --- the rebalance protocol (see rebalance-protocol.ts) ---------------------------------------------

  joinGroup(req: JoinRequest): Promise<JoinResult> {
    return this.rebalance.joinGroup(req);
  }

  syncGroup(req: SyncRequest): Promise<SyncResult> {
    return this.rebalance.syncGroup(req);
  }

  heartbeat(groupId: string, memberId: string, groupInstanceId: string | null, generationId: number): number {
    return this.rebalance.heartbeat(groupId, memberId, groupInstanceId, generationId);
  }

  leaveGroup(groupId: string, leaving: { memberId: string; groupInstanceId: string | null }[]): LeaveResult {
    return this.rebalance.leaveGroup(groupId, leaving);
  }

  // --- offsets (see offsets.ts) ------------------------------------------------------------------------

  commitOffsets(...args: Parameters<GroupOffsets['commit']>): ReturnType<GroupOffsets['commit']> {
    return this.offsets.commit(...args);
  }

  fetchOffsets(...args: Parameters<GroupOffsets['fetch']>): ReturnType<GroupOffsets['fetch']> {
    return this.offsets.fetch(...args);
  }

  deleteOffsets(...args: Parameters<GroupOffsets['delete']>): ReturnType<GroupOffsets['delete']> {
    return this.offsets.delete(...args);
  }

  /** One retention pass (normally run by a timer); returns the number of offsets expired. */
  expireOffsets(now?: number): number {
    return this.offsets.expire(now);
  }

  /** The __consumer_offsets partition that holds the group's records. */
  offsetsPartitionFor(groupId: string): number {
    return this.partitionOf(groupId);
  }

  commitTxnOffsets(...args: Parameters<GroupOffsets['commitTxn']>): ReturnType<GroupOffsets['commitTxn']> {
    return this.offsets.commitTxn(...args);
  }

  /** A transaction marker in __consumer_offsets partition `offsetsPartition` ends the producer's pending offsets there. */
  completeTxnOffsets(producerId: number, commit: boolean, offsetsPartition: number): void {
    this.offsets.completeTxn(producerId, commit, (groupId) => this.partitionOf(groupId) === offsetsPartition);
  }

  /** Replay: an offset written by a transaction, pending until its marker. */
  loadPendingOffset(producerId: number, groupId: string, topic: string, partition: number, value: CommittedOffset): void {
    this.offsets.loadPending(producerId, groupId, topic, partition, value);
  }

  /** Replay: a committed offset (value null = tombstone). */
  loadOffset(groupId: string, topic: string, partition: number, value: CommittedOffset | null): void {
    this.offsets.load(groupId, topic, partition, value);
  }

  // --- admin ---------------------------------------------------------------------------------------------

  deleteGroup(groupId: string): number {
    if (this.closed) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    const group = this.groups.get(groupId);
    if (!group || group.is('Dead')) return ErrorCode.GROUP_ID_NOT_FOUND;
    if (!group.is('Empty')) return ErrorCode.NON_EMPTY_GROUP;
    const tombstones = offsetTombstones(groupId, group.offsets.keys());
    tombstones.push({ key: encodeGroupMetadataKey(groupId), value: null });
    try {
      this.store?.append(groupId, tombstones);
    } catch (err) {
      return storeFailure(err);
    }
    this.dropGroup(group);
    return ErrorCode.NONE;
  }

  /** An Empty group goes: Dead, its timers stopped, forgotten (DeleteGroups, or its last offsets expired). */
  private dropGroup(group: Group): void {
    group.transitionTo('Dead', this.timers.now());
    for (const [, timer] of group.pendingMembers) this.timers.clearTimeout(timer);
    this.timers.clearTimeout(group.rebalanceTimer);
    group.rebalanceTimer = null;
    this.groups.delete(group.groupId);
  }

  // --- the partitions served (a cluster) -------------------------------------------------------------

  /** Whether this coordinator serves the group now (its partition loaded; always on a single broker). */
  coordinates(groupId: string): boolean {
    return this.served.serves(this.partitionOf(groupId));
  }

  /** Whether the group's partition is being loaded (requests for it: COORDINATOR_LOAD_IN_PROGRESS). */
  isLoading(groupId: string): boolean {
    return this.served.isLoading(this.partitionOf(groupId));
  }

  /** Whether some partition's groups are still being loaded (ListGroups: COORDINATOR_LOAD_IN_PROGRESS). */
  isLoadingAny(): boolean {
    return this.served.anyLoading();
  }

  /**
   * This broker now leads __consumer_offsets partition `p` (Kafka's onElection): `load` replays it (the
   * store's loadPartition) in a task of its own; the promise settles when that has run. Nothing happens for
   * a partition already served (a newer leader epoch of a leadership kept), nor on a single broker.
   */
  async onElection(p: number, load: () => void): Promise<void> {
    if (!this.closed) await this.served.elect(p, 0, load);
  }

  /**
   * This broker no longer leads partition `p` (Kafka's onResignation): its groups leave memory, Dead, their
   * timers stopped, the JoinGroup and SyncGroup their members wait in answered NOT_COORDINATOR.
   */
  onResignation(p: number): void {
    if (!this.served.resign(p)) return;
    const inPartition = (groupId: string) => this.partitionOf(groupId) === p;
    for (const group of [...this.groups.values()]) {
      if (!inPartition(group.groupId)) continue;
      this.rebalance.stopGroup(group, ErrorCode.NOT_COORDINATOR);
      group.transitionTo('Dead', this.timers.now());
      this.groups.delete(group.groupId);
    }
    this.offsets.unloadPending(inPartition);
  }

  /** Replay: group metadata (value null = the group was deleted). Loaded groups are Empty: members are gone. */
  loadGroup(groupId: string, value: GroupMetadataValue | null): void {
    if (value === null) {
      this.groups.delete(groupId);
      return;
    }
    let group = this.groups.get(groupId);
    if (!group) {
      group = new Group(groupId);
      this.groups.set(groupId, group);
    }
    group.generationId = value.generation;
    group.protocolType = value.protocolType || null;
    group.protocolName = null;
    group.leaderId = null;
    // A group stored with members was live when the broker stopped: Kafka reloads it with them and it turns
    // Empty once their sessions lapse, so its offsets' retention starts about now, not at the stored time.
    group.currentStateTimestamp = value.members.length > 0 ? this.timers.now() : value.currentStateTimestamp;
  }

  close(): void {
    this.closed = true;
    this.served.clear();
    this.offsets.stop();
    void this.ownScheduler?.close();
    for (const group of this.groups.values()) this.rebalance.stopGroup(group, ErrorCode.COORDINATOR_NOT_AVAILABLE);
  }
}
