// What a broker of a cluster knows of the whole of it, as Kafka's ZooKeeper-mode MetadataCache: the live
// brokers and their endpoints, the controller, every partition's leader, replicas and ISR. Only the
// controller's UpdateMetadata changes it; Metadata, FindCoordinator and DescribeCluster read it.

import type { BrokerEndpoint, PartitionMetadata } from './cluster-view.js';

/** Kafka's LeaderDuringDelete: UpdateMetadata names a topic being deleted with this leader. */
export const LEADER_DURING_DELETE = -2;

/** One partition of an UpdateMetadata request, in krill's names for the schema's fields. */
export interface PartitionStateUpdate {
  partitionIndex: number;
  leader: number;
  leaderEpoch: number;
  isr: number[];
  replicas: number[];
  offlineReplicas: number[];
}

export interface TopicStateUpdate {
  topicName: string;
  topicId: Buffer;
  partitionStates: PartitionStateUpdate[];
}

export interface CachedTopic {
  topicId: Buffer;
  partitions: Map<number, PartitionMetadata>;
}

export class MetadataCache {
  private liveBrokers = new Map<number, BrokerEndpoint>();
  private readonly topics = new Map<string, CachedTopic>();
  controllerId = -1;
  /** The controller epoch of the last update applied: older controllers are ignored (STALE_CONTROLLER_EPOCH). */
  controllerEpoch = -1;
  /** Calls waiting for a change (topic creation waits for its leaders). */
  private readonly waiters = new Set<() => void>();

  /** Applies an UpdateMetadata: every live broker, and the partitions it names (deleted ones go). */
  update(controllerId: number, controllerEpoch: number, brokers: BrokerEndpoint[], topics: TopicStateUpdate[]): void {
    this.controllerId = controllerId;
    this.controllerEpoch = controllerEpoch;
    this.liveBrokers = new Map(brokers.map((b) => [b.nodeId, b]));
    for (const t of topics) {
      let topic = this.topics.get(t.topicName);
      if (!topic || !topic.topicId.equals(t.topicId)) {
        topic = { topicId: Buffer.from(t.topicId), partitions: new Map() };
        this.topics.set(t.topicName, topic);
      }
      for (const p of t.partitionStates) {
        if (p.leader === LEADER_DURING_DELETE) {
          topic.partitions.delete(p.partitionIndex);
          continue;
        }
        topic.partitions.set(p.partitionIndex, {
          leaderId: p.leader,
          leaderEpoch: p.leaderEpoch,
          replicas: p.replicas,
          isr: p.isr,
          offlineReplicas: p.offlineReplicas,
        });
      }
      if (topic.partitions.size === 0) this.topics.delete(t.topicName);
    }
    for (const wake of [...this.waiters]) wake();
  }

  brokers(): BrokerEndpoint[] {
    return [...this.liveBrokers.values()].sort((a, b) => a.nodeId - b.nodeId);
  }

  broker(id: number): BrokerEndpoint | undefined {
    return this.liveBrokers.get(id);
  }

  liveBrokerIds(): number[] {
    return this.brokers().map((b) => b.nodeId);
  }

  topic(name: string): CachedTopic | undefined {
    return this.topics.get(name);
  }

  topicNames(): string[] {
    return [...this.topics.keys()];
  }

  /** The partition with its leader unset (-1) when that broker is not alive, as Kafka's cache answers. */
  partition(topic: string, index: number): PartitionMetadata | undefined {
    const p = this.topics.get(topic)?.partitions.get(index);
    if (!p) return undefined;
    return this.liveBrokers.has(p.leaderId) ? p : { ...p, leaderId: -1 };
  }

  /**
   * Resolves once `ready()` holds after an update, or with false at the timeout or abort. The condition is
   * checked at once and after each update.
   */
  waitFor(ready: () => boolean, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    if (ready()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (result: boolean) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        signal?.removeEventListener('abort', aborted);
        resolve(result);
      };
      const check = () => {
        if (ready()) done(true);
      };
      const aborted = () => done(false);
      const timer = setTimeout(() => done(false), Math.max(0, timeoutMs));
      this.waiters.add(check);
      signal?.addEventListener('abort', aborted, { once: true });
    });
  }
}
