// DescribeGroups (key 15): state, protocol and members of classic groups.
// v3 can return authorized operations, v4 returns group instance ids, v5 goes flexible.
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';
import { AUTHORIZED_OPERATIONS_OMITTED } from '../sentinels.js';

export const DescribeGroups = {
  apiKey: 15,
  name: 'DescribeGroups',
  validVersions: '0-5',
  flexibleVersions: '5+',
  request: [
    { name: 'groups', type: '[]string', versions: '0+' },
    { name: 'includeAuthorizedOperations', type: 'bool', versions: '3+' },
  ],
  response: [
    { name: 'throttleTimeMs', type: 'int32', versions: '1+' },
    {
      name: 'groups',
      type: '[]DescribedGroup',
      versions: '0+',
      fields: [
        { name: 'errorCode', type: 'int16', versions: '0+' },
        { name: 'groupId', type: 'string', versions: '0+' },
        { name: 'groupState', type: 'string', versions: '0+' },
        { name: 'protocolType', type: 'string', versions: '0+' },
        { name: 'protocolData', type: 'string', versions: '0+' },
        {
          name: 'members',
          type: '[]DescribedGroupMember',
          versions: '0+',
          fields: [
            { name: 'memberId', type: 'string', versions: '0+' },
            { name: 'groupInstanceId', type: 'string', versions: '4+', nullableVersions: '4+', default: null },
            { name: 'clientId', type: 'string', versions: '0+' },
            { name: 'clientHost', type: 'string', versions: '0+' },
            { name: 'memberMetadata', type: 'bytes', versions: '0+' },
            { name: 'memberAssignment', type: 'bytes', versions: '0+' },
          ],
        },
        { name: 'authorizedOperations', type: 'int32', versions: '3+', default: AUTHORIZED_OPERATIONS_OMITTED },
      ],
    },
  ],
} as const satisfies MessageDef;

export type DescribeGroupsRequest = RequestOf<typeof DescribeGroups>;
export type DescribeGroupsResponse = ResponseOf<typeof DescribeGroups>;
