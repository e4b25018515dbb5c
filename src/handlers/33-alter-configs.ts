// AlterConfigs: v0-2.
// Behaviour: each resource's dynamic configs (a topic's overrides, the cluster-wide broker defaults "" or
// this broker's own) are replaced by the given set, checked as a whole first; validateOnly only checks.
// Each resource gets its own error (see config-admin/config-admin.ts). BROKER_LOGGER is not a resource
// of this API (INVALID_REQUEST), as in Kafka.
// Version notes: v1 is v0; v2 is flexible.
import { defineHandler } from './registry.js';
import type { AlterConfigsResponse } from '../../protocol/messages/33-alter-configs.js';
import { logResults } from '../config-admin/config-admin.js';

export default defineHandler({
  apiKey: 33,
  minVersion: 0,
  maxVersion: 2,
  async handle({ configs, log }, req): Promise<AlterConfigsResponse> {
    const responses = await configs.alter(req.resources, req.validateOnly);
    logResults(log, responses, req.validateOnly);
    return { throttleTimeMs: 0, responses };
  },
});
