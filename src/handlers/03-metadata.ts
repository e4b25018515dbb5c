// Metadata: v0-12.
// Behaviour: each partition's leader, epoch, replicas and ISR are the cluster's metadata (what the controller
// last sent) in a cluster, LEADER_NOT_AVAILABLE for a partition without a live leader; on a single broker the
// replica manager's (it leads every partition alone). The brokers and controller are the cluster view's.
// In a cluster auto-creation goes through the controller, and the first answer is LEADER_NOT_AVAILABLE; the
// list of all topics is those the controller's metadata names.
// A null topic list (v1+) or an empty one (v0) means every topic. Unknown topics are created when
// auto.create.topics.enable is on and the request allows it (allowAutoTopicCreation, v4+);
// Kafka answers that first request with LEADER_NOT_AVAILABLE while creation completes, but krill
// creates synchronously and answers with the new topic at once.
// Version notes: topic ids from v10 (KIP-516); a request naming any non-zero topic id (v12) is answered by
// ids alone, its names ignored, as Kafka does; an unknown id is UNKNOWN_TOPIC_ID;
// authorized operations (v8+; the cluster's only to v10), when asked for, are reported for the cluster and for
// each topic looked up by name, found or not, but not for an unknown topic id, as Kafka does.
import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import { asKafkaError } from './error-result.js';
import { defineHandler } from './registry.js';
import { AUTHORIZED_OPERATIONS_OMITTED, ZERO_UUID } from '../../protocol/sentinels.js';
import { validateTopicName } from '../topics.js';
import { authorizedOperations } from '../authorized-operations.js';
import { partitionState } from './partition-state.js';
import type { ReplicaManager } from '../partition/replica-manager.js';
import { onListener, type ClusterView } from '../cluster/cluster-view.js';
import type { TopicInfo } from '../topics.js';
import type { MetadataResponse } from '../../protocol/messages/03-metadata.js';

type TopicResponse = MetadataResponse['topics'][number];

function describeTopic(cluster: ClusterView, replicas: ReplicaManager, topic: TopicInfo, operations: number): TopicResponse {
  return {
    errorCode: ErrorCode.NONE,
    name: topic.name,
    topicId: topic.topicId,
    isInternal: topic.name.startsWith('__'),
    partitions: Array.from({ length: topic.partitions }, (_, p): TopicResponse['partitions'][number] => {
      const state = partitionState(cluster, replicas, topic.name, p);
      // No live leader: clients wait and ask again, as with Kafka.
      return { errorCode: state.leaderId < 0 ? ErrorCode.LEADER_NOT_AVAILABLE : ErrorCode.NONE, ...state };
    }),
    topicAuthorizedOperations: operations,
  };
}

function errorTopic(name: string | null, topicId: Buffer, errorCode: number, operations = AUTHORIZED_OPERATIONS_OMITTED): TopicResponse {
  return { errorCode, name, topicId, isInternal: false, partitions: [], topicAuthorizedOperations: operations };
}

export default defineHandler({
  apiKey: 3,
  minVersion: 0,
  maxVersion: 12,
  handle({ cluster, replicas, topics: admin, config, apiVersion, session }, req): MetadataResponse {
    const requested: { name: string | null; topicId: Buffer }[] | null = req.topics;
    const all = requested === null || (apiVersion === 0 && requested.length === 0);
    const allowCreate = config.bool('auto.create.topics.enable') && req.allowAutoTopicCreation !== false;
    const byId = all ? [] : requested!.map((t) => t.topicId).filter((id) => id !== undefined && id !== null && !id.equals(ZERO_UUID));
    if (byId.length > 0 && apiVersion < 12) {
      // Lookups by id came with v12; Kafka refuses them earlier as its generic error response, every topic
      // INVALID_REQUEST and no brokers.
      return {
        throttleTimeMs: 0,
        brokers: [],
        clusterId: null,
        controllerId: -1,
        topics: requested!.map((t) => errorTopic(t.name ?? '', t.topicId, ErrorCode.INVALID_REQUEST)),
        clusterAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
      };
    }
    const topics: TopicResponse[] = [];
    const topicOperations = authorizedOperations('topic', req.includeTopicAuthorizedOperations === true);
    if (all) {
      for (const t of admin.topics()) {
        // In a cluster, the topics of the controller's metadata, as Kafka's cache answers: not a local log the
        // controller has not described yet, nor one of a topic deleted while this broker was away.
        if (!cluster.hasTopic(t.name)) continue;
        topics.push(describeTopic(cluster, replicas, t, topicOperations));
      }
    } else if (byId.length > 0) {
      // As Kafka: once any topic id is set the request is by ids, and the names are ignored (the Java client
      // leaves them "", its default, not null).
      const seen = new Set<string>();
      for (const id of byId) {
        const key = id.toString('hex');
        if (seen.has(key)) continue;
        seen.add(key);
        const found = admin.getTopicById(id);
        topics.push(found ? describeTopic(cluster, replicas, found, topicOperations) : errorTopic(null, id, ErrorCode.UNKNOWN_TOPIC_ID));
      }
    } else {
      for (const t of requested!) {
        if (t.name === null || t.name === undefined) {
          topics.push(errorTopic(null, ZERO_UUID, ErrorCode.UNKNOWN_TOPIC_ID));
          continue;
        }
        try {
          validateTopicName(t.name);
          let found = admin.getTopic(t.name);
          if (!found && allowCreate) {
            admin.autoCreateTopic(t.name);
            found = admin.getTopic(t.name);
          }
          if (!found) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION');
          topics.push(describeTopic(cluster, replicas, found, topicOperations));
        } catch (err) {
          topics.push(errorTopic(t.name, ZERO_UUID, asKafkaError(err).code, topicOperations));
        }
      }
    }
    return {
      throttleTimeMs: 0,
      // Each broker at its endpoint on the listener the request came in on; brokers without it are left out.
      brokers: onListener(cluster.brokers(), session.listener.name).map(({ nodeId, host, port, rack }) => ({ nodeId, host, port, rack })),
      clusterId: cluster.clusterId,
      controllerId: cluster.controllerId,
      topics,
      clusterAuthorizedOperations: authorizedOperations('cluster', req.includeClusterAuthorizedOperations === true),
    };
  },
});
