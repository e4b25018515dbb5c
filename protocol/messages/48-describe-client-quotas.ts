// DescribeClientQuotas (key 48): the client quotas configured for the entities a filter matches (KIP-546).
// v1 goes flexible.
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const DescribeClientQuotas = {
  apiKey: 48,
  name: 'DescribeClientQuotas',
  validVersions: '0-1',
  flexibleVersions: '1+',
  request: [
    {
      name: 'components',
      type: '[]ComponentData',
      versions: '0+',
      fields: [
        { name: 'entityType', type: 'string', versions: '0+' },
        // 0 exact name, 1 the default, 2 any specified name
        { name: 'matchType', type: 'int8', versions: '0+' },
        { name: 'match', type: 'string', versions: '0+', nullableVersions: '0+' },
      ],
    },
    { name: 'strict', type: 'bool', versions: '0+' },
  ],
  response: [
    { name: 'throttleTimeMs', type: 'int32', versions: '0+' },
    { name: 'errorCode', type: 'int16', versions: '0+' },
    { name: 'errorMessage', type: 'string', versions: '0+', nullableVersions: '0+' },
    {
      name: 'entries',
      type: '[]EntryData',
      versions: '0+',
      nullableVersions: '0+',
      fields: [
        {
          name: 'entity',
          type: '[]EntityData',
          versions: '0+',
          fields: [
            { name: 'entityType', type: 'string', versions: '0+' },
            // null for the default entity
            { name: 'entityName', type: 'string', versions: '0+', nullableVersions: '0+' },
          ],
        },
        {
          name: 'values',
          type: '[]ValueData',
          versions: '0+',
          fields: [
            { name: 'key', type: 'string', versions: '0+' },
            { name: 'value', type: 'float64', versions: '0+' },
          ],
        },
      ],
    },
  ],
} as const satisfies MessageDef;

export type DescribeClientQuotasRequest = RequestOf<typeof DescribeClientQuotas>;
export type DescribeClientQuotasResponse = ResponseOf<typeof DescribeClientQuotas>;
