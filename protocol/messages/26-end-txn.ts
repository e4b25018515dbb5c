// EndTxn (key 26): commit or abort a transaction.
// v3 goes flexible; v5 bumps the producer epoch on every transaction and returns it (KIP-890 part 2).
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const EndTxn = {
  apiKey: 26,
  name: 'EndTxn',
  validVersions: '0-5',
  flexibleVersions: '3+',
  request: [
    { name: 'transactionalId', type: 'string', versions: '0+' },
    { name: 'producerId', type: 'int64', versions: '0+' },
    { name: 'producerEpoch', type: 'int16', versions: '0+' },
    { name: 'committed', type: 'bool', versions: '0+' },
  ],
  response: [
    { name: 'throttleTimeMs', type: 'int32', versions: '0+' },
    { name: 'errorCode', type: 'int16', versions: '0+' },
    { name: 'producerId', type: 'int64', versions: '5+', default: -1 },
    { name: 'producerEpoch', type: 'int16', versions: '5+', default: -1 },
  ],
} as const satisfies MessageDef;

export type EndTxnRequest = RequestOf<typeof EndTxn>;
export type EndTxnResponse = ResponseOf<typeof EndTxn>;
