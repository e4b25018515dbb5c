// The controller's pure choices for reassignments (Kafka's ReplicaAssignment, KIP-455) and for the elections an
// operator asks for or the leader balance triggers (Kafka's PartitionLeaderElectionAlgorithms,
// checkAndTriggerAutoLeaderRebalance).
import { describe, expect, it } from 'vitest';
import {
  checkReassignmentTarget,
  isBeingReassigned,
  isReassignmentComplete,
  originReplicas,
  reassignTo,
  targetReplicas,
  type ReplicaAssignment,
} from '../../src/cluster/replica-assignment.js';
import { imbalancedPartitions, preferredReplicaLeader, uncleanElection } from '../../src/cluster/leader-election-algorithms.js';

const settled = (replicas: number[]): ReplicaAssignment => ({ replicas, addingReplicas: [], removingReplicas: [] });

describe('reassignTo', () => {
  it('lists targets first, then the original replicas that go, as Kafka writes RS', () => {
    const moving = reassignTo(settled([1, 2, 3]), [4, 5, 6]);
    expect(moving).toEqual({ replicas: [4, 5, 6, 1, 2, 3], addingReplicas: [4, 5, 6], removingReplicas: [1, 2, 3] });
    expect([originReplicas(moving), targetReplicas(moving)]).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    // Kafka's own caveat: an overlapping target changes the order for good.
    expect(reassignTo(settled([1, 2, 3]), [3, 4, 2]).replicas).toEqual([3, 4, 2, 1]);
  });

  it('replaces a reassignment in progress from the original replicas, and cancels back to them', () => {
    const first = reassignTo(settled([1, 2]), [2, 3]);
    expect(reassignTo(first, [2, 4])).toEqual({ replicas: [2, 4, 1], addingReplicas: [4], removingReplicas: [1] });
    const cancelled = reassignTo(first, originReplicas(first));
    // The original members, in RS's order: [1, 2] became [2, 3, 1], so the cancellation gives [2, 1].
    expect(cancelled).toEqual(settled([2, 1]));
    expect(isBeingReassigned(cancelled)).toBe(false);
  });

  it('is complete once every target replica is in the ISR', () => {
    const moving = reassignTo(settled([1, 2]), [2, 3]);
    expect(isReassignmentComplete(moving, [1, 2])).toBe(false);
    expect(isReassignmentComplete(moving, [1, 2, 3])).toBe(true);
    expect(isReassignmentComplete(moving, undefined)).toBe(false);
    expect(isReassignmentComplete(settled([1]), undefined)).toBe(true);
  });
});

describe('checkReassignmentTarget', () => {
  const live = [1, 2, 3];
  it("refuses empty, duplicate, negative and dead targets with Kafka's messages", () => {
    expect(() => checkReassignmentTarget(settled([1]), [], live)).toThrow('Empty replica list specified in partition reassignment.');
    expect(() => checkReassignmentTarget(settled([1]), [2, 2], live)).toThrow('Duplicate replica ids in partition reassignment replica list: [2, 2]');
    expect(() => checkReassignmentTarget(settled([1]), [-1], live)).toThrow('Invalid broker id in replica list: [-1]');
    expect(() => checkReassignmentTarget(settled([1]), [1, 9], live)).toThrow(
      'Replica assignment has brokers that are not alive. Replica list: [9], live broker list: [1, 2, 3]',
    );
  });

  it('refuses a long list of unknown brokers as any other (the checks are linear: a request may carry many)', () => {
    const many = Array.from({ length: 100_000 }, (_, i) => i + 1);
    expect(() => checkReassignmentTarget(settled([1]), many, live)).toThrow('Replica assignment has brokers that are not alive');
  });

  it('accepts a dead broker that is already a replica: only added replicas must be alive', () => {
    expect(() => checkReassignmentTarget(settled([9, 1]), [1, 9], live)).not.toThrow();
  });
});

describe('elections', () => {
  const online = (ids: number[]) => (id: number) => ids.includes(id);

  it('elects the preferred replica only when it is online and in the ISR', () => {
    expect(preferredReplicaLeader([1, 2], [1, 2], online([1, 2]))).toBe(1);
    expect(preferredReplicaLeader([1, 2], [2], online([1, 2]))).toBe(-1);
    expect(preferredReplicaLeader([1, 2], [1, 2], online([2]))).toBe(-1);
  });

  it('prefers an online ISR member in an unclean election, else any online replica, alone in the ISR', () => {
    expect(uncleanElection([1, 2, 3], [3, 1], online([2, 3]))).toEqual({ leader: 3, isr: [3] });
    expect(uncleanElection([1, 2, 3], [1], online([2, 3]))).toEqual({ leader: 2, isr: [2] });
    expect(uncleanElection([1, 2], [1], online([]))).toEqual({ leader: -1, isr: [1] });
  });

  it('balances the brokers whose share of partitions led elsewhere is above the percentage', () => {
    const partitions = [
      // Broker 1 is preferred by 4 partitions and leads 3: 25% elsewhere.
      { key: 'a', replicas: [1, 2], leader: 1 },
      { key: 'b', replicas: [1, 2], leader: 1 },
      { key: 'c', replicas: [1, 2], leader: 1 },
      { key: 'd', replicas: [1, 2], leader: 2 },
      // Broker 2 is preferred by 1 and leads it.
      { key: 'e', replicas: [2, 1], leader: 2 },
    ];
    expect(imbalancedPartitions(partitions, 10)).toEqual(['d']);
    expect(imbalancedPartitions(partitions, 25)).toEqual([]);
    expect(imbalancedPartitions(partitions, 24)).toEqual(['d']);
  });
});
