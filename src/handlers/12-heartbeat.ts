// Heartbeat: v0-4.
// Behaviour: keeps a member's session; REBALANCE_IN_PROGRESS while the group prepares a rebalance (the
// member must rejoin), ILLEGAL_GENERATION for another generation, UNKNOWN_MEMBER_ID for an unknown member
// or group, FENCED_INSTANCE_ID for a static member replaced by a newer incarnation (v3+), INVALID_GROUP_ID for
// an empty group id (as Kafka checks it before anything else).
import { defineHandler } from './registry.js';
import type { HeartbeatResponse } from '../../protocol/messages/12-heartbeat.js';

export default defineHandler({
  apiKey: 12,
  minVersion: 0,
  maxVersion: 4,
  handle({ groups }, req): HeartbeatResponse {
    return { throttleTimeMs: 0, errorCode: groups.heartbeat(req.groupId, req.memberId, req.groupInstanceId ?? null, req.generationId) };
  },
  errorResponse(_req, code): HeartbeatResponse {
    return { throttleTimeMs: 0, errorCode: code };
  },
});
