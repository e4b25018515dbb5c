// What Metadata and DescribeTopicPartitions say of one partition: in a cluster the controller's word (what it
// last sent), on a single broker the replica manager's (it leads every partition alone).
import type { ReplicaManager } from '../partition/replica-manager.js';
import type { ClusterView } from '../cluster/cluster-view.js';

export interface PartitionState {
  partitionIndex: number;
  /** -1 when no live broker leads it. */
  leaderId: number;
  leaderEpoch: number;
  replicaNodes: readonly number[];
  isrNodes: readonly number[];
  offlineReplicas: readonly number[];
}

export function partitionState(cluster: ClusterView, replicas: ReplicaManager, topic: string, partitionIndex: number): PartitionState {
  const described = cluster.partitionMetadata(topic, partitionIndex);
  if (described) {
    return {
      partitionIndex,
      leaderId: described.leaderId,
      leaderEpoch: described.leaderEpoch,
      replicaNodes: described.replicas,
      isrNodes: described.isr,
      offlineReplicas: described.offlineReplicas,
    };
  }
  const partition = replicas.partition(topic, partitionIndex);
  // A cluster broker's partition the controller has not described yet has no leader.
  if (!partition) return { partitionIndex, leaderId: -1, leaderEpoch: -1, replicaNodes: [], isrNodes: [], offlineReplicas: [] };
  return {
    partitionIndex,
    leaderId: partition.leaderId,
    leaderEpoch: partition.leaderEpoch,
    replicaNodes: partition.replicas,
    isrNodes: partition.isr,
    offlineReplicas: [],
  };
}
