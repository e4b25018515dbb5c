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

/** How long a marker's replication is waited for (Kafka appends markers with acks=all, request.timeout.ms). */
export const MARKER_REPLICATION_TIMEOUT_MS = 30_000;

/** Names one marker of one transaction on one partition, for the sets that track its delivery. */
export function markerKey(marker: TxnMarker, topic: string, partition: number): string {
  return `${marker.producerId}/${marker.producerEpoch}/${marker.commit}/${topic}/${partition}`;
}

export function writeTxnMarker(replicas: ReplicaManager, groups: GroupCoordinator, partition: Partition, marker: TxnMarker): void {
  const buf = buildMarkerBatch(marker.producerId, marker.producerEpoch, { commit: marker.commit, coordinatorEpoch: marker.coordinatorEpoch });
  replicas.appendValidated(partition, buf, scanBatches(buf, { fromClient: false }));
  if (partition.topic === OFFSETS_TOPIC) groups.completeTxnOffsets(marker.producerId, marker.commit, partition.index);
}

/**
 * Markers the transaction coordinator writes on partitions this broker leads, as delivered only once the
 * partition's ISR has them (Kafka writes them with acks=all): otherwise a leader dying right after would leave
 * a new leader without the marker while the coordinator has completed the transaction, and that partition's
 * last stable offset stuck below it for ever. write() answers true once the marker is written and replicated;
 * false while it is on its way (then `delivered` is called, and the coordinator asks again), and a failed wait
 * writes it again at the next ask (a second marker for the same transaction changes nothing).
 */
export class LocalMarkerWrites {
  private readonly replicated = new Set<string>();
  private readonly waiting = new Set<string>();

  write(replicas: ReplicaManager, groups: GroupCoordinator, partition: Partition, marker: TxnMarker, delivered: () => void): boolean {
    const key = markerKey(marker, partition.topic, partition.index);
    if (this.replicated.delete(key)) return true;
    if (this.waiting.has(key)) return false;
    writeTxnMarker(replicas, groups, partition, marker);
    if (partition.replicas.length <= 1) return true;
    this.waiting.add(key);
    void replicas.awaitReplicated(partition, partition.logEndOffset, 1, MARKER_REPLICATION_TIMEOUT_MS).then((code) => {
      this.waiting.delete(key);
      // delivered() asks again at once (the coordinator's retry is synchronous): the key is consumed there,
      // or dropped here when the transaction is no longer this coordinator's, so that a later transaction
      // of the same producer and epoch never finds it.
      if (code === 0) this.replicated.add(key);
      delivered();
      this.replicated.delete(key);
    });
    return false;
  }
}
