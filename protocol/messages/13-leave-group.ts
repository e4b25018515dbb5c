// LeaveGroup (key 13): a member, or from v3 a batch of members (static ones by instance id), leave a group.
// v4 goes flexible, v5 adds a reason per member (KIP-800).
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const LeaveGroup = {
  apiKey: 13,
  name: 'LeaveGroup',
  validVersions: '0-5',
  flexibleVersions: '4+',
  request: [
    { name: 'groupId', type: 'string', versions: '0+' },
    { name: 'memberId', type: 'string', versions: '0-2' },
    {
      name: 'members',
      type: '[]MemberIdentity',
      versions: '3+',
      fields: [
        { name: 'memberId', type: 'string', versions: '3+' },
        { name: 'groupInstanceId', type: 'string', versions: '3+', nullableVersions: '3+', default: null },
        { name: 'reason', type: 'string', versions: '5+', nullableVersions: '5+', default: null },
      ],
    },
  ],
  response: [
    { name: 'throttleTimeMs', type: 'int32', versions: '1+' },
    { name: 'errorCode', type: 'int16', versions: '0+' },
    {
      name: 'members',
      type: '[]MemberResponse',
      versions: '3+',
      fields: [
        { name: 'memberId', type: 'string', versions: '3+' },
        { name: 'groupInstanceId', type: 'string', versions: '3+', nullableVersions: '3+' },
        { name: 'errorCode', type: 'int16', versions: '3+' },
      ],
    },
  ],
} as const satisfies MessageDef;

export type LeaveGroupRequest = RequestOf<typeof LeaveGroup>;
export type LeaveGroupResponse = ResponseOf<typeof LeaveGroup>;
