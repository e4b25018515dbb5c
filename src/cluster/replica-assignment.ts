// A partition's replica assignment while it may be reassigned (KIP-455), as Kafka's controller keeps it
// (ControllerContext's ReplicaAssignment): RS, the replicas, lists the target replicas (TRS) first, in the
// order asked for, then the original ones (ORS) that are not targets; AR = TRS - ORS are being added and
// RR = ORS - TRS removed. A partition is being reassigned while AR or RR is not empty. Reassigning to the
// current replicas, or cancelling, is a "reassignment" with nothing to add or remove.
//
// Kafka's caveat holds here too: with ORS [1,2,3] and TRS [3,4,2], RS is [3,4,2,1], so cancelling restores
// ORS's members but not necessarily their order.

import { KafkaError } from '../../protocol/errors.js';

export interface ReplicaAssignment {
  /** RS: every replica, targets first. */
  readonly replicas: readonly number[];
  /** AR: targets that were not replicas before. */
  readonly addingReplicas: readonly number[];
  /** RR: original replicas that are not targets. */
  readonly removingReplicas: readonly number[];
}

/** `ids` less `gone`, in order (linear: a request may name many replicas). */
function without(ids: readonly number[], gone: readonly number[]): number[] {
  const out = new Set(gone);
  return ids.filter((id) => !out.has(id));
}

/** ORS: the replicas before the reassignment. */
export function originReplicas(a: ReplicaAssignment): number[] {
  return without(a.replicas, a.addingReplicas);
}

/** TRS: the replicas once the reassignment completes. */
export function targetReplicas(a: ReplicaAssignment): number[] {
  return without(a.replicas, a.removingReplicas);
}

export function isBeingReassigned(a: ReplicaAssignment): boolean {
  return a.addingReplicas.length > 0 || a.removingReplicas.length > 0;
}

/** The assignment moving from this one's original replicas to `target` (Kafka's reassignTo). */
export function reassignTo(a: ReplicaAssignment, target: readonly number[]): ReplicaAssignment {
  const origin = originReplicas(a);
  const replicas = [...new Set([...target, ...origin])];
  return { replicas, addingReplicas: without(replicas, origin), removingReplicas: without(replicas, target) };
}

export function sameAssignment(a: ReplicaAssignment, b: ReplicaAssignment): boolean {
  const same = (x: readonly number[], y: readonly number[]) => x.length === y.length && x.every((id, i) => id === y[i]);
  return same(a.replicas, b.replicas) && same(a.addingReplicas, b.addingReplicas) && same(a.removingReplicas, b.removingReplicas);
}

/** Complete once every target replica is in the ISR (always, when nothing is being moved). */
export function isReassignmentComplete(a: ReplicaAssignment, isr: readonly number[] | undefined): boolean {
  if (!isBeingReassigned(a)) return true;
  return isr !== undefined && targetReplicas(a).every((id) => isr.includes(id));
}

/**
 * Kafka's controller check of a reassignment's target (validateReplicas): not empty, no broker twice, no
 * negative id, and every replica it adds on a live broker. INVALID_REPLICA_ASSIGNMENT otherwise, with
 * Kafka's messages.
 */
export function checkReassignmentTarget(current: ReplicaAssignment, target: readonly number[], liveBrokerIds: readonly number[]): void {
  const list = `[${target.join(', ')}]`;
  if (target.length === 0) throw new KafkaError('INVALID_REPLICA_ASSIGNMENT', 'Empty replica list specified in partition reassignment.');
  if (new Set(target).size !== target.length)
    throw new KafkaError('INVALID_REPLICA_ASSIGNMENT', `Duplicate replica ids in partition reassignment replica list: ${list}`);
  if (target.some((id) => id < 0)) throw new KafkaError('INVALID_REPLICA_ASSIGNMENT', `Invalid broker id in replica list: ${list}`);
  const adding = without(target, originReplicas(current));
  const live = new Set(liveBrokerIds);
  if (!adding.every((id) => live.has(id))) {
    throw new KafkaError(
      'INVALID_REPLICA_ASSIGNMENT',
      `Replica assignment has brokers that are not alive. Replica list: [${adding.join(', ')}], live broker list: [${[...liveBrokerIds].sort((x, y) => x - y).join(', ')}]`,
    );
  }
}
