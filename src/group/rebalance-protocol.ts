// The classic rebalance protocol of a group (Kafka's GroupCoordinator, classic side): JoinGroup, SyncGroup,
// Heartbeat and LeaveGroup, and the timers that move a group through its states.
//
// Membership: JoinGroup without a member id gets MEMBER_ID_REQUIRED and a generated id (v4+, KIP-394);
// a rebalance (PreparingRebalance) completes when every known member has rejoined or the largest
// rebalance timeout passes (members that did not rejoin are dropped, static ones kept); the first member
// is the leader; the protocol is chosen by the members' preference votes among the protocols all support.
// CompletingRebalance waits for the leader's SyncGroup; followers' SyncGroups wait for it too. Every
// member has a session timer, reset by heartbeats, joins, syncs and commits; its expiry removes the
// member and rebalances. Static members (KIP-345) rejoining with a known group.instance.id take over the
// old member id's place, without a rebalance when their protocols are unchanged; a stale id is FENCED.
// Group metadata is written to __consumer_offsets (through the store) at each new generation; SyncGroup's
// assignment is answered once the in-sync replicas have it (the store's replicated()).
import { randomUUID } from '../storage/random.js';
import { ErrorCode } from '../../protocol/errors.js';
import { Group, Member, type JoinResult, type Protocol, type SyncResult } from './group.js';
import { groupMetadataRecord } from './records.js';
import { storeFailure } from './offsets.js';
import { coordinatorWriteError } from './replicated-write.js';
import type { CoordinatorStore, Timers } from './store.js';
import { brokerConfigDefault } from '../config.js';

export interface RebalanceOptions {
  minSessionTimeoutMs?: number;
  maxSessionTimeoutMs?: number;
  initialRebalanceDelayMs?: number;
}

/** What the rebalance protocol needs of the coordinator that owns the groups. */
export interface RebalanceHost {
  readonly groups: Map<string, Group>;
  readonly store: CoordinatorStore | null;
  readonly timers: Timers;
  isClosed(): boolean;
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

export interface LeaveResult {
  errorCode: number;
  members: { memberId: string; groupInstanceId: string | null; errorCode: number }[];
}

function joinError(memberId: string, code: number): JoinResult {
  return { errorCode: code, generationId: -1, protocolType: null, protocolName: null, leader: '', memberId, members: [] };
}

function syncError(code: number): SyncResult {
  return { errorCode: code, protocolType: null, protocolName: null, assignment: Buffer.alloc(0) };
}

/** Answers the member's waiting JoinGroup and SyncGroup, if any, with `code`. */
function answerWaiting(member: Member, code: number): void {
  member.awaitingJoin?.(joinError(member.memberId, code));
  member.awaitingJoin = null;
  member.awaitingSync?.(syncError(code));
  member.awaitingSync = null;
}

function newMember(memberId: string, req: JoinRequest): Member {
  return new Member(memberId, req.groupInstanceId, req.clientId, req.clientHost, req.rebalanceTimeoutMs, req.sessionTimeoutMs, req.protocolType, req.protocols);
}

export class RebalanceProtocol {
  private readonly minSession: number;
  private readonly maxSession: number;
  private readonly initialDelay: number;

  constructor(
    private readonly host: RebalanceHost,
    options: RebalanceOptions,
  ) {
    this.minSession = options.minSessionTimeoutMs ?? brokerConfigDefault('group.min.session.timeout.ms');
    this.maxSession = options.maxSessionTimeoutMs ?? brokerConfigDefault('group.max.session.timeout.ms');
    this.initialDelay = options.initialRebalanceDelayMs ?? brokerConfigDefault('group.initial.rebalance.delay.ms');
  }

  // --- JoinGroup -----------------------------------------------------------------------------------------

  joinGroup(req: JoinRequest): Promise<JoinResult> {
    if (this.host.isClosed()) return Promise.resolve(joinError(req.memberId, ErrorCode.COORDINATOR_NOT_AVAILABLE));
    if (!req.groupId) return Promise.resolve(joinError(req.memberId, ErrorCode.INVALID_GROUP_ID));
    if (req.sessionTimeoutMs < this.minSession || req.sessionTimeoutMs > this.maxSession) {
      return Promise.resolve(joinError(req.memberId, ErrorCode.INVALID_SESSION_TIMEOUT));
    }
    const unknown = req.memberId === '';
    let group = this.host.groups.get(req.groupId);
    if (!group) {
      if (!unknown) return Promise.resolve(joinError(req.memberId, ErrorCode.UNKNOWN_MEMBER_ID));
      group = new Group(req.groupId);
      this.host.groups.set(req.groupId, group);
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
        this.host.groups.delete(group.groupId);
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
      const timer = this.host.timers.setTimeout(() => {
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
    answerWaiting(old, ErrorCode.FENCED_INSTANCE_ID);
    this.host.timers.clearTimeout(old.heartbeatTimer);
    const member = newMember(newId, req);
    member.assignment = old.assignment;
    group.replaceStaticMember(oldId, member);
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
      this.host.timers.clearTimeout(group.pendingMembers.get(req.memberId));
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
    const member = newMember(memberId, req);
    member.awaitingJoin = respond;
    group.add(member);
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
    this.host.timers.clearTimeout(group.syncTimer);
    group.syncTimer = null;
    const wasEmpty = group.is('Empty');
    group.transitionTo('PreparingRebalance', this.host.timers.now());
    this.host.timers.clearTimeout(group.rebalanceTimer);
    const timeout = wasEmpty && this.initialDelay > 0 ? this.initialDelay : group.rebalanceTimeoutMs();
    group.initialDelayPending = wasEmpty && this.initialDelay > 0;
    group.rebalanceTimer = this.host.timers.setTimeout(() => {
      group.rebalanceTimer = null;
      if (group.initialDelayPending) {
        group.initialDelayPending = false;
        if (!this.maybeCompleteJoin(group)) {
          group.rebalanceTimer = this.host.timers.setTimeout(
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
    this.host.timers.clearTimeout(group.rebalanceTimer);
    group.rebalanceTimer = null;
    // Dynamic members that did not rejoin in time are dropped; static ones are kept (KIP-345).
    for (const m of [...group.members.values()]) {
      if (!m.awaitingJoin && m.groupInstanceId === null) this.removeMember(group, m);
    }
    for (const [id, timer] of group.pendingMembers) {
      this.host.timers.clearTimeout(timer);
      group.pendingMembers.delete(id);
    }
    group.maybeElectNewJoinedLeader();
    group.initNextGeneration(this.host.timers.now());
    if (group.is('Empty')) {
      this.persistGroupQuietly(group); // as Kafka, nobody waits for it: a failure leaves the last stored generation
      return;
    }
    for (const m of group.members.values()) {
      const respond = m.awaitingJoin;
      m.awaitingJoin = null;
      this.scheduleHeartbeat(group, m);
      respond?.(this.joinResponse(group, m, m.memberId === group.leaderId));
    }
    // Members that never send SyncGroup are removed after the rebalance timeout.
    const generation = group.generationId;
    group.syncTimer = this.host.timers.setTimeout(() => {
      group.syncTimer = null;
      if (!group.is('CompletingRebalance') || group.generationId !== generation) return;
      for (const m of [...group.members.values()]) if (!m.awaitingSync) this.removeMember(group, m);
      if (group.members.size === 0) {
        group.transitionTo('PreparingRebalance', this.host.timers.now());
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

  // --- membership upkeep ---------------------------------------------------------------------------------

  /** Resets the member's session timer: a heartbeat, join, sync or commit shows it alive. */
  scheduleHeartbeat(group: Group, member: Member): void {
    this.host.timers.clearTimeout(member.heartbeatTimer);
    member.heartbeatTimer = this.host.timers.setTimeout(() => this.onSessionExpired(group, member), member.sessionTimeoutMs);
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
    this.host.timers.clearTimeout(member.heartbeatTimer);
    member.heartbeatTimer = null;
    answerWaiting(member, ErrorCode.UNKNOWN_MEMBER_ID);
    group.remove(member);
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
    const group = this.host.groups.get(req.groupId);
    if (this.host.isClosed()) return Promise.resolve(syncError(ErrorCode.COORDINATOR_NOT_AVAILABLE));
    if (!req.groupId) return Promise.resolve(syncError(ErrorCode.INVALID_GROUP_ID));
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
      replicated = this.host.store?.replicated?.(group.groupId) ?? null;
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
      if (!group.is('CompletingRebalance') || group.generationId !== generation || this.host.isClosed()) return;
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
    this.host.timers.clearTimeout(group.syncTimer);
    group.syncTimer = null;
    group.transitionTo('Stable', this.host.timers.now());
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
    if (this.host.isClosed()) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    if (!groupId) return ErrorCode.INVALID_GROUP_ID;
    const group = this.host.groups.get(groupId);
    if (!group) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (group.is('Dead')) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    const fenced = this.fencingError(group, memberId, groupInstanceId);
    if (fenced !== ErrorCode.NONE) return fenced;
    if (group.is('Empty')) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (generationId !== group.generationId) return ErrorCode.ILLEGAL_GENERATION;
    this.scheduleHeartbeat(group, group.members.get(memberId)!);
    return group.is('PreparingRebalance') ? ErrorCode.REBALANCE_IN_PROGRESS : ErrorCode.NONE;
  }

  leaveGroup(groupId: string, leaving: { memberId: string; groupInstanceId: string | null }[]): LeaveResult {
    if (this.host.isClosed()) return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, members: [] };
    if (!groupId) return { errorCode: ErrorCode.INVALID_GROUP_ID, members: [] };
    const group = this.host.groups.get(groupId);
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
        this.host.timers.clearTimeout(group.pendingMembers.get(l.memberId));
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

  /** Stops the group's timers and answers its members' waiting requests with `code`. */
  stopGroup(group: Group, code: number): void {
    this.host.timers.clearTimeout(group.rebalanceTimer);
    group.rebalanceTimer = null;
    this.host.timers.clearTimeout(group.syncTimer);
    group.syncTimer = null;
    for (const [, t] of group.pendingMembers) this.host.timers.clearTimeout(t);
    group.pendingMembers.clear();
    for (const m of group.members.values()) {
      this.host.timers.clearTimeout(m.heartbeatTimer);
      m.heartbeatTimer = null;
      answerWaiting(m, code);
    }
  }

  // --- persistence ---------------------------------------------------------------------------------------

  private persistGroup(group: Group): void {
    this.host.store?.append(group.groupId, [groupMetadataRecord(group)]);
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
}
