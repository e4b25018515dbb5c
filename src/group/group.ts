// A classic consumer group and its members (Kafka's GroupMetadata / MemberMetadata).
// States: Empty → PreparingRebalance → CompletingRebalance → Stable, and Dead once deleted.
import { ConsumerProtocolSubscription } from '../../protocol/data/consumer-protocol.js';
import { readVersioned } from '../../protocol/data/versioned.js';

export type GroupState = 'Empty' | 'PreparingRebalance' | 'CompletingRebalance' | 'Stable' | 'Dead';

/** Kafka's GroupState.validPreviousStates: the states each one may be entered from. */
const VALID_PREVIOUS_STATES: Readonly<Record<GroupState, readonly GroupState[]>> = {
  Empty: ['PreparingRebalance'],
  PreparingRebalance: ['Stable', 'CompletingRebalance', 'Empty'],
  CompletingRebalance: ['PreparingRebalance'],
  Stable: ['CompletingRebalance'],
  Dead: ['Stable', 'PreparingRebalance', 'CompletingRebalance', 'Empty', 'Dead'],
};

export interface JoinResult {
  errorCode: number;
  generationId: number;
  protocolType: string | null;
  protocolName: string | null;
  leader: string;
  memberId: string;
  members: { memberId: string; groupInstanceId: string | null; metadata: Buffer }[];
}

export interface SyncResult {
  errorCode: number;
  protocolType: string | null;
  protocolName: string | null;
  assignment: Buffer;
}

export interface Protocol {
  name: string;
  metadata: Buffer;
}

export class Member {
  assignment: Buffer = Buffer.alloc(0);
  /** Set while a JoinGroup waits for the rebalance to complete. */
  awaitingJoin: ((r: JoinResult) => void) | null = null;
  /** Set while a SyncGroup waits for the leader's assignment. */
  awaitingSync: ((r: SyncResult) => void) | null = null;
  heartbeatTimer: unknown = null;

  constructor(
    public memberId: string,
    public groupInstanceId: string | null,
    public clientId: string,
    public clientHost: string,
    public rebalanceTimeoutMs: number,
    public sessionTimeoutMs: number,
    public protocolType: string,
    public protocols: Protocol[],
  ) {}

  metadataFor(protocol: string): Buffer {
    return this.protocols.find((p) => p.name === protocol)?.metadata ?? Buffer.alloc(0);
  }

  /** Same protocols with the same metadata, in the same order. */
  matches(protocols: Protocol[]): boolean {
    return (
      protocols.length === this.protocols.length &&
      protocols.every((p, i) => p.name === this.protocols[i].name && p.metadata.equals(this.protocols[i].metadata))
    );
  }
}

export interface CommittedOffset {
  offset: number;
  leaderEpoch: number;
  metadata: string;
  commitTimestamp: number;
  /** Only from OffsetCommitValue v1 records (-1 or absent otherwise): the old per-offset expiry time. */
  expireTimestamp?: number;
}

/**
 * The groups a coordinator serves, by id. Every group is put here by whoever makes it (a join, a commit, a
 * load), so this is where each is given the listener of its state changes.
 */
export class GroupTable extends Map<string, Group> {
  private readonly listeners = new Set<(group: Group) => void>();
  private readonly notify = (group: Group) => {
    for (const listener of this.listeners) listener(group);
  };

  override set(groupId: string, group: Group): this {
    group.onStateChange = this.notify;
    return super.set(groupId, group);
  }

  /** Calls `listener` with each group that enters a state; returns what stops it. */
  onStateChange(listener: (group: Group) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

export class Group {
  private currentState: GroupState = 'Empty';
  generationId = 0;
  protocolType: string | null = null;
  protocolName: string | null = null;
  leaderId: string | null = null;
  readonly members = new Map<string, Member>();
  /** KIP-394: member ids handed out with MEMBER_ID_REQUIRED, not yet joined; value = expiry timer. */
  readonly pendingMembers = new Map<string, unknown>();
  readonly staticMembers = new Map<string, string>();
  /** "topic\0partition" → offset */
  readonly offsets = new Map<string, CommittedOffset>();
  rebalanceTimer: unknown = null;
  syncTimer: unknown = null;
  /** Set when the next join completion must wait for the initial rebalance delay to pass. */
  initialDelayPending = false;
  currentStateTimestamp = -1;
  /** Told of every state the group enters: the coordinator's group table sets it (see GroupTable). */
  onStateChange: ((group: Group) => void) | null = null;

  constructor(readonly groupId: string) {}

  get state(): GroupState {
    return this.currentState;
  }

  is(state: GroupState): boolean {
    return this.currentState === state;
  }

  /**
   * As Kafka's GroupMetadata.transitionTo: a move from a state the target may not follow is a coordinator
   * bug, not a client's error, so it throws rather than answer anything.
   */
  transitionTo(state: GroupState, now: number): void {
    if (!VALID_PREVIOUS_STATES[state].includes(this.currentState)) {
      throw new Error(`group ${this.groupId}: illegal transition ${this.currentState} -> ${state}`);
    }
    this.currentState = state;
    this.currentStateTimestamp = now;
    this.onStateChange?.(this);
  }

  /** As Kafka's GroupMetadata.add: the first member sets the protocol type and leads until one is chosen. */
  add(member: Member): void {
    if (this.members.size === 0) this.protocolType = member.protocolType;
    this.members.set(member.memberId, member);
    if (member.groupInstanceId !== null) this.staticMembers.set(member.groupInstanceId, member.memberId);
    if (this.leaderId === null) this.leaderId = member.memberId;
  }

  /** A static member's new incarnation takes the old member id's place, its leadership included. */
  replaceStaticMember(oldId: string, member: Member): void {
    this.members.delete(oldId);
    this.members.set(member.memberId, member);
    this.staticMembers.set(member.groupInstanceId!, member.memberId);
    if (this.leaderId === oldId) this.leaderId = member.memberId;
  }

  /** As Kafka's GroupMetadata.remove: a leader that leaves hands the role on to the first member left. */
  remove(member: Member): void {
    this.members.delete(member.memberId);
    if (member.groupInstanceId !== null && this.staticMembers.get(member.groupInstanceId) === member.memberId) {
      this.staticMembers.delete(member.groupInstanceId);
    }
    if (this.leaderId === member.memberId) this.leaderId = this.members.keys().next().value ?? null;
  }

  /** A leader that did not rejoin hands the role to one that did (or, none having, to the first member). */
  maybeElectNewJoinedLeader(): void {
    if (this.leaderId === null || this.members.get(this.leaderId)?.awaitingJoin) return;
    const joined = [...this.members.values()].find((m) => m.awaitingJoin);
    this.leaderId = joined ? joined.memberId : (this.members.keys().next().value ?? null);
  }

  /** The join phase is over: the next generation, CompletingRebalance with a protocol, or Empty without members. */
  initNextGeneration(now: number): void {
    this.generationId++;
    if (this.members.size === 0) {
      this.protocolName = null;
      this.leaderId = null;
      this.transitionTo('Empty', now);
    } else {
      this.protocolName = this.selectProtocol();
      this.transitionTo('CompletingRebalance', now);
    }
  }

  hasAllMembersJoined(): boolean {
    for (const m of this.members.values()) if (!m.awaitingJoin) return false;
    return this.pendingMembers.size === 0;
  }

  rebalanceTimeoutMs(): number {
    let max = 0;
    for (const m of this.members.values()) max = Math.max(max, m.rebalanceTimeoutMs);
    return max;
  }

  /** Protocols every member supports. */
  candidateProtocols(): string[] {
    const all = [...this.members.values()];
    if (all.length === 0) return [];
    return all[0].protocols.map((p) => p.name).filter((name) => all.every((m) => m.protocols.some((p) => p.name === name)));
  }

  supportsProtocols(protocolType: string, protocols: Protocol[]): boolean {
    if (this.members.size === 0) return protocolType.length > 0 && protocols.length > 0;
    if (this.protocolType !== protocolType) return false;
    const candidates = new Set(this.candidateProtocols());
    return protocols.some((p) => candidates.has(p.name));
  }

  /** Kafka's selectProtocol: each member votes for its most preferred candidate; most votes wins. */
  selectProtocol(): string {
    const candidates = this.candidateProtocols();
    const votes = new Map<string, number>();
    for (const m of this.members.values()) {
      const vote = m.protocols.find((p) => candidates.includes(p.name))!.name;
      votes.set(vote, (votes.get(vote) ?? 0) + 1);
    }
    let best = candidates[0];
    for (const c of candidates) if ((votes.get(c) ?? 0) > (votes.get(best) ?? 0)) best = c;
    return best;
  }

  /**
   * Topics the members subscribe to, for the consumer protocol (OffsetDelete, offset expiry); null if unknown:
   * another protocol type, or a subscription that does not parse (Kafka then treats the topics as unknown too).
   */
  subscribedTopics(): Set<string> | null {
    if (this.protocolType !== 'consumer' || !this.protocolName) return null;
    const topics = new Set<string>();
    for (const m of this.members.values()) {
      try {
        for (const topic of readVersioned(ConsumerProtocolSubscription, m.metadataFor(this.protocolName)).topics) topics.add(topic);
      } catch {
        return null;
      }
    }
    return topics;
  }
}
