// ListTransactions (key 66): transactional ids known to the coordinator, filtered by state and producer id
// (KIP-664). Flexible from v0; v1 adds a minimum-duration filter (KIP-994).
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const ListTransactions = {
  apiKey: 66,
  name: 'ListTransactions',
  validVersions: '0-1',
  flexibleVersions: '0+',
  request: [
    { name: 'stateFilters', type: '[]string', versions: '0+' },
    { name: 'producerIdFilters', type: '[]int64', versions: '0+' },
    { name: 'durationFilter', type: 'int64', versions: '1+', default: -1 },
  ],
  response: [
    { name: 'throttleTimeMs', type: 'int32', versions: '0+' },
    { name: 'errorCode', type: 'int16', versions: '0+' },
    { name: 'unknownStateFilters', type: '[]string', versions: '0+' },
    {
      name: 'transactionStates',
      type: '[]TransactionState',
      versions: '0+',
      fields: [
        { name: 'transactionalId', type: 'string', versions: '0+' },
        { name: 'producerId', type: 'int64', versions: '0+' },
        { name: 'transactionState', type: 'string', versions: '0+' },
      ],
    },
  ],
} as const satisfies MessageDef;

export type ListTransactionsRequest = RequestOf<typeof ListTransactions>;
export type ListTransactionsResponse = ResponseOf<typeof ListTransactions>;
