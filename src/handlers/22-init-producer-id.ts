// InitProducerId: v0-5.
// Behaviour: for an idempotent producer (no transactional id), as Kafka's transaction coordinator does,
// a new producer id, never handed out before by this data dir, with epoch 0; a producer passing its
// current id and epoch (v3+, KIP-360) gets a new id too. Passing only one of them is INVALID_REQUEST.
// With a transactional id, the transaction coordinator's answer (txn/coordinator.ts): a new id, or the
// same id with its epoch bumped (fencing older incarnations, aborting a transaction they left open);
// PRODUCER_FENCED is sent as INVALID_PRODUCER_EPOCH below v4, as Kafka does. In a cluster the answer waits for
// the in-sync replicas of the transaction's state (COORDINATOR_NOT_AVAILABLE or NOT_COORDINATOR when they fail).
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from './registry.js';
import type { InitProducerIdResponse } from '../../protocol/messages/22-init-producer-id.js';

const NO_PRODUCER_ID = -1;
const NO_PRODUCER_EPOCH = -1;

function answer(errorCode: number, producerId = NO_PRODUCER_ID, producerEpoch = NO_PRODUCER_EPOCH): InitProducerIdResponse {
  return { throttleTimeMs: 0, errorCode, producerId, producerEpoch };
}

export default defineHandler({
  apiKey: 22,
  minVersion: 0,
  maxVersion: 5,
  handle({ producerIds, transactions, transactionState, apiVersion }, req): InitProducerIdResponse | Promise<InitProducerIdResponse> {
    if ((req.producerId === NO_PRODUCER_ID) !== (req.producerEpoch === NO_PRODUCER_EPOCH)) return answer(ErrorCode.INVALID_REQUEST);
    if (req.transactionalId !== null) {
      const r = transactions.initProducerId(req.transactionalId, req.transactionTimeoutMs, req.producerId, req.producerEpoch);
      const code = r.errorCode === ErrorCode.PRODUCER_FENCED && apiVersion < 4 ? ErrorCode.INVALID_PRODUCER_EPOCH : r.errorCode;
      return transactionState.answerWhenReplicated(req.transactionalId, answer(code, r.producerId, r.producerEpoch), (failed) => answer(failed));
    }
    return answer(ErrorCode.NONE, producerIds.generateProducerId(), 0);
  },
  errorResponse(_req, code): InitProducerIdResponse {
    return answer(code);
  },
});
