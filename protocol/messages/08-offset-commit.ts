// OffsetCommit (key 8): store committed consumer offsets for a group.
// v2 is the KIP-896 baseline; the retention time lives only in v2-4, v6 adds the committed leader epoch,
// v7 the static member id, v8 goes flexible, v9 may be used by the KIP-848 consumer protocol.
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const OffsetCommit = {
  apiKey: 8,
  name: 'OffsetCommit',
  validVersions: '2-9',
  flexibleVersions: '8+',
  request: [
    { name: 'groupId', type: 'string', versions: '0+' },
    { name: 'generationIdOrMemberEpoch', type: 'int32', versions: '1+', default: -1 },
    { name: 'memberId', type: 'string', versions: '1+' },
    { name: 'groupInstanceId', type: 'string', versions: '7+', nullableVersions: '7+', default: null },
    { name: 'retentionTimeMs', type: 'int64', versions: '2-4', default: -1 },
    {
      name: 'topics',
      type: '[]OffsetCommitRequestTopic',
      versions: '0+',
      fields: [
        { name: 'name', type: 'string', versions: '0+' },
        {
          name: 'partitions',
          type: '[]OffsetCommitRequestPartition',
          versions: '0+',
          fields: [
            { name: 'partitionIndex', type: 'int32', versions: '0+' },
            { name: 'committedOffset', type: 'int64', versions: '0+' },
            { name: 'committedLeaderEpoch', type: 'int32', versions: '6+', default: -1 },
            { name: 'committedMetadata', type: 'string', versions: '0+', nullableVersions: '0+' },
          ],
        },
      ],
    },
  ],
  response: [
    { name: 'throttleTimeMs', type: 'int32', versions: '3+' },
    {
      name: 'topics',
      type: '[]OffsetCommitResponseTopic',
      versions: '0+',
      fields: [
        { name: 'name', type: 'string', versions: '0+' },
        {
          name: 'partitions',
          type: '[]OffsetCommitResponsePartition',
          versions: '0+',
          fields: [
            { name: 'partitionIndex', type: 'int32', versions: '0+' },
            { name: 'errorCode', type: 'int16', versions: '0+' },
          ],
        },
      ],
    },
  ],
} as const satisfies MessageDef;

export type OffsetCommitRequest = RequestOf<typeof OffsetCommit>;
export type OffsetCommitResponse = ResponseOf<typeof OffsetCommit>;
