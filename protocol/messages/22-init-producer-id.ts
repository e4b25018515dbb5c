// InitProducerId (key 22): hand out a producer id and epoch, for idempotence or a transactional id.
// v2 goes flexible, v3 lets a producer pass its current id and epoch to recover from a fenced epoch,
// v4 and v5 only widen the error codes (PRODUCER_FENCED, TRANSACTION_ABORTABLE).
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const InitProducerId = {
  apiKey: 22,
  name: 'InitProducerId',
  validVersions: '0-5',
  flexibleVersions: '2+',
  request: [
    { name: 'transactionalId', type: 'string', versions: '0+', nullableVersions: '0+' },
    { name: 'transactionTimeoutMs', type: 'int32', versions: '0+' },
    { name: 'producerId', type: 'int64', versions: '3+', default: -1 },
    { name: 'producerEpoch', type: 'int16', versions: '3+', default: -1 },
  ],
  response: [
    { name: 'throttleTimeMs', type: 'int32', versions: '0+' },
    { name: 'errorCode', type: 'int16', versions: '0+' },
    { name: 'producerId', type: 'int64', versions: '0+', default: -1 },
    { name: 'producerEpoch', type: 'int16', versions: '0+' },
  ],
} as const satisfies MessageDef;

export type InitProducerIdRequest = RequestOf<typeof InitProducerId>;
export type InitProducerIdResponse = ResponseOf<typeof InitProducerId>;
