// Produce (key 0): append record batches to partition logs; acks 0 means no response is sent.
// v3 is the KIP-896 (Kafka 4.0) baseline and brings the transactional id and magic-2 batches; v0-2 are still
// advertised because old librdkafka refuses a broker that does not list them (KAFKA-18659), and the handler
// deals with those itself. v8 adds per-record errors (KIP-467), v9 goes flexible, v10 adds leader hints as
// tagged fields (KIP-951), v11 only allows TRANSACTION_ABORTABLE (KIP-890).
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const Produce = {
  apiKey: 0,
  name: 'Produce',
  validVersions: '3-11',
  flexibleVersions: '9+',
  request: [
    { name: 'transactionalId', type: 'string', versions: '3+', nullableVersions: '3+', default: null },
    { name: 'acks', type: 'int16', versions: '0+' },
    { name: 'timeoutMs', type: 'int32', versions: '0+' },
    {
      name: 'topicData',
      type: '[]TopicProduceData',
      versions: '0+',
      fields: [
        { name: 'name', type: 'string', versions: '0+' },
        {
          name: 'partitionData',
          type: '[]PartitionProduceData',
          versions: '0+',
          fields: [
            { name: 'index', type: 'int32', versions: '0+' },
            { name: 'records', type: 'records', versions: '0+', nullableVersions: '0+' },
          ],
        },
      ],
    },
  ],
  response: [
    {
      name: 'responses',
      type: '[]TopicProduceResponse',
      versions: '0+',
      fields: [
        { name: 'name', type: 'string', versions: '0+' },
        {
          name: 'partitionResponses',
          type: '[]PartitionProduceResponse',
          versions: '0+',
          fields: [
            { name: 'index', type: 'int32', versions: '0+' },
            { name: 'errorCode', type: 'int16', versions: '0+' },
            { name: 'baseOffset', type: 'int64', versions: '0+' },
            { name: 'logAppendTimeMs', type: 'int64', versions: '2+', default: -1 },
            { name: 'logStartOffset', type: 'int64', versions: '5+', default: -1 },
            {
              name: 'recordErrors',
              type: '[]BatchIndexAndErrorMessage',
              versions: '8+',
              fields: [
                { name: 'batchIndex', type: 'int32', versions: '8+' },
                { name: 'batchIndexErrorMessage', type: 'string', versions: '8+', nullableVersions: '8+', default: null },
              ],
            },
            { name: 'errorMessage', type: 'string', versions: '8+', nullableVersions: '8+', default: null },
            {
              name: 'currentLeader',
              type: 'LeaderIdAndEpoch',
              versions: '10+',
              tag: 0,
              taggedVersions: '10+',
              fields: [
                { name: 'leaderId', type: 'int32', versions: '10+', default: -1 },
                { name: 'leaderEpoch', type: 'int32', versions: '10+', default: -1 },
              ],
            },
          ],
        },
      ],
    },
    { name: 'throttleTimeMs', type: 'int32', versions: '1+', default: 0 },
    {
      name: 'nodeEndpoints',
      type: '[]NodeEndpoint',
      versions: '10+',
      tag: 0,
      taggedVersions: '10+',
      fields: [
        { name: 'nodeId', type: 'int32', versions: '10+' },
        { name: 'host', type: 'string', versions: '10+' },
        { name: 'port', type: 'int32', versions: '10+' },
        { name: 'rack', type: 'string', versions: '10+', nullableVersions: '10+', default: null },
      ],
    },
  ],
} as const satisfies MessageDef;

export type ProduceRequest = RequestOf<typeof Produce>;
export type ProduceResponse = ResponseOf<typeof Produce>;
