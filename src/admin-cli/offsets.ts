// ListOffsets for many partitions at once, one request per leader: the watermarks `topics describe` shows,
// the log-end offsets lag is measured against, and the offsets a reset or a consume starts from.
import { byLeader, check, type KafkaClient, type TopicMetadata } from './kafka-client.js';

/** ListOffsets' special timestamps (Kafka's ListOffsetsRequest.EARLIEST_TIMESTAMP and LATEST_TIMESTAMP). */
export const EARLIEST = -2;
export const LATEST = -1;

export interface PartitionRef {
  topic: string;
  partition: number;
  leader: number;
}

export function partitionsOf(topics: TopicMetadata[], only?: (topic: string, partition: number) => boolean): PartitionRef[] {
  return topics.flatMap((t) =>
    t.partitions.filter((p) => !only || only(t.name, p.partition)).map((p) => ({ topic: t.name, partition: p.partition, leader: p.leader })),
  );
}

export const key = (topic: string, partition: number) => `${topic}-${partition}`;

/**
 * The offset of each partition for `timestamp` (EARLIEST, LATEST, or ms since the epoch: the first offset
 * whose timestamp is at least it, or -1 when there is none), keyed by key(). read_committed (isolation 1)
 * makes LATEST the last stable offset.
 */
export async function listOffsets(client: KafkaClient, parts: PartitionRef[], timestamp: number, isolationLevel = 0): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  await Promise.all(
    [...byLeader(parts)].map(async ([leader, ps]) => {
      const topics = new Map<string, number[]>();
      for (const p of ps) topics.set(p.topic, [...(topics.get(p.topic) ?? []), p.partition]);
      const res = await client.sendTo(leader, 2, {
        replicaId: -1,
        isolationLevel,
        topics: [...topics].map(([name, partitions]) => ({
          name,
          partitions: partitions.map((partitionIndex) => ({ partitionIndex, currentLeaderEpoch: -1, timestamp })),
        })),
        timeoutMs: 30_000,
      });
      for (const t of res.topics) {
        for (const p of t.partitions) {
          check(p.errorCode, `ListOffsets of ${key(t.name, p.partitionIndex)}`);
          out.set(key(t.name, p.partitionIndex), p.offset);
        }
      }
    }),
  );
  return out;
}
