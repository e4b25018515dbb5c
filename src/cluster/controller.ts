// The controller, as in Kafka's ZooKeeper mode (KafkaController): one broker of the cluster, the one whose
// ephemeral /controller znode exists, keeps the cluster's state and changes it. Every broker runs this
// object; it acts only between onElected() and resign().
//
// What it does, each change an event handled one at a time in arrival order (Kafka's ControllerEventManager):
// - elected: reads the live brokers, topics, assignments and partition states from ZooKeeper (watching each),
//   finishes what a previous controller left half-done (partitions without a state, leaders that are gone),
//   and sends every live broker the whole metadata (UpdateMetadata) and its replicas' roles (LeaderAndIsr);
// - broker change (/brokers/ids): a broker gone loses its leaderships to another live ISR member, or the
//   partition goes offline (leader -1) keeping its last ISR member; a broker back (or new) gets the metadata
//   and its roles, and offline partitions whose ISR it is in are led by it again;
// - topic change (/brokers/topics, a topic's assignment): new partitions get their first leader (the first
//   live replica of the assignment) and state znode;
// - topic deletion (/admin/delete_topics): every broker deletes the partitions (StopReplica with delete), the
//   metadata drops them (leader -2), then the znodes go;
// - what brokers ask (controller-broker-requests.ts): ControlledShutdown from a broker that is stopping, whose
//   leaderships move to other live ISR members first, and a leader's AlterPartition;
// - what operators ask for: ElectLeaders and, while this broker is the controller, the automatic leader
//   balance (controller-elections.ts); partition reassignments, resumed after a failover
//   (controller-reassignments.ts). Both use the controller through ControllerCore (controller-core.ts).
// What it knows is its context (controller-context.ts); what it sends brokers goes through its channel
// manager and request batch (controller-channel-manager.ts). Every write to a partition's state znode is
// fenced by /controller_epoch's version: a controller that lost the election without knowing it (a long
// pause) fails its writes and resigns. Every request it sends carries its epoch and the target broker's
// epoch, so brokers ignore a stale controller.
//
// Replication: a new partition's ISR is all its live replicas; afterwards it changes through the leader's
// AlterPartition (a follower leaves after replica.lag.time.max.ms behind, joins again once caught up) and when
// a broker dies (it leaves every ISR, keeping a last member). A leader is elected from the live ISR; when no
// ISR member is alive the partition stays offline, unless unclean.leader.election.enable (the topic's, else
// the broker default) allows any live replica to lead, losing what it lacks.

import type tls from 'node:tls';
import type { SaslClientLogin } from '../security/sasl-client.js';
import type { Logger } from '../logger.js';
import { ErrorCode } from '../../protocol/errors.js';
import { ControllerMovedError, type KafkaZk, type PartitionLeadership } from './zk/kafka-zk.js';
import { isrWithout, offlinePartitionLeader } from './leader-election-algorithms.js';
import { randomKafkaUuid } from '../storage/meta-properties.js';
import { type ControllerCore, type PartitionState } from './controller-core.js';
import { ControllerContext, type TopicState } from './controller-context.js';
import { ControllerChannelManager, ControllerRequestBatch } from './controller-channel-manager.js';
import {
  ControllerBrokerRequests,
  type AlterPartitionRequestData,
  type AlterPartitionResult,
  type ControlledShutdownResult,
} from './controller-broker-requests.js';
import { ControllerElections, type ElectionResult, type LeaderBalanceConfig } from './controller-elections.js';
import { ControllerReassignments, type OngoingReassignment, type ReassignmentRequest, type ReassignmentResult } from './controller-reassignments.js';
import { partitionKey, splitPartitionKey } from '../topic-partition.js';

/** Attempts at writing a partition's state that keeps moving under the controller (each re-reads it). */
const STATE_WRITE_ATTEMPTS = 3;

export interface ControllerOptions {
  zk: KafkaZk;
  brokerId: number;
  log: Logger;
  /** controller.socket.timeout.ms. */
  requestTimeoutMs: number;
  /** TLS settings of the inter-broker listener, when it is SSL. */
  interBrokerTls?: tls.ConnectionOptions;
  interBrokerSasl?: SaslClientLogin;
  /** auto.leader.rebalance.enable and its settings; absent: no automatic balance. */
  leaderBalance?: LeaderBalanceConfig;
  /** The broker default of unclean.leader.election.enable (a topic's own config overrides it). */
  uncleanLeaderElectionDefault(): boolean;
}

export class Controller {
  private active = false;
  private events: Promise<void> = Promise.resolve();
  private readonly ctx = new ControllerContext();
  private readonly channels: ControllerChannelManager;
  private readonly batch: ControllerRequestBatch;
  private readonly brokerRequests: ControllerBrokerRequests;
  private readonly zk: KafkaZk;
  private readonly log: Logger;
  private readonly elections: ControllerElections;
  private readonly reassignments: ControllerReassignments;

  constructor(private readonly options: ControllerOptions) {
    this.zk = options.zk;
    this.log = options.log.child({ component: 'controller' });
    this.channels = new ControllerChannelManager({
      brokerId: options.brokerId,
      log: this.log,
      requestTimeoutMs: options.requestTimeoutMs,
      isActive: () => this.active,
      tls: options.interBrokerTls,
      sasl: options.interBrokerSasl,
    });
    this.batch = new ControllerRequestBatch(this.ctx, this.channels, options.brokerId);
    this.brokerRequests = new ControllerBrokerRequests(
      this.ctx,
      this.batch,
      { writeState: (topic, p, current, next) => this.writeState(topic, p, current, next), onIsrChanged: (keys) => this.onIsrChanged(keys) },
      this.log,
    );
    const core = this.core();
    this.elections = new ControllerElections(core, options.leaderBalance ?? { enable: false, checkIntervalMs: 0, imbalancePercentage: 0 });
    this.reassignments = new ControllerReassignments(core);
  }

  /** This controller's epoch (-1 before its first election). */
  get epoch(): number {
    return this.ctx.epoch;
  }

  get isActive(): boolean {
    return this.active;
  }

  /** This broker has just created /controller with this epoch: take over. */
  onElected(epoch: number, epochZkVersion: number): Promise<void> {
    this.active = true;
    this.ctx.epoch = epoch;
    this.ctx.epochZkVersion = epochZkVersion;
    this.log.info({ epoch }, 'elected controller');
    return this.enqueue('failover', () => this.failover());
  }

  /** Another broker is (or may be) the controller now, or this broker is stopping: stop acting. */
  resign(): void {
    if (!this.active) return;
    this.active = false;
    this.log.info({ epoch: this.ctx.epoch }, 'resigned as controller');
    this.channels.closeAll();
    this.ctx.clear();
    this.elections.stop();
    this.reassignments.clear();
  }

  /** Runs `fn` after the events before it; a failure is logged (a fenced write resigns). */
  private enqueue<T>(name: string, fn: () => Promise<T>): Promise<T | undefined> {
    const run = this.events.then(async () => {
      if (!this.active) return undefined;
      try {
        return await fn();
      } catch (err) {
        if (err instanceof ControllerMovedError) {
          this.log.warn({ event: name }, 'another broker became controller: resigning');
          this.resign();
        } else if (this.active) {
          this.log.error({ event: name, err }, 'controller event failed');
        }
        return undefined;
      }
    });
    this.events = run.then(() => undefined);
    return run;
  }

  // --- events ----------------------------------------------------------------------------------------

  private async failover(): Promise<void> {
    this.ctx.live = new Map((await this.zk.getBrokers(() => void this.enqueue('broker-change', () => this.onBrokerChange()))).map((b) => [b.id, b]));
    const names = await this.zk.getTopics(() => void this.enqueue('topic-change', () => this.onTopicChange()));
    for (const name of names) await this.loadTopic(name);
    // Partitions a previous controller did not get to, and leaders that died while nobody was controller;
    // then every broker is told everything.
    for (const [name, topic] of this.ctx.topics) await this.initializePartitions(name, topic, [...topic.assignment.keys()]);
    // Brokers that died while nobody was controller (the previous controller among them) leave the ISRs now,
    // as Kafka's replica state machine does at start-up; otherwise acks=all would wait for them.
    const dead = new Set<number>();
    for (const state of this.ctx.states.values()) for (const r of state.isr) if (!this.ctx.live.has(r)) dead.add(r);
    for (const id of dead) await this.onBrokerGone(id);
    await this.electOffline();
    for (const broker of this.ctx.live.values()) this.channels.open(broker);
    await this.batch.sendUpdateMetadata([...this.ctx.live.keys()], this.ctx.allPartitions());
    for (const id of this.ctx.live.keys()) await this.batch.sendLeaderAndIsr(id, this.ctx.partitionsWithReplica(id), false);
    await this.onTopicDeletion();
    this.elections.start();
    await this.reassignments.resume();
  }

  private async loadTopic(name: string): Promise<TopicState | undefined> {
    const assignment = await this.zk.getTopicAssignment(name, () => void this.enqueue('partition-change', () => this.onPartitionChange(name)));
    if (!assignment) return undefined;
    let topicId = assignment.topicId;
    if (!topicId) {
      // Written by a tool that predates topic ids (KIP-516): the controller gives it one, as Kafka's does.
      topicId = Buffer.from(randomKafkaUuid().bytes);
      await this.zk.setTopicAssignment(name, topicId, assignment.partitions, assignment.version);
    }
    const topic: TopicState = { topicId, assignment: assignment.partitions };
    this.ctx.topics.set(name, topic);
    this.reassignments.loaded(name, assignment.reassigning);
    for (const [p, state] of await this.zk.getPartitionStates(name)) this.ctx.states.set(partitionKey(name, p), state);
    return topic;
  }

  private async onBrokerChange(): Promise<void> {
    const current = new Map((await this.zk.getBrokers(() => void this.enqueue('broker-change', () => this.onBrokerChange()))).map((b) => [b.id, b]));
    // A broker whose epoch changed restarted in between: gone, then back.
    const dead = [...this.ctx.live.keys()].filter((id) => current.get(id)?.epoch !== this.ctx.live.get(id)!.epoch);
    const added = [...current.keys()].filter((id) => this.ctx.live.get(id)?.epoch !== current.get(id)!.epoch);
    if (dead.length === 0 && added.length === 0) return;
    this.log.info({ dead, added, live: [...current.keys()] }, 'brokers changed');
    for (const id of dead) {
      this.ctx.live.delete(id);
      this.ctx.shuttingDown.delete(id);
      this.channels.close(id);
    }
    for (const id of added) {
      const broker = current.get(id)!;
      this.ctx.live.set(id, broker);
      this.channels.open(broker);
    }
    const changed = new Set<string>();
    for (const id of dead) for (const key of await this.onBrokerGone(id)) changed.add(key);
    // New brokers may make unplaced partitions placeable and offline ones electable.
    for (const [name, topic] of this.ctx.topics) {
      for (const key of await this.initializePartitions(name, topic, [...topic.assignment.keys()])) changed.add(key);
    }
    for (const key of await this.electOffline()) changed.add(key);
    // New brokers need the whole picture; the others the new broker list and what changed.
    if (added.length > 0) await this.batch.sendUpdateMetadata(added, this.ctx.allPartitions());
    const others = [...this.ctx.live.keys()].filter((id) => !added.includes(id));
    await this.batch.sendUpdateMetadata(others, [...changed]);
    for (const id of added) await this.batch.sendLeaderAndIsr(id, this.ctx.partitionsWithReplica(id), false);
    await this.batch.sendLeaderAndIsrFor([...changed], added);
  }

  /** A broker is gone: it leads nothing and leaves the ISRs it was in (keeping a last member). */
  private async onBrokerGone(id: number): Promise<string[]> {
    const changed: string[] = [];
    for (const [key, state] of this.ctx.states) {
      const [topic, p] = splitPartitionKey(key);
      const replicas = this.ctx.topics.get(topic)?.assignment.get(p) ?? [];
      if (!replicas.includes(id)) continue;
      let next: PartitionLeadership | null = null;
      if (state.leader === id) {
        const isr = isrWithout(state.isr, id);
        const leader = offlinePartitionLeader(
          replicas,
          isr.filter((r) => r !== id),
          (b) => this.ctx.live.has(b),
        );
        next = {
          ...state,
          leader,
          isr: leader === -1 ? isr : isr.filter((r) => r !== id),
          leaderEpoch: state.leaderEpoch + 1,
          controllerEpoch: this.ctx.epoch,
        };
        if (leader === -1) next = (await this.uncleanElection(topic, p, replicas, next)) ?? next;
      } else if (state.isr.includes(id)) {
        next = { ...state, isr: isrWithout(state.isr, id), leaderEpoch: state.leaderEpoch + 1, controllerEpoch: this.ctx.epoch };
      }
      if (next && (await this.writeState(topic, p, state, next))) changed.push(key);
    }
    return changed;
  }

  /**
   * A topic's configs, or the broker defaults, changed (Kafka's TopicUncleanLeaderElectionEnable and
   * UncleanLeaderElectionEnable): when unclean election became allowed, offline partitions get a leader now
   * rather than at the next broker change.
   */
  uncleanElectionMayBeAllowed(): void {
    void this.enqueue('unclean-leader-election-enable', async () => {
      const changed = await this.electOffline();
      await this.batch.announce(changed, false);
    });
  }

  /** Partitions without a leader whose ISR has a live member get it as leader. */
  private async electOffline(): Promise<string[]> {
    const changed: string[] = [];
    for (const [key, state] of this.ctx.states) {
      if (state.leader !== -1 && this.ctx.live.has(state.leader)) continue;
      const [topic, p] = splitPartitionKey(key);
      const replicas = this.ctx.topics.get(topic)?.assignment.get(p) ?? [];
      const leader = offlinePartitionLeader(replicas, state.isr, (b) => this.ctx.isOnline(b));
      if (leader === -1) {
        const unclean = await this.uncleanElection(topic, p, replicas, { ...state, leaderEpoch: state.leaderEpoch + 1, controllerEpoch: this.ctx.epoch });
        if (unclean) {
          if (await this.writeState(topic, p, state, unclean)) changed.push(key);
          continue;
        }
        // A leader that died while nobody was controller: ZooKeeper keeps its state (Kafka's controller writes
        // nothing when an election fails), but it is offline here, so that its return is an election (a new
        // leader epoch) rather than a silent resumption of the old term.
        if (state.leader !== -1) this.ctx.states.set(key, { ...state, leader: -1 });
        continue;
      }
      const isr = state.isr.filter((r) => this.ctx.live.has(r));
      const next = { ...state, leader, isr, leaderEpoch: state.leaderEpoch + 1, controllerEpoch: this.ctx.epoch };
      if (await this.writeState(topic, p, state, next)) changed.push(key);
    }
    return changed;
  }

  private async onTopicChange(): Promise<void> {
    const names = new Set(await this.zk.getTopics(() => void this.enqueue('topic-change', () => this.onTopicChange())));
    const created: string[] = [];
    for (const name of names) {
      if (this.ctx.topics.has(name)) continue;
      const topic = await this.loadTopic(name);
      if (!topic) continue;
      this.log.info({ topic: name, partitions: topic.assignment.size }, 'new topic');
      created.push(...(await this.initializePartitions(name, topic, [...topic.assignment.keys()])));
    }
    // Znodes removed behind the controller's back: forget the topic.
    for (const name of [...this.ctx.topics.keys()]) if (!names.has(name)) this.forgetTopic(name);
    await this.batch.announce(created, true);
  }

  private async onPartitionChange(name: string): Promise<void> {
    const topic = this.ctx.topics.get(name);
    if (!topic) return;
    const assignment = await this.zk.getTopicAssignment(name, () => void this.enqueue('partition-change', () => this.onPartitionChange(name)));
    if (!assignment) return;
    const added = [...assignment.partitions.keys()].filter((p) => !topic.assignment.has(p));
    for (const p of added) topic.assignment.set(p, assignment.partitions.get(p)!);
    if (added.length === 0) return;
    this.log.info({ topic: name, partitions: added }, 'new partitions');
    await this.batch.announce(await this.initializePartitions(name, topic, added), true);
  }

  private async onTopicDeletion(): Promise<void> {
    const marked = await this.zk.getTopicDeletions(() => void this.enqueue('topic-deletion', () => this.onTopicDeletion()));
    for (const name of marked) {
      const topic = this.ctx.topics.get(name);
      if (topic) {
        this.log.info({ topic: name }, 'deleting topic');
        const partitions = [...topic.assignment.keys()].sort((a, b) => a - b);
        await this.batch.sendTopicDeletion(name, topic.topicId, partitions);
        this.forgetTopic(name);
      }
      await this.zk.deleteTopicZNodes(name, this.ctx.epochZkVersion);
    }
  }

  /** ControlledShutdown from broker `id` (controller-broker-requests.ts). */
  async controlledShutdown(id: number, brokerEpoch: number): Promise<ControlledShutdownResult> {
    const result = await this.enqueue('controlled-shutdown', () => this.brokerRequests.controlledShutdown(id, brokerEpoch));
    return result ?? { errorCode: ErrorCode.NOT_CONTROLLER, remainingPartitions: [] };
  }

  /** AlterPartition from a partition's leader (controller-broker-requests.ts). */
  async alterPartition(req: AlterPartitionRequestData): Promise<AlterPartitionResult> {
    const result = await this.enqueue('alter-partition', () => this.brokerRequests.alterPartition(req));
    return result ?? { throttleTimeMs: 0, errorCode: ErrorCode.NOT_CONTROLLER, topics: [] };
  }

  /**
   * An unclean election for a partition with no live ISR member, when the topic's (or the broker default's)
   * unclean.leader.election.enable allows it: the first live replica leads, alone in the ISR. Null otherwise.
   */
  private async uncleanElection(topic: string, p: number, replicas: number[], next: PartitionLeadership): Promise<PartitionLeadership | null> {
    const leader = replicas.find((b) => this.ctx.isOnline(b)) ?? -1;
    if (leader === -1) return null;
    const override = (await this.zk.getTopicConfig(topic))['unclean.leader.election.enable'];
    const allowed = override === undefined ? this.options.uncleanLeaderElectionDefault() : override === 'true';
    if (!allowed) return null;
    this.log.warn({ topic, partition: p, leader, lastIsr: next.isr }, 'unclean leader election: an out-of-sync replica leads, records it lacks are lost');
    return { ...next, leader, isr: [leader] };
  }

  // --- state changes -----------------------------------------------------------------------------------

  /**
   * First leaders of partitions that have no state znode yet: the first live replica of the assignment, with
   * every live replica in the ISR (none holds anything yet). Partitions with no live replica wait for one.
   */
  private async initializePartitions(name: string, topic: TopicState, partitions: number[]): Promise<string[]> {
    const fresh = new Map<number, PartitionLeadership>();
    for (const p of partitions) {
      if (this.ctx.states.has(partitionKey(name, p))) continue;
      const live = (topic.assignment.get(p) ?? []).filter((b) => this.ctx.live.has(b));
      if (live.length === 0) continue;
      fresh.set(p, { leader: live[0], leaderEpoch: 0, isr: live, controllerEpoch: this.ctx.epoch });
    }
    if (fresh.size === 0) return [];
    await this.zk.createPartitionStates(name, fresh, this.ctx.epochZkVersion);
    const keys: string[] = [];
    for (const [p, s] of fresh) {
      this.ctx.states.set(partitionKey(name, p), { ...s, zkVersion: 0 });
      keys.push(partitionKey(name, p));
    }
    return keys;
  }

  /** Writes a partition's new state (fenced); false when the znode moved on (it is re-read). */
  private async writeState(topic: string, p: number, current: PartitionState, next: PartitionLeadership): Promise<boolean> {
    try {
      const zkVersion = await this.zk.updatePartitionState(topic, p, next, current.zkVersion, this.ctx.epochZkVersion);
      this.ctx.states.set(partitionKey(topic, p), {
        leader: next.leader,
        leaderEpoch: next.leaderEpoch,
        isr: [...next.isr],
        controllerEpoch: next.controllerEpoch,
        zkVersion,
      });
      return true;
    } catch (err) {
      if (err instanceof ControllerMovedError) throw err;
      this.log.warn({ topic, partition: p, err: (err as Error).message }, 'partition state changed under the controller; re-reading it');
      const fresh = (await this.zk.getPartitionStates(topic)).get(p);
      if (fresh) this.ctx.states.set(partitionKey(topic, p), fresh);
      return false;
    }
  }

  private forgetTopic(name: string): void {
    const topic = this.ctx.topics.get(name);
    if (!topic) return;
    for (const p of topic.assignment.keys()) this.ctx.states.delete(partitionKey(name, p));
    this.ctx.topics.delete(name);
  }

  // --- elections and reassignments an operator asks for (controller-elections.ts, controller-reassignments.ts) ---

  /** ElectLeaders (electionType 0 preferred, 1 unclean) of these partitions; null when this broker is not the controller. */
  async electLeaders(type: number, partitions: readonly { topic: string; partition: number }[]): Promise<Map<string, ElectionResult> | null> {
    const keys = partitions.map((tp) => partitionKey(tp.topic, tp.partition));
    return (await this.enqueue('elect-leaders', () => this.elections.electLeaders(type, keys))) ?? null;
  }

  /** AlterPartitionReassignments: each partition's result, by partition key; null when this broker is not the controller. */
  async alterPartitionReassignments(requests: readonly ReassignmentRequest[]): Promise<Map<string, ReassignmentResult> | null> {
    return (await this.enqueue('alter-partition-reassignments', () => this.reassignments.alter(requests))) ?? null;
  }

  /** ListPartitionReassignments of all partitions (null) or of those named; null when this broker is not the controller. */
  async listPartitionReassignments(partitions: readonly { topic: string; partition: number }[] | null): Promise<OngoingReassignment[] | null> {
    const keys = partitions && partitions.map((tp) => partitionKey(tp.topic, tp.partition));
    return (await this.enqueue('list-partition-reassignments', async () => this.reassignments.list(keys))) ?? null;
  }

  /**
   * The ISR of these partitions (keys as partitionKey makes them) changed, written by this controller (its
   * AlterPartition handling): reassignments whose target replicas are all in the ISR now complete. Call it
   * from inside a controller event, after the new states are in `states`: it does not queue one of its own.
   */
  onIsrChanged(keys: string[]): Promise<void> {
    return this.reassignments.onIsrChanged(keys);
  }

  /** Writes a partition's next state as `change` computes it, reading it again (a few times) when it moved on. */
  private async updateState(key: string, change: (current: PartitionState) => PartitionLeadership | null): Promise<boolean> {
    const [topic, p] = splitPartitionKey(key);
    for (let attempt = 0; attempt < STATE_WRITE_ATTEMPTS; attempt++) {
      const current = this.ctx.states.get(key);
      const next = current && change(current);
      if (!current || !next) return false;
      if (await this.writeState(topic, p, current, next)) return true;
    }
    return false;
  }

  private async reloadState(key: string, watch?: () => void): Promise<PartitionState | undefined> {
    const [topic, p] = splitPartitionKey(key);
    const state = await this.zk.getPartitionState(topic, p, watch);
    if (!state || !this.ctx.topics.has(topic)) return undefined;
    this.ctx.states.set(key, state);
    return state;
  }

  /** What controller-elections.ts and controller-reassignments.ts use of this controller. */
  private core(): ControllerCore {
    const ctx = this.ctx;
    return {
      zk: this.zk,
      log: this.log,
      get epoch() {
        return ctx.epoch;
      },
      get epochZkVersion() {
        return ctx.epochZkVersion;
      },
      enqueue: (name, fn) => this.enqueue(name, fn),
      isLive: (id) => this.ctx.live.has(id),
      isOnline: (id) => this.ctx.isOnline(id),
      onlineBrokerIds: () => [...this.ctx.live.keys()].filter((id) => this.ctx.isOnline(id)),
      partitionKeys: () => [...this.ctx.states.keys()],
      state: (key) => this.ctx.states.get(key),
      replicas: (key) => this.ctx.replicas(key),
      setReplicas: (key, replicas) => {
        const [topic, p] = splitPartitionKey(key);
        this.ctx.topics.get(topic)?.assignment.set(p, [...replicas]);
      },
      topicId: (topic) => this.ctx.topics.get(topic)?.topicId,
      topicReplicas: (topic) => this.ctx.topics.get(topic)?.assignment,
      updateState: (key, change) => this.updateState(key, change),
      reloadState: (key, watch) => this.reloadState(key, watch),
      announce: (keys, isNew) => this.batch.announce(keys, isNew),
      sendStopReplica: (id, keys, deletePartition) => this.batch.sendStopReplica(id, keys, deletePartition),
    };
  }
}
