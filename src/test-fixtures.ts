// What a test suite asks of its embedded broker besides the Kafka protocol (startBroker()'s handle):
// topics made before the clients start, and waits on a consumer group's state that end on the group's own
// state changes, not on a poll or a sleep.
import type { Group } from './group/group.js';
import type { GroupCoordinator } from './group/coordinator.js';
import type { TopicAdmin } from './topics.js';
import { ConsumerProtocolAssignment } from '../protocol/data/consumer-protocol.js';
import { readVersioned } from '../protocol/data/versioned.js';

export interface TopicSpec {
  name: string;
  /** Default: num.partitions. */
  partitions?: number;
  /** Default: default.replication.factor. */
  replicationFactor?: number;
  /** Topic configs by Kafka's names, e.g. { 'cleanup.policy': 'compact' }. */
  configs?: Record<string, string>;
}

export interface GroupMemberSummary {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  /** A consumer's partitions by topic, from its assignment (empty for other protocol types). */
  assignment: Record<string, number[]>;
}

export interface GroupSummary {
  groupId: string;
  state: string;
  generationId: number;
  protocolType: string | null;
  protocol: string | null;
  members: GroupMemberSummary[];
}

/** Creates each topic as CreateTopics would, with its checks; rejects with the KafkaError of the first refused. */
export async function createTopics(topics: TopicAdmin, specs: readonly (string | TopicSpec)[], timeoutMs = 30_000): Promise<void> {
  for (const spec of specs) {
    const { name, partitions = -1, replicationFactor = -1, configs = {} } = typeof spec === 'string' ? { name: spec } : spec;
    const checked = topics.checkNewTopic({ name, numPartitions: partitions, replicationFactor, configs });
    await topics.createTopic(name, checked, timeoutMs);
  }
}

function assignmentOf(group: Group, assignment: Buffer): Record<string, number[]> {
  if (group.protocolType !== 'consumer' || assignment.length === 0) return {};
  try {
    const decoded = readVersioned(ConsumerProtocolAssignment, assignment);
    return Object.fromEntries(decoded.assignedPartitions.map((tp) => [tp.topic, [...tp.partitions]]));
  } catch {
    return {}; // a client's own assignment format
  }
}

export function summariseGroup(group: Group): GroupSummary {
  return {
    groupId: group.groupId,
    state: group.state,
    generationId: group.generationId,
    protocolType: group.protocolType,
    protocol: group.protocolName,
    members: [...group.members.values()].map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      assignment: assignmentOf(group, m.assignment),
    })),
  };
}

export interface GroupWait {
  /** Wait for this many members too. */
  members?: number;
  /** Reject after this long (default 30 s), naming the state the group was in. */
  timeoutMs?: number;
}

/**
 * Resolves with the group once it is Stable (with `members` members, if given): at once if it is, else on the
 * state change that makes it so.
 */
export function waitForGroupStable(groups: GroupCoordinator, groupId: string, options: GroupWait = {}): Promise<GroupSummary> {
  const wanted = (group: Group | undefined) => group?.is('Stable') && (options.members === undefined || group.members.size === options.members);
  const current = groups.group(groupId);
  if (wanted(current)) return Promise.resolve(summariseGroup(current!));
  return new Promise((resolve, reject) => {
    const stop = groups.onGroupState((group) => {
      if (group.groupId !== groupId || !wanted(group)) return;
      finish();
      resolve(summariseGroup(group));
    });
    const timeoutMs = options.timeoutMs ?? 30_000;
    const timer = setTimeout(() => {
      finish();
      const group = groups.group(groupId);
      const now = group ? `${group.state} with ${group.members.size} member(s)` : 'unknown to the coordinator';
      const goal = options.members === undefined ? 'Stable' : `Stable with ${options.members} member(s)`;
      reject(new Error(`group ${groupId} was not ${goal} within ${timeoutMs} ms: it is ${now}`));
    }, timeoutMs);
    const finish = () => {
      clearTimeout(timer);
      stop();
    };
  });
}
