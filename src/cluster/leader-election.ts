// The controller's choice of a partition leader, as Kafka's PartitionLeaderElectionAlgorithms: always a live
// replica in the ISR, taken in the order of the assignment (so the preferred replica, the first, wins when it
// can). A replica outside the ISR may lack acknowledged records, so it is never chosen here; an unclean
// election (unclean.leader.election.enable, or ElectLeaders of type UNCLEAN) is replica-elections.ts's.

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
