// DescribeTopicPartitions: v0 (KIP-966), what the Java Admin (3.8+) sends for describeTopics.
// Behaviour, as Kafka's handler: the topics named (every topic when none is) in name order, from the cursor's
// topic and partition on, at most min(responsePartitionLimit, max.request.partition.size.limit) partitions
// (at least 1); when more remain, nextCursor names where the next page starts. A named topic that does not
// exist is UNKNOWN_TOPIC_OR_PARTITION (INVALID_TOPIC_EXCEPTION for an invalid name); a cursor whose topic is
// not among those named, or whose partition is negative, is INVALID_REQUEST. A partition without a live
// leader has leader -1 and no error (Metadata says LEADER_NOT_AVAILABLE). There is no request flag for
// authorized operations: they are always reported. krill has no eligible leader replicas (KIP-966's ELR):
// both lists are empty, as on a Kafka cluster without ELR.
import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import { AUTHORIZED_OPERATIONS_OMITTED, ZERO_UUID } from '../../protocol/sentinels.js';
import { defineHandler } from './registry.js';
import { asKafkaError } from './error-result.js';
import { authorizedOperations } from '../authorized-operations.js';
import { validateTopicName } from '../topics.js';
import { partitionState } from './partition-state.js';
import type { DescribeTopicPartitionsResponse } from '../../protocol/messages/75-describe-topic-partitions.js';

type TopicResult = DescribeTopicPartitionsResponse['topics'][number];

function unknownTopic(name: string): TopicResult {
  let errorCode: number = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
  try {
    validateTopicName(name);
  } catch (err) {
    errorCode = asKafkaError(err).code;
  }
  return {
    errorCode,
    name,
    topicId: ZERO_UUID,
    isInternal: name.startsWith('__'),
    partitions: [],
    topicAuthorizedOperations: authorizedOperations('topic', true),
  };
}

export default defineHandler({
  apiKey: 75,
  minVersion: 0,
  maxVersion: 0,
  handle({ cluster, replicas, topics: admin, config }, req): DescribeTopicPartitionsResponse {
    const all = req.topics.length === 0;
    const cursor = req.cursor ?? null;
    const from = cursor?.topicName ?? '';
    if (cursor && cursor.partitionIndex < 0) throw new KafkaError('INVALID_REQUEST', `The partition in the cursor must be valid: ${cursor.partitionIndex}`);
    const names = all ? admin.topics().flatMap((t) => (cluster.hasTopic(t.name) ? [t.name] : [])) : req.topics.map((t) => t.name);
    const wanted = [...new Set(names.filter((n) => n >= from))].sort();
    if (!all && cursor && !wanted.includes(cursor.topicName)) {
      throw new KafkaError('INVALID_REQUEST', `DescribeTopicPartitionsRequest topic list should contain the cursor topic: ${cursor.topicName}`);
    }
    let remaining = Math.max(Math.min(config.int('max.request.partition.size.limit'), req.responsePartitionLimit), 1);
    const topics: TopicResult[] = [];
    let nextCursor: DescribeTopicPartitionsResponse['nextCursor'] = null;
    for (const name of wanted) {
      if (remaining === 0) {
        nextCursor = { topicName: name, partitionIndex: 0 };
        break;
      }
      const topic = admin.getTopic(name);
      if (!topic) {
        if (!all) topics.push(unknownTopic(name));
        continue;
      }
      const start = name === from && cursor ? cursor.partitionIndex : 0;
      const end = Math.min(topic.partitions, start + remaining);
      const partitions = Array.from({ length: Math.max(end - start, 0) }, (_, i) => ({
        errorCode: ErrorCode.NONE,
        ...partitionState(cluster, replicas, name, start + i),
        eligibleLeaderReplicas: [],
        lastKnownElr: [],
      }));
      topics.push({
        errorCode: ErrorCode.NONE,
        name,
        topicId: topic.topicId,
        isInternal: name.startsWith('__'),
        partitions,
        topicAuthorizedOperations: authorizedOperations('topic', true),
      });
      if (end < topic.partitions) {
        nextCursor = { topicName: name, partitionIndex: end };
        break;
      }
      remaining -= partitions.length;
    }
    return { throttleTimeMs: 0, topics, nextCursor };
  },
  errorResponse(req, code): DescribeTopicPartitionsResponse {
    return {
      throttleTimeMs: 0,
      topics: req.topics.map((t) => ({
        errorCode: code,
        name: t.name,
        topicId: ZERO_UUID,
        isInternal: false,
        partitions: [],
        topicAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
      })),
      nextCursor: null,
    };
  },
});
