// DeleteTopics (key 20): delete topics by name, or from v6 by topic id.
// v1 is the KIP-896 baseline. v4 goes flexible, v5 adds a per-topic error message, v6 replaces the name list
// with a topic-state list.
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const DeleteTopics = {
  apiKey: 20,
  name: 'DeleteTopics',
  validVersions: '1-6',
  flexibleVersions: '4+',
  request: [
    {
      name: 'topics',
      type: '[]DeleteTopicState',
      versions: '6+',
      fields: [
        { name: 'name', type: 'string', versions: '6+', nullableVersions: '6+', default: null },
        { name: 'topicId', type: 'uuid', versions: '6+' },
      ],
    },
    { name: 'topicNames', type: '[]string', versions: '0-5' },
    { name: 'timeoutMs', type: 'int32', versions: '0+' },
  ],
  response: [
    { name: 'throttleTimeMs', type: 'int32', versions: '1+' },
    {
      name: 'responses',
      type: '[]DeletableTopicResult',
      versions: '0+',
      fields: [
        { name: 'name', type: 'string', versions: '0+', nullableVersions: '6+' },
        { name: 'topicId', type: 'uuid', versions: '6+' },
        { name: 'errorCode', type: 'int16', versions: '0+' },
        { name: 'errorMessage', type: 'string', versions: '5+', nullableVersions: '5+', default: null },
      ],
    },
  ],
} as const satisfies MessageDef;

export type DeleteTopicsRequest = RequestOf<typeof DeleteTopics>;
export type DeleteTopicsResponse = ResponseOf<typeof DeleteTopics>;
