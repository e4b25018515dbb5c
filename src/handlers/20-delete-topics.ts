// DeleteTopics: v1-6.
// Behaviour: in a cluster, marks the topic for deletion in ZooKeeper and waits (up to the request's
// timeoutMs, then REQUEST_TIMED_OUT) until the controller has had every broker delete it. On a single
// broker: removes the topic at once; as Kafka, each partition directory is renamed <dir>.<id>-delete
// (so the name is free for a new topic right away) and removed in the background after
// log.segment.delete.delay.ms (storage/file-deleter.ts). delete.topic.enable=false answers
// TOPIC_DELETION_DISABLED. Internal topics (names starting with "__") cannot be deleted.
// Version notes: v6 names topics by name or id (KIP-516).
import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import { errorResult } from './error-result.js';
import { defineHandler } from './registry.js';
import type { DeleteTopicsResponse } from '../../protocol/messages/20-delete-topics.js';
import { ZERO_UUID } from '../../protocol/sentinels.js';

export default defineHandler({
  apiKey: 20,
  minVersion: 1,
  maxVersion: 6,
  async handle({ topics: admin, apiVersion, log }, req): Promise<DeleteTopicsResponse> {
    const wanted: { name: string | null; topicId: Buffer }[] = apiVersion >= 6 ? req.topics : req.topicNames.map((name) => ({ name, topicId: ZERO_UUID }));
    const responses = await Promise.all(
      wanted.map(async (w) => {
        const byId = w.name === null || w.name === undefined;
        const topic = byId ? admin.getTopicById(w.topicId) : admin.getTopic(w.name!);
        const result: DeleteTopicsResponse['responses'][number] = {
          name: topic?.name ?? w.name,
          topicId: topic?.topicId ?? w.topicId,
          errorCode: ErrorCode.NONE,
          errorMessage: null,
        };
        try {
          if (!topic) throw byId ? new KafkaError('UNKNOWN_TOPIC_ID') : new KafkaError('UNKNOWN_TOPIC_OR_PARTITION');
          await admin.deleteTopic(topic, req.timeoutMs);
          log.info({ topic: topic.name }, 'deleted topic');
        } catch (err) {
          Object.assign(result, errorResult(err));
        }
        return result;
      }),
    );
    return { throttleTimeMs: 0, responses };
  },
});
