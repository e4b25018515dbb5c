// ListPartitionReassignments: v0 (KIP-455).
// Behaviour: Kafka's controller lists only partitions with a reassignment in progress, of every topic (null
// topics) or of those named (unknown ones skipped), each with its replicas (targets first, then the original
// ones), the replicas being added and those being removed. In a cluster the controller answers
// (cluster/controller-reassignments.ts; NOT_CONTROLLER elsewhere); on a single broker none is ever in
// progress, so the list is always empty, with no error.
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from './registry.js';
import type { ListPartitionReassignmentsResponse } from '../../protocol/messages/46-list-partition-reassignments.js';

type TopicReassignments = ListPartitionReassignmentsResponse['topics'][number];

export default defineHandler({
  apiKey: 46,
  minVersion: 0,
  maxVersion: 0,
  async handle({ reassignments }, req): Promise<ListPartitionReassignmentsResponse> {
    const byTopic = new Map<string, TopicReassignments['partitions'][number][]>();
    const named = req.topics && req.topics.flatMap((t) => t.partitionIndexes.map((partition) => ({ topic: t.name, partition })));
    for (const r of await reassignments.list(named)) {
      const list = byTopic.get(r.topic) ?? [];
      list.push({ partitionIndex: r.partition, replicas: r.replicas, addingReplicas: r.addingReplicas, removingReplicas: r.removingReplicas });
      byTopic.set(r.topic, list);
    }
    const topics = [...byTopic].map(([name, partitions]): TopicReassignments => ({ name, partitions }));
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, topics };
  },
  errorResponse(_req, code): ListPartitionReassignmentsResponse {
    return { throttleTimeMs: 0, errorCode: code, errorMessage: null, topics: [] };
  },
});
