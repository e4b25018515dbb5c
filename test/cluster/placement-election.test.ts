// The controller's pure choices: where replicas go (Kafka's AdminUtils placement without racks) and which
// replica leads (always a live ISR member, in assignment order).
import { describe, expect, it } from 'vitest';
import { assignReplicas } from '../../src/cluster/replica-placement.js';
import { controlledShutdownLeader, isrWithout, offlinePartitionLeader } from '../../src/cluster/leader-election-algorithms.js';

describe('assignReplicas', () => {
  it('places as Kafka does with a fixed start and shift: leaders round-robin, followers shifted each round', () => {
    // Kafka's documented example shape: 5 brokers, 10 partitions, RF 3, start index 0, shift 0.
    const a = assignReplicas([0, 1, 2, 3, 4], 10, 3, 0, { start: 0, shift: 0 });
    expect(a.slice(0, 5)).toEqual([
      [0, 1, 2],
      [1, 2, 3],
      [2, 3, 4],
      [3, 4, 0],
      [4, 0, 1],
    ]);
    expect(a.slice(5)).toEqual([
      [0, 2, 3],
      [1, 3, 4],
      [2, 4, 0],
      [3, 0, 1],
      [4, 1, 2],
    ]);
  });

  it('never puts two replicas of a partition on one broker, and spreads leaders evenly', () => {
    for (let trial = 0; trial < 50; trial++) {
      const a = assignReplicas([3, 1, 2], 12, 3);
      for (const replicas of a) expect(new Set(replicas).size).toBe(3);
      const leaders = new Map<number, number>();
      for (const [leader] of a) leaders.set(leader, (leaders.get(leader) ?? 0) + 1);
      expect([...leaders.values()]).toEqual([4, 4, 4]);
    }
  });

  it('numbers new partitions on from firstPartition, continuing the rotation', () => {
    const all = assignReplicas([1, 2, 3], 6, 2, 0, { start: 1, shift: 0 });
    expect(assignReplicas([1, 2, 3], 3, 2, 3, { start: 1, shift: 0 })).toEqual(all.slice(3));
  });

  it('places RF 1 on one broker each', () => {
    expect(assignReplicas([7], 3, 1)).toEqual([[7], [7], [7]]);
  });
});

describe('leader election', () => {
  const live = (ids: number[]) => (id: number) => ids.includes(id);

  it('takes the first live ISR member in assignment order', () => {
    expect(offlinePartitionLeader([1, 2, 3], [3, 2], live([1, 2, 3]))).toBe(2);
    expect(offlinePartitionLeader([1, 2, 3], [1, 2, 3], live([2, 3]))).toBe(2);
  });

  it('elects nobody when no ISR member is alive, even with live replicas outside it', () => {
    expect(offlinePartitionLeader([1, 2, 3], [1], live([2, 3]))).toBe(-1);
  });

  it('moves leadership away from a broker shutting down, to another live ISR member only', () => {
    expect(controlledShutdownLeader([1, 2, 3], [1, 2, 3], live([1, 2, 3]), new Set([1]))).toBe(2);
    expect(controlledShutdownLeader([1, 2, 3], [1, 3], live([1, 2]), new Set([1]))).toBe(-1);
  });

  it('keeps the last ISR member when it goes', () => {
    expect(isrWithout([1, 2], 1)).toEqual([2]);
    expect(isrWithout([2], 2)).toEqual([2]);
  });
});
