// OffsetForLeaderEpoch (key 23): the end offset of a leader epoch, used by consumers to detect log truncation.
// v2 is the KIP-896 baseline and carries the current leader epoch for fencing; v3 adds the replica id
// (-2 for a consumer), v4 goes flexible.
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const OffsetForLeaderEpoch = {
  apiKey: 23,
  name: 'OffsetForLeaderEpoch',
  validVersions: '2-4',
  flexibleVersions: '4+',
  request: [
    { name: 'replicaId', type: 'int32', versions: '3+', default: -2 },
    {
      name: 'topics',
      type: '[]OffsetForLeaderTopic',
      versions: '0+',
      fields: [
        { name: 'topic', type: 'string', versions: '0+' },
        {
          name: 'partitions',
          type: '[]OffsetForLeaderPartition',
          versions: '0+',
          fields: [
            { name: 'partition', type: 'int32', versions: '0+' },
            { name: 'currentLeaderEpoch', type: 'int32', versions: '2+', default: -1 },
            { name: 'leaderEpoch', type: 'int32', versions: '0+' },
          ],
        },
      ],
    },
  ],
  response: [
    { name: 'throttleTimeMs', type: 'int32', versions: '2+' },
    {
      name: 'topics',
      type: '[]OffsetForLeaderTopicResult',
      versions: '0+',
      fields: [
        { name: 'topic', type: 'string', versions: '0+' },
        {
          name: 'partitions',
          type: '[]EpochEndOffset',
          versions: '0+',
          fields: [
            { name: 'errorCode', type: 'int16', versions: '0+' },
            { name: 'partition', type: 'int32', versions: '0+' },
            { name: 'leaderEpoch', type: 'int32', versions: '1+', default: -1 },
            { name: 'endOffset', type: 'int64', versions: '0+', default: -1 },
          ],
        },
      ],
    },
  ],
} as const satisfies MessageDef;

export type OffsetForLeaderEpochRequest = RequestOf<typeof OffsetForLeaderEpoch>;
export type OffsetForLeaderEpochResponse = ResponseOf<typeof OffsetForLeaderEpoch>;
