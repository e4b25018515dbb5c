// DescribeTopicPartitions (key 75): topics' partitions paged by a cursor (KIP-966), which the Java Admin
// (3.8+) uses for describeTopics when a broker advertises it. Flexible v0.
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';
import { AUTHORIZED_OPERATIONS_OMITTED } from '../sentinels.js';

const CURSOR_FIELDS = [
  { name: 'topicName', type: 'string', versions: '0+' },
  { name: 'partitionIndex', type: 'int32', versions: '0+' },
] as const;

export const DescribeTopicPartitions = {
  apiKey: 75,
  name: 'DescribeTopicPartitions',
  validVersions: '0',
  flexibleVersions: '0+',
  request: [
    { name: 'topics', type: '[]TopicRequest', versions: '0+', fields: [{ name: 'name', type: 'string', versions: '0+' }] },
    { name: 'responsePartitionLimit', type: 'int32', versions: '0+', default: 2000 },
    { name: 'cursor', type: 'Cursor', versions: '0+', nullableVersions: '0+', default: null, fields: CURSOR_FIELDS },
  ],
  response: [
    { name: 'throttleTimeMs', type: 'int32', versions: '0+' },
    {
      name: 'topics',
      type: '[]DescribeTopicPartitionsResponseTopic',
      versions: '0+',
      fields: [
        { name: 'errorCode', type: 'int16', versions: '0+' },
        { name: 'name', type: 'string', versions: '0+', nullableVersions: '0+' },
        { name: 'topicId', type: 'uuid', versions: '0+' },
        { name: 'isInternal', type: 'bool', versions: '0+', default: false },
        {
          name: 'partitions',
          type: '[]DescribeTopicPartitionsResponsePartition',
          versions: '0+',
          fields: [
            { name: 'errorCode', type: 'int16', versions: '0+' },
            { name: 'partitionIndex', type: 'int32', versions: '0+' },
            { name: 'leaderId', type: 'int32', versions: '0+' },
            { name: 'leaderEpoch', type: 'int32', versions: '0+', default: -1 },
            { name: 'replicaNodes', type: '[]int32', versions: '0+' },
            { name: 'isrNodes', type: '[]int32', versions: '0+' },
            { name: 'eligibleLeaderReplicas', type: '[]int32', versions: '0+', nullableVersions: '0+', default: null },
            { name: 'lastKnownElr', type: '[]int32', versions: '0+', nullableVersions: '0+', default: null },
            { name: 'offlineReplicas', type: '[]int32', versions: '0+' },
          ],
        },
        { name: 'topicAuthorizedOperations', type: 'int32', versions: '0+', default: AUTHORIZED_OPERATIONS_OMITTED },
      ],
    },
    { name: 'nextCursor', type: 'Cursor', versions: '0+', nullableVersions: '0+', default: null, fields: CURSOR_FIELDS },
  ],
} as const satisfies MessageDef;

export type DescribeTopicPartitionsRequest = RequestOf<typeof DescribeTopicPartitions>;
export type DescribeTopicPartitionsResponse = ResponseOf<typeof DescribeTopicPartitions>;
