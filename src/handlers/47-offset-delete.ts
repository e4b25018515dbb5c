// OffsetDelete: v0.
// Behaviour: deletes committed offsets of partitions (tombstones in __consumer_offsets). An unknown group is
// GROUP_ID_NOT_FOUND; a non-empty group that is not a consumer group is NON_EMPTY_GROUP; a partition of a topic
// the consumer group's members still subscribe to is GROUP_SUBSCRIBED_TO_TOPIC.
import { defineHandler } from './registry.js';

export default defineHandler({
  apiKey: 47,
  minVersion: 0,
  maxVersion: 0,
  handle({ groups }, req) {
    const r = groups.deleteOffsets(req.groupId, req.topics.map((t: any) => ({ name: t.name, partitions: t.partitions.map((p: any) => p.partitionIndex) })));
    return { throttleTimeMs: 0, errorCode: r.errorCode, topics: r.topics };
  },
  errorResponse(_req, code) {
    return { throttleTimeMs: 0, errorCode: code, topics: [] };
  },
});
