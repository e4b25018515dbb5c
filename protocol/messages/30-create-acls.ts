// CreateAcls (key 30): add ACL bindings; each creation gets its own result, in request order.
// v1 adds the pattern type (KIP-290), v2 goes flexible, v3 is v2 (KIP-896 renumbering).
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const CreateAcls = {
  apiKey: 30,
  name: 'CreateAcls',
  validVersions: '0-3',
  flexibleVersions: '2+',
  request: [
    {
      name: 'creations',
      type: '[]AclCreation',
      versions: '0+',
      fields: [
        { name: 'resourceType', type: 'int8', versions: '0+' },
        { name: 'resourceName', type: 'string', versions: '0+' },
        { name: 'resourcePatternType', type: 'int8', versions: '1+', default: 3 },
        { name: 'principal', type: 'string', versions: '0+' },
        { name: 'host', type: 'string', versions: '0+' },
        { name: 'operation', type: 'int8', versions: '0+' },
        { name: 'permissionType', type: 'int8', versions: '0+' },
      ],
    },
  ],
  response: [
    { name: 'throttleTimeMs', type: 'int32', versions: '0+' },
    {
      name: 'results',
      type: '[]AclCreationResult',
      versions: '0+',
      fields: [
        { name: 'errorCode', type: 'int16', versions: '0+' },
        { name: 'errorMessage', type: 'string', versions: '0+', nullableVersions: '0+' },
      ],
    },
  ],
} as const satisfies MessageDef;

export type CreateAclsRequest = RequestOf<typeof CreateAcls>;
export type CreateAclsResponse = ResponseOf<typeof CreateAcls>;
