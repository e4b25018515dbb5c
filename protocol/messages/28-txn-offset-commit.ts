// TxnOffsetCommit (key 28): offset commits that become visible only when the transaction commits.
// v2 adds the committed leader epoch, v3 goes flexible and adds group membership fields for fencing (KIP-447).
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const TxnOffsetCommit = {
  apiKey: 28,
  name: 'TxnOffsetCommit',
  validVersions: '0-4',
  flexibleVersions: '3+',
  request: [
    { name: 'transactionalId', type: 'string', versions: '0+' },
    { name: 'groupId', type: 'string', versions: '0+' },
    { name: 'producerId', type: 'int64', versions: '0+' },
    { name: 'producerEpoch', type: 'int16', versions: '0+' },
    { name: 'generationId', type: 'int32', versions: '3+', default: -1 },
    { name: 'memberId', type: 'string', versions: '3+', default: '' },
    { name: 'groupInstanceId', type: 'string', versions: '3+', nullableVersions: '3+', default: null },
    {
      name: 'topics',
      type: '[]TxnOffsetCommitRequestTopic',
      versions: '0+',
      fields: [
        { name: 'name', type: 'string', versions: '0+' },
        {
          name: 'partitions',
          type: '[]TxnOffsetCommitRequestPartition',
          versions: '0+',
          fields: [
            { name: 'partitionIndex', type: 'int32', versions: '0+' },
            { name: 'committedOffset', type: 'int64', versions: '0+' },
            { name: 'committedLeaderEpoch', type: 'int32', versions: '2+', default: -1 },
            { name: 'committedMetadata', type: 'string', versions: '0+', nullableVersions: '0+' },
          ],
        },
      ],
    },
  ],
  response: [
    { name: 'throttleTimeMs', type: 'int32', versions: '0+' },
    {
      name: 'topics',
      type: '[]TxnOffsetCommitResponseTopic',
      versions: '0+',
      fields: [
        { name: 'name', type: 'string', versions: '0+' },
        {
          name: 'partitions',
          type: '[]TxnOffsetCommitResponsePartition',
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

export type TxnOffsetCommitRequest = RequestOf<typeof TxnOffsetCommit>;
export type TxnOffsetCommitResponse = ResponseOf<typeof TxnOffsetCommit>;
