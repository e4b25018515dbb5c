// AlterClientQuotas: v0-1 (KIP-546).
// Behaviour: each entry sets or removes quota keys (producer_byte_rate, consumer_byte_rate,
// request_percentage, controller_mutation_rate) of one entity; an unknown entity type or key, an empty name,
// a byte rate that is not whole or a value not above 0 is that entry's INVALID_REQUEST. The entries that pass
// are persisted (the data dir's file; ZooKeeper in a cluster) and then enforced; validateOnly only checks.
// Version notes: v1 is flexible.
import { defineHandler } from './registry.js';
import type { AlterClientQuotasResponse } from '../../protocol/messages/49-alter-client-quotas.js';

export default defineHandler({
  apiKey: 49,
  minVersion: 0,
  maxVersion: 1,
  async handle({ clientQuotas, log }, req): Promise<AlterClientQuotasResponse> {
    const entries = await clientQuotas.store.alter(req);
    if (!req.validateOnly) log.info({ entries: entries.map((e) => ({ entity: e.entity, error: e.errorCode })) }, 'client quotas altered');
    return { throttleTimeMs: 0, entries };
  },
});
