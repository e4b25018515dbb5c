// DeleteGroups: v0-2.
// Behaviour: an Empty group is deleted with its committed offsets (tombstones in __consumer_offsets);
// a group with members is NON_EMPTY_GROUP, an unknown one GROUP_ID_NOT_FOUND.
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from './registry.js';
import { groupCoordinatorError } from '../cluster/coordinator-guard.js';
import type { DeleteGroupsResponse } from '../../protocol/messages/42-delete-groups.js';

export default defineHandler({
  apiKey: 42,
  minVersion: 0,
  maxVersion: 2,
  handle({ groups, coordinators }, req): DeleteGroupsResponse {
    return {
      throttleTimeMs: 0,
      // In a cluster, each group is deleted by its own coordinator, once it has loaded it.
      results: req.groupsNames.map((groupId) => {
        const code = groupCoordinatorError(coordinators, groupId);
        return { groupId, errorCode: code !== ErrorCode.NONE ? code : groups.deleteGroup(groupId) };
      }),
    };
  },
  errorResponse(req, code): DeleteGroupsResponse {
    return { throttleTimeMs: 0, results: req.groupsNames.map((groupId) => ({ groupId, errorCode: code })) };
  },
});
