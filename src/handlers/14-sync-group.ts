// SyncGroup: v0-5.
// Behaviour: long-polling in CompletingRebalance — the leader's request carries the assignment, which is
// persisted (GroupMetadataValue) and handed to every waiting member; followers wait for it. In Stable a
// member gets its current assignment at once; PreparingRebalance answers REBALANCE_IN_PROGRESS. An empty
// group id is INVALID_GROUP_ID.
// Version notes: v3+ static membership; v5 checks protocol type and name both ways (KIP-559).
import { defineHandler } from './registry.js';
import type { SyncGroupResponse } from '../../protocol/messages/14-sync-group.js';

export default defineHandler({
  apiKey: 14,
  minVersion: 0,
  maxVersion: 5,
  async handle({ groups }, req): Promise<SyncGroupResponse> {
    const r = await groups.syncGroup({
      groupId: req.groupId,
      generationId: req.generationId,
      memberId: req.memberId,
      groupInstanceId: req.groupInstanceId ?? null,
      protocolType: req.protocolType ?? null,
      protocolName: req.protocolName ?? null,
      assignments: req.assignments.map((a) => ({ memberId: a.memberId, assignment: Buffer.from(a.assignment) })),
    });
    return { throttleTimeMs: 0, ...r };
  },
  errorResponse(_req, code): SyncGroupResponse {
    return { throttleTimeMs: 0, errorCode: code, protocolType: null, protocolName: null, assignment: Buffer.alloc(0) };
  },
});
