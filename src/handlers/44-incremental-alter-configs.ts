// IncrementalAlterConfigs: v0-1 (KIP-339).
// Behaviour: each resource's configs are changed one operation at a time (SET 0, DELETE 1, APPEND 2 and
// SUBTRACT 3 on LIST configs only), the result checked as a whole and applied at once; validateOnly only
// checks. Each resource gets its own error (see config-admin/config-admin.ts). BROKER_LOGGER is refused
// (INVALID_REQUEST): krill's log level is set at start.
// Version notes: v1 is flexible.
import { defineHandler } from './registry.js';
import type { IncrementalAlterConfigsResponse } from '../../protocol/messages/44-incremental-alter-configs.js';
import { logResults } from '../config-admin/config-admin.js';

export default defineHandler({
  apiKey: 44,
  minVersion: 0,
  maxVersion: 1,
  async handle({ configs, log }, req): Promise<IncrementalAlterConfigsResponse> {
    const responses = await configs.incrementalAlter(req.resources, req.validateOnly);
    logResults(log, responses, req.validateOnly);
    return { throttleTimeMs: 0, responses };
  },
});
