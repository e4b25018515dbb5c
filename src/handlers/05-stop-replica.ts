// StopReplica: v4 only, the version krill's controller sends. Behaviour: from the controller, in a cluster
// only: this broker stops leading the partitions named, and deletes them when the topic is being deleted
// (cluster/zk-cluster.ts applyStopReplica). Stale controller or broker epochs are refused as in LeaderAndIsr.
import { defineHandler } from './registry.js';
import type { StopReplicaResponse } from '../../protocol/messages/05-stop-replica.js';

export default defineHandler({
  apiKey: 5,
  minVersion: 4,
  maxVersion: 4,
  async handle({ controllerRequests }, req): Promise<StopReplicaResponse> {
    const { errorCode, partitions } = await controllerRequests.applyStopReplica(req);
    return { errorCode, partitionErrors: partitions };
  },
  errorResponse(_req, code): StopReplicaResponse {
    return { errorCode: code, partitionErrors: [] };
  },
});
