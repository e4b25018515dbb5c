// ListOffsets (key 2): resolve a timestamp (or one of the -1/-2/-3/-4/-5 sentinels) to an offset per partition.
// v1 is the KIP-896 baseline (a single offset plus its timestamp). v2 adds the isolation level, v4 the leader
// epoch for fencing, v6 goes flexible, v7-v9 widen the accepted sentinels (-3 max timestamp, -4 local log
// start, -5 last tiered offset), v10 adds timeoutMs for remote lookups (KIP-1075).
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const ListOffsets = {
  apiKey: 2,
  name: 'ListOffsets',
  validVersions: '1-10',
  flexibleVersions: '6+',
  request: [
    { name: 'replicaId', type: 'int32', versions: '0+' },
    { name: 'isolationLevel', type: 'int8', versions: '2+' },
    {
      name: 'topics',
      type: '[]ListOffsetsTopic',
      versions: '0+',
      fields: [
        { name: 'name', type: 'string', versions: '0+' },
        {
          name: 'partitions',
          type: '[]ListOffsetsPartition',
          versions: '0+',
          fields: [
            { name: 'partitionIndex', type: 'int32', versions: '0+' },
            { name: 'currentLeaderEpoch', type: 'int32', versions: '4+', default: -1 },
            { name: 'timestamp', type: 'int64', versions: '0+' },
          ],
        },
      ],
    },
    { name: 'timeoutMs', type: 'int32', versions: '10+' },
  ],
  response: [
    { name: 'throttleTimeMs', type: 'int32', versions: '2+' },
    {
      name: 'topics',
      type: '[]ListOffsetsTopicResponse',
      versions: '0+',
      fields: [
        { name: 'name', type: 'string', versions: '0+' },
        {
          name: 'partitions',
          type: '[]ListOffsetsPartitionResponse',
          versions: '0+',
          fields: [
            { name: 'partitionIndex', type: 'int32', versions: '0+' },
            { name: 'errorCode', type: 'int16', versions: '0+' },
            { name: 'timestamp', type: 'int64', versions: '1+', default: -1 },
            { name: 'offset', type: 'int64', versions: '1+', default: -1 },
            { name: 'leaderEpoch', type: 'int32', versions: '4+', default: -1 },
          ],
        },
      ],
    },
  ],
} as const satisfies MessageDef;

export type ListOffsetsRequest = RequestOf<typeof ListOffsets>;
export type ListOffsetsResponse = ResponseOf<typeof ListOffsets>;
