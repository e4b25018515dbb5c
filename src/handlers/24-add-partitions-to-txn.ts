// AddPartitionsToTxn: v0-5.
// Behaviour: v0-3 (the clients' form) add the partitions to the producer's transaction, starting it
// (txn/coordinator.ts). Errors are per partition: INVALID_PRODUCER_ID_MAPPING for an unknown transactional id
// or another producer id, PRODUCER_FENCED (INVALID_PRODUCER_EPOCH below v2, as Kafka sends it) for another
// epoch, CONCURRENT_TRANSACTIONS while one completes; an unknown partition is UNKNOWN_TOPIC_OR_PARTITION and
// the others of the request OPERATION_NOT_ATTEMPTED.
// v4-5 are KIP-890's batched form, several transactions per request, each adding or (verifyOnly) asking
// whether its partitions are in the open transaction (TRANSACTION_ABORTABLE for one that is not). Kafka's
// brokers send it to the coordinator; clients do not.
// In a cluster the answer waits for the in-sync replicas of the transaction's state (a transaction whose
// write they do not get has every partition answered with the error).
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from './registry.js';
import type { AddPartitionsToTxnResponse } from '../../protocol/messages/24-add-partitions-to-txn.js';

type TopicResult = NonNullable<AddPartitionsToTxnResponse['resultsByTopicV3AndBelow']>[number];

function topicResults(result: Map<string, Map<number, number>>, mapCode: (code: number) => number = (c) => c): TopicResult[] {
  return [...result].map(([name, partitions]) => ({
    name,
    resultsByPartition: [...partitions].map(([partitionIndex, code]) => ({ partitionIndex, partitionErrorCode: mapCode(code) })),
  }));
}

/** Every partition of the request answered `code`. */
function everyPartition(topics: readonly { name: string; partitions: readonly number[] }[], code: number): Map<string, Map<number, number>> {
  return new Map(topics.map((t) => [t.name, new Map(t.partitions.map((p) => [p, code]))]));
}

export default defineHandler({
  apiKey: 24,
  minVersion: 0,
  maxVersion: 5,
  handle({ transactions, transactionState, apiVersion }, req): AddPartitionsToTxnResponse | Promise<AddPartitionsToTxnResponse> {
    if (apiVersion >= 4) {
      const results = req.transactions.map((t) => {
        const result = {
          transactionalId: t.transactionalId,
          topicResults: topicResults(
            t.verifyOnly
              ? transactions.verifyPartitions(t.transactionalId, t.producerId, t.producerEpoch, t.topics)
              : transactions.addPartitions(t.transactionalId, t.producerId, t.producerEpoch, t.topics),
          ),
        };
        return t.verifyOnly
          ? result
          : transactionState.answerWhenReplicated(t.transactionalId, result, (code) => ({
              ...result,
              topicResults: topicResults(everyPartition(t.topics, code)),
            }));
      });
      const answer = (resultsByTransaction: Awaited<(typeof results)[number]>[]): AddPartitionsToTxnResponse => ({
        throttleTimeMs: 0,
        errorCode: ErrorCode.NONE,
        resultsByTransaction,
      });
      return results.some((r) => r instanceof Promise) ? Promise.all(results).then(answer) : answer(results as Awaited<(typeof results)[number]>[]);
    }
    const result = transactions.addPartitions(req.v3AndBelowTransactionalId, req.v3AndBelowProducerId, req.v3AndBelowProducerEpoch, req.v3AndBelowTopics);
    const fenced = apiVersion < 2 ? ErrorCode.INVALID_PRODUCER_EPOCH : ErrorCode.PRODUCER_FENCED;
    const answer = (codes: Map<string, Map<number, number>>): AddPartitionsToTxnResponse => ({
      throttleTimeMs: 0,
      resultsByTopicV3AndBelow: topicResults(codes, (code) => (code === ErrorCode.PRODUCER_FENCED ? fenced : code)),
    });
    return transactionState.answerWhenReplicated(req.v3AndBelowTransactionalId, answer(result), (code) => answer(everyPartition(req.v3AndBelowTopics, code)));
  },
  errorResponse(req, code, version): AddPartitionsToTxnResponse {
    if (version >= 4) return { throttleTimeMs: 0, errorCode: code, resultsByTransaction: [] };
    return {
      throttleTimeMs: 0,
      resultsByTopicV3AndBelow: req.v3AndBelowTopics.map((t) => ({
        name: t.name,
        resultsByPartition: t.partitions.map((p) => ({ partitionIndex: p, partitionErrorCode: code })),
      })),
    };
  },
});
