// Where topics are created, grown, configured and deleted, and which brokers their replicas go to: the one
// decision TopicAdmin leaves to the kind of broker it runs in. On a single broker (LocalTopicStore, here)
// the broker's own logs are the store and every change is made at once; in a cluster
// (cluster/cluster-topic-store.ts) changes go through ZooKeeper and the controller, and resolve once this
// broker's metadata shows them. TopicAdmin checks every request the same way before either is asked.

import type { Logger } from './logger.js';
import type { LogManager, TopicInfo } from './storage/log-manager.js';
import type { ReplicaManager } from './partition/replica-manager.js';
import type { Partition } from './partition/partition.js';

/** A checked topic creation (TopicAdmin.checkNewTopic): what will be created. */
export interface CheckedTopic {
  partitions: number;
  replicationFactor: number;
  configs: Record<string, string>;
  /** Replica lists by partition, when the request gave them. */
  assignment: number[][] | null;
}

/** An internal topic's own creation (here on a single broker), with its partition count and configs. */
export interface InternalTopics {
  ensureTopic(): void;
  readonly numPartitions: number;
  readonly topicConfigs: Record<string, string>;
}

export interface TopicStore {
  /** The brokers replicas may be placed on: the live ones of a cluster, this one alone otherwise. */
  brokerIds(): number[];
  /** Whether the store has the topic; a cluster's local logs may hold one still on its way in or out. */
  has(name: string): boolean;
  /** The topic's replication factor: its first partition's replica count. */
  replicationFactor(name: string): number;
  /** The partition's replicas as the store has them. */
  replicas(name: string, partition: number): readonly number[];
  /** Creates a checked topic; returns its id (REQUEST_TIMED_OUT after `timeoutMs` when still under way). */
  create(name: string, checked: CheckedTopic, timeoutMs: number): Promise<Buffer>;
  /**
   * A creation no client waits for (a topic named in Metadata, auto-created): true when made at once, false
   * when under way (the client is told LEADER_NOT_AVAILABLE and asks again).
   */
  createUnawaited(name: string, checked: CheckedTopic): boolean;
  /** An internal topic, created for its coordinator; throws COORDINATOR_NOT_AVAILABLE while it cannot be used yet. */
  ensureInternal(name: string, internal: InternalTopics, replicationFactor: { config: string; value: number }): void;
  /** Grows a checked topic to `count` partitions, the new ones on `assignments` or placed by the store. */
  addPartitions(topic: TopicInfo, count: number, assignments: number[][] | null, timeoutMs: number): Promise<void>;
  /** Writes a topic's overrides where every broker reads them (before this broker's logs take them). */
  shareConfigs(name: string, configs: Record<string, string>): Promise<void>;
  /** Deletes a topic and its data. */
  delete(topic: TopicInfo, timeoutMs: number): Promise<void>;
}

/** A single broker's topics: its own logs, changed at once; it holds every replica itself. */
export class LocalTopicStore implements TopicStore {
  constructor(
    private readonly logs: LogManager,
    private readonly partitions: ReplicaManager,
    private readonly log: Logger,
  ) {}

  brokerIds(): number[] {
    return [this.partitions.localNodeId];
  }

  has(name: string): boolean {
    return this.logs.getTopic(name) !== undefined;
  }

  replicationFactor(): number {
    return 1;
  }

  replicas(): readonly number[] {
    return [this.partitions.localNodeId];
  }

  async create(name: string, checked: CheckedTopic): Promise<Buffer> {
    return this.logs.createTopic(name, checked.partitions, checked.configs).topicId;
  }

  createUnawaited(name: string, checked: CheckedTopic): boolean {
    this.logs.createTopic(name, checked.partitions, checked.configs);
    this.log.info({ topic: name, partitions: checked.partitions }, 'auto-created topic');
    return true;
  }

  ensureInternal(_name: string, internal: InternalTopics): void {
    internal.ensureTopic();
  }

  async addPartitions(topic: TopicInfo, count: number): Promise<void> {
    this.logs.addPartitions(topic.name, count);
  }

  /** A single broker's topic configs live in its own logs alone (TopicAdmin sets them there). */
  async shareConfigs(): Promise<void> {}

  async delete(topic: TopicInfo): Promise<void> {
    const removed: Partition[] = [];
    for (let p = 0; p < topic.partitions; p++) {
      const partition = this.partitions.partition(topic.name, p);
      if (partition) removed.push(partition);
    }
    try {
      this.logs.deleteTopic(topic.name);
    } finally {
      // Even when removing the files failed partway: the logs are closed, their readers must not wait.
      this.partitions.partitionsRemoved(removed);
    }
  }
}
