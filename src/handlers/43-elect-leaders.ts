// ElectLeaders: v0-2 (KIP-183, KIP-460).
// Behaviour: in a cluster, answered by the controller (cluster/controller-elections.ts); on any other broker
// each partition is NOT_CONTROLLER, as Kafka's brokers answer it (clients send it to the controller). A
// preferred election (type 0; every v0 request) makes the first replica of the assignment leader when it is
// alive and in the ISR (else PREFERRED_LEADER_NOT_AVAILABLE; already leader: ELECTION_NOT_NEEDED); an unclean
// one (type 1) elects, for a partition without a live leader, a live ISR member or else any live replica
// (else ELIGIBLE_LEADERS_NOT_AVAILABLE; a live leader: ELECTION_NOT_NEEDED). Unknown partitions are
// UNKNOWN_TOPIC_OR_PARTITION. topicPartitions null means every partition, and then the answer leaves out
// those that needed no election (Kafka's handleElectLeaders). As Kafka's DelayedElectLeader, an election is
// answered once this broker's metadata has its new leader, REQUEST_TIMED_OUT after timeoutMs.
// A single broker leads every partition and is its only (so preferred) replica: every partition it has is
// ELECTION_NOT_NEEDED, whatever the type.
// Deliberate deviation: an election type other than 0 and 1 is INVALID_REQUEST for each partition (Kafka
// fails to read it and answers UNKNOWN_SERVER_ERROR).
// Version notes: v1 adds electionType and the top-level error code; v2 goes flexible.
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from './registry.js';
import type { ElectLeadersRequest, ElectLeadersResponse } from '../../protocol/messages/43-elect-leaders.js';
import type { PartitionResult } from '../cluster/cluster-services.js';
import { partitionKey, type TopicPartition } from '../topic-partition.js';

/** The partitions named, each once (Kafka reads them as a set); null for all. */
function requestedPartitions(req: ElectLeadersRequest): TopicPartition[] | null {
  if (req.topicPartitions === null) return null;
  const seen = new Set<string>();
  const partitions: TopicPartition[] = [];
  for (const t of req.topicPartitions) {
    for (const partition of t.partitions) {
      const key = partitionKey(t.topic, partition);
      if (seen.has(key)) continue;
      seen.add(key);
      partitions.push({ topic: t.topic, partition });
    }
  }
  return partitions;
}

/** A single broker's answer: nothing ever needs electing. */
function byTopic(results: readonly PartitionResult[]): ElectLeadersResponse['replicaElectionResults'] {
  const topics = new Map<string, { partitionId: number; errorCode: number; errorMessage: string | null }[]>();
  for (const r of results) {
    const list = topics.get(r.topic) ?? [];
    list.push({ partitionId: r.partition, errorCode: r.errorCode, errorMessage: r.errorMessage });
    topics.set(r.topic, list);
  }
  return [...topics].map(([topic, partitionResult]) => ({ topic, partitionResult }));
}

export default defineHandler({
  apiKey: 43,
  minVersion: 0,
  maxVersion: 2,
  async handle({ elections }, req): Promise<ElectLeadersResponse> {
    const requested = requestedPartitions(req);
    let results: PartitionResult[];
    if (req.electionType !== 0 && req.electionType !== 1) {
      results = (requested ?? []).map((tp) => ({ ...tp, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `Unknown election type ${req.electionType}.` }));
    } else {
      results = await elections.electLeaders(req.electionType, requested, req.timeoutMs);
    }
    if (requested === null) results = results.filter((r) => r.errorCode !== ErrorCode.ELECTION_NOT_NEEDED);
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, replicaElectionResults: byTopic(results) };
  },
  errorResponse(req, code): ElectLeadersResponse {
    const results = (requestedPartitions(req) ?? []).map((tp) => ({ ...tp, errorCode: code, errorMessage: null }));
    return { throttleTimeMs: 0, errorCode: code, replicaElectionResults: byTopic(results) };
  },
});
