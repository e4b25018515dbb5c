// Where a new topic's (or new partitions') replicas go, as Kafka's AdminUtils.assignReplicasToBrokers places
// them without racks: partition p's first replica is the (p + start)-th broker of the sorted list, and the
// others follow it at a shift that grows by one each time the partitions have gone once round the brokers,
// so that leaders spread evenly and followers do not always pair the same brokers. `start` and `shift` are
// random in Kafka; tests pass them fixed.

export interface PlacementSeed {
  start: number;
  shift: number;
}

function randomSeed(brokerCount: number): PlacementSeed {
  return { start: Math.floor(Math.random() * brokerCount), shift: Math.floor(Math.random() * brokerCount) };
}

/**
 * The replica lists of partitions firstPartition..firstPartition+count-1 over `brokers` (ids, any order).
 * The caller has checked 1 <= replicationFactor <= brokers.length.
 */
export function assignReplicas(
  brokers: readonly number[],
  count: number,
  replicationFactor: number,
  firstPartition = 0,
  seed: PlacementSeed = randomSeed(brokers.length),
): number[][] {
  const sorted = [...brokers].sort((a, b) => a - b);
  const n = sorted.length;
  const assignment: number[][] = [];
  let shift = seed.shift;
  for (let p = firstPartition; p < firstPartition + count; p++) {
    if (p > 0 && p % n === 0) shift++;
    const first = (p + seed.start) % n;
    const replicas = [sorted[first]];
    for (let j = 0; j < replicationFactor - 1; j++) replicas.push(sorted[(first + 1 + ((shift + j) % (n - 1))) % n]);
    assignment.push(replicas);
  }
  return assignment;
}
