// DescribeCluster: v0-1 (KIP-700). This broker is the whole cluster and its controller.
// endpointType 2 (controllers, KIP-919) is answered with this broker too, since it plays both roles.
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from './registry.js';

export default defineHandler({
  apiKey: 60,
  minVersion: 0,
  maxVersion: 1,
  handle({ broker }, req) {
    const { host, port } = broker.advertised;
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      endpointType: req.endpointType,
      clusterId: broker.clusterId,
      controllerId: broker.nodeId,
      brokers: [{ brokerId: broker.nodeId, host, port, rack: null }],
      clusterAuthorizedOperations: -2147483648,
    };
  },
});
