// How the controller picks a partition's leader, as Kafka's PartitionLeaderElectionAlgorithms and
// KafkaController.checkAndTriggerAutoLeaderRebalance do: pure choices over an assignment, an ISR and who is
// live, for the controller's events (controller.ts) and the elections an operator asks for
// (controller-elections.ts: ElectLeaders, KIP-460, and the automatic leader balance). "Online" is Kafka's
// isReplicaOnline: registered and not shutting down.
//
// - Offline (the leader is gone) and controlled shutdown (it is going): a live ISR member, taken in the order
//   of the assignment, so the preferred replica, the first, wins when it can. A replica outside the ISR may
//   lack acknowledged records, so it is never chosen there.
// - Preferred: the first replica of the assignment, only when it is online and in the ISR; the ISR is kept.
// - Unclean (unclean.leader.election.enable, or ElectLeaders of type UNCLEAN; only for a partition whose
//   leader is gone): an online ISR member first, as any offline election; failing that any online replica,
//   which then is the ISR alone (it may lack acknowledged records: that is what the operator asked for).
// - Auto balance: for each broker, the partitions that prefer it (it is their first replica) but are led by
//   another; above leader.imbalance.per.broker.percentage of those it prefers, the ones whose preferred replica
//   can lead get a preferred election.

/** A new leader when the current one is gone (or there is none); -1 when no ISR member is alive. */
export function offlinePartitionLeader(assignment: readonly number[], isr: readonly number[], isLive: (id: number) => boolean): number {
  return assignment.find((id) => isr.includes(id) && isLive(id)) ?? -1;
}

/** A new leader for a partition whose leader is shutting down: another live ISR member, or -1. */
export function controlledShutdownLeader(
  assignment: readonly number[],
  isr: readonly number[],
  isLive: (id: number) => boolean,
  shuttingDown: ReadonlySet<number>,
): number {
  return assignment.find((id) => isr.includes(id) && isLive(id) && !shuttingDown.has(id)) ?? -1;
}

/**
 * The ISR without a replica that has gone (or is going): as Kafka's controller, the last member stays, so
 * that the partition remembers which replica holds every acknowledged record.
 */
export function isrWithout(isr: readonly number[], id: number): number[] {
  return isr.length === 1 ? [...isr] : isr.filter((r) => r !== id);
}

/** ElectLeaders' electionType. */
export const ElectionType = { PREFERRED: 0, UNCLEAN: 1 } as const;

/** The preferred replica when it can lead, else -1. */
export function preferredReplicaLeader(assignment: readonly number[], isr: readonly number[], isOnline: (id: number) => boolean): number {
  const preferred = assignment[0];
  return preferred !== undefined && isOnline(preferred) && isr.includes(preferred) ? preferred : -1;
}

/** Kafka's offline election with unclean election allowed: the leader and the ISR it starts with; leader -1 when no replica is online. */
export function uncleanElection(assignment: readonly number[], isr: readonly number[], isOnline: (id: number) => boolean): { leader: number; isr: number[] } {
  const clean = offlinePartitionLeader(assignment, isr, isOnline);
  if (clean !== -1) return { leader: clean, isr: isr.filter(isOnline) };
  const leader = assignment.find(isOnline) ?? -1;
  return { leader, isr: leader === -1 ? [...isr] : [leader] };
}

export interface LeadershipView {
  key: string;
  /** The assignment, preferred replica first. */
  replicas: readonly number[];
  leader: number;
}

/**
 * The partitions an automatic balance would move back to their preferred replica: those of each broker
 * whose share of partitions it prefers but does not lead is above `percentage` (Kafka's strict ">").
 */
export function imbalancedPartitions(partitions: Iterable<LeadershipView>, percentage: number): string[] {
  const byPreferred = new Map<number, { total: number; elsewhere: string[] }>();
  for (const p of partitions) {
    const preferred = p.replicas[0];
    if (preferred === undefined) continue;
    const entry = byPreferred.get(preferred) ?? { total: 0, elsewhere: [] };
    entry.total++;
    if (p.leader !== preferred) entry.elsewhere.push(p.key);
    byPreferred.set(preferred, entry);
  }
  const imbalanced: string[] = [];
  for (const { total, elsewhere } of byPreferred.values()) {
    if (elsewhere.length / total > percentage / 100) imbalanced.push(...elsewhere);
  }
  return imbalanced;
}
