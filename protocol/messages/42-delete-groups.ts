// DeleteGroups (key 42): delete empty groups with their committed offsets.
// v2 goes flexible.
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const DeleteGroups = {
  apiKey: 42,
  name: 'DeleteGroups',
  validVersions: '0-2',
  flexibleVersions: '2+',
  request: [{ name: 'groupsNames', type: '[]string', versions: '0+' }],
  response: [
    { name: 'throttleTimeMs', type: 'int32', versions: '0+' },
    {
      name: 'results',
      type: '[]DeletableGroupResult',
      versions: '0+',
      fields: [
        { name: 'groupId', type: 'string', versions: '0+' },
        { name: 'errorCode', type: 'int16', versions: '0+' },
      ],
    },
  ],
} as const satisfies MessageDef;

export type DeleteGroupsRequest = RequestOf<typeof DeleteGroups>;
export type DeleteGroupsResponse = ResponseOf<typeof DeleteGroups>;
