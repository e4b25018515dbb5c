// DescribeAcls (key 29): the ACLs matching a filter, grouped by resource pattern.
// v1 adds the pattern type (KIP-290: PREFIXED), v2 goes flexible; v3 is v2 (KIP-896 renumbering).
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const DescribeAcls = {
  apiKey: 29,
  name: 'DescribeAcls',
  validVersions: '0-3',
  flexibleVersions: '2+',
  request: [
    { name: 'resourceTypeFilter', type: 'int8', versions: '0+' },
    { name: 'resourceNameFilter', type: 'string', versions: '0+', nullableVersions: '0+' },
    { name: 'patternTypeFilter', type: 'int8', versions: '1+', default: 3 },
    { name: 'principalFilter', type: 'string', versions: '0+', nullableVersions: '0+' },
    { name: 'hostFilter', type: 'string', versions: '0+', nullableVersions: '0+' },
    { name: 'operation', type: 'int8', versions: '0+' },
    { name: 'permissionType', type: 'int8', versions: '0+' },
  ],
  response: [
    { name: 'throttleTimeMs', type: 'int32', versions: '0+' },
    { name: 'errorCode', type: 'int16', versions: '0+' },
    { name: 'errorMessage', type: 'string', versions: '0+', nullableVersions: '0+' },
    {
      name: 'resources',
      type: '[]DescribeAclsResource',
      versions: '0+',
      fields: [
        { name: 'resourceType', type: 'int8', versions: '0+' },
        { name: 'resourceName', type: 'string', versions: '0+' },
        { name: 'patternType', type: 'int8', versions: '1+', default: 3 },
        {
          name: 'acls',
          type: '[]AclDescription',
          versions: '0+',
          fields: [
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

export type DescribeAclsRequest = RequestOf<typeof DescribeAcls>;
export type DescribeAclsResponse = ResponseOf<typeof DescribeAcls>;
