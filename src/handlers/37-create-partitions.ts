// CreatePartitions: v0-3.
// Behaviour: grows each topic to `count` partitions as Kafka's controller does: fewer or as many as it has
// are INVALID_PARTITIONS, an unknown topic UNKNOWN_TOPIC_OR_PARTITION; manual assignments must list one
// replica set per new partition, each this broker alone (INVALID_REPLICA_ASSIGNMENT otherwise, with
// Kafka's messages). validateOnly checks and changes nothing. A topic named twice is answered once, with
// INVALID_REQUEST, as Kafka's ControllerApis does. The new partitions are in Metadata at once; clients
// start producing to them (and group consumers rebalance onto them) at their next metadata refresh.
// Deliberate deviation: krill's internal topics (__consumer_offsets, __transaction_state) keep their count.
// Version notes: v2 goes flexible; v3 may answer THROTTLING_QUOTA_EXCEEDED (KIP-599), which krill never does.
import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import { errorResult } from './error-result.js';
import { defineHandler } from './registry.js';
import type { CreatePartitionsResponse } from '../../protocol/messages/37-create-partitions.js';

type TopicResult = CreatePartitionsResponse['results'][number];

export default defineHandler({
  apiKey: 37,
  minVersion: 0,
  maxVersion: 3,
  async handle({ topics: admin, log }, req): Promise<CreatePartitionsResponse> {
    const counts = new Map<string, number>();
    for (const t of req.topics) counts.set(t.name, (counts.get(t.name) ?? 0) + 1);
    const answered = new Set<string>();
    const results: TopicResult[] = [];
    for (const t of req.topics) {
      if (answered.has(t.name)) continue;
      answered.add(t.name);
      const result: TopicResult = { name: t.name, errorCode: ErrorCode.NONE, errorMessage: null };
      try {
        if (counts.get(t.name)! > 1) throw new KafkaError('INVALID_REQUEST', 'Duplicate topic name.');
        const assignments = t.assignments?.map((a) => a.brokerIds) ?? null;
        const topic = admin.checkNewPartitions(t.name, t.count, assignments);
        if (!req.validateOnly) {
          await admin.addPartitions(topic, t.count, assignments, req.timeoutMs);
          log.info({ topic: t.name, from: topic.partitions, to: t.count }, 'added partitions');
        }
      } catch (err) {
        Object.assign(result, errorResult(err));
      }
      results.push(result);
    }
    return { throttleTimeMs: 0, results };
  },
  errorResponse(req, code): CreatePartitionsResponse {
    return { throttleTimeMs: 0, results: req.topics.map((t) => ({ name: t.name, errorCode: code, errorMessage: null })) };
  },
});
