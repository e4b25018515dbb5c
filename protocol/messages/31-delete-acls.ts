// DeleteAcls (key 31): remove the ACLs matching each filter, and say which ones each filter removed.
// v1 adds the pattern type (KIP-290), v2 goes flexible, v3 is v2 (KIP-896 renumbering).
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const DeleteAcls = {
  apiKey: 31,
  name: 'DeleteAcls',
  validVersions: '0-3',
  flexibleVersions: '2+',
  request: [
    {
      name: 'filters',
      type: '[]DeleteAclsFilter',
      versions: '0+',
      fields: [
        { name: 'resourceTypeFilter', type: 'int8', versions: '0+' },
        { name: 'resourceNameFilter', type: 'string', versions: '0+', nullableVersions: '0+' },
        { name: 'patternTypeFilter', type: 'int8', versions: '1+', default: 3 },
        { name: 'principalFilter', type: 'string', versions: '0+', nullableVersions: '0+' },
        { name: 'hostFilter', type: 'string', versions: '0+', nullableVersions: '0+' },
        { name: 'operation', type: 'int8', versions: '0+' },
        { name: 'permissionType', type: 'int8', versions: '0+' },
      ],
    },
  ],
  response: [
    { name: 'throttleTimeMs', type: 'int32', versions: '0+' },
    {
      name: 'filterResults',
      type: '[]DeleteAclsFilterResult',
      versions: '0+',
      fields: [
        { name: 'errorCode', type: 'int16', versions: '0+' },
        { name: 'errorMessage', type: 'string', versions: '0+', nullableVersions: '0+' },
        {
          name: 'matchingAcls',
          type: '[]DeleteAclsMatchingAcl',
          versions: '0+',
          fields: [
            { name: 'errorCode', type: 'int16', versions: '0+' },
            { name: 'errorMessage', type: 'string', versions: '0+', nullableVersions: '0+' },
            { name: 'resourceType', type: 'int8', versions: '0+' },
            { name: 'resourceName', type: 'string', versions: '0+' },
            { name: 'patternType', type: 'int8', versions: '1+', default: 3 },
            { name: 'principal', type: 'string', versions: '0+' },
            { name: 'host', type: 'string', versions: '0+' },
            { name: 'operation', type: 'int8', versions: '0+' },
            { name: 'permissionType', type: 'int8', versions: '0+' },
          ],
        },
      ],
    },
  ],
} as const satisfies MessageDef;

export type DeleteAclsRequest = RequestOf<typeof DeleteAcls>;
export type DeleteAclsResponse = ResponseOf<typeof DeleteAcls>;
