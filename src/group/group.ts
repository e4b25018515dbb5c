// A classic consumer group and its members (Kafka's GroupMetadata / MemberMetadata).
// States: Empty → PreparingRebalance → CompletingRebalance → Stable, and Dead once deleted.
import { ConsumerProtocolSubscription } from '../../protocol/data/consumer-protocol.js';
import { readVersioned } from '../../protocol/data/versioned.js';

export type GroupState = 'Empty' | 'PreparingRebalance' | 'CompletingRebalance' | 'Stable' | 'Dead';

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

export class Group {
  state: GroupState = 'Empty';
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

  constructor(readonly groupId: string) {}

  is(state: GroupState): boolean {
    return this.state === state;
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
