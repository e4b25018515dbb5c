// AddPartitionsToTxn (key 24): register partitions with an open transaction before producing to them.
// v3 goes flexible. v4 is the broker-to-coordinator form that batches several transactions and can only
// verify (KIP-890); clients keep to v0-3, whose fields are the top-level ones marked 0-3.
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const AddPartitionsToTxn = {
  apiKey: 24,
  name: 'AddPartitionsToTxn',
  validVersions: '0-5',
  flexibleVersions: '3+',
  request: [
    {
      name: 'transactions',
      type: '[]AddPartitionsToTxnTransaction',
      versions: '4+',
      fields: [
        { name: 'transactionalId', type: 'string', versions: '4+' },
        { name: 'producerId', type: 'int64', versions: '4+' },
        { name: 'producerEpoch', type: 'int16', versions: '4+' },
        { name: 'verifyOnly', type: 'bool', versions: '4+', default: false },
        {
          name: 'topics',
          type: '[]AddPartitionsToTxnTopic',
          versions: '4+',
          fields: [
            { name: 'name', type: 'string', versions: '0+' },
            { name: 'partitions', type: '[]int32', versions: '0+' },
          ],
        },
      ],
    },
    { name: 'v3AndBelowTransactionalId', type: 'string', versions: '0-3' },
    { name: 'v3AndBelowProducerId', type: 'int64', versions: '0-3' },
    { name: 'v3AndBelowProducerEpoch', type: 'int16', versions: '0-3' },
    {
      name: 'v3AndBelowTopics',
      type: '[]AddPartitionsToTxnTopic',
      versions: '0-3',
      fields: [
        { name: 'name', type: 'string', versions: '0+' },
        { name: 'partitions', type: '[]int32', versions: '0+' },
      ],
    },
  ],
  response: [
    { name: 'throttleTimeMs', type: 'int32', versions: '0+' },
    { name: 'errorCode', type: 'int16', versions: '4+' },
    {
      name: 'resultsByTransaction',
      type: '[]AddPartitionsToTxnResult',
      versions: '4+',
      fields: [
        { name: 'transactionalId', type: 'string', versions: '4+' },
        {
          name: 'topicResults',
          type: '[]AddPartitionsToTxnTopicResult',
          versions: '4+',
          fields: [
            { name: 'name', type: 'string', versions: '0+' },
            {
              name: 'resultsByPartition',
              type: '[]AddPartitionsToTxnPartitionResult',
              versions: '0+',
              fields: [
                { name: 'partitionIndex', type: 'int32', versions: '0+' },
                { name: 'partitionErrorCode', type: 'int16', versions: '0+' },
              ],
            },
          ],
        },
      ],
    },
    {
      name: 'resultsByTopicV3AndBelow',
      type: '[]AddPartitionsToTxnTopicResult',
      versions: '0-3',
      fields: [
        { name: 'name', type: 'string', versions: '0+' },
        {
          name: 'resultsByPartition',
          type: '[]AddPartitionsToTxnPartitionResult',
          versions: '0+',
          fields: [
            { name: 'partitionIndex', type: 'int32', versions: '0+' },
            { name: 'partitionErrorCode', type: 'int16', versions: '0+' },
          ],
        },
      ],
    },
  ],
} as const satisfies MessageDef;

export type AddPartitionsToTxnRequest = RequestOf<typeof AddPartitionsToTxn>;
export type AddPartitionsToTxnResponse = ResponseOf<typeof AddPartitionsToTxn>;
