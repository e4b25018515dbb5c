// ListTransactions: v0-1 (KIP-664, KIP-994).
// Behaviour: the transactional ids this broker coordinates (Dead ones excluded; in a cluster those of the
// __transaction_state partitions it leads), filtered by state names
// (unknown names are echoed in unknownStateFilters and match nothing), by producer id, and (v1) by having
// been open longer than durationFilter ms. Empty filters match everything. While a partition is being loaded
// the answer is COORDINATOR_LOAD_IN_PROGRESS, as Kafka's.
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from './registry.js';
import { TXN_STATE_IDS } from '../txn/coordinator.js';
import type { ListTransactionsResponse } from '../../protocol/messages/66-list-transactions.js';

export default defineHandler({
  apiKey: 66,
  minVersion: 0,
  maxVersion: 1,
  handle({ transactions, coordinators }, req): ListTransactionsResponse {
    const known = req.stateFilters.filter((s) => s in TXN_STATE_IDS);
    const unknownStateFilters = req.stateFilters.filter((s) => !(s in TXN_STATE_IDS));
    const now = Date.now();
    const transactionStates = transactions
      .all()
      .filter((m) => m.state !== 'Dead' && coordinators.coordinatesTransactionalId(m.transactionalId))
      .filter((m) => req.stateFilters.length === 0 || known.includes(m.state))
      .filter((m) => req.producerIdFilters.length === 0 || req.producerIdFilters.includes(m.producerId))
      .filter((m) => req.durationFilter < 0 || now - m.startTimestamp > req.durationFilter)
      .map((m) => ({ transactionalId: m.transactionalId, producerId: m.producerId, transactionState: m.state }));
    if (transactions.isLoadingAny())
      return { throttleTimeMs: 0, errorCode: ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, unknownStateFilters: [], transactionStates: [] };
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, unknownStateFilters, transactionStates };
  },
  errorResponse(_req, code): ListTransactionsResponse {
    return { throttleTimeMs: 0, errorCode: code, unknownStateFilters: [], transactionStates: [] };
  },
});
