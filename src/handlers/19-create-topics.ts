// CreateTopics: v2-7.
// Behaviour: checks each topic as Kafka's controller does (name, partitions, replication factor 1 on a
// single broker, manual assignments only onto this broker, known topic configs with valid values), then
// creates it unless validateOnly. Each topic succeeds or fails on its own; a name given twice in one
// request fails both with INVALID_REQUEST, as in Kafka.
// Version notes: v5+ return the effective partitions, replication factor and configs; v7 the topic id.
import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import { errorResult } from './error-result.js';
import { defineHandler } from './registry.js';
import { lastOfEach } from './repeated-entries.js';
import type { CreateTopicsRequest, CreateTopicsResponse } from '../../protocol/messages/19-create-topics.js';
import type { ElementOf } from '../../protocol/schema.js';
import { ZERO_UUID } from '../../protocol/sentinels.js';
import type { BrokerConfig } from '../config.js';
import { describeTopicConfigs } from '../config-admin/describe.js';

type TopicResult = CreateTopicsResponse['topics'][number];
type TopicConfig = ElementOf<TopicResult['configs']>;

/** The request's replica assignment, by partition, or null; its replicas are checked by TopicAdmin.checkNewTopic. */
function checkAssignments(t: CreateTopicsRequest['topics'][number]): number[][] | null {
  if (!t.assignments?.length) return null;
  if (t.numPartitions !== -1 || t.replicationFactor !== -1) {
    throw new KafkaError('INVALID_REQUEST', 'Both numPartitions or replicationFactor and replicasAssignments were set. Both cannot be used at the same time.');
  }
  const seen = new Set<number>();
  for (const a of t.assignments) {
    if (seen.has(a.partitionIndex)) throw new KafkaError('INVALID_REPLICA_ASSIGNMENT', `Duplicate partition ${a.partitionIndex} in the assignment.`);
    seen.add(a.partitionIndex);
  }
  for (let p = 0; p < seen.size; p++) {
    if (!seen.has(p)) throw new KafkaError('INVALID_REPLICA_ASSIGNMENT', 'Partitions must be numbered from 0 without gaps.');
  }
  return [...t.assignments].sort((a, b) => a.partitionIndex - b.partitionIndex).map((a) => [...a.brokerIds]);
}

/** The new topic's configs as DescribeConfigs would list them (the same sources), without synonyms. */
function describeConfigs(config: BrokerConfig, overrides: Record<string, string>): TopicResult['configs'] {
  return describeTopicConfigs({ configs: { ...config.topicDefaults(), ...overrides }, overrides }, config).map(
    ({ name, value, readOnly, configSource, isSensitive }): TopicConfig => ({ name, value, readOnly, configSource, isSensitive }),
  );
}

export default defineHandler({
  apiKey: 19,
  minVersion: 2,
  maxVersion: 7,
  async handle({ topics: admin, config, log }, req): Promise<CreateTopicsResponse> {
    const counts = new Map<string, number>();
    for (const t of req.topics) counts.set(t.name, (counts.get(t.name) ?? 0) + 1);
    const topics = await Promise.all(
      req.topics.map(async (t) => {
        const result: TopicResult = {
          name: t.name,
          topicId: ZERO_UUID,
          errorCode: ErrorCode.NONE,
          errorMessage: null,
          numPartitions: -1,
          replicationFactor: -1,
          // A failed topic's list is empty, as Kafka's, not null.
          configs: [],
        };
        try {
          if (counts.get(t.name)! > 1) throw new KafkaError('INVALID_REQUEST', `Create topics request from client contains a duplicate topic: ${t.name}`);
          const assigned = checkAssignments(t);
          const configs: Record<string, string | null> = {};
          for (const c of t.configs) configs[c.name] = c.value;
          const checked = admin.checkNewTopic(
            {
              name: t.name,
              numPartitions: assigned?.length ?? t.numPartitions,
              replicationFactor: assigned !== null ? assigned[0].length : t.replicationFactor,
              configs,
            },
            assigned,
          );
          // validateOnly: Kafka's controller makes the id it would have used, and answers it.
          if (req.validateOnly) result.topicId = admin.proposedTopicId();
          else {
            result.topicId = await admin.createTopic(t.name, checked, req.timeoutMs);
            log.info(
              { topic: t.name, partitions: checked.partitions, replicationFactor: checked.replicationFactor, configs: checked.configs },
              'created topic',
            );
          }
          result.numPartitions = checked.partitions;
          result.replicationFactor = checked.replicationFactor;
          result.configs = describeConfigs(config, checked.configs);
        } catch (err) {
          Object.assign(result, errorResult(err));
        }
        return result;
      }),
    );
    // A topic named twice is answered once, as Kafka's response (a collection keyed by name) does.
    return { throttleTimeMs: 0, topics: lastOfEach(topics, (t) => t.name) };
  },
});
