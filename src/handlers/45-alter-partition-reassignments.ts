// AlterPartitionReassignments: v0 (KIP-455).
// Behaviour in a cluster: answered by the controller (NOT_CONTROLLER for the whole request elsewhere), as
// Kafka's ZooKeeper-mode controller does (cluster/controller-reassignments.ts): each partition's target
// replicas are checked (INVALID_REPLICA_ASSIGNMENT: empty, a broker twice, a negative id, or an added broker
// that is not alive), then the move starts: the new replicas copy the log, and once all of them are in the
// ISR the partition settles on them (the leader moves if it must, the removed replicas stop and their logs
// are emptied). The answer comes once the move has started, not finished (ListPartitionReassignments shows
// it meanwhile). Null replicas cancel a move in progress, back to the original replicas
// (NO_REASSIGNMENT_IN_PROGRESS when there is none); an unknown partition is UNKNOWN_TOPIC_OR_PARTITION.
// On a single broker nothing is ever being moved: a target of this broker alone completes at once (NONE);
// one naming any other broker is INVALID_REPLICA_ASSIGNMENT ("... no such broker is registered"); null
// replicas are NO_REASSIGNMENT_IN_PROGRESS. Each partition is answered on its own; timeoutMs is ignored, as
// Kafka's controller ignores it.
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from './registry.js';
import type { AlterPartitionReassignmentsResponse } from '../../protocol/messages/45-alter-partition-reassignments.js';

type TopicResponse = AlterPartitionReassignmentsResponse['responses'][number];
type PartitionResponse = TopicResponse['partitions'][number];

export default defineHandler({
  apiKey: 45,
  minVersion: 0,
  maxVersion: 0,
  async handle({ reassignments, log }, req): Promise<AlterPartitionReassignmentsResponse> {
    const requests = req.topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partitionIndex, replicas: p.replicas })));
    const byTopic = new Map<string, PartitionResponse[]>(req.topics.map((t) => [t.name, []]));
    for (const r of await reassignments.alter(requests)) {
      if (r.errorCode !== ErrorCode.NONE)
        log.info({ topic: r.topic, partition: r.partition, errorCode: r.errorCode }, `unable to alter the partition reassignment: ${r.errorMessage}`);
      byTopic.get(r.topic)!.push({ partitionIndex: r.partition, errorCode: r.errorCode, errorMessage: r.errorMessage });
    }
    const responses = [...byTopic].map(([name, partitions]): TopicResponse => ({ name, partitions }));
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, responses };
  },
  errorResponse(_req, code): AlterPartitionReassignmentsResponse {
    return { throttleTimeMs: 0, errorCode: code, errorMessage: null, responses: [] };
  },
});
