// Topic administration for Metadata (auto-create), CreateTopics, DeleteTopics, CreatePartitions,
// AlterPartitionReassignments and FindCoordinator: Kafka's naming rules, the checks that turn a request into
// KafkaErrors with Kafka's codes (its KRaft controller's messages), and the changes themselves (in Kafka, the
// controller's part). The changes themselves are the TopicStore's (topic-store.ts): made at once on a single
// broker; in a cluster written to ZooKeeper, made by the controller, and awaited until this broker's metadata
// shows them.

import { KafkaError } from '../protocol/errors.js';
import { ConfigError } from './config-value.js';
import { checkTopicConfig } from './log-config.js';
import storageFs from './storage/storage-fs.js';
import { randomKafkaUuid } from './storage/meta-properties.js';
import type { BrokerConfig } from './config.js';
import { MAX_PARTITIONS_PER_TOPIC, type LogManager, type TopicInfo } from './storage/log-manager.js';
import type { ReplicaManager } from './partition/replica-manager.js';
import { OFFSETS_TOPIC } from './group/offsets-topic.js';
import { TRANSACTION_STATE_TOPIC } from './txn/state-topic.js';
import type { CheckedTopic, InternalTopics, TopicStore } from './topic-store.js';

export type { TopicInfo, CheckedTopic, InternalTopics };

const LEGAL = /^[a-zA-Z0-9._-]+$/;
const MAX_NAME_LENGTH = 249;
export { MAX_PARTITIONS_PER_TOPIC };

/** Kafka's Topic.validate: non-empty, at most 249 chars of [a-zA-Z0-9._-], not '.' or '..'. */
export function validateTopicName(name: string | null | undefined): asserts name is string {
  if (!name) throw new KafkaError('INVALID_TOPIC_EXCEPTION', "Topic name is illegal, it can't be empty");
  if (name === '.' || name === '..') throw new KafkaError('INVALID_TOPIC_EXCEPTION', `Topic name cannot be "${name}"`);
  if (name.length > MAX_NAME_LENGTH) {
    throw new KafkaError('INVALID_TOPIC_EXCEPTION', `Topic name is illegal, it can't be longer than ${MAX_NAME_LENGTH} characters`);
  }
  if (!LEGAL.test(name)) {
    throw new KafkaError(
      'INVALID_TOPIC_EXCEPTION',
      `Topic name "${name}" is illegal, it contains a character other than ASCII alphanumerics, '.', '_' and '-'`,
    );
  }
}

export interface TopicRequest {
  name: string;
  numPartitions: number;
  replicationFactor: number;
  configs: Record<string, string | null>;
}

/** The config naming each internal topic's replication factor in a cluster (see ensureInternalTopic). */
const INTERNAL_TOPIC_REPLICATION: Readonly<Record<string, string>> = {
  [OFFSETS_TOPIC]: 'offsets.topic.replication.factor',
  [TRANSACTION_STATE_TOPIC]: 'transaction.state.log.replication.factor',
};

export class TopicAdmin {
  constructor(
    private readonly logs: LogManager,
    private readonly replicas: ReplicaManager,
    /** Where the changes are made: this broker's logs, or the cluster's ZooKeeper and controller. */
    private readonly store: TopicStore,
    private readonly config: BrokerConfig,
    private readonly offsetsTopic: InternalTopics,
    private readonly transactionStateTopic: InternalTopics,
  ) {}

  /** Every topic the store has (in a cluster a local one may still be on its way in or out). */
  topics(): TopicInfo[] {
    return this.logs.topics().filter((t) => this.store.has(t.name));
  }

  /** The absolute path of the one log directory every partition lives in (DescribeLogDirs). */
  get logDir(): string {
    return this.logs.dataDir;
  }

  /** The size of the log directory's volume and the bytes free on it (for memory storage: its bound). */
  logDirSpace(): { totalBytes: number; usableBytes: number } {
    return storageFs.spaceOf(this.logs.dataDir);
  }

  getTopic(name: string): TopicInfo | undefined {
    return this.logs.getTopic(name);
  }

  getTopicById(id: Buffer): TopicInfo | undefined {
    return this.logs.getTopicById(id);
  }

  /**
   * Kafka's Topic.hasCollisionChars/unifyCollisionChars: '.' and '_' map to the same metric name, so Kafka's
   * controller refuses a topic whose name equals an existing one's once '.' is read as '_' ("a.b" vs "a_b").
   */
  collidingTopic(name: string): string | undefined {
    if (!/[._]/.test(name)) return undefined;
    const unified = name.replace(/\./g, '_');
    for (const t of this.logs.topics()) {
      if (t.name !== name && t.name.replace(/\./g, '_') === unified) return t.name;
    }
    return undefined;
  }

  /** An id as a new topic would get one: what a validateOnly creation answers, as Kafka's controller does. */
  proposedTopicId(): Buffer {
    return randomKafkaUuid().bytes;
  }

  /** Checks a topic creation request as Kafka's controller does; returns the effective partition count and configs. */
  checkNewTopic(req: TopicRequest, assignment: number[][] | null = null): CheckedTopic {
    validateTopicName(req.name);
    if (this.logs.getTopic(req.name) || this.store.has(req.name)) throw new KafkaError('TOPIC_ALREADY_EXISTS', `Topic '${req.name}' already exists.`);
    const collision = this.collidingTopic(req.name);
    if (collision !== undefined) throw new KafkaError('INVALID_TOPIC_EXCEPTION', `Topic '${req.name}' collides with existing topic: ${collision}`);
    const partitions = req.numPartitions === -1 ? this.config.int('num.partitions') : req.numPartitions;
    if (!Number.isInteger(partitions) || partitions <= 0) {
      throw new KafkaError('INVALID_PARTITIONS', 'Number of partitions was set to an invalid non-positive value.');
    }
    if (partitions > MAX_PARTITIONS_PER_TOPIC) {
      throw new KafkaError('INVALID_PARTITIONS', `Number of partitions ${partitions} is above krill's limit of ${MAX_PARTITIONS_PER_TOPIC} per topic.`);
    }
    const rf = req.replicationFactor === -1 ? this.config.int('default.replication.factor') : req.replicationFactor;
    if (rf <= 0) throw new KafkaError('INVALID_REPLICATION_FACTOR', 'Replication factor must be larger than 0, or -1 to use the default value.');
    const brokers = this.store.brokerIds().length;
    if (rf > brokers) {
      throw new KafkaError(
        'INVALID_REPLICATION_FACTOR',
        `Unable to replicate the partition ${rf} time(s): The target replication factor of ${rf} cannot be reached because only ${brokers} broker(s) are registered.`,
      );
    }
    for (const replicas of assignment ?? []) this.checkManualAssignment(replicas, assignment![0].length);
    return { partitions, replicationFactor: rf, configs: this.checkTopicConfigs(req.configs), assignment };
  }

  /**
   * Checks a topic's whole set of overrides as Kafka's LogConfig.validate does (CreateTopics, AlterConfigs):
   * each name and value, then the rules between them over the broker defaults. Returns them normalised;
   * throws INVALID_CONFIG naming the problem.
   */
  checkTopicConfigs(overrides: Readonly<Record<string, string | null>>): Record<string, string> {
    const configs: Record<string, string> = {};
    for (const [name, value] of Object.entries(overrides)) {
      try {
        configs[name] = checkTopicConfig(name, value);
      } catch (err) {
        if (err instanceof ConfigError) throw new KafkaError('INVALID_CONFIG', err.message);
        throw err;
      }
    }
    const effective = { ...this.config.topicDefaults(), ...configs };
    const [minLag, maxLag] = [BigInt(effective['min.compaction.lag.ms']), BigInt(effective['max.compaction.lag.ms'])];
    if (minLag > maxLag) {
      throw new KafkaError('INVALID_CONFIG', `conflict topic config setting min.compaction.lag.ms (${minLag}) > max.compaction.lag.ms (${maxLag})`);
    }
    return configs;
  }

  /**
   * Replaces a topic's overrides (checked by checkTopicConfigs); applied to Produce and its logs at once, and
   * persisted. In a cluster shared first (TopicStore.shareConfigs), as Kafka does: a failure there is the
   * request's, and nothing changes.
   */
  async alterTopicConfigs(name: string, overrides: Record<string, string>): Promise<TopicInfo> {
    await this.store.shareConfigs(name, overrides);
    return this.logs.setTopicConfigs(name, overrides);
  }

  /**
   * Creates a checked topic (see checkNewTopic); returns its id. In a cluster, resolves once this broker's
   * metadata names a leader for every partition (REQUEST_TIMED_OUT after `timeoutMs`: still under way).
   */
  createTopic(name: string, checked: CheckedTopic, timeoutMs: number): Promise<Buffer> {
    return this.store.create(name, checked, timeoutMs);
  }

  /**
   * Creates a topic named in Metadata when auto.create.topics.enable allows it. In a cluster the creation is
   * started and LEADER_NOT_AVAILABLE thrown, as Kafka answers until the controller has made it.
   */
  autoCreateTopic(name: string): void {
    if (name === OFFSETS_TOPIC) {
      this.ensureOffsetsTopic(); // internal: its own partition count and configs
      return;
    }
    // Known to the cluster, not yet to this broker: the controller's word is on its way.
    if (this.store.has(name)) throw new KafkaError('LEADER_NOT_AVAILABLE', `Topic '${name}' is being created.`);
    const checked = this.checkNewTopic({ name, numPartitions: -1, replicationFactor: -1, configs: {} });
    if (!this.store.createUnawaited(name, checked)) throw new KafkaError('LEADER_NOT_AVAILABLE', `Topic '${name}' is being created.`);
  }

  /** Creates __consumer_offsets if missing, as Kafka does on the first FindCoordinator for a group. */
  ensureOffsetsTopic(): void {
    this.ensureInternalTopic(OFFSETS_TOPIC, this.offsetsTopic);
  }

  /** Creates __transaction_state if missing, as Kafka does on the first FindCoordinator for a transactional id. */
  ensureTransactionStateTopic(): void {
    this.ensureInternalTopic(TRANSACTION_STATE_TOPIC, this.transactionStateTopic);
  }

  /** The store creates it (see TopicStore.ensureInternal), with the replication factor its config names. */
  private ensureInternalTopic(name: string, internal: InternalTopics): void {
    const config = INTERNAL_TOPIC_REPLICATION[name];
    this.store.ensureInternal(name, internal, { config, value: this.config.int(config) });
  }

  /**
   * Checks a CreatePartitions entry as Kafka's controller (ReplicationControlManager.createPartitions) does;
   * `assignments` are the new partitions' replica lists, or null for krill to place them (on itself).
   * Returns the topic to grow.
   */
  checkNewPartitions(name: string, count: number, assignments: readonly (readonly number[])[] | null): TopicInfo {
    const topic = this.logs.getTopic(name);
    if (!topic) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `Topic '${name}' does not exist.`);
    const current = topic.partitions;
    if (count === current) throw new KafkaError('INVALID_PARTITIONS', `Topic already has ${current} partition(s).`);
    if (count < current) {
      throw new KafkaError('INVALID_PARTITIONS', `The topic ${name} currently has ${current} partition(s); ${count} would not be an increase.`);
    }
    if (count > MAX_PARTITIONS_PER_TOPIC) {
      throw new KafkaError('INVALID_PARTITIONS', `Number of partitions ${count} is above krill's limit of ${MAX_PARTITIONS_PER_TOPIC} per topic.`);
    }
    // Kafka lets an operator grow these, and then maps groups and transactional ids to other partitions than
    // the ones holding their state; krill's coordinators read the partition count once, so it refuses.
    if (name === OFFSETS_TOPIC || name === TRANSACTION_STATE_TOPIC) {
      throw new KafkaError('INVALID_PARTITIONS', `Internal topic ${name} keeps its partition count: its coordinator maps ids to partitions by it.`);
    }
    const additional = count - current;
    if (assignments !== null) {
      if (assignments.length !== additional) {
        throw new KafkaError(
          'INVALID_REPLICA_ASSIGNMENT',
          `Attempted to add ${additional} additional partition(s), but only ${assignments.length} assignment(s) were specified.`,
        );
      }
      for (const replicas of assignments) this.checkManualAssignment(replicas, this.replicationFactorOf(name));
    }
    return topic;
  }

  /** The topic's replication factor: its first partition's replica count in a cluster, 1 on a single broker. */
  private replicationFactorOf(name: string): number {
    return this.store.replicationFactor(name);
  }

  /**
   * Grows a checked topic (see checkNewPartitions) to `count` partitions, the new ones on `assignments` or
   * placed as Kafka places them. In a cluster, resolves once this broker's metadata has their leaders.
   */
  addPartitions(topic: TopicInfo, count: number, assignments: number[][] | null, timeoutMs: number): Promise<void> {
    return this.store.addPartitions(topic, count, assignments, timeoutMs);
  }

  /**
   * Kafka's validateManualPartitionAssignment: a non-empty list of registered brokers, each once, and as many
   * as the topic's replication factor when one is given. The registered brokers are the live ones (this one
   * alone on a single broker).
   */
  checkManualAssignment(replicas: readonly number[], replicationFactor?: number): void {
    if (replicas.length === 0) throw new KafkaError('INVALID_REPLICA_ASSIGNMENT', 'The manual partition assignment includes an empty replica list.');
    const sorted = [...replicas].sort((a, b) => a - b);
    const registered = this.store.brokerIds();
    sorted.forEach((brokerId, i) => {
      if (!registered.includes(brokerId)) {
        throw new KafkaError('INVALID_REPLICA_ASSIGNMENT', `The manual partition assignment includes broker ${brokerId}, but no such broker is registered.`);
      }
      if (i > 0 && sorted[i - 1] === brokerId) {
        throw new KafkaError('INVALID_REPLICA_ASSIGNMENT', `The manual partition assignment includes the broker ${brokerId} more than once.`);
      }
    });
    if (replicationFactor !== undefined && sorted.length !== replicationFactor) {
      throw new KafkaError(
        'INVALID_REPLICA_ASSIGNMENT',
        `The manual partition assignment includes a partition with ${sorted.length} replica(s), but this is not consistent with previous partitions, which have ${replicationFactor} replica(s).`,
      );
    }
  }

  /**
   * AlterPartitionReassignments of one partition, as Kafka's controller answers it when nothing is moving:
   * `replicas` null cancels a reassignment (there is none: NO_REASSIGNMENT_IN_PROGRESS); a valid target can
   * only be this broker, which already holds the partition, so the reassignment is complete at once.
   */
  reassignPartition(name: string, partition: number, replicas: readonly number[] | null): void {
    if (!this.logs.getTopic(name)) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `Unable to find a topic named ${name}.`);
    if (!this.replicas.partition(name, partition)) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `Unable to find partition ${name}:${partition}.`);
    if (replicas === null) throw new KafkaError('NO_REASSIGNMENT_IN_PROGRESS', 'No partition reassignment is in progress.');
    this.checkManualAssignment(replicas);
    // In a cluster only the current replicas are a reassignment with nothing to move: moving data between
    // brokers comes with replication.
    const current = this.store.replicas(name, partition);
    if (replicas.length !== current.length || replicas.some((r, i) => r !== current[i])) {
      throw new KafkaError(
        'INVALID_REPLICA_ASSIGNMENT',
        `Moving ${name}-${partition} from [${current.join(', ')}] to [${replicas.join(', ')}] needs replication between brokers, which krill does not do yet.`,
      );
    }
  }

  /**
   * Deletes a topic and its data, answering the requests that wait on its partitions. In a cluster, marks it
   * for deletion and resolves once this broker's metadata no longer has it.
   */
  async deleteTopic(topic: TopicInfo, timeoutMs: number): Promise<void> {
    if (!this.config.bool('delete.topic.enable')) throw new KafkaError('TOPIC_DELETION_DISABLED', 'Topic deletion is disabled.');
    if (topic.name.startsWith('__')) throw new KafkaError('INVALID_TOPIC_EXCEPTION', `Internal topic ${topic.name} cannot be deleted.`);
    await this.store.delete(topic, timeoutMs);
  }
}
