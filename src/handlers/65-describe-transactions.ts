// DescribeTransactions: v0 (KIP-664).
// Behaviour: for each transactional id its coordinator state (Kafka's names), timeout, start time (-1 when
// none is open), producer id and epoch, and the partitions of its current transaction. An unknown id is
// TRANSACTIONAL_ID_NOT_FOUND, an empty one INVALID_REQUEST.
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from './registry.js';
import { transactionCoordinatorError } from '../cluster/coordinator-guard.js';
import type { DescribeTransactionsResponse } from '../../protocol/messages/65-describe-transactions.js';

type State = DescribeTransactionsResponse['transactionStates'][number];

export default defineHandler({
  apiKey: 65,
  minVersion: 0,
  maxVersion: 0,
  handle({ transactions, coordinators }, req): DescribeTransactionsResponse {
    return {
      throttleTimeMs: 0,
      transactionStates: req.transactionalIds.map((transactionalId): State => {
        // A failed entry is zero-filled, as Kafka leaves the fields of its response's data class.
        const none = {
          transactionalId,
          transactionState: '',
          transactionTimeoutMs: 0,
          transactionStartTimeMs: 0,
          producerId: 0,
          producerEpoch: 0,
          topics: [],
        };
        if (!transactionalId) return { ...none, errorCode: ErrorCode.INVALID_REQUEST };
        const notHere = transactionCoordinatorError(coordinators, transactionalId);
        if (notHere !== ErrorCode.NONE) return { ...none, errorCode: notHere };
        const meta = transactions.get(transactionalId);
        if (!meta || meta.state === 'Dead') return { ...none, errorCode: ErrorCode.TRANSACTIONAL_ID_NOT_FOUND };
        return {
          errorCode: ErrorCode.NONE,
          transactionalId,
          transactionState: meta.state,
          transactionTimeoutMs: meta.timeoutMs,
          transactionStartTimeMs: meta.state === 'Empty' ? -1 : meta.startTimestamp,
          producerId: meta.producerId,
          producerEpoch: meta.producerEpoch,
          topics: [...meta.partitions].map(([topic, ps]) => ({ topic, partitions: [...ps].sort((a, b) => a - b) })),
        };
      }),
    };
  },
});
