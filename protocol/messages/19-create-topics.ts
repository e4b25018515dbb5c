// CreateTopics (key 19): create topics with a partition count and replication factor, or explicit assignments.
// v2 is the KIP-896 baseline. v4 lets partitions/replication factor be -1 for the broker default (KIP-464),
// v5 goes flexible and returns the resulting configs (KIP-525), v7 returns the new topic id.
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const CreateTopics = {
  apiKey: 19,
  name: 'CreateTopics',
  validVersions: '2-7',
  flexibleVersions: '5+',
  request: [
    {
      name: 'topics',
      type: '[]CreatableTopic',
      versions: '0+',
      fields: [
        { name: 'name', type: 'string', versions: '0+' },
        { name: 'numPartitions', type: 'int32', versions: '0+' },
        { name: 'replicationFactor', type: 'int16', versions: '0+' },
        {
          name: 'assignments',
          type: '[]CreatableReplicaAssignment',
          versions: '0+',
          fields: [
            { name: 'partitionIndex', type: 'int32', versions: '0+' },
            { name: 'brokerIds', type: '[]int32', versions: '0+' },
          ],
        },
        {
          name: 'configs',
          type: '[]CreatableTopicConfig',
          versions: '0+',
          fields: [
            { name: 'name', type: 'string', versions: '0+' },
            { name: 'value', type: 'string', versions: '0+', nullableVersions: '0+' },
          ],
        },
      ],
    },
    { name: 'timeoutMs', type: 'int32', versions: '0+', default: 60000 },
    { name: 'validateOnly', type: 'bool', versions: '1+', default: false },
  ],
  response: [
    { name: 'throttleTimeMs', type: 'int32', versions: '2+' },
    {
      name: 'topics',
      type: '[]CreatableTopicResult',
      versions: '0+',
      fields: [
        { name: 'name', type: 'string', versions: '0+' },
        { name: 'topicId', type: 'uuid', versions: '7+' },
        { name: 'errorCode', type: 'int16', versions: '0+' },
        { name: 'errorMessage', type: 'string', versions: '1+', nullableVersions: '0+' },
        { name: 'topicConfigErrorCode', type: 'int16', versions: '5+', tag: 0, taggedVersions: '5+' },
        { name: 'numPartitions', type: 'int32', versions: '5+', default: -1 },
        { name: 'replicationFactor', type: 'int16', versions: '5+', default: -1 },
        {
          name: 'configs',
          type: '[]CreatableTopicConfigs',
          versions: '5+',
          nullableVersions: '5+',
          fields: [
            { name: 'name', type: 'string', versions: '5+' },
            { name: 'value', type: 'string', versions: '5+', nullableVersions: '5+' },
            { name: 'readOnly', type: 'bool', versions: '5+' },
            { name: 'configSource', type: 'int8', versions: '5+', default: -1 },
            { name: 'isSensitive', type: 'bool', versions: '5+' },
          ],
        },
      ],
    },
  ],
} as const satisfies MessageDef;

export type CreateTopicsRequest = RequestOf<typeof CreateTopics>;
export type CreateTopicsResponse = ResponseOf<typeof CreateTopics>;
