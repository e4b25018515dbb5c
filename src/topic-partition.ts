// A partition named by its topic, and the one string form krill keys its maps of partitions by.
// The key joins the two with NUL, which a topic name cannot hold (Kafka allows [a-zA-Z0-9._-] only), so no
// two partitions share a key and the topic comes back out intact. It is an in-memory key only: what is
// written to disk or printed uses Kafka's own forms (file-names.ts, `topic-partition` in messages).

export interface TopicPartition {
  readonly topic: string;
  readonly partition: number;
}

export function partitionKey(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}

export function splitPartitionKey(key: string): [topic: string, partition: number] {
  const at = key.lastIndexOf('\u0000');
  return [key.slice(0, at), Number(key.slice(at + 1))];
}

/** What every key of `topic`'s partitions starts with. */
export function partitionKeyPrefix(topic: string): string {
  return `${topic}\u0000`;
}
