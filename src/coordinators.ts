// The broker's two coordinators, built over their internal topics: the group coordinator on
// __consumer_offsets and the transaction coordinator on __transaction_state, and, in a cluster, how both
// follow the leadership of those topics' partitions. broker.ts opens them with the rest of the data dir.
import type { Logger } from './logger.js';
import type { BrokerConfig } from './config.js';
import type { LogManager } from './storage/log-manager.js';
import type { ReplicaManager } from './partition/replica-manager.js';
import type { Scheduler } from './scheduler.js';
import type { ServedPartitions } from './group/served-partitions.js';
import type { CoordinatorElections } from './cluster/coordinator-guard.js';
import type { ZkCluster } from './cluster/zk-cluster.js';
import type { ProducerIdManager } from './cluster/producer-id-manager.js';
import type { InternalTopicCreation } from './internal-topic-creation.js';
import { GroupCoordinator } from './group/coordinator.js';
import { OFFSETS_TOPIC, type OffsetsTopicStore } from './group/offsets-topic.js';
import { TransactionCoordinator } from './txn/coordinator.js';
import { TRANSACTION_STATE_TOPIC, TransactionStateTopic } from './txn/state-topic.js';
import { LocalMarkerWrites } from './txn/markers.js';

/** The group coordinator, serving `served` of __consumer_offsets' partitions. */
export function openGroupCoordinator(
  config: BrokerConfig,
  logs: LogManager,
  store: OffsetsTopicStore,
  scheduler: Scheduler,
  served: ServedPartitions,
): GroupCoordinator {
  return new GroupCoordinator({
    store,
    scheduler,
    partitionOf: (groupId) => store.partitionFor(groupId),
    served,
    minSessionTimeoutMs: config.int('group.min.session.timeout.ms'),
    maxSessionTimeoutMs: config.int('group.max.session.timeout.ms'),
    initialRebalanceDelayMs: config.int('group.initial.rebalance.delay.ms'),
    offsetsRetentionMs: config.int('offsets.retention.minutes') * 60_000,
    offsetsRetentionCheckIntervalMs: config.int('offsets.retention.check.interval.ms'),
    partitionExists: (topic, partition) => {
      const t = logs.getTopic(topic);
      return !!t && partition >= 0 && partition < t.partitions;
    },
  });
}

export interface TransactionCoordinatorParts {
  config: BrokerConfig;
  logs: LogManager;
  replicas: ReplicaManager;
  producerIds: ProducerIdManager;
  groups: GroupCoordinator;
  /** The cluster, once the broker has one: a partition another broker leads gets its marker from that broker. */
  zkCluster: () => ZkCluster | null;
  createTopic: InternalTopicCreation;
  served: ServedPartitions;
}

/**
 * The transaction coordinator, serving `served` of __transaction_state's partitions; loading them completes
 * what a crash left mid-way.
 */
export function openTransactionCoordinator(parts: TransactionCoordinatorParts): { state: TransactionStateTopic; coordinator: TransactionCoordinator } {
  const { config, replicas, groups } = parts;
  const localMarkers = new LocalMarkerWrites();
  const state = TransactionStateTopic.open(
    parts.logs,
    replicas,
    config.int('transaction.state.log.num.partitions'),
    config.int('transaction.state.log.segment.bytes'),
    parts.createTopic,
  );
  const coordinator: TransactionCoordinator = new TransactionCoordinator(
    {
      generateProducerId: () => parts.producerIds.generateProducerId(),
      persist: (meta) => state.persist(meta),
      forget: (transactionalId) => state.forget(transactionalId),
      writeMarker: (topic, p, producerId, producerEpoch, commit, coordinatorEpoch) => {
        const partition = replicas.partition(topic, p);
        if (!partition) return true;
        const marker = { producerId, producerEpoch, commit, coordinatorEpoch };
        const retry = () => coordinator.retryPrepared();
        const cluster = parts.zkCluster();
        if (cluster && !partition.isLeader) return cluster.sendTxnMarker(topic, p, marker, retry);
        return localMarkers.write(replicas, groups, partition, marker, retry);
      },
      partitionExists: (topic, p) => replicas.partition(topic, p) !== undefined,
      now: () => Date.now(),
    },
    {
      maxTimeoutMs: config.int('transaction.max.timeout.ms'),
      idExpirationMs: config.int('transactional.id.expiration.ms'),
      partitionOf: (transactionalId) => state.partitionFor(transactionalId),
      served: parts.served,
    },
  );
  return { state, coordinator };
}

/** The coordinators and their topics, as the broker holds them now. */
export interface CoordinatorsNow {
  groups: GroupCoordinator;
  offsetsTopic: OffsetsTopicStore;
  transactions: TransactionCoordinator;
  transactionState: TransactionStateTopic;
}

/**
 * In a cluster, the coordinators follow the leadership of their partitions (Kafka's onLeadershipChange):
 * the controller's LeaderAndIsr and StopReplica reach them through this. A failed load is logged: the
 * partition's groups or transactional ids then stay unloaded rather than taking the broker down.
 */
export function coordinatorElections(now: () => CoordinatorsNow, log: Logger): CoordinatorElections {
  const loading = (what: string, p: number, load: () => void) => () => {
    try {
      load();
    } catch (err) {
      log.error({ err, partition: p }, `loading ${what} failed`);
    }
  };
  return {
    elected: (topic, p, leaderEpoch) => {
      const c = now();
      if (topic === OFFSETS_TOPIC) {
        void c.groups.onElection(
          p,
          loading(topic, p, () => c.offsetsTopic.loadPartition(c.groups, p)),
        );
      } else if (topic === TRANSACTION_STATE_TOPIC) {
        void c.transactions.onElection(
          p,
          leaderEpoch,
          loading(topic, p, () => c.transactionState.loadPartition(c.transactions, p)),
        );
      }
    },
    resigned: (topic, p) => {
      if (topic === OFFSETS_TOPIC) now().groups.onResignation(p);
      else if (topic === TRANSACTION_STATE_TOPIC) now().transactions.onResignation(p);
    },
    groupLoading: (groupId) => now().groups.isLoading(groupId),
    transactionalIdLoading: (transactionalId) => now().transactions.isLoading(transactionalId),
  };
}
