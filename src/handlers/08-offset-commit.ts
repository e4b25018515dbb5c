// OffsetCommit: v2-9.
// Behaviour (Kafka's classic GroupCoordinator.handleCommitOffsets): a member of the current generation
// commits; an Empty group accepts generation -1 commits from simple consumers (and is created by them);
// CompletingRebalance answers REBALANCE_IN_PROGRESS, an unknown member UNKNOWN_MEMBER_ID, a wrong generation
// ILLEGAL_GENERATION, a stale static member FENCED_INSTANCE_ID. Unknown partitions are
// UNKNOWN_TOPIC_OR_PARTITION, metadata over 4096 bytes OFFSET_METADATA_TOO_LARGE. Offsets are appended to
// __consumer_offsets (OffsetCommitKey v1 / OffsetCommitValue v3) before the answer; in a cluster the answer
// waits for the in-sync replicas (NOT_ENOUGH_REPLICAS* become COORDINATOR_NOT_AVAILABLE, a lost leadership
// NOT_COORDINATOR, as Kafka's storeOffsets maps them).
// Version notes: retentionTimeMs (v2-4), when not -1, gives the offsets an explicit expire timestamp (commit
// time + retention, stored as OffsetCommitValue v1), as Kafka still does for those versions; v6 carries the leader epoch;
// v7 the group instance id (KIP-345); v9 is answered as a classic commit.
import { defineHandler } from './registry.js';
import type { OffsetCommitResponse } from '../../protocol/messages/08-offset-commit.js';
import { whenWritten } from '../group/replicated-write.js';

type TopicResponse = OffsetCommitResponse['topics'][number];

export default defineHandler({
  apiKey: 8,
  minVersion: 2,
  maxVersion: 9,
  handle({ groups }, req): OffsetCommitResponse | Promise<OffsetCommitResponse> {
    const topics = req.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => ({
        partition: p.partitionIndex,
        offset: p.committedOffset,
        leaderEpoch: p.committedLeaderEpoch ?? -1,
        metadata: p.committedMetadata,
      })),
    }));
    const result = groups.commitOffsets(
      req.groupId,
      req.generationIdOrMemberEpoch,
      req.memberId,
      req.groupInstanceId ?? null,
      topics,
      Number(req.retentionTimeMs ?? -1),
    );
    return whenWritten(result, (written): OffsetCommitResponse => ({ throttleTimeMs: 0, topics: written }));
  },
  errorResponse(req, code): OffsetCommitResponse {
    return {
      throttleTimeMs: 0,
      topics: req.topics.map((t): TopicResponse => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: code })),
      })),
    };
  },
});
