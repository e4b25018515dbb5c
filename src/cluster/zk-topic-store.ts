// Where a cluster's topics and configs are written: ZooKeeper, as Kafka's AdminZkClient writes them. The
// controller takes a new topic, new partitions or a deletion from there and tells every broker; a config
// change comes with a change notification from which every broker applies it (zk-config-changes.ts). Each
// change resolves once this broker's metadata shows it, so a client that asked sees it at once.

import { KafkaError } from '../../protocol/errors.js';
import type { LogManager } from '../storage/log-manager.js';
import { randomKafkaUuid } from '../storage/meta-properties.js';
import type { MetadataCache } from './metadata-cache.js';
import { ZkError } from './zk/zk-client.js';
import type { KafkaZk } from './zk/kafka-zk.js';

export class ZkTopicStore {
  constructor(
    /** The session, or a KafkaError when there is none. */
    private readonly requireZk: () => KafkaZk,
    private readonly cache: MetadataCache,
    private readonly logs: LogManager,
  ) {}

  /**
   * Writes a new topic to ZooKeeper (the controller takes it from there) and waits until this broker's
   * metadata names a leader for each of its partitions. REQUEST_TIMED_OUT when that takes longer than
   * `timeoutMs` (the topic is still being created, as in Kafka).
   */
  async createTopic(name: string, assignment: number[][], configs: Record<string, string>, timeoutMs: number): Promise<Buffer> {
    const zk = this.requireZk();
    const topicId = Buffer.from(randomKafkaUuid().bytes);
    try {
      await zk.createTopic(name, topicId, new Map(assignment.map((replicas, p) => [p, replicas])), configs);
    } catch (err) {
      if (err instanceof ZkError && err.code === 'NODE_EXISTS') {
        // Still in ZooKeeper, gone from the metadata: a deletion the controller has not finished.
        const deleting = !this.cache.topic(name) && (await zk.getTopicDeletions()).includes(name);
        throw new KafkaError('TOPIC_ALREADY_EXISTS', deleting ? `Topic '${name}' is marked for deletion.` : `Topic '${name}' already exists.`);
      }
      throw err;
    }
    await this.awaitLeaders(name, assignment.length, timeoutMs, `Topic '${name}' is being created`);
    return topicId;
  }

  /** Adds partitions after the `expected` ones (INVALID_PARTITIONS if ZooKeeper has moved on meanwhile). */
  async addPartitions(name: string, expected: number, assignment: number[][], timeoutMs: number): Promise<void> {
    const zk = this.requireZk();
    const current = await zk.getTopicAssignment(name);
    if (!current) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `Topic '${name}' does not exist.`);
    if (current.partitions.size !== expected) {
      throw new KafkaError('INVALID_PARTITIONS', `Topic '${name}' has ${current.partitions.size} partition(s) now, not ${expected}: it was changed meanwhile.`);
    }
    // As Kafka: rewriting the assignment would race the controller's own rewrites while it moves replicas.
    if (current.reassigning.adding.size > 0 || current.reassigning.removing.size > 0) {
      throw new KafkaError('REASSIGNMENT_IN_PROGRESS', `A partition reassignment is in progress for the topic '${name}'.`);
    }
    const partitions = new Map(current.partitions);
    const first = partitions.size;
    assignment.forEach((replicas, i) => partitions.set(first + i, replicas));
    try {
      await zk.setTopicAssignment(name, current.topicId ?? Buffer.from(randomKafkaUuid().bytes), partitions, current.version);
    } catch (err) {
      if (err instanceof ZkError && err.code === 'BAD_VERSION')
        throw new KafkaError('REASSIGNMENT_IN_PROGRESS', `Topic '${name}' changed meanwhile; try again.`);
      throw err;
    }
    await this.awaitLeaders(name, partitions.size, timeoutMs, `Partitions of '${name}' are being created`);
  }

  /** Marks the topic for deletion (the controller deletes it) and waits until this broker's metadata drops it. */
  async deleteTopic(name: string, timeoutMs: number): Promise<void> {
    await this.requireZk().markTopicForDeletion(name);
    const gone = await this.cache.waitFor(() => !this.cache.topic(name), timeoutMs);
    if (!gone) throw new KafkaError('REQUEST_TIMED_OUT', `Topic '${name}' is being deleted.`);
  }

  async setTopicConfigs(name: string, configs: Record<string, string>): Promise<void> {
    const zk = this.requireZk();
    try {
      await zk.setTopicConfig(name, configs);
    } catch (err) {
      throw new KafkaError('UNKNOWN_SERVER_ERROR', `Could not write the configs of topic '${name}' to ZooKeeper: ${(err as Error).message}`);
    }
  }

  /**
   * Changes the cluster-wide dynamic broker configs (AlterConfigs of the "" BROKER resource): written to
   * /config/brokers/<default> with a change notification, from which every broker (this one too) applies them.
   */
  async setClusterBrokerConfigs(configs: Record<string, string>): Promise<void> {
    const zk = this.requireZk();
    try {
      await zk.setBrokerDefaultConfig(configs);
    } catch (err) {
      throw new KafkaError('UNKNOWN_SERVER_ERROR', `Could not write the cluster-wide broker configs to ZooKeeper: ${(err as Error).message}`);
    }
  }

  private async awaitLeaders(name: string, count: number, timeoutMs: number, pending: string): Promise<void> {
    const ready = () => {
      for (let p = 0; p < count; p++) if ((this.cache.partition(name, p)?.leaderId ?? -1) < 0) return false;
      return !!this.logs.getTopic(name);
    };
    if (!(await this.cache.waitFor(ready, timeoutMs))) throw new KafkaError('REQUEST_TIMED_OUT', `${pending}: its partitions have no leader yet.`);
  }
}
