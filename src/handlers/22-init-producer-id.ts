// InitProducerId: v0-5.
// Behaviour: for an idempotent producer (no transactional id), as Kafka's transaction coordinator does,
// a new producer id, never handed out before by this data dir, with epoch 0; a producer passing its
// current id and epoch (v3+, KIP-360) gets a new id too. Passing only one of them is INVALID_REQUEST.
// Not yet: transactional ids, answered COORDINATOR_NOT_AVAILABLE as FindCoordinator answers for them.
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
  handle({ producerIds }, req): InitProducerIdResponse {
    if (req.transactionalId !== null) return answer(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    if ((req.producerId === NO_PRODUCER_ID) !== (req.producerEpoch === NO_PRODUCER_EPOCH)) return answer(ErrorCode.INVALID_REQUEST);
    return answer(ErrorCode.NONE, producerIds.generateProducerId(), 0);
  },
  errorResponse(_req, code): InitProducerIdResponse {
    return answer(code);
  },
});
