// The classic group coordinator (Kafka's GroupCoordinator + GroupMetadataManager, classic protocol).
//
// Membership: JoinGroup without a member id gets MEMBER_ID_REQUIRED and a generated id (v4+, KIP-394);
// a rebalance (PreparingRebalance) completes when every known member has rejoined or the largest
// rebalance timeout passes (members that did not rejoin are dropped, static ones kept); the first member
// is the leader; the protocol is chosen by the members' preference votes among the protocols all support.
// CompletingRebalance waits for the leader's SyncGroup; followers' SyncGroups wait for it too. Every
// member has a session timer, reset by heartbeats, joins, syncs and commits; its expiry removes the
// member and rebalances. Static members (KIP-345) rejoining with a known group.instance.id take over the
// old member id's place, without a rebalance when their protocols are unchanged; a stale id is FENCED.
// Group metadata is written to __consumer_offsets (through the store) at each new generation and replayed
// at start (groups come back Empty). Committed offsets and their retention live in offsets.ts.
//
// Which groups: a single broker coordinates every group, loaded at start. In a cluster (ServedPartitions.byElection()) the
// coordinator serves the groups of the __consumer_offsets partitions this broker leads, as Kafka's
// onElection/onResignation: elected, a partition is replayed from the local log (its replica) in a task of
// its own, and its groups are COORDINATOR_LOAD_IN_PROGRESS meanwhile (isLoading); resigned, its groups are
// dropped from memory and their members' waiting JoinGroup/SyncGroup answered NOT_COORDINATOR, so that
// the clients look the new coordinator up. SyncGroup's assignment is answered once the in-sync replicas
// have it (the store's replicated()).
import { randomUUID } from '../storage/random.js';
import { ErrorCode } from '../../protocol/errors.js';
import { Group, Member, type CommittedOffset, type JoinResult, type Protocol, type SyncResult } from './group.js';
import { encodeGroupMetadataKey, groupMetadataRecord, type GroupMetadataValue } from './records.js';
import { GroupOffsets, offsetTombstones, storeFailure, type OffsetsOptions } from './offsets.js';
import { coordinatorWriteError } from './replicated-write.js';
import { realTimers, type CoordinatorStore, type Timers } from './store.js';
import { brokerConfigDefault } from '../config.js';
import { Scheduler } from '../scheduler.js';
import { ServedPartitions } from './served-partitions.js';

export interface CoordinatorOptions extends OffsetsOptions {
  timers?: Timers;
  /** The __consumer_offsets partition of a group; default: all in one. */
  partitionOf?: (groupId: string) => number;
  /** Runs the periodic offsets expiration; the broker's. Without one the coordinator keeps its own. */
  scheduler?: Scheduler;
  store?: CoordinatorStore;
  minSessionTimeoutMs?: number;
  maxSessionTimeoutMs?: number;
  initialRebalanceDelayMs?: number;
  /**
   * Which partitions of its topic it serves: default ServedPartitions.all() (a single broker); a broker of a
   * cluster gives ServedPartitions.byElection(), the partitions it was elected for (onElection).
   */
  served?: ServedPartitions;
}

export interface JoinRequest {
  groupId: string;
  memberId: string;
  groupInstanceId: string | null;
  protocolType: string;
  protocols: Protocol[];
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  clientId: string;
  clientHost: string;
  /** v4+: a new member must rejoin with the id handed out (MEMBER_ID_REQUIRED). */
  requireKnownMemberId: boolean;
}

export interface SyncRequest {
  groupId: string;
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
  protocolType: string | null;
  protocolName: string | null;
  assignments: { memberId: string; assignment: Buffer }[];
}

export type { CommitPartition } from './offsets.js';

function joinError(memberId: string, code: number): JoinResult {
  return { errorCode: code, generationId: -1, protocolType: null, protocolName: null, leader: '', memberId, members: [] };
}

function syncError(code: number): SyncResult {
  return { errorCode: code, protocolType: null, protocolName: null, assignment: Buffer.alloc(0) };
}

export class GroupCoordinator {
  private readonly groups = new Map<string, Group>();
  private readonly timers: Timers;
  private readonly store: CoordinatorStore | null;
  private readonly minSession: number;
  private readonly maxSession: number;
  private readonly initialDelay: number;
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
    this.minSession = options.minSessionTimeoutMs ?? brokerConfigDefault('group.min.session.timeout.ms');
    this.maxSession = options.maxSessionTimeoutMs ?? brokerConfigDefault('group.max.session.timeout.ms');
    this.initialDelay = options.initialRebalanceDelayMs ?? brokerConfigDefault('group.initial.rebalance.delay.ms');
    this.ownScheduler = options.scheduler ? null : new Scheduler({ error: () => {} });
    this.partitionOf = options.partitionOf ?? (() => 0);
    this.offsets = new GroupOffsets(
      {
        groups: this.groups,
        store: this.store,
        timers: this.timers,
        scheduler: options.scheduler ?? this.ownScheduler!,
        isClosed: () => this.closed,
        touch: (group, member) => this.scheduleHeartbeat(group, member),
        dropGroup: (group) => this.dropGroup(group),
        coordinates: (groupId) => this.coordinates(groupId),
      },
      options,
    );
  }

  group(groupId: string): Group | undefined {
    return this.groups.get(groupId);
  }

  allGroups(): Group[] {
    return [...this.groups.values()];
  }

  // --- JoinGroup -----------------------------------------------------------------------------------------

  joinGroup(req: JoinRequest): Promise<JoinResult> {
    if (this.closed) return Promise.resolve(joinError(req.memberId, ErrorCode.COORDINATOR_NOT_AVAILABLE));
    if (!req.groupId) return Promise.resolve(joinError(req.memberId, ErrorCode.INVALID_GROUP_ID));
    if (req.sessionTimeoutMs < this.minSession || req.sessionTimeoutMs > this.maxSession) {
      return Promise.resolve(joinError(req.memberId, ErrorCode.INVALID_SESSION_TIMEOUT));
    }
    const unknown = req.memberId === '';
    let group = this.groups.get(req.groupId);
    if (!group) {
      if (!unknown) return Promise.resolve(joinError(req.memberId, ErrorCode.UNKNOWN_MEMBER_ID));
      group = new Group(req.groupId);
      this.groups.set(req.groupId, group);
    }
    if (group.is('Dead')) return Promise.resolve(joinError(req.memberId, ErrorCode.COORDINATOR_NOT_AVAILABLE));
    if (!group.supportsProtocols(req.protocolType, req.protocols)) {
      return Promise.resolve(joinError(req.memberId, ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
    }
    return new Promise((resolve) => {
      if (unknown) this.joinUnknownMember(group, req, resolve);
      else this.joinKnownMember(group, req, resolve);
      // A group created for a join that failed at once stays only if something lives in it.
      if (group.is('Empty') && group.members.size === 0 && group.pendingMembers.size === 0 && group.offsets.size === 0 && group.generationId === 0) {
        this.groups.delete(group.groupId);
      }
    });
  }

  private newMemberId(clientId: string, instanceId: string | null): string {
    return `${instanceId ?? clientId}-${randomUUID()}`;
  }

  private joinUnknownMember(group: Group, req: JoinRequest, respond: (r: JoinResult) => void): void {
    const memberId = this.newMemberId(req.clientId, req.groupInstanceId);
    if (req.groupInstanceId !== null) {
      const oldId = group.staticMembers.get(req.groupInstanceId);
      if (oldId !== undefined && group.members.has(oldId)) {
        this.replaceStaticMember(group, oldId, memberId, req, respond);
        return;
      }
      this.addMemberAndRebalance(group, memberId, req, respond);
      return;
    }
    if (req.requireKnownMemberId) {
      const timer = this.timers.setTimeout(() => {
        group.pendingMembers.delete(memberId);
        if (group.is('PreparingRebalance')) this.maybeCompleteJoin(group);
      }, req.sessionTimeoutMs);
      group.pendingMembers.set(memberId, timer);
      respond(joinError(memberId, ErrorCode.MEMBER_ID_REQUIRED));
      return;
    }
    this.addMemberAndRebalance(group, memberId, req, respond);
  }

  private replaceStaticMember(group: Group, oldId: string, newId: string, req: JoinRequest, respond: (r: JoinResult) => void): void {
    const old = group.members.get(oldId)!;
    // The old incarnation's pending requests are fenced.
    old.awaitingJoin?.(joinError(oldId, ErrorCode.FENCED_INSTANCE_ID));
    old.awaitingJoin = null;
    old.awaitingSync?.(syncError(ErrorCode.FENCED_INSTANCE_ID));
    old.awaitingSync = null;
    this.timers.clearTimeout(old.heartbeatTimer);
    group.members.delete(oldId);
    const member = new Member(
      newId,
      req.groupInstanceId,
      req.clientId,
      req.clientHost,
      req.rebalanceTimeoutMs,
      req.sessionTimeoutMs,
      req.protocolType,
      req.protocols,
    );
    member.assignment = old.assignment;
    group.members.set(newId, member);
    group.staticMembers.set(req.groupInstanceId!, newId);
    if (group.leaderId === oldId) group.leaderId = newId;
    const unchanged = old.matches(req.protocols);
    if (group.is('Stable') && unchanged) {
      const failure = this.persistGroupQuietly(group);
      this.scheduleHeartbeat(group, member);
      respond(failure === ErrorCode.NONE ? this.joinResponse(group, member, false) : joinError(newId, failure));
    } else if (group.is('CompletingRebalance') && unchanged) {
      this.scheduleHeartbeat(group, member);
      respond(this.joinResponse(group, member, group.leaderId === newId));
    } else {
      member.awaitingJoin = respond;
      this.maybePrepareRebalance(group);
      this.maybeCompleteJoin(group);
    }
  }

  private joinKnownMember(group: Group, req: JoinRequest, respond: (r: JoinResult) => void): void {
    if (group.pendingMembers.has(req.memberId)) {
      this.timers.clearTimeout(group.pendingMembers.get(req.memberId));
      group.pendingMembers.delete(req.memberId);
      this.addMemberAndRebalance(group, req.memberId, req, respond);
      return;
    }
    const fenced = this.fencingError(group, req.memberId, req.groupInstanceId);
    if (fenced !== ErrorCode.NONE) {
      respond(joinError(req.memberId, fenced));
      return;
    }
    const member = group.members.get(req.memberId)!;
    switch (group.state) {
      case 'PreparingRebalance':
        this.updateMemberAndRebalance(group, member, req, respond);
        return;
      case 'CompletingRebalance':
        if (member.matches(req.protocols)) {
          // The member lost the join response: give it the same one again.
          this.scheduleHeartbeat(group, member);
          respond(this.joinResponse(group, member, group.leaderId === member.memberId));
        } else {
          this.updateMemberAndRebalance(group, member, req, respond);
        }
        return;
      case 'Stable':
        if (group.leaderId === member.memberId || !member.matches(req.protocols)) {
          this.updateMemberAndRebalance(group, member, req, respond);
        } else {
          this.scheduleHeartbeat(group, member);
          respond(this.joinResponse(group, member, false));
        }
        return;
      default:
        respond(joinError(req.memberId, ErrorCode.UNKNOWN_MEMBER_ID));
    }
  }

  /** NONE, UNKNOWN_MEMBER_ID or FENCED_INSTANCE_ID for a request naming memberId (and maybe an instance id). */
  private fencingError(group: Group, memberId: string, instanceId: string | null | undefined): number {
    if (instanceId) {
      const current = group.staticMembers.get(instanceId);
      if (current === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
      if (current !== memberId) return ErrorCode.FENCED_INSTANCE_ID;
    }
    return group.members.has(memberId) ? ErrorCode.NONE : ErrorCode.UNKNOWN_MEMBER_ID;
  }

  private addMemberAndRebalance(group: Group, memberId: string, req: JoinRequest, respond: (r: JoinResult) => void): void {
    const member = new Member(
      memberId,
      req.groupInstanceId,
      req.clientId,
      req.clientHost,
      req.rebalanceTimeoutMs,
      req.sessionTimeoutMs,
      req.protocolType,
      req.protocols,
    );
    member.awaitingJoin = respond;
    if (group.members.size === 0) group.protocolType = req.protocolType;
    group.members.set(memberId, member);
    if (req.groupInstanceId !== null) group.staticMembers.set(req.groupInstanceId, memberId);
    if (group.leaderId === null) group.leaderId = memberId;
    // A new member that never completes its join is dropped after its session timeout.
    this.scheduleHeartbeat(group, member);
    this.maybePrepareRebalance(group);
    this.maybeCompleteJoin(group);
  }

  private updateMemberAndRebalance(group: Group, member: Member, req: JoinRequest, respond: (r: JoinResult) => void): void {
    member.protocols = req.protocols;
    member.sessionTimeoutMs = req.sessionTimeoutMs;
    member.rebalanceTimeoutMs = req.rebalanceTimeoutMs;
    member.clientId = req.clientId;
    member.clientHost = req.clientHost;
    if (member.awaitingJoin) member.awaitingJoin(joinError(member.memberId, ErrorCode.REBALANCE_IN_PROGRESS));
    member.awaitingJoin = respond;
    this.scheduleHeartbeat(group, member);
    this.maybePrepareRebalance(group);
    this.maybeCompleteJoin(group);
  }

  private maybePrepareRebalance(group: Group): void {
    if (group.is('Stable') || group.is('CompletingRebalance') || group.is('Empty')) this.prepareRebalance(group);
  }

  private prepareRebalance(group: Group): void {
    if (group.is('CompletingRebalance')) {
      for (const m of group.members.values()) {
        m.awaitingSync?.(syncError(ErrorCode.REBALANCE_IN_PROGRESS));
        m.awaitingSync = null;
      }
    }
    this.timers.clearTimeout(group.syncTimer);
    group.syncTimer = null;
    const wasEmpty = group.is('Empty');
    this.transition(group, 'PreparingRebalance');
    this.timers.clearTimeout(group.rebalanceTimer);
    const timeout = wasEmpty && this.initialDelay > 0 ? this.initialDelay : group.rebalanceTimeoutMs();
    group.initialDelayPending = wasEmpty && this.initialDelay > 0;
    group.rebalanceTimer = this.timers.setTimeout(() => {
      group.rebalanceTimer = null;
      if (group.initialDelayPending) {
        group.initialDelayPending = false;
        if (!this.maybeCompleteJoin(group)) {
          group.rebalanceTimer = this.timers.setTimeout(
            () => {
              group.rebalanceTimer = null;
              this.completeJoin(group);
            },
            Math.max(0, group.rebalanceTimeoutMs() - this.initialDelay),
          );
        }
        return;
      }
      this.completeJoin(group);
    }, timeout);
  }

  private maybeCompleteJoin(group: Group): boolean {
    if (group.is('PreparingRebalance') && !group.initialDelayPending && group.hasAllMembersJoined()) {
      this.completeJoin(group);
      return true;
    }
    return false;
  }

  private completeJoin(group: Group): void {
    if (!group.is('PreparingRebalance')) return;
    this.timers.clearTimeout(group.rebalanceTimer);
    group.rebalanceTimer = null;
    // Dynamic members that did not rejoin in time are dropped; static ones are kept (KIP-345).
    for (const m of [...group.members.values()]) {
      if (!m.awaitingJoin && m.groupInstanceId === null) this.removeMember(group, m);
    }
    for (const [id, timer] of group.pendingMembers) {
      this.timers.clearTimeout(timer);
      group.pendingMembers.delete(id);
    }
    if (group.leaderId !== null && !group.members.get(group.leaderId)?.awaitingJoin) {
      const joined = [...group.members.values()].find((m) => m.awaitingJoin);
      group.leaderId = joined ? joined.memberId : (group.members.keys().next().value ?? null);
    }
    group.generationId++;
    if (group.members.size === 0) {
      group.protocolName = null;
      group.leaderId = null;
      this.transition(group, 'Empty');
      this.persistGroupQuietly(group); // as Kafka, nobody waits for it: a failure leaves the last stored generation
      return;
    }
    group.protocolName = group.selectProtocol();
    this.transition(group, 'CompletingRebalance');
    for (const m of group.members.values()) {
      const respond = m.awaitingJoin;
      m.awaitingJoin = null;
      this.scheduleHeartbeat(group, m);
      respond?.(this.joinResponse(group, m, m.memberId === group.leaderId));
    }
    // Members that never send SyncGroup are removed after the rebalance timeout.
    const generation = group.generationId;
    group.syncTimer = this.timers.setTimeout(() => {
      group.syncTimer = null;
      if (!group.is('CompletingRebalance') || group.generationId !== generation) return;
      for (const m of [...group.members.values()]) if (!m.awaitingSync) this.removeMember(group, m);
      if (group.members.size === 0) {
        this.transition(group, 'PreparingRebalance');
        this.completeJoin(group);
      } else {
        this.prepareRebalance(group);
        this.maybeCompleteJoin(group);
      }
    }, group.rebalanceTimeoutMs());
  }

  private joinResponse(group: Group, member: Member, isLeader: boolean): JoinResult {
    return {
      errorCode: ErrorCode.NONE,
      generationId: group.generationId,
      protocolType: group.protocolType,
      protocolName: group.protocolName,
      leader: group.leaderId ?? '',
      memberId: member.memberId,
      members: isLeader
        ? [...group.members.values()].map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId, metadata: m.metadataFor(group.protocolName!) }))
        : [],
    };
  }

  private transition(group: Group, state: Group['state']): void {
    group.state = state;
    group.currentStateTimestamp = this.timers.now();
  }

  // --- membership upkeep ---------------------------------------------------------------------------------

  private scheduleHeartbeat(group: Group, member: Member): void {
    this.timers.clearTimeout(member.heartbeatTimer);
    member.heartbeatTimer = this.timers.setTimeout(() => this.onSessionExpired(group, member), member.sessionTimeoutMs);
  }

  private onSessionExpired(group: Group, member: Member): void {
    member.heartbeatTimer = null;
    if (group.members.get(member.memberId) !== member) return;
    // A member parked in a join or sync is alive (Kafka's shouldKeepAlive); the rebalance timeout bounds the wait.
    if (member.awaitingJoin || member.awaitingSync) {
      this.scheduleHeartbeat(group, member);
      return;
    }
    this.removeMemberAndUpdateGroup(group, member);
  }

  private removeMember(group: Group, member: Member): void {
    this.timers.clearTimeout(member.heartbeatTimer);
    member.heartbeatTimer = null;
    member.awaitingJoin?.(joinError(member.memberId, ErrorCode.UNKNOWN_MEMBER_ID));
    member.awaitingJoin = null;
    member.awaitingSync?.(syncError(ErrorCode.UNKNOWN_MEMBER_ID));
    member.awaitingSync = null;
    group.members.delete(member.memberId);
    if (member.groupInstanceId !== null && group.staticMembers.get(member.groupInstanceId) === member.memberId) {
      group.staticMembers.delete(member.groupInstanceId);
    }
    if (group.leaderId === member.memberId) group.leaderId = group.members.keys().next().value ?? null;
  }

  private removeMemberAndUpdateGroup(group: Group, member: Member): void {
    this.removeMember(group, member);
    switch (group.state) {
      case 'Stable':
      case 'CompletingRebalance':
        this.prepareRebalance(group);
        this.maybeCompleteJoin(group);
        break;
      case 'PreparingRebalance':
        this.maybeCompleteJoin(group);
        break;
      default:
    }
  }

  // --- SyncGroup -----------------------------------------------------------------------------------------

  syncGroup(req: SyncRequest): Promise<SyncResult> {
    const group = this.groups.get(req.groupId);
    if (this.closed) return Promise.resolve(syncError(ErrorCode.COORDINATOR_NOT_AVAILABLE));
    if (!group) return Promise.resolve(syncError(ErrorCode.UNKNOWN_MEMBER_ID));
    if (group.is('Dead')) return Promise.resolve(syncError(ErrorCode.COORDINATOR_NOT_AVAILABLE));
    const fenced = this.fencingError(group, req.memberId, req.groupInstanceId);
    if (fenced !== ErrorCode.NONE) return Promise.resolve(syncError(fenced));
    if (req.generationId !== group.generationId) return Promise.resolve(syncError(ErrorCode.ILLEGAL_GENERATION));
    if ((req.protocolType !== null && req.protocolType !== group.protocolType) || (req.protocolName !== null && req.protocolName !== group.protocolName)) {
      return Promise.resolve(syncError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
    }
    const member = group.members.get(req.memberId)!;
    switch (group.state) {
      case 'PreparingRebalance':
        return Promise.resolve(syncError(ErrorCode.REBALANCE_IN_PROGRESS));
      case 'Stable':
        this.scheduleHeartbeat(group, member);
        return Promise.resolve(this.syncResponse(group, member));
      case 'CompletingRebalance':
        return new Promise((resolve) => {
          member.awaitingSync?.(syncError(ErrorCode.REBALANCE_IN_PROGRESS));
          member.awaitingSync = resolve;
          this.scheduleHeartbeat(group, member);
          if (req.memberId === group.leaderId) this.completeSync(group, req.assignments);
        });
      default:
        return Promise.resolve(syncError(ErrorCode.UNKNOWN_MEMBER_ID));
    }
  }

  private completeSync(group: Group, assignments: { memberId: string; assignment: Buffer }[]): void {
    const given = new Map(assignments.map((a) => [a.memberId, a.assignment]));
    for (const m of group.members.values()) m.assignment = given.get(m.memberId) ?? Buffer.alloc(0);
    let replicated: Promise<number> | null;
    try {
      this.persistGroup(group);
      replicated = this.store?.replicated?.(group.groupId) ?? null;
    } catch (err) {
      this.failSync(group, storeFailure(err));
      return;
    }
    if (!replicated) {
      this.finishSync(group);
      return;
    }
    // As Kafka's storeGroup callback: the members are answered once the ISR has the assignment, if the group
    // is still in that generation's CompletingRebalance (a rejoin or an unload meanwhile answered them).
    const generation = group.generationId;
    void replicated.then((code) => {
      if (!group.is('CompletingRebalance') || group.generationId !== generation || this.closed) return;
      const error = coordinatorWriteError(code);
      if (error !== ErrorCode.NONE) this.failSync(group, error);
      else this.finishSync(group);
    });
  }

  /** The assignment could not be stored: every waiting member gets the error and the group rebalances. */
  private failSync(group: Group, code: number): void {
    for (const m of group.members.values()) {
      m.awaitingSync?.(syncError(code));
      m.awaitingSync = null;
      m.assignment = Buffer.alloc(0);
    }
    this.prepareRebalance(group);
  }

  private finishSync(group: Group): void {
    this.timers.clearTimeout(group.syncTimer);
    group.syncTimer = null;
    this.transition(group, 'Stable');
    for (const m of group.members.values()) {
      const respond = m.awaitingSync;
      m.awaitingSync = null;
      respond?.(this.syncResponse(group, m));
    }
  }

  private syncResponse(group: Group, member: Member): SyncResult {
    return { errorCode: ErrorCode.NONE, protocolType: group.protocolType, protocolName: group.protocolName, assignment: member.assignment };
  }

  // --- Heartbeat / LeaveGroup ----------------------------------------------------------------------------

  heartbeat(groupId: string, memberId: string, groupInstanceId: string | null, generationId: number): number {
    if (this.closed) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    const group = this.groups.get(groupId);
    if (!group) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (group.is('Dead')) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    const fenced = this.fencingError(group, memberId, groupInstanceId);
    if (fenced !== ErrorCode.NONE) return fenced;
    if (group.is('Empty')) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (generationId !== group.generationId) return ErrorCode.ILLEGAL_GENERATION;
    this.scheduleHeartbeat(group, group.members.get(memberId)!);
    return group.is('PreparingRebalance') ? ErrorCode.REBALANCE_IN_PROGRESS : ErrorCode.NONE;
  }

  leaveGroup(
    groupId: string,
    leaving: { memberId: string; groupInstanceId: string | null }[],
  ): { errorCode: number; members: { memberId: string; groupInstanceId: string | null; errorCode: number }[] } {
    if (this.closed) return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, members: [] };
    const group = this.groups.get(groupId);
    if (!group) return { errorCode: ErrorCode.NONE, members: leaving.map((l) => ({ ...l, errorCode: ErrorCode.UNKNOWN_MEMBER_ID })) };
    if (group.is('Dead')) return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, members: [] };
    const results = leaving.map((l) => {
      let code: number = ErrorCode.NONE;
      let member: Member | undefined;
      if (l.groupInstanceId) {
        const current = group.staticMembers.get(l.groupInstanceId);
        if (current === undefined) code = ErrorCode.UNKNOWN_MEMBER_ID;
        else if (l.memberId !== '' && l.memberId !== current) code = ErrorCode.FENCED_INSTANCE_ID;
        else member = group.members.get(current);
      } else if (group.pendingMembers.has(l.memberId)) {
        this.timers.clearTimeout(group.pendingMembers.get(l.memberId));
        group.pendingMembers.delete(l.memberId);
        if (group.is('PreparingRebalance')) this.maybeCompleteJoin(group);
        return { ...l, errorCode: ErrorCode.NONE };
      } else {
        member = group.members.get(l.memberId);
      }
      if (code === ErrorCode.NONE && !member) code = ErrorCode.UNKNOWN_MEMBER_ID;
      if (member) this.removeMemberAndUpdateGroup(group, member);
      return { ...l, errorCode: code };
    });
    return { errorCode: ErrorCode.NONE, members: results };
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
    this.transition(group, 'Dead');
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
      this.stopGroup(group, ErrorCode.NOT_COORDINATOR);
      this.transition(group, 'Dead');
      this.groups.delete(group.groupId);
    }
    this.offsets.unloadPending(inPartition);
  }

  /** Stops the group's timers and answers its members' waiting requests with `code`. */
  private stopGroup(group: Group, code: number): void {
    this.timers.clearTimeout(group.rebalanceTimer);
    group.rebalanceTimer = null;
    this.timers.clearTimeout(group.syncTimer);
    group.syncTimer = null;
    for (const [, t] of group.pendingMembers) this.timers.clearTimeout(t);
    group.pendingMembers.clear();
    for (const m of group.members.values()) {
      this.timers.clearTimeout(m.heartbeatTimer);
      m.heartbeatTimer = null;
      m.awaitingJoin?.(joinError(m.memberId, code));
      m.awaitingJoin = null;
      m.awaitingSync?.(syncError(code));
      m.awaitingSync = null;
    }
  }

  // --- persistence ---------------------------------------------------------------------------------------

  private persistGroup(group: Group): void {
    this.store?.append(group.groupId, [groupMetadataRecord(group)]);
  }

  /**
   * persistGroup where a failure must not escape (completeJoin runs from timers too): NONE, or the code a
   * waiting request gets (in a cluster the append is refused once leadership moved or the ISR is too small).
   */
  private persistGroupQuietly(group: Group): number {
    try {
      this.persistGroup(group);
      return ErrorCode.NONE;
    } catch (err) {
      return storeFailure(err);
    }
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
    for (const group of this.groups.values()) this.stopGroup(group, ErrorCode.COORDINATOR_NOT_AVAILABLE);
  }
}
