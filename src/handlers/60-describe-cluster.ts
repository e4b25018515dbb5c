// DescribeCluster: v0-1 (KIP-700). This broker is the whole cluster and its controller.
// endpointType 2 (controllers, KIP-919) is answered with this broker too, since it plays both roles.
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from './registry.js';
import { onListener } from '../cluster/cluster-view.js';
import { authorizedOperations } from '../authorized-operations.js';
import type { DescribeClusterResponse } from '../../protocol/messages/60-describe-cluster.js';

export default defineHandler({
  apiKey: 60,
  minVersion: 0,
  maxVersion: 1,
  handle({ cluster, session }, req): DescribeClusterResponse {
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      endpointType: req.endpointType,
      clusterId: cluster.clusterId,
      controllerId: cluster.controllerId,
      // Each broker at its endpoint on the listener the request came in on, as Kafka answers.
      brokers: onListener(cluster.brokers(), session.listener.name).map(({ nodeId, host, port, rack }): DescribeClusterResponse['brokers'][number] => ({
        brokerId: nodeId,
        host,
        port,
        rack,
      })),
      clusterAuthorizedOperations: authorizedOperations('cluster', req.includeClusterAuthorizedOperations),
    };
  },
});
