// DescribeClientQuotas: v0-1 (KIP-546).
// Behaviour: the entities (user, client-id, user with client-id; <default> as a null name) that match
// every filter component (EXACT name, DEFAULT, SPECIFIED: any name including the default), with their quota
// values; strict takes only entities without types the filter does not name. A bad filter is the whole
// response's INVALID_REQUEST with a message. IP entities are refused: krill has no IP quotas.
// Version notes: v1 is flexible.
import { defineHandler } from './registry.js';
import type { DescribeClientQuotasResponse } from '../../protocol/messages/48-describe-client-quotas.js';

export default defineHandler({
  apiKey: 48,
  minVersion: 0,
  maxVersion: 1,
  handle({ clientQuotas }, req): DescribeClientQuotasResponse {
    return { throttleTimeMs: 0, ...clientQuotas.store.describe(req) };
  },
});
