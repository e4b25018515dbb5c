// AlterClientQuotas (key 49): set or remove client quotas of entities (KIP-546); validateOnly only checks.
// v1 goes flexible.
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

const entity = {
  name: 'entity',
  type: '[]EntityData',
  versions: '0+',
  fields: [
    { name: 'entityType', type: 'string', versions: '0+' },
    // null for the default entity
    { name: 'entityName', type: 'string', versions: '0+', nullableVersions: '0+' },
  ],
} as const;

export const AlterClientQuotas = {
  apiKey: 49,
  name: 'AlterClientQuotas',
  validVersions: '0-1',
  flexibleVersions: '1+',
  request: [
    {
      name: 'entries',
      type: '[]EntryData',
      versions: '0+',
      fields: [
        entity,
        {
          name: 'ops',
          type: '[]OpData',
          versions: '0+',
          fields: [
            { name: 'key', type: 'string', versions: '0+' },
            // ignored when remove is set
            { name: 'value', type: 'float64', versions: '0+' },
            { name: 'remove', type: 'bool', versions: '0+' },
          ],
        },
      ],
    },
    { name: 'validateOnly', type: 'bool', versions: '0+' },
  ],
  response: [
    { name: 'throttleTimeMs', type: 'int32', versions: '0+' },
    {
      name: 'entries',
      type: '[]EntryData',
      versions: '0+',
      fields: [{ name: 'errorCode', type: 'int16', versions: '0+' }, { name: 'errorMessage', type: 'string', versions: '0+', nullableVersions: '0+' }, entity],
    },
  ],
} as const satisfies MessageDef;

export type AlterClientQuotasRequest = RequestOf<typeof AlterClientQuotas>;
export type AlterClientQuotasResponse = ResponseOf<typeof AlterClientQuotas>;
