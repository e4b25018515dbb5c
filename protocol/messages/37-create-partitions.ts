// CreatePartitions (key 37): grow the partition count of existing topics.
// v2 goes flexible, v3 may report THROTTLING_QUOTA_EXCEEDED (KIP-599).
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const CreatePartitions = {
  apiKey: 37,
  name: 'CreatePartitions',
  validVersions: '0-3',
  flexibleVersions: '2+',
  request: [
    {
      name: 'topics',
      type: '[]CreatePartitionsTopic',
      versions: '0+',
      fields: [
        { name: 'name', type: 'string', versions: '0+' },
        { name: 'count', type: 'int32', versions: '0+' },
        {
          name: 'assignments',
          type: '[]CreatePartitionsAssignment',
          versions: '0+',
          nullableVersions: '0+',
          fields: [{ name: 'brokerIds', type: '[]int32', versions: '0+' }],
        },
      ],
    },
    { name: 'timeoutMs', type: 'int32', versions: '0+' },
    { name: 'validateOnly', type: 'bool', versions: '0+' },
  ],
  response: [
    { name: 'throttleTimeMs', type: 'int32', versions: '0+' },
    {
      name: 'results',
      type: '[]CreatePartitionsTopicResult',
      versions: '0+',
      fields: [
        { name: 'name', type: 'string', versions: '0+' },
        { name: 'errorCode', type: 'int16', versions: '0+' },
        { name: 'errorMessage', type: 'string', versions: '0+', nullableVersions: '0+', default: null },
      ],
    },
  ],
} as const satisfies MessageDef;

export type CreatePartitionsRequest = RequestOf<typeof CreatePartitions>;
export type CreatePartitionsResponse = ResponseOf<typeof CreatePartitions>;
