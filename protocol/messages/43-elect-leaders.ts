// ElectLeaders (key 43): elect the preferred replica (type 0), or any live replica of a partition that has no
// live leader (type 1, unclean), of the partitions named or of all of them (null). v1 adds the election type
// (KIP-460; v0 is always preferred) and the response's top-level error code; v2 goes flexible.
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const ElectLeaders = {
  apiKey: 43,
  name: 'ElectLeaders',
  validVersions: '0-2',
  flexibleVersions: '2+',
  request: [
    { name: 'electionType', type: 'int8', versions: '1+' },
    {
      name: 'topicPartitions',
      type: '[]TopicPartitions',
      versions: '0+',
      nullableVersions: '0+',
      fields: [
        { name: 'topic', type: 'string', versions: '0+' },
        { name: 'partitions', type: '[]int32', versions: '0+' },
      ],
    },
    { name: 'timeoutMs', type: 'int32', versions: '0+', default: 60000 },
  ],
  response: [
    { name: 'throttleTimeMs', type: 'int32', versions: '0+' },
    { name: 'errorCode', type: 'int16', versions: '1+' },
    {
      name: 'replicaElectionResults',
      type: '[]ReplicaElectionResult',
      versions: '0+',
      fields: [
        { name: 'topic', type: 'string', versions: '0+' },
        {
          name: 'partitionResult',
          type: '[]PartitionResult',
          versions: '0+',
          fields: [
            { name: 'partitionId', type: 'int32', versions: '0+' },
            { name: 'errorCode', type: 'int16', versions: '0+' },
            { name: 'errorMessage', type: 'string', versions: '0+', nullableVersions: '0+' },
          ],
        },
      ],
    },
  ],
} as const satisfies MessageDef;

export type ElectLeadersRequest = RequestOf<typeof ElectLeaders>;
export type ElectLeadersResponse = ResponseOf<typeof ElectLeaders>;
