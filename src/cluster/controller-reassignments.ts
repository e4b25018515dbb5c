// Partition reassignments on the controller (AlterPartitionReassignments / ListPartitionReassignments,
// KIP-455), as Kafka's ZooKeeper-mode KafkaController.onPartitionReassignment runs them (see
// replica-assignment.ts for RS, TRS, ORS, AR and RR):
//
// U. A new reassignment (or a cancellation, back to ORS) is written to the topic's assignment znode first
//    (RS = TRS + ORS, with adding_replicas/removing_replicas), so that a new controller resumes it, then kept
//    in memory; replicas a replaced reassignment had added and this one drops are stopped (U3, as B4-B5).
// A. While some target replica is not in the ISR: the next leader epoch, and LeaderAndIsr to all of RS, so
//    that the replicas being added start following the leader and copy its log.
// B. Once every target replica is in the ISR: RS = TRS in memory; the leader moves into TRS if it is not
//    there (or not online), else its epoch is bumped; the removed replicas leave the ISR; LeaderAndIsr goes
//    to TRS and UpdateMetadata to every broker; the removed replicas get StopReplica with delete; last, the
//    assignment znode is written without the partition's adding/removing lists.
//
// The ISR is watched on two paths: the state znode of each partition being reassigned (Kafka's
// PartitionReassignmentIsrChangeHandler: any write to it, by this controller or another tool, is checked),
// and onIsrChanged(), which the controller's AlterPartition handling calls after it writes a new ISR.
//
// A removed replica's StopReplica carries deletePartition with the partition's real leader epoch (Kafka
// sends EpochDuringDelete, -2, only for a deleted topic): the broker empties its log of that partition but
// keeps the directory, as every broker keeps one for every partition (see zk-cluster.ts).
//
// Deliberate deviations: a topic being reassigned can still be deleted (Kafka waits for the reassignment);
// LeaderAndIsr's addingReplicas/removingReplicas fields stay empty (krill's brokers do not use them).

import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import { type ControllerCore, type PartitionState } from './controller-core.js';
import { isrWithout, offlinePartitionLeader } from './leader-election-algorithms.js';
import {
  checkReassignmentTarget,
  isBeingReassigned,
  isReassignmentComplete,
  originReplicas,
  reassignTo,
  sameAssignment,
  targetReplicas,
  type ReplicaAssignment,
} from './replica-assignment.js';
import { ControllerMovedError, type PartitionLeadership } from './zk/kafka-zk.js';
import { partitionKey, splitPartitionKey } from '../topic-partition.js';

export interface ReassignmentRequest {
  topic: string;
  partition: number;
  /** The target replicas; null cancels the partition's reassignment. */
  replicas: readonly number[] | null;
}

export interface OngoingReassignment {
  topic: string;
  partition: number;
  replicas: number[];
  addingReplicas: number[];
  removingReplicas: number[];
}

export interface ReassignmentResult {
  errorCode: number;
  errorMessage: string | null;
}

export class ControllerReassignments {
  /** Partitions being reassigned: their adding and removing replicas (RS is the controller's assignment). */
  private readonly ongoing = new Map<string, { adding: readonly number[]; removing: readonly number[] }>();
  /** State znodes with a watch set and not fired yet. */
  private readonly watched = new Set<string>();

  constructor(private readonly core: ControllerCore) {}

  /**
   * A topic's assignment as read from ZooKeeper (a failover, a new topic): the reassignments it has in
   * progress, replacing any this controller remembers of a deleted namesake.
   */
  loaded(topic: string, reassigning: { adding: ReadonlyMap<number, readonly number[]>; removing: ReadonlyMap<number, readonly number[]> }): void {
    for (const key of [...this.ongoing.keys()]) if (splitPartitionKey(key)[0] === topic) this.ongoing.delete(key);
    for (const p of new Set([...reassigning.adding.keys(), ...reassigning.removing.keys()])) {
      const entry = { adding: reassigning.adding.get(p) ?? [], removing: reassigning.removing.get(p) ?? [] };
      if (entry.adding.length > 0 || entry.removing.length > 0) this.ongoing.set(partitionKey(topic, p), entry);
    }
  }

  /** The controller resigned. */
  clear(): void {
    this.ongoing.clear();
    this.watched.clear();
  }

  /** After a failover, each reassignment in progress carries on (Kafka's maybeResumeReassignments). */
  async resume(): Promise<void> {
    for (const key of [...this.ongoing.keys()]) {
      if (!this.core.replicas(key)) this.ongoing.delete(key);
      else await this.onPartitionReassignment(key, this.assignment(key));
    }
  }

  /** AlterPartitionReassignments: each partition's result (a partition named twice: the last one counts). */
  async alter(requests: readonly ReassignmentRequest[]): Promise<Map<string, ReassignmentResult>> {
    const targets = new Map(requests.map((r) => [partitionKey(r.topic, r.partition), r.replicas]));
    const results = new Map<string, ReassignmentResult>();
    for (const [key, target] of targets) {
      try {
        await this.reassign(key, target);
        results.set(key, { errorCode: ErrorCode.NONE, errorMessage: null });
      } catch (err) {
        if (err instanceof KafkaError) {
          results.set(key, { errorCode: err.code, errorMessage: err.message });
        } else if (err instanceof ControllerMovedError) {
          throw err;
        } else {
          this.core.log.error({ partition: splitPartitionKey(key).join('-'), err }, 'reassigning a partition failed');
          results.set(key, { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: (err as Error).message });
        }
      }
    }
    return results;
  }

  /** ListPartitionReassignments: those in progress, of all partitions (null) or of those named. */
  list(keys: readonly string[] | null): OngoingReassignment[] {
    const listed: OngoingReassignment[] = [];
    for (const key of new Set(keys ?? this.ongoing.keys())) {
      const entry = this.ongoing.get(key);
      const replicas = this.core.replicas(key);
      if (!entry || !replicas) continue;
      const [topic, partition] = splitPartitionKey(key);
      listed.push({ topic, partition, replicas: [...replicas], addingReplicas: [...entry.adding], removingReplicas: [...entry.removing] });
    }
    return listed;
  }

  /** The ISR of these partitions changed (inside a controller event): reassignments whose targets are all in it complete. */
  async onIsrChanged(keys: readonly string[]): Promise<void> {
    for (const key of keys) {
      if (!this.ongoing.has(key)) continue;
      if (!this.core.replicas(key)) {
        this.ongoing.delete(key);
        continue;
      }
      const assignment = this.assignment(key);
      if (isReassignmentComplete(assignment, this.core.state(key)?.isr)) await this.onPartitionReassignment(key, assignment);
    }
  }

  /** Kafka's validateReplicas, maybeBuildReassignment and maybeTriggerPartitionReassignment, in that order. */
  private async reassign(key: string, target: readonly number[] | null): Promise<void> {
    const current = this.assignment(key);
    if (target !== null) checkReassignmentTarget(current, target, this.core.onlineBrokerIds());
    let next: ReplicaAssignment;
    if (isBeingReassigned(current)) next = reassignTo(current, target ?? originReplicas(current));
    else if (target === null) throw new KafkaError('NO_REASSIGNMENT_IN_PROGRESS', 'No partition reassignment is in progress.');
    else next = reassignTo(current, target);
    if (!this.core.replicas(key)) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', 'The partition does not exist.');
    await this.onPartitionReassignment(key, next);
  }

  private async onPartitionReassignment(key: string, reassignment: ReplicaAssignment): Promise<void> {
    await this.updateCurrentReassignment(key, reassignment);
    if (isReassignmentComplete(reassignment, this.core.state(key)?.isr)) {
      await this.complete(key, reassignment);
      return;
    }
    // A: every replica of RS told its role under a new leader epoch; the new ones start following.
    if (await this.core.updateState(key, (s) => ({ ...leadership(s), leaderEpoch: s.leaderEpoch + 1, controllerEpoch: this.core.epoch }))) {
      await this.core.announce([key], false);
    } else {
      this.core.log.warn(
        { partition: splitPartitionKey(key).join('-') },
        'reassigning a partition that has no leadership yet: its new replicas start with its first leader',
      );
    }
  }

  /** U: the new assignment, ZooKeeper first; replicas a replaced reassignment added and this one drops are stopped. */
  private async updateCurrentReassignment(key: string, reassignment: ReplicaAssignment): Promise<void> {
    const current = this.assignment(key);
    if (!sameAssignment(current, reassignment)) {
      await this.writeAssignment(key, reassignment);
      this.core.setReplicas(key, reassignment.replicas);
      if (isBeingReassigned(reassignment)) this.ongoing.set(key, { adding: reassignment.addingReplicas, removing: reassignment.removingReplicas });
      else this.ongoing.delete(key);
      const unneeded = current.replicas.filter((id) => !reassignment.replicas.includes(id));
      if (unneeded.length > 0) await this.stopReplicas(key, unneeded);
    }
    if (isBeingReassigned(reassignment)) await this.watchIsr(key);
  }

  /** B: the partition settles on TRS. */
  private async complete(key: string, reassignment: ReplicaAssignment): Promise<void> {
    const target = targetReplicas(reassignment);
    this.core.setReplicas(key, target);
    this.ongoing.delete(key);
    await this.core.updateState(key, (s) => this.leaderWithin(key, target, s));
    await this.stopReplicas(key, reassignment.removingReplicas);
    await this.writeAssignment(key);
    this.core.log.info({ partition: splitPartitionKey(key).join('-'), replicas: target }, 'partition reassignment complete');
  }

  /** The leader in `target`: the current one (next epoch, so that replicas learn the new RS), or a live ISR member of it. */
  private leaderWithin(key: string, target: readonly number[], s: PartitionState): PartitionLeadership | null {
    const online = (id: number) => this.core.isOnline(id);
    const leader = target.includes(s.leader) && online(s.leader) ? s.leader : offlinePartitionLeader(target, s.isr, online);
    if (leader === -1) {
      // As Kafka's, the reassignment completes anyway: the partition is offline until a target replica can lead.
      this.core.log.warn({ partition: splitPartitionKey(key).join('-'), target, isr: s.isr }, 'no target replica of a reassigned partition can lead');
      return null;
    }
    return { ...leadership(s), leader, leaderEpoch: s.leaderEpoch + 1, controllerEpoch: this.core.epoch };
  }

  /**
   * Replicas that are no longer replicas: out of the ISR (the last member stays, as always; a removed
   * leader leaves the partition leaderless), everyone told, then StopReplica with delete to those alive.
   */
  private async stopReplicas(key: string, ids: readonly number[]): Promise<void> {
    if (ids.length > 0) {
      await this.core.updateState(key, (s) => {
        const isr = ids.reduce((list, id) => isrWithout(list, id), s.isr);
        const leader = ids.includes(s.leader) ? -1 : s.leader;
        if (leader === s.leader && isr.length === s.isr.length) return null;
        return { leader, isr, leaderEpoch: s.leaderEpoch + 1, controllerEpoch: this.core.epoch };
      });
    }
    await this.core.announce([key], false);
    for (const id of ids) if (this.core.isLive(id)) await this.core.sendStopReplica(id, [key], true);
  }

  /** The topic's assignment znode, as the controller has it, with `reassignment` for this partition when given. */
  private async writeAssignment(key: string, reassignment?: ReplicaAssignment): Promise<void> {
    const [topic, partition] = splitPartitionKey(key);
    const topicId = this.core.topicId(topic);
    if (!topicId) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', 'The partition does not exist.');
    const replicas = new Map<number, number[]>();
    for (const [p, ids] of this.core.topicReplicas(topic) ?? []) replicas.set(p, [...ids]);
    const adding = new Map<number, readonly number[]>();
    const removing = new Map<number, readonly number[]>();
    for (const [k, entry] of this.ongoing) {
      const [t, p] = splitPartitionKey(k);
      if (t !== topic) continue;
      adding.set(p, entry.adding);
      removing.set(p, entry.removing);
    }
    if (reassignment) {
      replicas.set(partition, [...reassignment.replicas]);
      adding.set(partition, reassignment.addingReplicas);
      removing.set(partition, reassignment.removingReplicas);
    }
    await this.core.zk.updateTopicAssignment(topic, topicId, replicas, { adding, removing }, this.core.epochZkVersion);
  }

  /** Watches the partition's state znode (reading it into the controller); a change is checked as an event. */
  private async watchIsr(key: string): Promise<void> {
    if (this.watched.has(key)) return;
    this.watched.add(key);
    try {
      await this.core.reloadState(key, () => {
        this.watched.delete(key);
        void this.core.enqueue('reassignment-isr-change', async () => {
          if (!this.ongoing.has(key)) return;
          await this.watchIsr(key);
          await this.onIsrChanged([key]);
        });
      });
    } catch (err) {
      this.watched.delete(key); // no watch was set: the next look sets one
      throw err;
    }
  }

  private assignment(key: string): ReplicaAssignment {
    const entry = this.ongoing.get(key);
    return { replicas: this.core.replicas(key) ?? [], addingReplicas: entry?.adding ?? [], removingReplicas: entry?.removing ?? [] };
  }
}

/** A state without its zk version: what a write takes. */
function leadership(s: PartitionState): PartitionLeadership {
  return { leader: s.leader, leaderEpoch: s.leaderEpoch, isr: s.isr, controllerEpoch: s.controllerEpoch };
}
