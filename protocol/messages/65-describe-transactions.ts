// DescribeTransactions (key 65): the coordinator's state for transactional ids (KIP-664). Flexible v0.
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const DescribeTransactions = {
  apiKey: 65,
  name: 'DescribeTransactions',
  validVersions: '0',
  flexibleVersions: '0+',
  request: [{ name: 'transactionalIds', type: '[]string', versions: '0+' }],
  response: [
    { name: 'throttleTimeMs', type: 'int32', versions: '0+' },
    {
      name: 'transactionStates',
      type: '[]TransactionState',
      versions: '0+',
      fields: [
        { name: 'errorCode', type: 'int16', versions: '0+' },
        { name: 'transactionalId', type: 'string', versions: '0+' },
        { name: 'transactionState', type: 'string', versions: '0+' },
        { name: 'transactionTimeoutMs', type: 'int32', versions: '0+' },
        { name: 'transactionStartTimeMs', type: 'int64', versions: '0+' },
        { name: 'producerId', type: 'int64', versions: '0+' },
        { name: 'producerEpoch', type: 'int16', versions: '0+' },
        {
          name: 'topics',
          type: '[]TopicData',
          versions: '0+',
          fields: [
            { name: 'topic', type: 'string', versions: '0+' },
            { name: 'partitions', type: '[]int32', versions: '0+' },
          ],
        },
      ],
    },
  ],
} as const satisfies MessageDef;

export type DescribeTransactionsRequest = RequestOf<typeof DescribeTransactions>;
export type DescribeTransactionsResponse = ResponseOf<typeof DescribeTransactions>;
