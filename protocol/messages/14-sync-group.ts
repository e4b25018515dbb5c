// SyncGroup (key 14): the leader uploads the assignment; every member receives its own share.
// v3 adds static membership, v4 goes flexible, v5 carries protocol type and name both ways (KIP-559).
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const SyncGroup = {
  apiKey: 14,
  name: 'SyncGroup',
  validVersions: '0-5',
  flexibleVersions: '4+',
  request: [
    { name: 'groupId', type: 'string', versions: '0+' },
    { name: 'generationId', type: 'int32', versions: '0+' },
    { name: 'memberId', type: 'string', versions: '0+' },
    { name: 'groupInstanceId', type: 'string', versions: '3+', nullableVersions: '3+', default: null },
    { name: 'protocolType', type: 'string', versions: '5+', nullableVersions: '5+', default: null },
    { name: 'protocolName', type: 'string', versions: '5+', nullableVersions: '5+', default: null },
    {
      name: 'assignments',
      type: '[]SyncGroupRequestAssignment',
      versions: '0+',
      fields: [
        { name: 'memberId', type: 'string', versions: '0+' },
        { name: 'assignment', type: 'bytes', versions: '0+' },
      ],
    },
  ],
  response: [
    { name: 'throttleTimeMs', type: 'int32', versions: '1+' },
    { name: 'errorCode', type: 'int16', versions: '0+' },
    { name: 'protocolType', type: 'string', versions: '5+', nullableVersions: '5+', default: null },
    { name: 'protocolName', type: 'string', versions: '5+', nullableVersions: '5+', default: null },
    { name: 'assignment', type: 'bytes', versions: '0+' },
  ],
} as const satisfies MessageDef;

export type SyncGroupRequest = RequestOf<typeof SyncGroup>;
export type SyncGroupResponse = ResponseOf<typeof SyncGroup>;
