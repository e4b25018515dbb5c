// DescribeCluster (key 60): cluster id, controller and brokers, plus cluster authorized operations (KIP-700).
// Flexible from v0; v1 adds the endpoint type (KIP-919).
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';
import { AUTHORIZED_OPERATIONS_OMITTED } from '../sentinels.js';

export const DescribeCluster = {
  apiKey: 60,
  name: 'DescribeCluster',
  validVersions: '0-1',
  flexibleVersions: '0+',
  request: [
    { name: 'includeClusterAuthorizedOperations', type: 'bool', versions: '0+' },
    { name: 'endpointType', type: 'int8', versions: '1+', default: 1 },
  ],
  response: [
    { name: 'throttleTimeMs', type: 'int32', versions: '0+' },
    { name: 'errorCode', type: 'int16', versions: '0+' },
    { name: 'errorMessage', type: 'string', versions: '0+', nullableVersions: '0+', default: null },
    { name: 'endpointType', type: 'int8', versions: '1+', default: 1 },
    { name: 'clusterId', type: 'string', versions: '0+' },
    { name: 'controllerId', type: 'int32', versions: '0+', default: -1 },
    {
      name: 'brokers',
      type: '[]DescribeClusterBroker',
      versions: '0+',
      fields: [
        { name: 'brokerId', type: 'int32', versions: '0+' },
        { name: 'host', type: 'string', versions: '0+' },
        { name: 'port', type: 'int32', versions: '0+' },
        { name: 'rack', type: 'string', versions: '0+', nullableVersions: '0+', default: null },
      ],
    },
    { name: 'clusterAuthorizedOperations', type: 'int32', versions: '0+', default: AUTHORIZED_OPERATIONS_OMITTED },
  ],
} as const satisfies MessageDef;

export type DescribeClusterRequest = RequestOf<typeof DescribeCluster>;
export type DescribeClusterResponse = ResponseOf<typeof DescribeCluster>;
