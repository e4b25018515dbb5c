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
import { lastOfEach, repeatedKeys } from './repeated-entries.js';
import type { Partition } from '../partition/partition.js';
import type { ListOffsetsResponse } from '../../protocol/messages/02-list-offsets.js';

type PartitionResponse = ListOffsetsResponse['topics'][number]['partitions'][number];

const LATEST = -1;
const EARLIEST = -2;
const MAX_TIMESTAMP = -3;
const EARLIEST_LOCAL = -4;
const LATEST_TIERED = -5;

/** The version each special timestamp came with: Kafka answers UNSUPPORTED_VERSION for it below that. */
const SINCE_VERSION = new Map<number, number>([
  [MAX_TIMESTAMP, 7],
  [EARLIEST_LOCAL, 8],
  [LATEST_TIERED, 9],
]);

/** No offset answers the timestamp: Kafka gives no leader epoch either. */
const NOT_FOUND = { timestamp: -1, offset: -1, leaderEpoch: -1 };

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
      return partition.maxTimestampOffset() ?? NOT_FOUND;
    case LATEST_TIERED:
      // Nothing is in remote storage: Kafka answers -1 with leader epoch -1.
      return { timestamp: -1, offset: -1, leaderEpoch: -1 };
    default:
      // A special timestamp of a later version than the request's, as Kafka sees any it does not know.
      if (timestamp < 0) throw new KafkaError('UNSUPPORTED_VERSION', `unknown special timestamp ${timestamp}`);
      return partition.offsetForTimestamp(timestamp) ?? NOT_FOUND;
  }
}

export default defineHandler({
  apiKey: 2,
  minVersion: 1,
  maxVersion: 10,
  handle({ replicas, apiVersion }, req): ListOffsetsResponse {
    return {
      throttleTimeMs: 0,
      topics: req.topics.map((t) => {
        const repeated = repeatedKeys(t.partitions, (p) => p.partitionIndex);
        return {
          name: t.name,
          partitions: lastOfEach(t.partitions, (p) => p.partitionIndex).map((p): PartitionResponse => {
            const failed = (errorCode: number) => ({ partitionIndex: p.partitionIndex, errorCode, ...NOT_FOUND });
            if (repeated.has(p.partitionIndex)) return failed(ErrorCode.INVALID_REQUEST);
            const partition = replicas.leaderPartition(t.name, p.partitionIndex);
            if (typeof partition === 'number') return failed(partition);
            // v4+ (KIP-320): a client's leader epoch other than the leader's is refused, as Fetch refuses it.
            const fenced = partition.checkLeaderEpoch(p.currentLeaderEpoch);
            if (fenced) return failed(ErrorCode[fenced]);
            if (apiVersion < (SINCE_VERSION.get(p.timestamp) ?? 0)) return failed(ErrorCode.UNSUPPORTED_VERSION);
            try {
              return {
                partitionIndex: p.partitionIndex,
                errorCode: ErrorCode.NONE,
                leaderEpoch: partition.leaderEpoch,
                ...lookup(partition, p.timestamp, req.isolationLevel === 1, req.replicaId >= 0),
              };
            } catch (err) {
              return failed(asKafkaError(err).code);
            }
          }),
        };
      }),
    };
  },
});
