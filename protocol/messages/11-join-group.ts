// JoinGroup (key 11): classic group membership; the reply elects a leader and hands it the member list.
// v1 adds the rebalance timeout, v4 makes a new member rejoin with the id it was given (MEMBER_ID_REQUIRED),
// v5 adds static membership, v6 goes flexible, v7 returns the protocol type, v8 adds a reason (KIP-800),
// v9 adds skipAssignment.
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const JoinGroup = {
  apiKey: 11,
  name: 'JoinGroup',
  validVersions: '0-9',
  flexibleVersions: '6+',
  request: [
    { name: 'groupId', type: 'string', versions: '0+' },
    { name: 'sessionTimeoutMs', type: 'int32', versions: '0+' },
    { name: 'rebalanceTimeoutMs', type: 'int32', versions: '1+', default: -1 },
    { name: 'memberId', type: 'string', versions: '0+' },
    { name: 'groupInstanceId', type: 'string', versions: '5+', nullableVersions: '5+', default: null },
    { name: 'protocolType', type: 'string', versions: '0+' },
    {
      name: 'protocols',
      type: '[]JoinGroupRequestProtocol',
      versions: '0+',
      fields: [
        { name: 'name', type: 'string', versions: '0+' },
        { name: 'metadata', type: 'bytes', versions: '0+' },
      ],
    },
    { name: 'reason', type: 'string', versions: '8+', nullableVersions: '8+', default: null },
  ],
  response: [
    { name: 'throttleTimeMs', type: 'int32', versions: '2+' },
    { name: 'errorCode', type: 'int16', versions: '0+' },
    { name: 'generationId', type: 'int32', versions: '0+', default: -1 },
    { name: 'protocolType', type: 'string', versions: '7+', nullableVersions: '7+', default: null },
    { name: 'protocolName', type: 'string', versions: '0+', nullableVersions: '7+' },
    { name: 'leader', type: 'string', versions: '0+' },
    { name: 'skipAssignment', type: 'bool', versions: '9+', default: false },
    { name: 'memberId', type: 'string', versions: '0+' },
    {
      name: 'members',
      type: '[]JoinGroupResponseMember',
      versions: '0+',
      fields: [
        { name: 'memberId', type: 'string', versions: '0+' },
        { name: 'groupInstanceId', type: 'string', versions: '5+', nullableVersions: '5+', default: null },
        { name: 'metadata', type: 'bytes', versions: '0+' },
      ],
    },
  ],
} as const satisfies MessageDef;

export type JoinGroupRequest = RequestOf<typeof JoinGroup>;
export type JoinGroupResponse = ResponseOf<typeof JoinGroup>;
