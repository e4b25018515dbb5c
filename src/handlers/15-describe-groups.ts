// DescribeGroups: v0-5.
// Behaviour: as Kafka's classic coordinator — an unknown group is reported in state "Dead" with no error;
// a Stable group lists its protocol and each member's metadata and assignment, other states list members
// without them. Authorized operations (v3+), when asked for, are reported for each group described without
// error (an unknown, Dead group too) and not for a refused one, as Kafka does.
// Version notes: v4+ carries group instance ids, v5 goes flexible.
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from './registry.js';
import { groupCoordinatorError } from '../cluster/coordinator-guard.js';
import { AUTHORIZED_OPERATIONS_OMITTED } from '../../protocol/sentinels.js';
import { authorizedOperations } from '../authorized-operations.js';
import type { GroupCoordinator } from '../group/coordinator.js';
import type { DescribeGroupsResponse } from '../../protocol/messages/15-describe-groups.js';

type DescribedGroup = DescribeGroupsResponse['groups'][number];

const EMPTY = Buffer.alloc(0);

function failed(groupId: string, errorCode: number): DescribedGroup {
  return { errorCode, groupId, groupState: '', protocolType: '', protocolData: '', members: [], authorizedOperations: AUTHORIZED_OPERATIONS_OMITTED };
}

function describe(groups: GroupCoordinator, groupId: string, operations: number): DescribedGroup {
  const g = groups.group(groupId);
  if (!g) {
    return {
      errorCode: ErrorCode.NONE,
      groupId,
      groupState: 'Dead',
      protocolType: '',
      protocolData: '',
      members: [],
      authorizedOperations: operations,
    };
  }
  const stable = g.is('Stable');
  return {
    errorCode: ErrorCode.NONE,
    groupId,
    groupState: g.state,
    protocolType: g.protocolType ?? '',
    protocolData: stable ? (g.protocolName ?? '') : '',
    members: [...g.members.values()].map((m): DescribedGroup['members'][number] => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      memberMetadata: stable ? m.metadataFor(g.protocolName!) : EMPTY,
      memberAssignment: stable ? m.assignment : EMPTY,
    })),
    authorizedOperations: operations,
  };
}

export default defineHandler({
  apiKey: 15,
  minVersion: 0,
  maxVersion: 5,
  handle({ groups, coordinators }, req): DescribeGroupsResponse {
    const operations = authorizedOperations('group', req.includeAuthorizedOperations === true);
    return {
      throttleTimeMs: 0,
      // In a cluster, each group is described by its own coordinator, once it has loaded it.
      groups: req.groups.map((id) => {
        const code = groupCoordinatorError(coordinators, id);
        return code !== ErrorCode.NONE ? failed(id, code) : describe(groups, id, operations);
      }),
    };
  },
  errorResponse(req, code): DescribeGroupsResponse {
    return { throttleTimeMs: 0, groups: req.groups.map((groupId) => failed(groupId, code)) };
  },
});
