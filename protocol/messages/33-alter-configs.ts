// AlterConfigs (key 33): replace the whole set of dynamic configs of a resource (non-incremental).
// v2 goes flexible.
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const AlterConfigs = {
  apiKey: 33,
  name: 'AlterConfigs',
  validVersions: '0-2',
  flexibleVersions: '2+',
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

export type AlterConfigsRequest = RequestOf<typeof AlterConfigs>;
export type AlterConfigsResponse = ResponseOf<typeof AlterConfigs>;
