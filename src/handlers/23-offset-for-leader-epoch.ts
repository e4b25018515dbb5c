// OffsetForLeaderEpoch: v2-4.
// Behaviour: consumers (KIP-320) and followers (KIP-101/279) ask the leader where a leader epoch ends, to
// detect a truncated or divergent log. The answer comes from the partition's leader-epoch-checkpoint as
// Kafka's LeaderEpochFileCache.endOffsetFor gives it: the largest epoch at or below the one asked about, and
// where it ends (the start of the next epoch, or the log end offset for the current one); an epoch above the
// current one, or -1, is answered (-1, -1) with no error. currentLeaderEpoch fences: older →
// FENCED_LEADER_EPOCH, newer → UNKNOWN_LEADER_EPOCH, -1 skips the check. Only the leader answers
// (NOT_LEADER_OR_FOLLOWER elsewhere); an unknown topic or partition is UNKNOWN_TOPIC_OR_PARTITION.
// Version notes: v2 is the Kafka 4.0 baseline (KIP-896); v3 adds replicaId (a follower's and a consumer's
// questions get the same answer); v4 goes flexible.
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from './registry.js';
import type { OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse } from '../../protocol/messages/23-offset-for-leader-epoch.js';
import { UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET } from '../partition/partition.js';

type EpochEndOffset = OffsetForLeaderEpochResponse['topics'][number]['partitions'][number];

function failed(partition: number, errorCode: number): EpochEndOffset {
  return { errorCode, partition, leaderEpoch: UNDEFINED_EPOCH, endOffset: UNDEFINED_EPOCH_OFFSET };
}

function errorResponse(req: OffsetForLeaderEpochRequest, code: number): OffsetForLeaderEpochResponse {
  return { throttleTimeMs: 0, topics: req.topics.map((t) => ({ topic: t.topic, partitions: t.partitions.map((p) => failed(p.partition, code)) })) };
}

export default defineHandler({
  apiKey: 23,
  minVersion: 2,
  maxVersion: 4,
  errorResponse,
  handle({ replicas }, req): OffsetForLeaderEpochResponse {
    return {
      throttleTimeMs: 0,
      topics: req.topics.map((t) => ({
        topic: t.topic,
        partitions: t.partitions.map((p): EpochEndOffset => {
          const partition = replicas.leaderPartition(t.topic, p.partition);
          if (typeof partition === 'number') return failed(p.partition, partition);
          const fenced = partition.checkLeaderEpoch(p.currentLeaderEpoch);
          if (fenced) return failed(p.partition, ErrorCode[fenced]);
          return { errorCode: ErrorCode.NONE, partition: p.partition, ...partition.endOffsetForEpoch(p.leaderEpoch) };
        }),
      })),
    };
  },
});
