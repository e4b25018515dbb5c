// AddOffsetsToTxn: v0-4.
// Behaviour: adds the group's __consumer_offsets partition to the producer's transaction, so that its
// TxnOffsetCommit writes there and the transaction's marker ends them (sendOffsetsToTransaction). Errors as
// AddPartitionsToTxn's; PRODUCER_FENCED is sent as INVALID_PRODUCER_EPOCH below v2. In a cluster the answer
// waits for the in-sync replicas of the transaction's state.
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from './registry.js';
import { OFFSETS_TOPIC } from '../group/offsets-topic.js';
import type { AddOffsetsToTxnResponse } from '../../protocol/messages/25-add-offsets-to-txn.js';

export default defineHandler({
  apiKey: 25,
  minVersion: 0,
  maxVersion: 4,
  handle({ transactions, transactionState, groups, topics, apiVersion }, req): AddOffsetsToTxnResponse | Promise<AddOffsetsToTxnResponse> {
    if (!req.groupId) return { throttleTimeMs: 0, errorCode: ErrorCode.INVALID_GROUP_ID };
    topics.ensureOffsetsTopic();
    const partition = groups.offsetsPartitionFor(req.groupId);
    const result = transactions.addPartitions(req.transactionalId, req.producerId, req.producerEpoch, [{ name: OFFSETS_TOPIC, partitions: [partition] }]);
    const code = result.get(OFFSETS_TOPIC)?.get(partition) ?? ErrorCode.UNKNOWN_SERVER_ERROR;
    const errorCode = code === ErrorCode.PRODUCER_FENCED && apiVersion < 2 ? ErrorCode.INVALID_PRODUCER_EPOCH : code;
    return transactionState.answerWhenReplicated(req.transactionalId, { throttleTimeMs: 0, errorCode }, (failed) => ({ throttleTimeMs: 0, errorCode: failed }));
  },
  errorResponse(_req, code): AddOffsetsToTxnResponse {
    return { throttleTimeMs: 0, errorCode: code };
  },
});
