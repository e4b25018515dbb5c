// AddPartitionsToTxn: v0-3 (the client's form).
// Behaviour: adds the partitions to the producer's transaction, starting it (txn/coordinator.ts). Errors are
// per partition: INVALID_PRODUCER_ID_MAPPING for an unknown transactional id or another producer id,
// PRODUCER_FENCED (INVALID_PRODUCER_EPOCH below v2, as Kafka sends it) for another epoch,
// CONCURRENT_TRANSACTIONS while one completes; an unknown partition is UNKNOWN_TOPIC_OR_PARTITION and the
// others of the request OPERATION_NOT_ATTEMPTED.
// Not yet: v4+, the broker-to-broker batched form of KIP-890 (no other broker asks).
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from './registry.js';
import type { AddPartitionsToTxnResponse } from '../../protocol/messages/24-add-partitions-to-txn.js';

export default defineHandler({
  apiKey: 24,
  minVersion: 0,
  maxVersion: 3,
  handle({ transactions, apiVersion }, req): AddPartitionsToTxnResponse {
    const result = transactions.addPartitions(req.v3AndBelowTransactionalId, req.v3AndBelowProducerId, req.v3AndBelowProducerEpoch, req.v3AndBelowTopics);
    const fenced = apiVersion < 2 ? ErrorCode.INVALID_PRODUCER_EPOCH : ErrorCode.PRODUCER_FENCED;
    return {
      throttleTimeMs: 0,
      resultsByTopicV3AndBelow: [...result].map(([name, partitions]) => ({
        name,
        resultsByPartition: [...partitions].map(([partitionIndex, code]) => ({
          partitionIndex, partitionErrorCode: code === ErrorCode.PRODUCER_FENCED ? fenced : code,
        })),
      })),
    };
  },
  errorResponse(req, code): AddPartitionsToTxnResponse {
    return {
      throttleTimeMs: 0,
      resultsByTopicV3AndBelow: req.v3AndBelowTopics.map((t) => ({ name: t.name, resultsByPartition: t.partitions.map((p) => ({ partitionIndex: p, partitionErrorCode: code })) })),
    };
  },
});
