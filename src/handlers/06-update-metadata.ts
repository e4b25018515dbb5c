// UpdateMetadata: v8 only, the version krill's controller sends. Behaviour: from the controller, in a cluster
// only: the live brokers and the partitions' leaders, replicas and ISR, which Metadata, FindCoordinator and
// DescribeCluster answer from (cluster/metadata-cache.ts); topics new to this broker get their local logs.
import { defineHandler } from './registry.js';
import type { UpdateMetadataResponse } from '../../protocol/messages/06-update-metadata.js';

export default defineHandler({
  apiKey: 6,
  minVersion: 8,
  maxVersion: 8,
  async handle({ controllerRequests }, req): Promise<UpdateMetadataResponse> {
    return { errorCode: await controllerRequests.applyUpdateMetadata(req) };
  },
  errorResponse(_req, code): UpdateMetadataResponse {
    return { errorCode: code };
  },
});
