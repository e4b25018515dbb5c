// DescribeProducers: v0 (KIP-664).
// Behaviour: for each partition asked, the idempotent producers it remembers (those not expired by
// producer.id.expiration.ms): id, epoch, last sequence and the timestamp of their last batch. An unknown
// topic or partition is UNKNOWN_TOPIC_OR_PARTITION. coordinatorEpoch is that of the transaction coordinator
// whose marker came last (-1 before any), currentTxnStartOffset the first offset of the producer's open
// transaction (-1 when none): what Admin.abortTransaction needs to end a hanging transaction.
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from './registry.js';
import type { DescribeProducersResponse } from '../../protocol/messages/61-describe-producers.js';

type TopicResult = DescribeProducersResponse['topics'][number];

export default defineHandler({
  apiKey: 61,
  minVersion: 0,
  maxVersion: 0,
  handle({ replicas }, req): DescribeProducersResponse {
    return {
      throttleTimeMs: 0,
      topics: req.topics.map((t): TopicResult => ({
        name: t.name,
        partitions: t.partitionIndexes.map((index) => {
          const partition = replicas.leaderPartition(t.name, index);
          if (typeof partition === 'number') {
            const errorMessage =
              partition === ErrorCode.NOT_LEADER_OR_FOLLOWER
                ? 'This server is not the leader of this topic-partition.'
                : 'This server does not host this topic-partition.';
            return { partitionIndex: index, errorCode: partition, errorMessage, activeProducers: [] };
          }
          return {
            partitionIndex: index,
            errorCode: ErrorCode.NONE,
            errorMessage: null,
            activeProducers: partition.activeProducers().map((p) => ({
              producerId: p.producerId,
              producerEpoch: p.producerEpoch,
              lastSequence: p.lastSequence,
              lastTimestamp: p.lastTimestamp,
              coordinatorEpoch: p.coordinatorEpoch,
              currentTxnStartOffset: p.currentTxnStartOffset,
            })),
          };
        }),
      })),
    };
  },
  errorResponse(req, code): DescribeProducersResponse {
    return {
      throttleTimeMs: 0,
      topics: req.topics.map((t) => ({
        name: t.name,
        partitions: t.partitionIndexes.map((index) => ({ partitionIndex: index, errorCode: code, errorMessage: null, activeProducers: [] })),
      })),
    };
  },
});
