// AddOffsetsToTxn (key 25): tie a consumer group's offset commits to an open transaction.
// v3 goes flexible; later versions only widen the error codes.
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const AddOffsetsToTxn = {
  apiKey: 25,
  name: 'AddOffsetsToTxn',
  validVersions: '0-4',
  flexibleVersions: '3+',
  request: [
    { name: 'transactionalId', type: 'string', versions: '0+' },
    { name: 'producerId', type: 'int64', versions: '0+' },
    { name: 'producerEpoch', type: 'int16', versions: '0+' },
    { name: 'groupId', type: 'string', versions: '0+' },
  ],
  response: [
    { name: 'throttleTimeMs', type: 'int32', versions: '0+' },
    { name: 'errorCode', type: 'int16', versions: '0+' },
  ],
} as const satisfies MessageDef;

export type AddOffsetsToTxnRequest = RequestOf<typeof AddOffsetsToTxn>;
export type AddOffsetsToTxnResponse = ResponseOf<typeof AddOffsetsToTxn>;
