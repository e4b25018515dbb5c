// Heartbeat (key 12): a classic group member keeping its session; REBALANCE_IN_PROGRESS tells it to rejoin.
// v3 adds static membership, v4 goes flexible.
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const Heartbeat = {
  apiKey: 12,
  name: 'Heartbeat',
  validVersions: '0-4',
  flexibleVersions: '4+',
  request: [
    { name: 'groupId', type: 'string', versions: '0+' },
    { name: 'generationId', type: 'int32', versions: '0+' },
    { name: 'memberId', type: 'string', versions: '0+' },
    { name: 'groupInstanceId', type: 'string', versions: '3+', nullableVersions: '3+', default: null },
  ],
  response: [
    { name: 'throttleTimeMs', type: 'int32', versions: '1+' },
    { name: 'errorCode', type: 'int16', versions: '0+' },
  ],
} as const satisfies MessageDef;

export type HeartbeatRequest = RequestOf<typeof Heartbeat>;
export type HeartbeatResponse = ResponseOf<typeof Heartbeat>;
