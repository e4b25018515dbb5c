// OffsetDelete: v0.
// Behaviour: deletes committed offsets of partitions (tombstones in __consumer_offsets). An unknown group is
// GROUP_ID_NOT_FOUND; a non-empty group that is not a consumer group is NON_EMPTY_GROUP; a partition of a topic
// the consumer group's members still subscribe to is GROUP_SUBSCRIBED_TO_TOPIC.
import { defineHandler } from './registry.js';
import type { OffsetDeleteResponse } from '../../protocol/messages/47-offset-delete.js';

export default defineHandler({
  apiKey: 47,
  minVersion: 0,
  maxVersion: 0,
  handle({ groups }, req): OffsetDeleteResponse {
    const r = groups.deleteOffsets(
      req.groupId,
      req.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => p.partitionIndex) })),
    );
    return { throttleTimeMs: 0, errorCode: r.errorCode, topics: r.topics };
  },
  errorResponse(_req, code): OffsetDeleteResponse {
    return { throttleTimeMs: 0, errorCode: code, topics: [] };
  },
});
