// EndTxn: v0-5.
// Behaviour: commits or aborts the producer's transaction: the prepare record, a marker on every partition
// of the transaction, the complete record, then the answer (txn/coordinator.ts). A retry of the EndTxn that
// completed it succeeds; ending a transaction that is not open is INVALID_TXN_STATE. PRODUCER_FENCED is
// sent as INVALID_PRODUCER_EPOCH below v2.
// v5 has KIP-890 part 2's semantics, as Kafka picks them from the version: every end bumps the epoch, and
// the answer carries the producer id and epoch for the next transaction. Clients send v5 only to brokers
// finalizing transaction.version 2, which krill does not advertise.
// In a cluster the answer waits for the in-sync replicas of the transaction's state.
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from './registry.js';
import type { EndTxnResponse } from '../../protocol/messages/26-end-txn.js';

export default defineHandler({
  apiKey: 26,
  minVersion: 0,
  maxVersion: 5,
  handle({ transactions, transactionState, apiVersion }, req): EndTxnResponse | Promise<EndTxnResponse> {
    const failed = (errorCode: number): EndTxnResponse => ({ throttleTimeMs: 0, errorCode });
    if (apiVersion >= 5) {
      const r = transactions.endTxnV2(req.transactionalId, req.producerId, req.producerEpoch, req.committed);
      return transactionState.answerWhenReplicated(
        req.transactionalId,
        { throttleTimeMs: 0, errorCode: r.errorCode, producerId: r.producerId, producerEpoch: r.producerEpoch },
        failed,
      );
    }
    const code = transactions.endTxn(req.transactionalId, req.producerId, req.producerEpoch, req.committed);
    return transactionState.answerWhenReplicated(
      req.transactionalId,
      failed(code === ErrorCode.PRODUCER_FENCED && apiVersion < 2 ? ErrorCode.INVALID_PRODUCER_EPOCH : code),
      failed,
    );
  },
  errorResponse(_req, code): EndTxnResponse {
    return { throttleTimeMs: 0, errorCode: code };
  },
});
