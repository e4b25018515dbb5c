// What the controller's extensions (controller-elections.ts: ElectLeaders and the automatic leader balance;
// controller-reassignments.ts: partition reassignments) use of the controller: its view of the cluster, its
// fenced writes of partition state, and its requests to brokers. The controller (controller.ts) implements
// it over its own state; every call is made from inside one of its events, one at a time.

import type { Logger } from '../logger.js';
import type { KafkaZk, PartitionLeadership } from './zk/kafka-zk.js';

export interface PartitionState extends PartitionLeadership {
  /** The state znode's zk version, which the next write is conditional on. */
  zkVersion: number;
}

export interface ControllerCore {
  readonly zk: KafkaZk;
  readonly log: Logger;
  /** This controller's epoch, and the zk version of /controller_epoch that fences its writes. */
  readonly epoch: number;
  readonly epochZkVersion: number;
  /** Runs `fn` as a controller event, after those before it; undefined when not (or no longer) the controller. */
  enqueue<T>(name: string, fn: () => Promise<T>): Promise<T | undefined>;
  /** Registered in ZooKeeper. */
  isLive(id: number): boolean;
  /** Registered and not shutting down: Kafka's isReplicaOnline, whom elections may choose. */
  isOnline(id: number): boolean;
  /** Brokers that are online, as above. */
  onlineBrokerIds(): number[];
  /** Every partition that has a state. */
  partitionKeys(): string[];
  state(key: string): PartitionState | undefined;
  /** The partition's replicas (RS), preferred first; undefined for a partition the cluster does not have. */
  replicas(key: string): readonly number[] | undefined;
  setReplicas(key: string, replicas: readonly number[]): void;
  topicId(topic: string): Buffer | undefined;
  /** Partition → replicas, of a topic. */
  topicReplicas(topic: string): ReadonlyMap<number, readonly number[]> | undefined;
  /**
   * Writes the partition's next state as `change` computes it from the current one (fenced; null: nothing
   * to change), reading the state again when it moved on meanwhile. Returns whether a state was written.
   */
  updateState(key: string, change: (current: PartitionState) => PartitionLeadership | null): Promise<boolean>;
  /** Reads the partition's state from ZooKeeper into the controller (watching it when asked). */
  reloadState(key: string, watch?: () => void): Promise<PartitionState | undefined>;
  /** LeaderAndIsr to the live replicas of `keys`, UpdateMetadata of them to every live broker. */
  announce(keys: string[], isNew: boolean): Promise<void>;
  /** StopReplica of `keys` to broker `id`; with deletePartition, its logs of them are emptied (see zk-cluster.ts). */
  sendStopReplica(id: number, keys: string[], deletePartition: boolean): Promise<void>;
}
