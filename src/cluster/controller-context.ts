// What the controller knows of the cluster while it is the controller (Kafka's ControllerContext): its term,
// the registered brokers and those in controlled shutdown, every topic's id and assignment, and every
// partition's state as last written or read. The controller's events change it, one at a time; the request
// batch (controller-channel-manager.ts) and the handling of brokers' requests (controller-broker-requests.ts)
// read it from inside those events.

import type { BrokerInfo } from './zk/kafka-zk.js';
import type { PartitionState } from './controller-core.js';
import { splitPartitionKey } from '../topic-partition.js';

export interface TopicState {
  topicId: Buffer;
  /** Partition index → replica broker ids, in preference order. */
  assignment: Map<number, number[]>;
}

export class ControllerContext {
  /** This controller's epoch, and the zk version of /controller_epoch that fences its writes. */
  epoch = -1;
  epochZkVersion = -1;
  /** Registered in ZooKeeper (Kafka's liveOrShuttingDownBrokers), by id. */
  live = new Map<number, BrokerInfo>();
  readonly shuttingDown = new Set<number>();
  readonly topics = new Map<string, TopicState>();
  /** By partition key (partitionKey). */
  readonly states = new Map<string, PartitionState>();

  /** Registered and not shutting down: Kafka's liveBrokerIds, whom elections and ISRs may take. */
  isOnline(id: number): boolean {
    return this.live.has(id) && !this.shuttingDown.has(id);
  }

  /** The partition's replicas, preferred first; undefined for a partition the cluster does not have. */
  replicas(key: string): number[] | undefined {
    const [topic, p] = splitPartitionKey(key);
    return this.topics.get(topic)?.assignment.get(p);
  }

  partitionsWithReplica(id: number): string[] {
    return [...this.states.keys()].filter((key) => this.replicas(key)?.includes(id));
  }

  allPartitions(): string[] {
    return [...this.states.keys()];
  }

  /** Forgets everything but the term, as a controller that resigns does. */
  clear(): void {
    this.live.clear();
    this.topics.clear();
    this.states.clear();
    this.shuttingDown.clear();
  }
}
