// ListGroups: v0-5.
// Behaviour: every group this broker coordinates (all of them on a single broker; in a cluster those of the
// __consumer_offsets partitions it leads), with its protocol type. While a partition is being loaded the
// groups already loaded are listed with COORDINATOR_LOAD_IN_PROGRESS, as Kafka answers.
// Version notes: v4+ filters by state (KIP-518, case-insensitive, empty = all) and reports it; v5+ filters
// by type (KIP-848) — every group here is "classic".
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from './registry.js';
import type { ListGroupsResponse } from '../../protocol/messages/16-list-groups.js';

export default defineHandler({
  apiKey: 16,
  minVersion: 0,
  maxVersion: 5,
  handle({ groups, coordinators, apiVersion }, req): ListGroupsResponse {
    const states = apiVersion >= 4 ? req.statesFilter.map((s) => s.toLowerCase()) : [];
    const types = apiVersion >= 5 ? req.typesFilter.map((s) => s.toLowerCase()) : [];
    const listed = groups
      .allGroups()
      .filter((g) => !g.is('Dead') && coordinators.coordinatesGroup(g.groupId))
      .filter((g) => states.length === 0 || states.includes(g.state.toLowerCase()))
      .filter(() => types.length === 0 || types.includes('classic'))
      .map((g): ListGroupsResponse['groups'][number] => ({
        groupId: g.groupId,
        protocolType: g.protocolType ?? '',
        groupState: g.state,
        groupType: 'classic',
      }));
    return { throttleTimeMs: 0, errorCode: groups.isLoadingAny() ? ErrorCode.COORDINATOR_LOAD_IN_PROGRESS : ErrorCode.NONE, groups: listed };
  },
  errorResponse(_req, code): ListGroupsResponse {
    return { throttleTimeMs: 0, errorCode: code, groups: [] };
  },
});
