// WriteTxnMarkers: v1. Behaviour: in a cluster only (registered with the other inter-broker APIs), from a
// transaction coordinator on another broker: the leader writes each commit/abort marker on the partitions
// named (txn/markers.ts), as Kafka's does; NOT_LEADER_OR_FOLLOWER / UNKNOWN_TOPIC_OR_PARTITION for a
// partition it does not lead, and the coordinator asks again.
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from './registry.js';
import { asKafkaError } from './error-result.js';
import { writeTxnMarker } from '../txn/markers.js';
import type { WriteTxnMarkersResponse } from '../../protocol/messages/27-write-txn-markers.js';

export default defineHandler({
  apiKey: 27,
  minVersion: 1,
  maxVersion: 1,
  handle({ replicas, groups }, req): WriteTxnMarkersResponse {
    return {
      markers: req.markers.map((m) => ({
        producerId: m.producerId,
        topics: m.topics.map((t) => ({
          name: t.name,
          partitions: t.partitionIndexes.map((index) => {
            const partition = replicas.leaderPartition(t.name, index);
            if (typeof partition === 'number') return { partitionIndex: index, errorCode: partition };
            try {
              writeTxnMarker(replicas, groups, partition, { producerId: Number(m.producerId), producerEpoch: m.producerEpoch, commit: m.transactionResult, coordinatorEpoch: m.coordinatorEpoch });
              return { partitionIndex: index, errorCode: ErrorCode.NONE };
            } catch (err) {
              return { partitionIndex: index, errorCode: asKafkaError(err).code };
            }
          }),
        })),
      })),
    };
  },
  errorResponse(req, code): WriteTxnMarkersResponse {
    return {
      markers: req.markers.map((m) => ({
        producerId: m.producerId,
        topics: m.topics.map((t) => ({ name: t.name, partitions: t.partitionIndexes.map((partitionIndex) => ({ partitionIndex, errorCode: code })) })),
      })),
    };
  },
});
