// What handlers ask of the cluster a broker belongs to, as narrow services. Each has a single-broker
// implementation here and a cluster one (ZkCluster, cluster/zk-cluster.ts), and the broker hands the
// handlers one or the other (broker.ts). A handler never asks whether it is in a cluster: it asks the
// service, and a single broker answers as the cluster of one it is.
//
// - CoordinatorOwnership (coordinator-guard.ts): which group and transactional ids this broker coordinates.
//   A single broker coordinates them all and never loads one.
// - ControllerRequests: the controller's requests to a broker, and the requests a broker sends the
//   controller. A single broker is sent none: it refuses them with UNSUPPORTED_VERSION.
// - PartitionElections and PartitionReassignments: the operator's ElectLeaders and reassignments. On a single
//   broker every partition already has its only possible leader, and a reassignment is checked and made by
//   TopicAdmin at once, so there is never one under way.
import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import type { LeaderAndIsrRequest } from '../../protocol/messages/04-leader-and-isr.js';
import type { StopReplicaRequest } from '../../protocol/messages/05-stop-replica.js';
import type { UpdateMetadataRequest } from '../../protocol/messages/06-update-metadata.js';
import type { TopicPartition } from '../topic-partition.js';
import type { CoordinatorOwnership } from './coordinator-guard.js';
import type { AlterPartitionRequestData, AlterPartitionResult, ControlledShutdownResult } from './controller-broker-requests.js';
import type { OngoingReassignment, ReassignmentRequest } from './controller-reassignments.js';

/** One partition's outcome of an election or a reassignment. */
export interface PartitionResult {
  topic: string;
  partition: number;
  errorCode: number;
  errorMessage: string | null;
}

export interface ControllerRequests {
  /** LeaderAndIsr: this broker's role for each partition named; the top-level and per-partition codes. */
  applyLeaderAndIsr(
    req: LeaderAndIsrRequest,
  ): Promise<{ errorCode: number; partitions: { topicName: string; topicId: Buffer; partitionIndex: number; errorCode: number }[] }>;
  /** StopReplica: the top-level and per-partition codes. */
  applyStopReplica(req: StopReplicaRequest): Promise<{ errorCode: number; partitions: { topicName: string; partitionIndex: number; errorCode: number }[] }>;
  /** UpdateMetadata: the error code. */
  applyUpdateMetadata(req: UpdateMetadataRequest): Promise<number>;
  /** ControlledShutdown, answered by the controller. */
  controlledShutdown(brokerId: number, brokerEpoch: number): Promise<ControlledShutdownResult>;
  /** AlterPartition, answered by the controller. */
  alterPartition(req: AlterPartitionRequestData): Promise<AlterPartitionResult>;
}

export interface PartitionElections {
  /** ElectLeaders (electionType 0 preferred, 1 unclean) of `requested`, or of every partition when null. */
  electLeaders(type: number, requested: TopicPartition[] | null, timeoutMs: number): Promise<PartitionResult[]>;
}

export interface PartitionReassignments {
  /** AlterPartitionReassignments: each partition's outcome. */
  alter(requests: ReassignmentRequest[]): Promise<PartitionResult[]>;
  /** ListPartitionReassignments of `partitions`, or of all when null: those under way. */
  list(partitions: TopicPartition[] | null): Promise<OngoingReassignment[]>;
}

/** What the single-broker implementations read of the broker's topics (TopicAdmin and ReplicaManager are them). */
interface LocalTopics {
  topics(): readonly { name: string; partitions: number }[];
  /** Checks a reassignment of a local partition and makes it (TopicAdmin's). */
  reassignPartition(name: string, partition: number, replicas: readonly number[] | null): void;
}
interface LocalPartitions {
  partition(topic: string, partition: number): unknown;
}

/** A single broker coordinates every group and transactional id, loaded at start. */
export const SINGLE_BROKER_COORDINATORS: CoordinatorOwnership = {
  coordinatesGroup: () => true,
  coordinatesTransactionalId: () => true,
  groupLoading: () => false,
  transactionalIdLoading: () => false,
};

function clusterOnly(api: string): never {
  throw new KafkaError('UNSUPPORTED_VERSION', `${api} is for brokers of a cluster`);
}

/** A single broker has no controller but itself and is sent no controller requests. */
export const SINGLE_BROKER_CONTROLLER_REQUESTS: ControllerRequests = {
  applyLeaderAndIsr: async () => clusterOnly('LeaderAndIsr'),
  applyStopReplica: async () => clusterOnly('StopReplica'),
  applyUpdateMetadata: async () => clusterOnly('UpdateMetadata'),
  controlledShutdown: async () => clusterOnly('ControlledShutdown'),
  alterPartition: async () => clusterOnly('AlterPartition'),
};

/** Every partition of a single broker is led by its only replica: no election is needed. */
export function singleBrokerElections(admin: LocalTopics, replicas: LocalPartitions): PartitionElections {
  return {
    async electLeaders(_type, requested) {
      const partitions = requested ?? admin.topics().flatMap((t) => Array.from({ length: t.partitions }, (_, partition) => ({ topic: t.name, partition })));
      return partitions.map((tp) =>
        replicas.partition(tp.topic, tp.partition)
          ? { ...tp, errorCode: ErrorCode.ELECTION_NOT_NEEDED, errorMessage: null }
          : { ...tp, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: 'The partition does not exist.' },
      );
    },
  };
}

/** A single broker's reassignments are checked and made at once (TopicAdmin), so none is ever under way. */
export function singleBrokerReassignments(admin: LocalTopics): PartitionReassignments {
  return {
    async alter(requests) {
      return requests.map(({ topic, partition, replicas }) => {
        try {
          admin.reassignPartition(topic, partition, replicas);
          return { topic, partition, errorCode: ErrorCode.NONE, errorMessage: null };
        } catch (err) {
          if (!(err instanceof KafkaError)) throw err;
          return { topic, partition, errorCode: err.code, errorMessage: err.message };
        }
      });
    },
    async list() {
      return [];
    },
  };
}
