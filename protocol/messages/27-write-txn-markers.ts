// WriteTxnMarkers (key 27): the coordinator asks partition leaders to write commit/abort control batches.
// v1 is the KIP-896 baseline and the first flexible version.
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const WriteTxnMarkers = {
  apiKey: 27,
  name: 'WriteTxnMarkers',
  validVersions: '1',
  flexibleVersions: '1+',
  request: [
    {
      name: 'markers',
      type: '[]WritableTxnMarker',
      versions: '0+',
      fields: [
        { name: 'producerId', type: 'int64', versions: '0+' },
        { name: 'producerEpoch', type: 'int16', versions: '0+' },
        { name: 'transactionResult', type: 'bool', versions: '0+' },
        {
          name: 'topics',
          type: '[]WritableTxnMarkerTopic',
          versions: '0+',
          fields: [
            { name: 'name', type: 'string', versions: '0+' },
            { name: 'partitionIndexes', type: '[]int32', versions: '0+' },
          ],
        },
        { name: 'coordinatorEpoch', type: 'int32', versions: '0+' },
      ],
    },
  ],
  response: [
    {
      name: 'markers',
      type: '[]WritableTxnMarkerResult',
      versions: '0+',
      fields: [
        { name: 'producerId', type: 'int64', versions: '0+' },
        {
          name: 'topics',
          type: '[]WritableTxnMarkerTopicResult',
          versions: '0+',
          fields: [
            { name: 'name', type: 'string', versions: '0+' },
            {
              name: 'partitions',
              type: '[]WritableTxnMarkerPartitionResult',
              versions: '0+',
              fields: [
                { name: 'partitionIndex', type: 'int32', versions: '0+' },
                { name: 'errorCode', type: 'int16', versions: '0+' },
              ],
            },
          ],
        },
      ],
    },
  ],
} as const satisfies MessageDef;

export type WriteTxnMarkersRequest = RequestOf<typeof WriteTxnMarkers>;
export type WriteTxnMarkersResponse = ResponseOf<typeof WriteTxnMarkers>;
