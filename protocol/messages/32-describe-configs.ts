// DescribeConfigs (key 32): read topic or broker configuration, optionally with synonyms and documentation.
// v0 (isDefault instead of a config source) is what Kafka 3.x still serves; Kafka 4.0 starts at v1 (KIP-896:
// config source and synonyms); v3 adds config type and documentation, v4 goes flexible.
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const DescribeConfigs = {
  apiKey: 32,
  name: 'DescribeConfigs',
  validVersions: '0-4',
  flexibleVersions: '4+',
  request: [
    {
      name: 'resources',
      type: '[]DescribeConfigsResource',
      versions: '0+',
      fields: [
        { name: 'resourceType', type: 'int8', versions: '0+' },
        { name: 'resourceName', type: 'string', versions: '0+' },
        { name: 'configurationKeys', type: '[]string', versions: '0+', nullableVersions: '0+' },
      ],
    },
    { name: 'includeSynonyms', type: 'bool', versions: '1+', default: false },
    { name: 'includeDocumentation', type: 'bool', versions: '3+', default: false },
  ],
  response: [
    { name: 'throttleTimeMs', type: 'int32', versions: '0+' },
    {
      name: 'results',
      type: '[]DescribeConfigsResult',
      versions: '0+',
      fields: [
        { name: 'errorCode', type: 'int16', versions: '0+' },
        { name: 'errorMessage', type: 'string', versions: '0+', nullableVersions: '0+' },
        { name: 'resourceType', type: 'int8', versions: '0+' },
        { name: 'resourceName', type: 'string', versions: '0+' },
        {
          name: 'configs',
          type: '[]DescribeConfigsResourceResult',
          versions: '0+',
          fields: [
            { name: 'name', type: 'string', versions: '0+' },
            { name: 'value', type: 'string', versions: '0+', nullableVersions: '0+' },
            { name: 'readOnly', type: 'bool', versions: '0+' },
            { name: 'isDefault', type: 'bool', versions: '0' },
            { name: 'configSource', type: 'int8', versions: '1+', default: -1 },
            { name: 'isSensitive', type: 'bool', versions: '0+' },
            {
              name: 'synonyms',
              type: '[]DescribeConfigsSynonym',
              versions: '1+',
              fields: [
                { name: 'name', type: 'string', versions: '1+' },
                { name: 'value', type: 'string', versions: '1+', nullableVersions: '0+' },
                { name: 'source', type: 'int8', versions: '1+' },
              ],
            },
            { name: 'configType', type: 'int8', versions: '3+', default: 0 },
            { name: 'documentation', type: 'string', versions: '3+', nullableVersions: '0+' },
          ],
        },
      ],
    },
  ],
} as const satisfies MessageDef;

export type DescribeConfigsRequest = RequestOf<typeof DescribeConfigs>;
export type DescribeConfigsResponse = ResponseOf<typeof DescribeConfigs>;
