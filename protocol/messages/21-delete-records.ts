// DeleteRecords (key 21): move a partition's log start offset forward (-1 means up to the high watermark).
// v2 goes flexible.
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const DeleteRecords = {
  apiKey: 21,
  name: 'DeleteRecords',
  validVersions: '0-2',
  flexibleVersions: '2+',
  request: [
    {
      name: 'topics',
      type: '[]DeleteRecordsTopic',
      versions: '0+',
      fields: [
        { name: 'name', type: 'string', versions: '0+' },
        {
          name: 'partitions',
          type: '[]DeleteRecordsPartition',
          versions: '0+',
          fields: [
            { name: 'partitionIndex', type: 'int32', versions: '0+' },
            { name: 'offset', type: 'int64', versions: '0+' },
          ],
        },
      ],
    },
    { name: 'timeoutMs', type: 'int32', versions: '0+' },
  ],
  response: [
    { name: 'throttleTimeMs', type: 'int32', versions: '0+' },
    {
      name: 'topics',
      type: '[]DeleteRecordsTopicResult',
      versions: '0+',
      fields: [
        { name: 'name', type: 'string', versions: '0+' },
        {
          name: 'partitions',
          type: '[]DeleteRecordsPartitionResult',
          versions: '0+',
          fields: [
            { name: 'partitionIndex', type: 'int32', versions: '0+' },
            { name: 'lowWatermark', type: 'int64', versions: '0+' },
            { name: 'errorCode', type: 'int16', versions: '0+' },
          ],
        },
      ],
    },
  ],
} as const satisfies MessageDef;

export type DeleteRecordsRequest = RequestOf<typeof DeleteRecords>;
export type DeleteRecordsResponse = ResponseOf<typeof DeleteRecords>;
