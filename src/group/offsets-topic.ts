// __consumer_offsets: the internal, compacted topic behind the group coordinator. Group g lives in
// partition abs(javaHashCode(g)) % offsets.topic.num.partitions, as in Kafka. Records are appended as
// batches through that partition's log (synchronously, before the request is answered; in a cluster the
// answer also waits for the in-sync replicas, see replicated-write.ts). A single broker replays the whole
// topic into the coordinator at start; in a cluster each partition is replayed when this broker is elected
// its leader (loadPartition).
import { KafkaError } from '../../protocol/errors.js';
import { buildBatch, scanBatches } from '../../protocol/record-batch.js';
import type { LogManager } from '../storage/log-manager.js';
import type { ReplicaManager } from '../partition/replica-manager.js';
import type { GroupCoordinator } from './coordinator.js';
import type { CoordinatorStore, StoreRecord, StoreTxn } from './store.js';
import { readMarker } from '../../protocol/control-record.js';
import { decodeGroupMetadataValue, decodeKey, decodeOffsetCommitValue, partitionForGroup } from './records.js';
import { replayLog } from '../storage/log-replay.js';
import { OFFSETS_COMMIT_TIMEOUT_MS, awaitCoordinatorWrite, checkCoordinatorAppend } from './replicated-write.js';

import { CREATE_IN_LOCAL_LOGS, type InternalTopicCreation } from '../internal-topic-creation.js';

export const OFFSETS_TOPIC = '__consumer_offsets';

export class OffsetsTopicStore implements CoordinatorStore {
  constructor(
    private readonly logs: LogManager,
    private readonly replicas: ReplicaManager,
    private readonly configuredPartitions: number,
    /** In a cluster the controller creates the topic: it then only appears here once it has told this broker. */
    private readonly create: InternalTopicCreation,
  ) {}

  /** The topic's partition count once it exists (in a cluster, the one it was created with), else the configured one. */
  get numPartitions(): number {
    return this.logs.getTopic(OFFSETS_TOPIC)?.partitions ?? this.configuredPartitions;
  }

  /**
   * An existing topic keeps its partition count. A missing one is created on the first write, not here:
   * brokers that never see a group (most test suites) do not pay for 50 partition directories at start.
   */
  static open(logs: LogManager, replicas: ReplicaManager, numPartitions: number, create = CREATE_IN_LOCAL_LOGS): OffsetsTopicStore {
    const existing = logs.getTopic(OFFSETS_TOPIC);
    return new OffsetsTopicStore(logs, replicas, existing ? existing.partitions : numPartitions, create);
  }

  partitionFor(groupId: string): number {
    return partitionForGroup(groupId, this.numPartitions);
  }

  /** The topic's configs when it is created (here, or through the controller in a cluster). */
  get topicConfigs(): Record<string, string> {
    return { 'cleanup.policy': 'compact', 'segment.bytes': '104857600' };
  }

  /** Creates the topic, as Kafka does on the first FindCoordinator, a Metadata request for it, or a write. */
  ensureTopic(): void {
    if (!this.logs.getTopic(OFFSETS_TOPIC)) this.create(this.logs, OFFSETS_TOPIC, this.numPartitions, this.topicConfigs);
  }

  append(groupId: string, records: StoreRecord[], txn?: StoreTxn): void {
    this.ensureTopic();
    const partition = this.replicas.partition(OFFSETS_TOPIC, this.partitionFor(groupId));
    if (!partition) throw new KafkaError('COORDINATOR_NOT_AVAILABLE', `${OFFSETS_TOPIC} is missing`);
    checkCoordinatorAppend(this.logs, partition);
    // A transaction's offsets go in a transactional batch of its producer (no sequence: the coordinator's write).
    const buf = buildBatch(
      records.map((r) => ({ key: r.key, value: r.value })),
      txn
        ? { partitionLeaderEpoch: partition.leaderEpoch, producerId: txn.producerId, producerEpoch: txn.producerEpoch, isTransactional: true }
        : { partitionLeaderEpoch: partition.leaderEpoch },
    );
    // Through the replica manager, as Kafka's coordinator appends, so consumers of the topic are woken.
    this.replicas.appendValidated(partition, buf, scanBatches(buf, { fromClient: false }), true);
  }

  replicated(groupId: string): Promise<number> | null {
    const partition = this.replicas.partition(OFFSETS_TOPIC, this.partitionFor(groupId));
    return partition ? awaitCoordinatorWrite(this.replicas, this.logs, partition, OFFSETS_COMMIT_TIMEOUT_MS) : null;
  }

  /** Replays every partition into the coordinator (a single broker, at start). */
  load(coordinator: GroupCoordinator): void {
    for (let p = 0; p < this.numPartitions; p++) this.loadPartition(coordinator, p);
  }

  /** Replays one partition into the coordinator, in log order (later records win). */
  loadPartition(coordinator: GroupCoordinator, p: number): void {
    const log = this.logs.partition(OFFSETS_TOPIC, p);
    if (!log) return;
    replayLog(log, {
      // A transaction's marker commits or drops the offsets it wrote in this partition.
      control: (info, chunk) => {
        const marker = readMarker(chunk, info);
        if (marker) coordinator.completeTxnOffsets(info.producerId, marker.commit, p);
      },
      record: (info, r) => {
        const key = decodeKey(r.key!);
        if (!key) return;
        if (key.type === 'offset' && info.isTransactional && info.producerId >= 0) {
          if (r.value) coordinator.loadPendingOffset(info.producerId, key.key.group, key.key.topic, key.key.partition, decodeOffsetCommitValue(r.value));
        } else if (key.type === 'offset') {
          coordinator.loadOffset(key.key.group, key.key.topic, key.key.partition, r.value ? decodeOffsetCommitValue(r.value) : null);
        } else {
          coordinator.loadGroup(key.group, r.value ? decodeGroupMetadataValue(r.value) : null);
        }
      },
    });
  }
}
