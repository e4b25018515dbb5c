// ListPartitionReassignments (key 46): the partitions whose replicas are being moved (KIP-455), all of them
// (null topics) or among those named. Flexible from v0.
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const ListPartitionReassignments = {
  apiKey: 46,
  name: 'ListPartitionReassignments',
  validVersions: '0',
  flexibleVersions: '0+',
  request: [
    { name: 'timeoutMs', type: 'int32', versions: '0+', default: 60000 },
    {
      name: 'topics',
      type: '[]ListPartitionReassignmentsTopics',
      versions: '0+',
      nullableVersions: '0+',
      default: null,
      fields: [
        { name: 'name', type: 'string', versions: '0+' },
        { name: 'partitionIndexes', type: '[]int32', versions: '0+' },
      ],
    },
  ],
  response: [
    { name: 'throttleTimeMs', type: 'int32', versions: '0+' },
    { name: 'errorCode', type: 'int16', versions: '0+' },
    { name: 'errorMessage', type: 'string', versions: '0+', nullableVersions: '0+' },
    {
      name: 'topics',
      type: '[]OngoingTopicReassignment',
      versions: '0+',
      fields: [
        { name: 'name', type: 'string', versions: '0+' },
        {
          name: 'partitions',
          type: '[]OngoingPartitionReassignment',
          versions: '0+',
          fields: [
            { name: 'partitionIndex', type: 'int32', versions: '0+' },
            { name: 'replicas', type: '[]int32', versions: '0+' },
            { name: 'addingReplicas', type: '[]int32', versions: '0+' },
            { name: 'removingReplicas', type: '[]int32', versions: '0+' },
          ],
        },
      ],
    },
  ],
} as const satisfies MessageDef;

export type ListPartitionReassignmentsRequest = RequestOf<typeof ListPartitionReassignments>;
export type ListPartitionReassignmentsResponse = ResponseOf<typeof ListPartitionReassignments>;
