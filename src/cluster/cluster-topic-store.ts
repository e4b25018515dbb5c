// A cluster's topics (see topic-store.ts): written to ZooKeeper, made by the controller, and known to this
// broker once its metadata names them. Replicas are placed on the live brokers as Kafka places them.

import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import type { Logger } from '../logger.js';
import type { LogManager, TopicInfo } from '../storage/log-manager.js';
import type { CheckedTopic, InternalTopics, TopicStore } from '../topic-store.js';
import type { PartitionMetadata } from './cluster-view.js';
import { assignReplicas } from './replica-placement.js';

/** What the store asks of the cluster (ZkCluster): its metadata, and the changes made through ZooKeeper. */
export interface ClusterTopics {
  liveBrokerIds(): number[];
  /** Whether the cluster has the topic (its metadata names it). */
  hasTopic(name: string): boolean;
  /** The topic's replica count (its first partition's), or undefined when unknown. */
  replicationFactor(name: string): number | undefined;
  /** A partition as the cluster's metadata has it. */
  partitionMetadata(topic: string, partition: number): PartitionMetadata | undefined;
  createTopic(name: string, assignment: number[][], configs: Record<string, string>, timeoutMs: number): Promise<Buffer>;
  deleteTopic(name: string, timeoutMs: number): Promise<void>;
  /** Adds partitions after the `current` ones (checked against ZooKeeper: INVALID_PARTITIONS if it moved on). */
  addPartitions(name: string, current: number, assignment: number[][], timeoutMs: number): Promise<void>;
  setTopicConfigs(name: string, configs: Record<string, string>): Promise<void>;
}

export class ClusterTopicStore implements TopicStore {
  constructor(
    private readonly cluster: ClusterTopics,
    private readonly logs: LogManager,
    private readonly log: Logger,
  ) {}

  brokerIds(): number[] {
    return this.cluster.liveBrokerIds();
  }

  has(name: string): boolean {
    return this.cluster.hasTopic(name);
  }

  replicationFactor(name: string): number {
    return this.cluster.replicationFactor(name) ?? 1;
  }

  replicas(name: string, partition: number): readonly number[] {
    return this.cluster.partitionMetadata(name, partition)?.replicas ?? [];
  }

  /** Resolves once this broker's metadata names a leader for every partition. */
  create(name: string, checked: CheckedTopic, timeoutMs: number): Promise<Buffer> {
    const assignment = checked.assignment ?? assignReplicas(this.brokerIds(), checked.partitions, checked.replicationFactor);
    return this.cluster.createTopic(name, assignment, checked.configs, timeoutMs);
  }

  /** Started, never made at once: as Kafka answers, the topic is LEADER_NOT_AVAILABLE until the controller has made it. */
  createUnawaited(name: string, checked: CheckedTopic): boolean {
    this.create(name, checked, 0).then(
      () => this.log.info({ topic: name, partitions: checked.partitions }, 'auto-created topic'),
      (err) => {
        const code = err instanceof KafkaError ? err.code : -1;
        if (code === ErrorCode.REQUEST_TIMED_OUT) this.log.info({ topic: name, partitions: checked.partitions }, 'auto-creating topic');
        else if (code !== ErrorCode.TOPIC_ALREADY_EXISTS) this.log.warn({ topic: name, err: (err as Error).message }, 'auto-creation failed');
      },
    );
    return false;
  }

  /**
   * As in Kafka, an internal topic is created through the controller once as many brokers are alive as its
   * replication factor asks; until it exists here COORDINATOR_NOT_AVAILABLE is thrown, and clients retry.
   */
  ensureInternal(name: string, internal: InternalTopics, replicationFactor: { config: string; value: number }): void {
    if (this.logs.getTopic(name)) {
      internal.ensureTopic();
      return;
    }
    const live = this.brokerIds().length;
    if (live < replicationFactor.value) {
      throw new KafkaError(
        'COORDINATOR_NOT_AVAILABLE',
        `${name} needs ${replicationFactor.value} live broker(s) (${replicationFactor.config}), and ${live} are alive.`,
      );
    }
    if (!this.cluster.hasTopic(name)) {
      this.createUnawaited(name, {
        partitions: internal.numPartitions,
        replicationFactor: replicationFactor.value,
        configs: internal.topicConfigs,
        assignment: null,
      });
    }
    throw new KafkaError('COORDINATOR_NOT_AVAILABLE', `${name} is being created.`);
  }

  /** Resolves once this broker's metadata has the new partitions' leaders. */
  async addPartitions(topic: TopicInfo, count: number, assignments: number[][] | null, timeoutMs: number): Promise<void> {
    const placed = assignments ?? assignReplicas(this.brokerIds(), count - topic.partitions, this.replicationFactor(topic.name), topic.partitions);
    await this.cluster.addPartitions(topic.name, topic.partitions, placed, timeoutMs);
  }

  /** To ZooKeeper, with a change notification from which every other broker applies them, as Kafka does. */
  shareConfigs(name: string, configs: Record<string, string>): Promise<void> {
    return this.cluster.setTopicConfigs(name, configs);
  }

  /** Marks the topic for deletion; resolves once this broker's metadata no longer has it. */
  delete(topic: TopicInfo, timeoutMs: number): Promise<void> {
    return this.cluster.deleteTopic(topic.name, timeoutMs);
  }
}
