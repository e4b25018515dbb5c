// ApiVersions (key 18). Kafka answers an unsupported request version with v0 of the response
// carrying UNSUPPORTED_VERSION and its list (KIP-511); the response header is always v0.
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const ApiVersions = {
  apiKey: 18,
  name: 'ApiVersions',
  validVersions: '0-4',
  flexibleVersions: '3+',
  request: [
    { name: 'clientSoftwareName', type: 'string', versions: '3+' },
    { name: 'clientSoftwareVersion', type: 'string', versions: '3+' },
  ],
  response: [
    { name: 'errorCode', type: 'int16', versions: '0+' },
    {
      name: 'apiKeys',
      type: '[]ApiVersion',
      versions: '0+',
      fields: [
        { name: 'apiKey', type: 'int16', versions: '0+' },
        { name: 'minVersion', type: 'int16', versions: '0+' },
        { name: 'maxVersion', type: 'int16', versions: '0+' },
      ],
    },
    { name: 'throttleTimeMs', type: 'int32', versions: '1+' },
    {
      name: 'supportedFeatures',
      type: '[]SupportedFeatureKey',
      versions: '3+',
      tag: 0,
      taggedVersions: '3+',
      fields: [
        { name: 'name', type: 'string', versions: '3+' },
        { name: 'minVersion', type: 'int16', versions: '3+' },
        { name: 'maxVersion', type: 'int16', versions: '3+' },
      ],
    },
    { name: 'finalizedFeaturesEpoch', type: 'int64', versions: '3+', tag: 1, taggedVersions: '3+', default: -1 },
    {
      name: 'finalizedFeatures',
      type: '[]FinalizedFeatureKey',
      versions: '3+',
      tag: 2,
      taggedVersions: '3+',
      fields: [
        { name: 'name', type: 'string', versions: '3+' },
        { name: 'maxVersionLevel', type: 'int16', versions: '3+' },
        { name: 'minVersionLevel', type: 'int16', versions: '3+' },
      ],
    },
    { name: 'zkMigrationReady', type: 'bool', versions: '3+', tag: 3, taggedVersions: '3+', default: false },
  ],
} as const satisfies MessageDef;

export type ApiVersionsRequest = RequestOf<typeof ApiVersions>;
export type ApiVersionsResponse = ResponseOf<typeof ApiVersions>;
