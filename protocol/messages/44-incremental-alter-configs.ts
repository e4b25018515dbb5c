// IncrementalAlterConfigs (key 44): set, delete, append to or subtract from individual config entries (KIP-339).
// v1 goes flexible.
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const IncrementalAlterConfigs = {
  apiKey: 44,
  name: 'IncrementalAlterConfigs',
  validVersions: '0-1',
  flexibleVersions: '1+',
  request: [
    {
      name: 'resources',
      type: '[]AlterConfigsResource',
      versions: '0+',
      fields: [
        { name: 'resourceType', type: 'int8', versions: '0+' },
        { name: 'resourceName', type: 'string', versions: '0+' },
        {
          name: 'configs',
          type: '[]AlterableConfig',
          versions: '0+',
          fields: [
            { name: 'name', type: 'string', versions: '0+' },
            { name: 'configOperation', type: 'int8', versions: '0+' },
            { name: 'value', type: 'string', versions: '0+', nullableVersions: '0+' },
          ],
        },
      ],
    },
    { name: 'validateOnly', type: 'bool', versions: '0+' },
  ],
  response: [
    { name: 'throttleTimeMs', type: 'int32', versions: '0+' },
    {
      name: 'responses',
      type: '[]AlterConfigsResourceResponse',
      versions: '0+',
      fields: [
        { name: 'errorCode', type: 'int16', versions: '0+' },
        { name: 'errorMessage', type: 'string', versions: '0+', nullableVersions: '0+' },
        { name: 'resourceType', type: 'int8', versions: '0+' },
        { name: 'resourceName', type: 'string', versions: '0+' },
      ],
    },
  ],
} as const satisfies MessageDef;

export type IncrementalAlterConfigsRequest = RequestOf<typeof IncrementalAlterConfigs>;
export type IncrementalAlterConfigsResponse = ResponseOf<typeof IncrementalAlterConfigs>;
