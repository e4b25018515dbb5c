// Entries a request names twice. Kafka reads the partitions of Produce and Fetch into maps keyed by partition,
// so a repeated one is served once, with the last entry's data in the first one's place; ListOffsets and
// CreateTopics instead refuse a repeated entry, answering it once.

/** `items` with each key once: the last item of a key, at the position of its first. */
export function lastOfEach<T, K>(items: readonly T[], key: (item: T) => K): T[] {
  const byKey = new Map<K, T>();
  for (const item of items) byKey.set(key(item), item); // Map.set keeps a key's first position
  return byKey.size === items.length ? (items as T[]) : [...byKey.values()];
}

/** The keys that occur more than once in `items`. */
export function repeatedKeys<T, K>(items: readonly T[], key: (item: T) => K): Set<K> {
  const seen = new Set<K>();
  const repeated = new Set<K>();
  for (const item of items) {
    const k = key(item);
    if (seen.has(k)) repeated.add(k);
    seen.add(k);
  }
  return repeated;
}
