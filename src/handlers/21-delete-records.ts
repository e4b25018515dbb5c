// DeleteRecords: v0-2.
// Behaviour (Kafka's ReplicaManager.deleteRecords and Partition.deleteRecordsOnLeader): each partition's
// log start offset (its low watermark) moves up to the given offset, -1 meaning the high watermark; the
// segments wholly below it are deleted at once (renamed .deleted, removed file.delete.delay.ms later), and
// fetches below it get OFFSET_OUT_OF_RANGE. An offset at or below the log start offset changes nothing and
// answers the current low watermark. Errors per partition, with lowWatermark -1:
//   - UNKNOWN_TOPIC_OR_PARTITION: no such topic or partition;
//   - INVALID_TOPIC_EXCEPTION: __consumer_offsets and __transaction_state (Kafka's internal topics);
//   - POLICY_VIOLATION: the topic's cleanup.policy lacks delete (compact only);
//   - OFFSET_OUT_OF_RANGE: an offset below -1, or past the high watermark.
// timeoutMs is not waited on: a single broker has no followers whose log start offsets to wait for.
// Version notes: v2 is flexible (KIP-482); no version changes the behaviour.
import { ErrorCode } from '../../protocol/errors.js';
import { asKafkaError } from './error-result.js';
import { defineHandler } from './registry.js';
import { OFFSETS_TOPIC } from '../group/offsets-topic.js';
import { TRANSACTION_STATE_TOPIC } from '../txn/state-topic.js';
import type { DeleteRecordsResponse } from '../../protocol/messages/21-delete-records.js';

type PartitionResult = DeleteRecordsResponse['topics'][number]['partitions'][number];

const INTERNAL_TOPICS: ReadonlySet<string> = new Set([OFFSETS_TOPIC, TRANSACTION_STATE_TOPIC]);

export default defineHandler({
  apiKey: 21,
  minVersion: 0,
  maxVersion: 2,
  handle({ replicas, log }, req): DeleteRecordsResponse {
    return {
      throttleTimeMs: 0,
      topics: req.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p): PartitionResult => {
          const failed = (errorCode: number): PartitionResult => ({ partitionIndex: p.partitionIndex, lowWatermark: -1, errorCode });
          if (INTERNAL_TOPICS.has(t.name)) return failed(ErrorCode.INVALID_TOPIC_EXCEPTION);
          const partition = replicas.leaderPartition(t.name, p.partitionIndex);
          if (typeof partition === 'number') return failed(partition);
          try {
            const before = partition.logStartOffset;
            const lowWatermark = replicas.deleteRecords(partition, Number(p.offset));
            if (lowWatermark !== before) log.info({ topic: t.name, partition: p.partitionIndex, logStartOffset: lowWatermark }, 'deleted records');
            return { partitionIndex: p.partitionIndex, lowWatermark, errorCode: ErrorCode.NONE };
          } catch (err) {
            return failed(asKafkaError(err).code);
          }
        }),
      })),
    };
  },
});
