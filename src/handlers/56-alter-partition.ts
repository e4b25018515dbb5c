// AlterPartition: v0-3, served in a cluster by the controller (NOT_CONTROLLER elsewhere). A partition's leader
// asks for a new ISR (a follower that fell behind leaves, one that caught up joins); the controller checks
// that the sender leads the partition in that leader epoch and knows its current partition epoch (else
// FENCED_LEADER_EPOCH, INVALID_UPDATE_VERSION, NOT_LEADER_OR_FOLLOWER), that every new member is a live
// replica not in controlled shutdown (else INELIGIBLE_REPLICA), writes the state znode and answers with the
// new state (cluster/controller.ts).
// Version notes: v2+ names topics by id (UNKNOWN_TOPIC_ID for one the controller does not know); v3 gives
// each new member's broker epoch, which must be its current registration's when given; v0-1 are refused an
// ineligible ISR with OPERATION_NOT_ATTEMPTED, as Kafka does (INELIGIBLE_REPLICA came with v2, KIP-841).
import { defineHandler } from './registry.js';
import type { AlterPartitionResponse } from '../../protocol/messages/56-alter-partition.js';

export default defineHandler({
  apiKey: 56,
  minVersion: 0,
  maxVersion: 3,
  async handle({ controllerRequests, apiVersion }, req): Promise<AlterPartitionResponse> {
    const byId = apiVersion >= 2;
    return controllerRequests.alterPartition({
      apiVersion,
      brokerId: req.brokerId,
      brokerEpoch: Number(req.brokerEpoch),
      topics: req.topics.map((t) => ({
        topicName: byId ? null : t.topicName,
        topicId: byId ? t.topicId : null,
        partitions: t.partitions.map((p) => ({
          partitionIndex: p.partitionIndex,
          leaderEpoch: p.leaderEpoch,
          partitionEpoch: p.partitionEpoch,
          newIsr:
            apiVersion >= 3
              ? p.newIsrWithEpochs.map((b) => ({ brokerId: b.brokerId, brokerEpoch: Number(b.brokerEpoch) }))
              : p.newIsr.map((id) => ({ brokerId: id, brokerEpoch: -1 })),
        })),
      })),
    });
  },
  errorResponse(_req, code): AlterPartitionResponse {
    return { throttleTimeMs: 0, errorCode: code, topics: [] };
  },
});
