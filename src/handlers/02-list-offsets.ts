// ListOffsets: v1-10.
// Behaviour: timestamp -1 is the latest offset (high watermark), -2 the earliest (log start offset),
// -3 (v7+, KIP-734) the record with the largest timestamp, -4 (v8+) the earliest local offset, which is
// the log start offset since nothing is tiered; any other value finds the first offset whose timestamp is
// at or after it through the time index, or answers offset -1 when there is none.
// Version notes: v0's oldStyleOffsets is below the KIP-896 baseline; isolationLevel (v2+) makes no
// difference until transactions exist.
import { ErrorCode, KafkaError, errorCodeOf } from '../../protocol/errors.js';
import { defineHandler } from './registry.js';
import { LEADER_EPOCH } from '../log-validator.js';
import type { Message } from '../../protocol/codec.js';
import type { PartitionLog } from '../storage/partition-log.js';

const LATEST = -1;
const EARLIEST = -2;
const MAX_TIMESTAMP = -3;
const EARLIEST_LOCAL = -4;

function lookup(log: PartitionLog, timestamp: number): { timestamp: number; offset: number } {
  switch (timestamp) {
    case LATEST: return { timestamp: -1, offset: log.highWatermark };
    case EARLIEST:
    case EARLIEST_LOCAL: return { timestamp: -1, offset: log.logStartOffset };
    case MAX_TIMESTAMP: return log.maxTimestampOffset() ?? { timestamp: -1, offset: -1 };
    default:
      if (timestamp < 0) throw new KafkaError('INVALID_REQUEST', `unknown special timestamp ${timestamp}`);
      return log.offsetForTimestamp(timestamp) ?? { timestamp: -1, offset: -1 };
  }
}

export default defineHandler({
  apiKey: 2,
  minVersion: 1,
  maxVersion: 10,
  handle({ broker }, req) {
    return {
      throttleTimeMs: 0,
      topics: req.topics.map((t: Message) => ({
        name: t.name,
        partitions: t.partitions.map((p: Message) => {
          const log = broker.logs.partition(t.name, p.partitionIndex);
          const base = { partitionIndex: p.partitionIndex, errorCode: ErrorCode.NONE, timestamp: -1, offset: -1, leaderEpoch: LEADER_EPOCH };
          if (!log) return { ...base, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, leaderEpoch: -1 };
          try {
            return { ...base, ...lookup(log, p.timestamp) };
          } catch (err) {
            if (!(err instanceof KafkaError)) throw err;
            return { ...base, errorCode: errorCodeOf(err) };
          }
        }),
      })),
    };
  },
});
