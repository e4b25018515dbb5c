// ListPartitionReassignments: v0 (KIP-455).
// Behaviour: Kafka's controller lists only partitions with a reassignment in progress, of every topic (null
// topics) or of those named (unknown ones skipped); on a single broker none ever is, so the list is always
// empty, with no error.
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from './registry.js';
import type { ListPartitionReassignmentsResponse } from '../../protocol/messages/46-list-partition-reassignments.js';

export default defineHandler({
  apiKey: 46,
  minVersion: 0,
  maxVersion: 0,
  handle(): ListPartitionReassignmentsResponse {
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, topics: [] };
  },
});
