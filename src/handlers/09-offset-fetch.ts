// OffsetFetch: v1-9.
// Behaviour: committed offsets of a group; a partition without a commit (or an unknown group) is offset -1
// with empty metadata and no error, as Kafka answers. A null topic list (v2+) means every committed
// partition of the group. With requireStable (v7+) a partition whose offsets a transaction has written but not
// yet ended is UNSTABLE_OFFSET_COMMIT, which clients retry, as Kafka answers.
// Version notes: v2+ has a top-level error, v5+ the leader epoch, v8+ batches groups (KIP-709), v9 adds
// the KIP-848 member id/epoch, which a classic group ignores.
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from './registry.js';
import { groupCoordinatorError } from '../cluster/coordinator-guard.js';
import type { OffsetFetchResponse } from '../../protocol/messages/09-offset-fetch.js';
import type { ElementOf } from '../../protocol/schema.js';

type GroupResponse = ElementOf<OffsetFetchResponse['groups']>;
type TopicResponse = ElementOf<OffsetFetchResponse['topics']>;

export default defineHandler({
  apiKey: 9,
  minVersion: 1,
  maxVersion: 9,
  handle({ groups, coordinators, apiVersion }, req): OffsetFetchResponse {
    if (apiVersion >= 8) {
      return {
        throttleTimeMs: 0,
        // In a cluster, each group's offsets come from its own coordinator, once it has loaded them.
        groups: req.groups.map((g): GroupResponse => {
          const code = groupCoordinatorError(coordinators, g.groupId);
          return code !== ErrorCode.NONE
            ? { groupId: g.groupId, topics: [], errorCode: code }
            : { groupId: g.groupId, topics: groups.fetchOffsets(g.groupId, g.topics, req.requireStable), errorCode: ErrorCode.NONE };
        }),
      };
    }
    return { throttleTimeMs: 0, topics: groups.fetchOffsets(req.groupId, req.topics, req.requireStable), errorCode: ErrorCode.NONE };
  },
  errorResponse(req, code, version): OffsetFetchResponse {
    if (version >= 8) return { throttleTimeMs: 0, groups: req.groups.map((g): GroupResponse => ({ groupId: g.groupId, topics: [], errorCode: code })) };
    return {
      throttleTimeMs: 0,
      errorCode: code,
      topics: (req.topics ?? []).map((t): TopicResponse => ({
        name: t.name,
        partitions: t.partitionIndexes.map((p): ElementOf<TopicResponse['partitions']> => ({
          partitionIndex: p,
          committedOffset: -1,
          committedLeaderEpoch: -1,
          metadata: '',
          errorCode: code,
        })),
      })),
    };
  },
});
