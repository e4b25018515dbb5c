// WriteTxnMarkers: v1. Behaviour: served by every broker, as Kafka's: from a transaction coordinator on
// another broker, or from Admin.abortTransaction ending a hanging transaction. The leader writes each
// commit/abort marker on the partitions named (txn/markers.ts), as Kafka's does, and answers once each
// partition's ISR has its marker (Kafka writes markers with acks=all; REQUEST_TIMED_OUT after 30 s);
// NOT_LEADER_OR_FOLLOWER / UNKNOWN_TOPIC_OR_PARTITION for a partition it does not lead. The coordinator
// asks again after any error.
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from './registry.js';
import { asKafkaError } from './error-result.js';
import { MARKER_REPLICATION_TIMEOUT_MS, writeTxnMarker } from '../txn/markers.js';
import type { WriteTxnMarkersResponse } from '../../protocol/messages/27-write-txn-markers.js';

type MarkerResult = WriteTxnMarkersResponse['markers'][number];

/** Kafka answers one entry per producer id (its answer is built from a map keyed by it): a producer's markers are merged. */
function mergeByProducer(markers: MarkerResult[]): MarkerResult[] {
  const merged = new Map<number, MarkerResult>();
  for (const m of markers) {
    const seen = merged.get(Number(m.producerId));
    merged.set(Number(m.producerId), seen ? { ...seen, topics: [...seen.topics, ...m.topics] } : m);
  }
  return [...merged.values()];
}

export default defineHandler({
  apiKey: 27,
  minVersion: 1,
  maxVersion: 1,
  handle({ replicas, groups, signal }, req): WriteTxnMarkersResponse | Promise<WriteTxnMarkersResponse> {
    const waits: Promise<void>[] = [];
    const response: WriteTxnMarkersResponse = {
      markers: mergeByProducer(
        req.markers.map((m) => ({
          producerId: m.producerId,
          topics: m.topics.map((t) => ({
            name: t.name,
            partitions: t.partitionIndexes.map((index) => {
              const partition = replicas.leaderPartition(t.name, index);
              if (typeof partition === 'number') return { partitionIndex: index, errorCode: partition };
              const result = { partitionIndex: index, errorCode: ErrorCode.NONE as number };
              try {
                writeTxnMarker(replicas, groups, partition, {
                  producerId: Number(m.producerId),
                  producerEpoch: m.producerEpoch,
                  commit: m.transactionResult,
                  coordinatorEpoch: m.coordinatorEpoch,
                });
              } catch (err) {
                result.errorCode = asKafkaError(err).code;
                return result;
              }
              if (partition.replicas.length > 1) {
                waits.push(
                  replicas.awaitReplicated(partition, partition.logEndOffset, 1, MARKER_REPLICATION_TIMEOUT_MS, signal).then((code) => {
                    result.errorCode = code;
                  }),
                );
              }
              return result;
            }),
          })),
        })),
      ),
    };
    return waits.length > 0 ? Promise.all(waits).then(() => response) : response;
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
