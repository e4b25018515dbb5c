// ListGroups (key 16): every group the broker coordinates.
// v3 goes flexible, v4 filters and reports by state (KIP-518), v5 by group type (KIP-848).
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const ListGroups = {
  apiKey: 16,
  name: 'ListGroups',
  validVersions: '0-5',
  flexibleVersions: '3+',
  request: [
    { name: 'statesFilter', type: '[]string', versions: '4+' },
    { name: 'typesFilter', type: '[]string', versions: '5+' },
  ],
  response: [
    { name: 'throttleTimeMs', type: 'int32', versions: '1+' },
    { name: 'errorCode', type: 'int16', versions: '0+' },
    {
      name: 'groups',
      type: '[]ListedGroup',
      versions: '0+',
      fields: [
        { name: 'groupId', type: 'string', versions: '0+' },
        { name: 'protocolType', type: 'string', versions: '0+' },
        { name: 'groupState', type: 'string', versions: '4+' },
        { name: 'groupType', type: 'string', versions: '5+' },
      ],
    },
  ],
} as const satisfies MessageDef;

export type ListGroupsRequest = RequestOf<typeof ListGroups>;
export type ListGroupsResponse = ResponseOf<typeof ListGroups>;
