// What brokers ask of the controller (Kafka's KafkaController.processControlledShutdown and
// processAlterPartition): a stopping broker's ControlledShutdown, which moves its leaderships away and takes
// it out of the ISRs first, and a leader's AlterPartition, the only way an ISR grows or shrinks while its
// leader lives. Each runs inside one controller event (the controller queues it and answers NOT_CONTROLLER
// when it is not, or no longer, the controller), over the controller's context, its fenced state writes and
// its request batch.

import type { Logger } from '../logger.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { PartitionLeadership } from './zk/kafka-zk.js';
import { controlledShutdownLeader, isrWithout } from './leader-election-algorithms.js';
import type { PartitionState } from './controller-core.js';
import type { ControllerContext } from './controller-context.js';
import type { ControllerRequestBatch } from './controller-channel-manager.js';
import { partitionKey, splitPartitionKey } from '../topic-partition.js';

/** One partition of an AlterPartition request, as the handler gives it. */
export interface AlterPartitionItem {
  partitionIndex: number;
  leaderEpoch: number;
  partitionEpoch: number;
  newIsr: { brokerId: number; brokerEpoch: number }[];
}

export interface AlterPartitionRequestData {
  /** The request's version, which decides how an ineligible new ISR is refused. */
  apiVersion: number;
  brokerId: number;
  brokerEpoch: number;
  /** By name (v0-1) or by id (v2+). */
  topics: { topicName: string | null; topicId: Buffer | null; partitions: AlterPartitionItem[] }[];
}

export interface AlterPartitionResult {
  throttleTimeMs: number;
  errorCode: number;
  topics: {
    topicName: string;
    topicId: Buffer;
    partitions: {
      partitionIndex: number;
      errorCode: number;
      leaderId: number;
      leaderEpoch: number;
      isr: number[];
      leaderRecoveryState: number;
      partitionEpoch: number;
    }[];
  }[];
}

export interface ControlledShutdownResult {
  errorCode: number;
  remainingPartitions: { topicName: string; partitionIndex: number }[];
}

/** What this module uses of the controller beyond its context and request batch. */
export interface BrokerRequestsHost {
  /** Writes a partition's new state (fenced); false when the znode moved on (it is re-read). */
  writeState(topic: string, p: number, current: PartitionState, next: PartitionLeadership): Promise<boolean>;
  /** The ISR of these partitions changed (reassignments may complete). */
  onIsrChanged(keys: string[]): Promise<void>;
}

export class ControllerBrokerRequests {
  constructor(
    private readonly ctx: ControllerContext,
    private readonly batch: ControllerRequestBatch,
    private readonly host: BrokerRequestsHost,
    private readonly log: Logger,
  ) {}

  /**
   * ControlledShutdown from broker `id`: moves its leaderships to other live ISR members and takes it out
   * of the ISRs, then answers with the partitions it still leads that another ISR member could have taken.
   */
  async controlledShutdown(id: number, brokerEpoch: number): Promise<ControlledShutdownResult> {
    const broker = this.ctx.live.get(id);
    if (!broker) return { errorCode: ErrorCode.BROKER_NOT_AVAILABLE, remainingPartitions: [] };
    if (brokerEpoch !== -1 && brokerEpoch < broker.epoch) return { errorCode: ErrorCode.STALE_BROKER_EPOCH, remainingPartitions: [] };
    this.ctx.shuttingDown.add(id);
    const changed: string[] = [];
    const stopped: string[] = [];
    for (const [key, state] of this.ctx.states) {
      const [topic, p] = splitPartitionKey(key);
      const replicas = this.ctx.topics.get(topic)?.assignment.get(p) ?? [];
      if (!replicas.includes(id) || replicas.length < 2) continue;
      if (state.leader === id) {
        const leader = controlledShutdownLeader(replicas, state.isr, (b) => this.ctx.live.has(b), this.ctx.shuttingDown);
        if (leader === -1) continue;
        const next = { ...state, leader, isr: state.isr.filter((r) => r !== id), leaderEpoch: state.leaderEpoch + 1, controllerEpoch: this.ctx.epoch };
        if (await this.host.writeState(topic, p, state, next)) changed.push(key);
      } else if (state.isr.includes(id)) {
        const next = { ...state, isr: isrWithout(state.isr, id), leaderEpoch: state.leaderEpoch + 1, controllerEpoch: this.ctx.epoch };
        if (await this.host.writeState(topic, p, state, next)) changed.push(key);
        stopped.push(key);
      }
    }
    await this.batch.announce(changed, false);
    if (stopped.length > 0) await this.batch.sendStopReplica(id, stopped);
    const remainingPartitions: ControlledShutdownResult['remainingPartitions'] = [];
    for (const [key, state] of this.ctx.states) {
      if (state.leader !== id || !state.isr.some((r) => r !== id && this.ctx.live.has(r))) continue;
      const [topicName, partitionIndex] = splitPartitionKey(key);
      remainingPartitions.push({ topicName, partitionIndex });
    }
    this.log.info({ broker: id, moved: changed.length, remaining: remainingPartitions.length }, 'controlled shutdown');
    return { errorCode: ErrorCode.NONE, remainingPartitions };
  }

  /**
   * AlterPartition from a partition's leader: a new ISR, written when the sender leads the partition in the
   * leader epoch and partition epoch it names and every new member is a live replica (the leader epoch is
   * unchanged, as in Kafka); every broker then gets the new metadata. A leader that names an old partition
   * epoch (it missed an answer) is sent the partition's LeaderAndIsr again.
   *
   * A broker in controlled shutdown is not eligible, as it is not among the live brokers of Kafka's
   * controller: its leader would otherwise take it back into the ISR as soon as it caught up as a follower,
   * and acks=all writes would wait for a broker about to stop. INELIGIBLE_REPLICA came with v2 (KIP-841);
   * Kafka answers the versions before it OPERATION_NOT_ATTEMPTED.
   */
  async alterPartition(req: AlterPartitionRequestData): Promise<AlterPartitionResult> {
    const broker = this.ctx.live.get(req.brokerId);
    if (!broker || (req.brokerEpoch !== -1 && req.brokerEpoch !== broker.epoch))
      return { throttleTimeMs: 0, errorCode: ErrorCode.STALE_BROKER_EPOCH, topics: [] };
    const ineligible = req.apiVersion >= 2 ? ErrorCode.INELIGIBLE_REPLICA : ErrorCode.OPERATION_NOT_ATTEMPTED;
    const eligible = (b: { brokerId: number; brokerEpoch: number }) =>
      this.ctx.isOnline(b.brokerId) && (b.brokerEpoch === -1 || b.brokerEpoch === this.ctx.live.get(b.brokerId)!.epoch);
    const changed: string[] = [];
    const stale: string[] = [];
    const topics: AlterPartitionResult['topics'] = [];
    for (const t of req.topics) {
      const name = t.topicName ?? [...this.ctx.topics].find(([, topic]) => t.topicId && topic.topicId.equals(t.topicId))?.[0];
      const topic = name === undefined ? undefined : this.ctx.topics.get(name);
      const partitions: AlterPartitionResult['topics'][number]['partitions'] = [];
      for (const item of t.partitions) {
        const key = name === undefined ? '' : partitionKey(name, item.partitionIndex);
        const state = this.ctx.states.get(key);
        const answer = (errorCode: number, s?: PartitionState) =>
          partitions.push({
            partitionIndex: item.partitionIndex,
            errorCode,
            leaderId: s?.leader ?? -1,
            leaderEpoch: s?.leaderEpoch ?? -1,
            isr: s ? [...s.isr] : [],
            leaderRecoveryState: 0,
            partitionEpoch: s?.zkVersion ?? -1,
          });
        if (!topic || !state || name === undefined) {
          answer(t.topicName === null ? ErrorCode.UNKNOWN_TOPIC_ID : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
          continue;
        }
        const replicas = topic.assignment.get(item.partitionIndex) ?? [];
        const isr = item.newIsr.map((b) => b.brokerId);
        if (state.leader !== req.brokerId) answer(ErrorCode.NOT_LEADER_OR_FOLLOWER);
        else if (item.leaderEpoch !== state.leaderEpoch) answer(ErrorCode.FENCED_LEADER_EPOCH);
        else if (item.partitionEpoch !== state.zkVersion) {
          stale.push(key);
          answer(ErrorCode.INVALID_UPDATE_VERSION);
        } else if (!isr.includes(state.leader) || new Set(isr).size !== isr.length || item.newIsr.some((b) => !replicas.includes(b.brokerId) || !eligible(b))) {
          answer(ineligible);
        } else if (isr.length === state.isr.length && isr.every((r) => state.isr.includes(r))) {
          answer(ErrorCode.NONE, state);
        } else if (await this.host.writeState(name, item.partitionIndex, state, { ...state, isr, controllerEpoch: this.ctx.epoch })) {
          changed.push(key);
          this.log.info({ topic: name, partition: item.partitionIndex, from: state.isr, to: isr }, 'ISR changed');
          answer(ErrorCode.NONE, this.ctx.states.get(key));
        } else {
          stale.push(key);
          answer(ErrorCode.INVALID_UPDATE_VERSION);
        }
      }
      topics.push({ topicName: name ?? t.topicName ?? '', topicId: topic?.topicId ?? t.topicId ?? Buffer.alloc(16), partitions });
    }
    if (changed.length > 0) {
      await this.host.onIsrChanged(changed);
      await this.batch.sendUpdateMetadata([...this.ctx.live.keys()], changed);
    }
    if (stale.length > 0) await this.batch.sendLeaderAndIsr(req.brokerId, stale, false);
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, topics };
  }
}
