// ListOffsets: v1-10.
// Behaviour: timestamp -1 is the latest offset (the partition's high watermark), -2 the earliest (log start offset),
// -3 (v7+, KIP-734) the record with the largest timestamp, -4 (v8+) the earliest local offset, which is
// the log start offset since nothing is tiered, -5 (v9+, KIP-1005) the latest tiered offset, -1 (epoch -1) as
// Kafka answers without remote storage; any other value finds the first offset whose timestamp is
// at or after it through the time index, or answers offset -1 when there is none.
// read_committed (isolationLevel 1, v2+) gets the last stable offset as the latest. A replica (replicaId >= 0:
// a follower looking for the leader's log end) gets the log end offset as the latest, as Kafka answers it.
// Version notes: v0's oldStyleOffsets is below the KIP-896 baseline.
import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import { asKafkaError } from './error-result.js';
import { defineHandler } from './registry.js';
import type { Partition } from '../partition/partition.js';
import type { ListOffsetsResponse } from '../../protocol/messages/02-list-offsets.js';

type PartitionResponse = ListOffsetsResponse['topics'][number]['partitions'][number];

const LATEST = -1;
const EARLIEST = -2;
const MAX_TIMESTAMP = -3;
const EARLIEST_LOCAL = -4;
const LATEST_TIERED = -5;

function lookup(
  partition: Partition,
  timestamp: number,
  readCommitted: boolean,
  replica: boolean,
): { timestamp: number; offset: number; leaderEpoch?: number } {
  switch (timestamp) {
    case LATEST:
      return { timestamp: -1, offset: replica ? partition.logEndOffset : readCommitted ? partition.lastStableOffset : partition.highWatermark };
    case EARLIEST:
    case EARLIEST_LOCAL:
      return { timestamp: -1, offset: partition.logStartOffset };
    case MAX_TIMESTAMP:
      return partition.maxTimestampOffset() ?? { timestamp: -1, offset: -1 };
    case LATEST_TIERED:
      // Nothing is in remote storage: Kafka answers -1 with leader epoch -1.
      return { timestamp: -1, offset: -1, leaderEpoch: -1 };
    default:
      if (timestamp < 0) throw new KafkaError('INVALID_REQUEST', `unknown special timestamp ${timestamp}`);
      return partition.offsetForTimestamp(timestamp) ?? { timestamp: -1, offset: -1 };
  }
}

export default defineHandler({
  apiKey: 2,
  minVersion: 1,
  maxVersion: 10,
  handle({ replicas }, req): ListOffsetsResponse {
    return {
      throttleTimeMs: 0,
      topics: req.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p): PartitionResponse => {
          const partition = replicas.leaderPartition(t.name, p.partitionIndex);
          if (typeof partition === 'number') return { partitionIndex: p.partitionIndex, errorCode: partition, timestamp: -1, offset: -1, leaderEpoch: -1 };
          const base = { partitionIndex: p.partitionIndex, errorCode: ErrorCode.NONE, timestamp: -1, offset: -1, leaderEpoch: partition.leaderEpoch };
          try {
            return { ...base, ...lookup(partition, p.timestamp, req.isolationLevel === 1, req.replicaId >= 0) };
          } catch (err) {
            return { ...base, errorCode: asKafkaError(err).code };
          }
        }),
      })),
    };
  },
});
