// Metadata: v0-12.
// Behaviour: this broker is every partition's leader, the only replica and ISR, and the controller.
// A null topic list (v1+) or an empty one (v0) means every topic. Unknown topics are created when
// auto.create.topics.enable is on and the request allows it (allowAutoTopicCreation, v4+);
// Kafka answers that first request with LEADER_NOT_AVAILABLE while creation completes, but krill
// creates synchronously and answers with the new topic at once.
// Version notes: topic ids from v10 (KIP-516), lookups by id answer UNKNOWN_TOPIC_ID when unknown;
// authorized operations (v8+) are reported as "not requested" (-2^31) since there are no ACLs yet.
import { ErrorCode, KafkaError, errorCodeOf } from '../../protocol/errors.js';
import { defineHandler } from './registry.js';
import { LEADER_EPOCH } from '../log-validator.js';
import { autoCreateTopic, validateTopicName } from '../topics.js';
import type { Broker } from '../broker.js';
import type { TopicInfo } from '../storage/log-manager.js';

const ZERO_UUID = Buffer.alloc(16);
const NOT_REQUESTED = -2147483648;

export function describeTopic(broker: Broker, topic: TopicInfo) {
  const id = broker.nodeId;
  return {
    errorCode: ErrorCode.NONE,
    name: topic.name,
    topicId: topic.topicId,
    isInternal: topic.name.startsWith('__'),
    partitions: Array.from({ length: topic.partitions }, (_, p) => ({
      errorCode: ErrorCode.NONE,
      partitionIndex: p,
      leaderId: id,
      leaderEpoch: LEADER_EPOCH,
      replicaNodes: [id],
      isrNodes: [id],
      offlineReplicas: [],
    })),
    topicAuthorizedOperations: NOT_REQUESTED,
  };
}

function errorTopic(name: string | null, topicId: Buffer, errorCode: number) {
  return { errorCode, name, topicId, isInternal: false, partitions: [], topicAuthorizedOperations: NOT_REQUESTED };
}

export default defineHandler({
  apiKey: 3,
  minVersion: 0,
  maxVersion: 12,
  handle({ broker, apiVersion }, req) {
    const requested: { name: string | null; topicId: Buffer }[] | null = req.topics;
    const all = requested === null || (apiVersion === 0 && requested.length === 0);
    const allowCreate = broker.config.bool('auto.create.topics.enable') && req.allowAutoTopicCreation !== false;
    const topics = [];
    if (all) {
      for (const t of broker.logs.topics()) topics.push(describeTopic(broker, t));
    } else {
      for (const t of requested!) {
        if (t.name === null || t.name === undefined) {
          const found = broker.logs.getTopicById(t.topicId);
          topics.push(found ? describeTopic(broker, found) : errorTopic(null, t.topicId, ErrorCode.UNKNOWN_TOPIC_ID));
          continue;
        }
        try {
          validateTopicName(t.name);
          let found = broker.logs.getTopic(t.name);
          if (!found && allowCreate) {
            autoCreateTopic(broker, t.name);
            found = broker.logs.getTopic(t.name);
          }
          if (!found) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION');
          topics.push(describeTopic(broker, found));
        } catch (err) {
          if (!(err instanceof KafkaError)) throw err;
          topics.push(errorTopic(t.name, ZERO_UUID, errorCodeOf(err)));
        }
      }
    }
    const { host, port } = broker.advertised;
    return {
      throttleTimeMs: 0,
      brokers: [{ nodeId: broker.nodeId, host, port, rack: null }],
      clusterId: broker.clusterId,
      controllerId: broker.nodeId,
      topics,
      clusterAuthorizedOperations: NOT_REQUESTED,
    };
  },
});
