// FindCoordinator (key 10): locate the group or transaction coordinator; krill is always its own coordinator.
// v1 adds the key type, v3 goes flexible, v4 batches several keys into one request (KIP-699), v5 and v6 only
// widen the error and key-type space (KIP-890, KIP-932).
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const FindCoordinator = {
  apiKey: 10,
  name: 'FindCoordinator',
  validVersions: '0-6',
  flexibleVersions: '3+',
  request: [
    { name: 'key', type: 'string', versions: '0-3' },
    { name: 'keyType', type: 'int8', versions: '1+', default: 0 },
    { name: 'coordinatorKeys', type: '[]string', versions: '4+' },
  ],
  response: [
    { name: 'throttleTimeMs', type: 'int32', versions: '1+' },
    { name: 'errorCode', type: 'int16', versions: '0-3' },
    { name: 'errorMessage', type: 'string', versions: '1-3', nullableVersions: '1-3' },
    { name: 'nodeId', type: 'int32', versions: '0-3' },
    { name: 'host', type: 'string', versions: '0-3' },
    { name: 'port', type: 'int32', versions: '0-3' },
    {
      name: 'coordinators',
      type: '[]Coordinator',
      versions: '4+',
      fields: [
        { name: 'key', type: 'string', versions: '4+' },
        { name: 'nodeId', type: 'int32', versions: '4+' },
        { name: 'host', type: 'string', versions: '4+' },
        { name: 'port', type: 'int32', versions: '4+' },
        { name: 'errorCode', type: 'int16', versions: '4+' },
        { name: 'errorMessage', type: 'string', versions: '4+', nullableVersions: '4+' },
      ],
    },
  ],
} as const satisfies MessageDef;

export type FindCoordinatorRequest = RequestOf<typeof FindCoordinator>;
export type FindCoordinatorResponse = ResponseOf<typeof FindCoordinator>;
