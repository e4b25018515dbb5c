// DescribeProducers (key 61): the active idempotent/transactional producers of partitions (KIP-664). Flexible v0.
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const DescribeProducers = {
  apiKey: 61,
  name: 'DescribeProducers',
  validVersions: '0',
  flexibleVersions: '0+',
  request: [
    {
      name: 'topics',
      type: '[]TopicRequest',
      versions: '0+',
      fields: [
        { name: 'name', type: 'string', versions: '0+' },
        { name: 'partitionIndexes', type: '[]int32', versions: '0+' },
      ],
    },
  ],
  response: [
    { name: 'throttleTimeMs', type: 'int32', versions: '0+' },
    {
      name: 'topics',
      type: '[]TopicResponse',
      versions: '0+',
      fields: [
        { name: 'name', type: 'string', versions: '0+' },
        {
          name: 'partitions',
          type: '[]PartitionResponse',
          versions: '0+',
          fields: [
            { name: 'partitionIndex', type: 'int32', versions: '0+' },
            { name: 'errorCode', type: 'int16', versions: '0+' },
            { name: 'errorMessage', type: 'string', versions: '0+', nullableVersions: '0+', default: null },
            {
              name: 'activeProducers',
              type: '[]ProducerState',
              versions: '0+',
              fields: [
                { name: 'producerId', type: 'int64', versions: '0+' },
                { name: 'producerEpoch', type: 'int32', versions: '0+' },
                { name: 'lastSequence', type: 'int32', versions: '0+', default: -1 },
                { name: 'lastTimestamp', type: 'int64', versions: '0+', default: -1 },
                { name: 'coordinatorEpoch', type: 'int32', versions: '0+' },
                { name: 'currentTxnStartOffset', type: 'int64', versions: '0+', default: -1 },
              ],
            },
          ],
        },
      ],
    },
  ],
} as const satisfies MessageDef;

export type DescribeProducersRequest = RequestOf<typeof DescribeProducers>;
export type DescribeProducersResponse = ResponseOf<typeof DescribeProducers>;
