// Writing the control batch that ends a transaction on one partition, as its leader does: locally for the
// coordinator's own partitions, and for WriteTxnMarkers from a coordinator on another broker (cluster mode).
// On __consumer_offsets the group coordinator's transactional offsets of that producer become visible, or go.
import { buildMarkerBatch } from '../../protocol/control-record.js';
import { scanBatches } from '../../protocol/record-batch.js';
import type { ReplicaManager } from '../partition/replica-manager.js';
import type { Partition } from '../partition/partition.js';
import type { GroupCoordinator } from '../group/coordinator.js';
import { OFFSETS_TOPIC } from '../group/offsets-topic.js';

export interface TxnMarker {
  producerId: number;
  producerEpoch: number;
  commit: boolean;
  coordinatorEpoch: number;
}

export function writeTxnMarker(replicas: ReplicaManager, groups: GroupCoordinator, partition: Partition, marker: TxnMarker): void {
  const buf = buildMarkerBatch(marker.producerId, marker.producerEpoch, { commit: marker.commit, coordinatorEpoch: marker.coordinatorEpoch });
  replicas.appendValidated(partition, buf, scanBatches(buf, { fromClient: false }));
  if (partition.topic === OFFSETS_TOPIC) groups.completeTxnOffsets(marker.producerId, marker.commit, partition.index);
}
