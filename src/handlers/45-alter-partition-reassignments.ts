// AlterPartitionReassignments: v0 (KIP-455).
// Behaviour: krill is the only broker and holds every replica, so nothing is ever being moved: a target of
// this broker alone completes at once (NONE); one naming any other broker is INVALID_REPLICA_ASSIGNMENT
// ("... no such broker is registered", Kafka's controller message); null replicas (cancel) are
// NO_REASSIGNMENT_IN_PROGRESS; an unknown topic or partition UNKNOWN_TOPIC_OR_PARTITION. Each partition is
// answered on its own; timeoutMs is ignored (nothing to wait for).
import { ErrorCode } from '../../protocol/errors.js';
import { errorResult } from './error-result.js';
import { defineHandler } from './registry.js';
import type { AlterPartitionReassignmentsResponse } from '../../protocol/messages/45-alter-partition-reassignments.js';

type TopicResponse = AlterPartitionReassignmentsResponse['responses'][number];

export default defineHandler({
  apiKey: 45,
  minVersion: 0,
  maxVersion: 0,
  handle({ topics: admin, log }, req): AlterPartitionReassignmentsResponse {
    const responses = req.topics.map((t): TopicResponse => ({
      name: t.name,
      partitions: t.partitions.map((p) => {
        try {
          admin.reassignPartition(t.name, p.partitionIndex, p.replicas);
          return { partitionIndex: p.partitionIndex, errorCode: ErrorCode.NONE, errorMessage: null };
        } catch (err) {
          const { errorCode, errorMessage } = errorResult(err);
          log.info({ topic: t.name, partition: p.partitionIndex, errorCode }, `unable to alter the partition reassignment: ${errorMessage}`);
          return { partitionIndex: p.partitionIndex, errorCode, errorMessage };
        }
      }),
    }));
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, responses };
  },
  errorResponse(_req, code): AlterPartitionReassignmentsResponse {
    return { throttleTimeMs: 0, errorCode: code, errorMessage: null, responses: [] };
  },
});
