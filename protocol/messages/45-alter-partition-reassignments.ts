// AlterPartitionReassignments (key 45): move partitions' replicas to other brokers (KIP-455), or cancel a
// move with null replicas. Flexible from v0.
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const AlterPartitionReassignments = {
  apiKey: 45,
  name: 'AlterPartitionReassignments',
  validVersions: '0',
  flexibleVersions: '0+',
  request: [
    { name: 'timeoutMs', type: 'int32', versions: '0+', default: 60000 },
    {
      name: 'topics',
      type: '[]ReassignableTopic',
      versions: '0+',
      fields: [
        { name: 'name', type: 'string', versions: '0+' },
        {
          name: 'partitions',
          type: '[]ReassignablePartition',
          versions: '0+',
          fields: [
            { name: 'partitionIndex', type: 'int32', versions: '0+' },
            { name: 'replicas', type: '[]int32', versions: '0+', nullableVersions: '0+', default: null },
          ],
        },
      ],
    },
  ],
  response: [
    { name: 'throttleTimeMs', type: 'int32', versions: '0+' },
    { name: 'errorCode', type: 'int16', versions: '0+' },
    { name: 'errorMessage', type: 'string', versions: '0+', nullableVersions: '0+' },
    {
      name: 'responses',
      type: '[]ReassignableTopicResponse',
      versions: '0+',
      fields: [
        { name: 'name', type: 'string', versions: '0+' },
        {
          name: 'partitions',
          type: '[]ReassignablePartitionResponse',
          versions: '0+',
          fields: [
            { name: 'partitionIndex', type: 'int32', versions: '0+' },
            { name: 'errorCode', type: 'int16', versions: '0+' },
            { name: 'errorMessage', type: 'string', versions: '0+', nullableVersions: '0+' },
          ],
        },
      ],
    },
  ],
} as const satisfies MessageDef;

export type AlterPartitionReassignmentsRequest = RequestOf<typeof AlterPartitionReassignments>;
export type AlterPartitionReassignmentsResponse = ResponseOf<typeof AlterPartitionReassignments>;
