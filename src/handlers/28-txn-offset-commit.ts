// TxnOffsetCommit: v0-4.
// Behaviour: writes the offsets into the producer's transaction, in the group's __consumer_offsets partition;
// they are pending (OffsetFetch does not show them) until the transaction's marker commits them or aborts
// them (group/offsets.ts). The partition must have been added with AddOffsetsToTxn (KIP-890 verification):
// otherwise INVALID_TXN_STATE, TRANSACTION_ABORTABLE from v4; PRODUCER_FENCED is sent as INVALID_PRODUCER_EPOCH.
// v3+ carries the member's generation, id and instance id (KIP-447), checked when given. In a cluster the
// answer waits for the in-sync replicas, as OffsetCommit's.
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from './registry.js';
import { OFFSETS_TOPIC } from '../group/offsets-topic.js';
import type { TxnOffsetCommitResponse } from '../../protocol/messages/28-txn-offset-commit.js';
import type { TxnOffsetCommitRequest } from '../../protocol/messages/28-txn-offset-commit.js';
import { whenWritten } from '../group/replicated-write.js';
import { transactionCoordinatorError } from '../cluster/coordinator-guard.js';

function all(req: TxnOffsetCommitRequest, code: number): TxnOffsetCommitResponse {
  return {
    throttleTimeMs: 0,
    topics: req.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: code })) })),
  };
}

export default defineHandler({
  apiKey: 28,
  minVersion: 0,
  maxVersion: 4,
  handle({ transactions, groups, coordinators, apiVersion }, req): TxnOffsetCommitResponse | Promise<TxnOffsetCommitResponse> {
    if (!req.groupId) return all(req, ErrorCode.INVALID_GROUP_ID);
    // Verified where this broker also coordinates the transaction; in a cluster the two coordinators may be
    // different brokers (a failover moves one), and the offsets are then taken as Kafka took them before
    // KIP-890's verification, as Produce does (the marker still commits or drops them).
    const here = transactionCoordinatorError(coordinators, req.transactionalId);
    if (here === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS) return all(req, here);
    const verified =
      here === ErrorCode.NONE
        ? transactions.verifyPartition(req.transactionalId, req.producerId, req.producerEpoch, OFFSETS_TOPIC, groups.offsetsPartitionFor(req.groupId))
        : null;
    if (verified !== null) {
      if (verified === ErrorCode.INVALID_TXN_STATE) return all(req, apiVersion >= 4 ? ErrorCode.TRANSACTION_ABORTABLE : ErrorCode.INVALID_TXN_STATE);
      return all(req, verified === ErrorCode.PRODUCER_FENCED ? ErrorCode.INVALID_PRODUCER_EPOCH : verified);
    }
    const topics = groups.commitTxnOffsets(
      req.groupId,
      req.producerId,
      req.producerEpoch,
      req.generationId,
      req.memberId,
      req.groupInstanceId,
      req.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({
          partition: p.partitionIndex,
          offset: p.committedOffset,
          leaderEpoch: p.committedLeaderEpoch,
          metadata: p.committedMetadata,
        })),
      })),
    );
    return whenWritten(topics, (written): TxnOffsetCommitResponse => ({ throttleTimeMs: 0, topics: written }));
  },
  errorResponse(req, code): TxnOffsetCommitResponse {
    return all(req, code);
  },
});
