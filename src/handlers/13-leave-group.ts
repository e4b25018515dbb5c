// LeaveGroup: v0-5.
// Behaviour: removes members and rebalances the rest (the group becomes Empty when none are left). An empty
// group id is INVALID_GROUP_ID at the top level, no members.
// Version notes: v0-2 carry one member id and answer its error at the top level; v3+ batch members,
// static ones by group instance id (KIP-345: a mismatching member id is FENCED_INSTANCE_ID), each with
// its own error; v5 adds a reason per member (KIP-800), only logged.
import { defineHandler } from './registry.js';
import type { LeaveGroupResponse } from '../../protocol/messages/13-leave-group.js';

export default defineHandler({
  apiKey: 13,
  minVersion: 0,
  maxVersion: 5,
  handle({ groups, apiVersion }, req): LeaveGroupResponse {
    if (apiVersion < 3) {
      const r = groups.leaveGroup(req.groupId, [{ memberId: req.memberId, groupInstanceId: null }]);
      return { throttleTimeMs: 0, errorCode: r.errorCode || (r.members[0]?.errorCode ?? 0) };
    }
    const r = groups.leaveGroup(
      req.groupId,
      req.members.map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId ?? null })),
    );
    return { throttleTimeMs: 0, errorCode: r.errorCode, members: r.members };
  },
  errorResponse(_req, code): LeaveGroupResponse {
    return { throttleTimeMs: 0, errorCode: code, members: [] };
  },
});
