// EndTxn: v0-4 (v5 belongs to KIP-890's transaction.version 2, which krill does not advertise).
// Behaviour: commits or aborts the producer's transaction: the prepare record, a marker on every partition
// of the transaction, the complete record, then the answer (txn/coordinator.ts). A retry of the EndTxn that
// completed it succeeds; ending a transaction that is not open is INVALID_TXN_STATE. PRODUCER_FENCED is
// sent as INVALID_PRODUCER_EPOCH below v2.
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from './registry.js';
import type { EndTxnResponse } from '../../protocol/messages/26-end-txn.js';

export default defineHandler({
  apiKey: 26,
  minVersion: 0,
  maxVersion: 4,
  handle({ transactions, apiVersion }, req): EndTxnResponse {
    const code = transactions.endTxn(req.transactionalId, req.producerId, req.producerEpoch, req.committed);
    return { throttleTimeMs: 0, errorCode: code === ErrorCode.PRODUCER_FENCED && apiVersion < 2 ? ErrorCode.INVALID_PRODUCER_EPOCH : code };
  },
  errorResponse(_req, code): EndTxnResponse {
    return { throttleTimeMs: 0, errorCode: code };
  },
});
