// DescribeLogDirs: v1-4.
// Behaviour: krill has one log directory, the data directory; it is listed with every partition asked for
// (all of them when topics is null) that it holds a replica of: its size on disk (the sum of its segments),
// offsetLag as Kafka's ReplicaManager.getLogEndOffsetLag computes it for a current log, max(0, high
// watermark - log end offset) (so 0 but in a follower's brief moments), and isFutureKey false (no
// AlterReplicaLogDirs). Partitions krill does not have are left out and a topic left with none is omitted,
// as Kafka's ReplicaManager.describeLogDirs does. In a cluster every broker keeps a directory for every
// partition (see cluster/zk-cluster.ts): only those it is a replica of, by the controller's metadata (or its
// LeaderAndIsr before that), count as held. A directory whose volume cannot be read answers KAFKA_STORAGE_ERROR.
// Version notes: v0 is gone in Kafka 4.0 (KIP-896); v3 adds the top-level error code; v4 the volume's total
// and usable bytes (KIP-827).
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from './registry.js';
import type { DescribeLogDirsRequest, DescribeLogDirsResponse } from '../../protocol/messages/35-describe-log-dirs.js';
import type { ElementOf } from '../../protocol/schema.js';
import type { TopicAdmin } from '../topics.js';

type LogDirResult = DescribeLogDirsResponse['results'][number];
type TopicResult = LogDirResult['topics'][number];
type PartitionResult = ElementOf<TopicResult['partitions']>;

/** The partitions asked for, by topic, each once (Kafka reads the request as a set of topic-partitions). */
function wantedPartitions(admin: TopicAdmin, requested: DescribeLogDirsRequest['topics']): Map<string, Set<number>> {
  const wanted = new Map<string, Set<number>>();
  if (requested === null) {
    for (const t of admin.topics()) wanted.set(t.name, new Set(Array.from({ length: t.partitions }, (_, p) => p)));
    return wanted;
  }
  for (const t of requested) {
    const set = wanted.get(t.topic) ?? new Set<number>();
    for (const p of t.partitions) set.add(p);
    wanted.set(t.topic, set);
  }
  return wanted;
}

export default defineHandler({
  apiKey: 35,
  minVersion: 1,
  maxVersion: 4,
  handle({ topics: admin, replicas, cluster, log }, req): DescribeLogDirsResponse {
    const logDir = admin.logDir;
    let volume: { totalBytes: number; usableBytes: number };
    try {
      volume = admin.logDirSpace();
    } catch (err) {
      log.warn({ logDir, err: (err as Error).message }, 'cannot read the volume of the log directory');
      return {
        throttleTimeMs: 0,
        errorCode: ErrorCode.NONE,
        results: [{ errorCode: ErrorCode.KAFKA_STORAGE_ERROR, logDir, topics: [], totalBytes: -1, usableBytes: -1 }],
      };
    }
    const topics: TopicResult[] = [];
    for (const [name, indexes] of wantedPartitions(admin, req.topics)) {
      const partitions: PartitionResult[] = [];
      for (const index of indexes) {
        const partition = replicas.partition(name, index);
        if (!partition) continue;
        const replicaIds = cluster.partitionMetadata(name, index)?.replicas ?? partition.replicas;
        if (!replicaIds.includes(replicas.localNodeId)) continue;
        const offsetLag = Math.max(0, partition.highWatermark - partition.logEndOffset);
        partitions.push({ partitionIndex: index, partitionSize: partition.log.size, offsetLag, isFutureKey: false });
      }
      if (partitions.length > 0) topics.push({ name, partitions });
    }
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      results: [
        {
          errorCode: ErrorCode.NONE,
          logDir,
          topics,
          totalBytes: volume.totalBytes,
          usableBytes: volume.usableBytes,
        },
      ],
    };
  },
});
