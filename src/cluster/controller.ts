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
// - ControlledShutdown from a broker that is stopping: its leaderships move to other live ISR members first;
// - what operators ask for: ElectLeaders and, while this broker is the controller, the automatic leader
//   balance (controller-elections.ts); partition reassignments, resumed after a failover
//   (controller-reassignments.ts). Both use the controller through ControllerCore (controller-core.ts).
// Every write to a partition's state znode is fenced by /controller_epoch's version: a controller that lost
// the election without knowing it (a long pause) fails its writes and resigns. Every request it sends
// carries its epoch and the target broker's epoch, so brokers ignore a stale controller.
//
// Replication: a new partition's ISR is all its live replicas; afterwards it changes through the leader's
// AlterPartition (a follower leaves after replica.lag.time.max.ms behind, joins again once caught up) and when
// a broker dies (it leaves every ISR, keeping a last member). A leader is elected from the live ISR; when no
// ISR member is alive the partition stays offline, unless unclean.leader.election.enable (the topic's, else
// the broker default) allows any live replica to lead, losing what it lacks.

import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../logger.js';
import { ErrorCode } from '../../protocol/errors.js';
import { API_KEYS, type MessageFor } from '../../protocol/messages/index.js';
import type { RequestInputOf } from '../../protocol/schema.js';
import { BrokerClient, INTER_BROKER_VERSIONS } from './broker-client.js';
import { ControllerMovedError, type BrokerInfo, type KafkaZk, type PartitionLeadership } from './zk/kafka-zk.js';
import { controlledShutdownLeader, isrWithout, offlinePartitionLeader } from './leader-election-algorithms.js';
import { LEADER_DURING_DELETE } from './metadata-cache.js';
import { randomKafkaUuid } from '../storage/meta-properties.js';
import { type ControllerCore, type PartitionState } from './controller-core.js';
import { ControllerElections, type ElectionResult, type LeaderBalanceConfig } from './controller-elections.js';
import { ControllerReassignments, type OngoingReassignment, type ReassignmentRequest, type ReassignmentResult } from './controller-reassignments.js';
import { partitionKey, splitPartitionKey } from '../topic-partition.js';

/** What the controller sends each broker (all answer with a top-level errorCode). */
type ControllerApi = typeof API_KEYS.LeaderAndIsr | typeof API_KEYS.StopReplica | typeof API_KEYS.UpdateMetadata;
type UpdateMetadataTopicStates = NonNullable<RequestInputOf<MessageFor<typeof API_KEYS.UpdateMetadata>>['topicStates']>;
/** Attempts at delivering one request to a live broker (it may be starting, or briefly unreachable). */
const SEND_ATTEMPTS = 5;
const SEND_RETRY_MS = 200;
/** Attempts at writing a partition's state that keeps moving under the controller (each re-reads it). */
const STATE_WRITE_ATTEMPTS = 3;
/** UpdateMetadata's type (KIP-866): part of the metadata, or all of it. */
const UPDATE_INCREMENTAL = 1;
export const UPDATE_FULL = 2;

/** Requests queued for one broker, at most: beyond, new ones are dropped (and logged). */
const MAX_QUEUED_PER_BROKER = 10_000;

/** The controller's connection to one broker (of one registration) and the requests queued for it. */
interface Channel {
  client: BrokerClient;
  epoch: number;
  queue: Promise<void>;
  queued: number;
}

interface TopicState {
  topicId: Buffer;
  /** Partition index → replica broker ids, in preference order. */
  assignment: Map<number, number[]>;
}

export interface ControllerOptions {
  zk: KafkaZk;
  brokerId: number;
  log: Logger;
  /** controller.socket.timeout.ms. */
  requestTimeoutMs: number;
  /** auto.leader.rebalance.enable and its settings; absent: no automatic balance. */
  leaderBalance?: LeaderBalanceConfig;
  /** The broker default of unclean.leader.election.enable (a topic's own config overrides it). */
  uncleanLeaderElectionDefault(): boolean;
}

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

export class Controller {
  private active = false;
  epoch = -1;
  private epochZkVersion = -1;
  private events: Promise<void> = Promise.resolve();
  private live = new Map<number, BrokerInfo>();
  private readonly topics = new Map<string, TopicState>();
  private readonly states = new Map<string, PartitionState>();
  private readonly shuttingDown = new Set<number>();
  private readonly channels = new Map<number, Channel>();
  private readonly zk: KafkaZk;
  private readonly log: Logger;
  private readonly elections: ControllerElections;
  private readonly reassignments: ControllerReassignments;

  constructor(private readonly options: ControllerOptions) {
    this.zk = options.zk;
    this.log = options.log.child({ component: 'controller' });
    const core = this.core();
    this.elections = new ControllerElections(core, options.leaderBalance ?? { enable: false, checkIntervalMs: 0, imbalancePercentage: 0 });
    this.reassignments = new ControllerReassignments(core);
  }

  get isActive(): boolean {
    return this.active;
  }

  /** This broker has just created /controller with this epoch: take over. */
  onElected(epoch: number, epochZkVersion: number): Promise<void> {
    this.active = true;
    this.epoch = epoch;
    this.epochZkVersion = epochZkVersion;
    this.log.info({ epoch }, 'elected controller');
    return this.enqueue('failover', () => this.failover());
  }

  /** Another broker is (or may be) the controller now, or this broker is stopping: stop acting. */
  resign(): void {
    if (!this.active) return;
    this.active = false;
    this.log.info({ epoch: this.epoch }, 'resigned as controller');
    for (const { client } of this.channels.values()) client.close();
    this.channels.clear();
    this.live.clear();
    this.topics.clear();
    this.states.clear();
    this.shuttingDown.clear();
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
    this.live = new Map((await this.zk.getBrokers(() => void this.enqueue('broker-change', () => this.onBrokerChange()))).map((b) => [b.id, b]));
    const names = await this.zk.getTopics(() => void this.enqueue('topic-change', () => this.onTopicChange()));
    for (const name of names) await this.loadTopic(name);
    // Partitions a previous controller did not get to, and leaders that died while nobody was controller;
    // then every broker is told everything.
    for (const [name, topic] of this.topics) await this.initializePartitions(name, topic, [...topic.assignment.keys()]);
    // Brokers that died while nobody was controller (the previous controller among them) leave the ISRs now,
    // as Kafka's replica state machine does at start-up; otherwise acks=all would wait for them.
    const dead = new Set<number>();
    for (const state of this.states.values()) for (const r of state.isr) if (!this.live.has(r)) dead.add(r);
    for (const id of dead) await this.onBrokerGone(id);
    await this.electOffline();
    for (const id of this.live.keys()) this.openChannel(id);
    await this.sendUpdateMetadata([...this.live.keys()], this.allPartitions());
    for (const id of this.live.keys()) await this.sendLeaderAndIsr(id, this.partitionsWithReplica(id), false);
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
    this.topics.set(name, topic);
    this.reassignments.loaded(name, assignment.reassigning);
    for (const [p, state] of await this.zk.getPartitionStates(name)) this.states.set(partitionKey(name, p), state);
    return topic;
  }

  private async onBrokerChange(): Promise<void> {
    const current = new Map((await this.zk.getBrokers(() => void this.enqueue('broker-change', () => this.onBrokerChange()))).map((b) => [b.id, b]));
    // A broker whose epoch changed restarted in between: gone, then back.
    const dead = [...this.live.keys()].filter((id) => current.get(id)?.epoch !== this.live.get(id)!.epoch);
    const added = [...current.keys()].filter((id) => this.live.get(id)?.epoch !== current.get(id)!.epoch);
    if (dead.length === 0 && added.length === 0) return;
    this.log.info({ dead, added, live: [...current.keys()] }, 'brokers changed');
    for (const id of dead) {
      this.live.delete(id);
      this.shuttingDown.delete(id);
      this.closeChannel(id);
    }
    for (const id of added) {
      this.live.set(id, current.get(id)!);
      this.openChannel(id);
    }
    const changed = new Set<string>();
    for (const id of dead) for (const key of await this.onBrokerGone(id)) changed.add(key);
    // New brokers may make unplaced partitions placeable and offline ones electable.
    for (const [name, topic] of this.topics) {
      for (const key of await this.initializePartitions(name, topic, [...topic.assignment.keys()])) changed.add(key);
    }
    for (const key of await this.electOffline()) changed.add(key);
    // New brokers need the whole picture; the others the new broker list and what changed.
    if (added.length > 0) await this.sendUpdateMetadata(added, this.allPartitions());
    const others = [...this.live.keys()].filter((id) => !added.includes(id));
    await this.sendUpdateMetadata(others, [...changed]);
    for (const id of added) await this.sendLeaderAndIsr(id, this.partitionsWithReplica(id), false);
    await this.sendLeaderAndIsrFor([...changed], added);
  }

  /** A broker is gone: it leads nothing and leaves the ISRs it was in (keeping a last member). */
  private async onBrokerGone(id: number): Promise<string[]> {
    const changed: string[] = [];
    for (const [key, state] of this.states) {
      const [topic, p] = splitPartitionKey(key);
      const replicas = this.topics.get(topic)?.assignment.get(p) ?? [];
      if (!replicas.includes(id)) continue;
      let next: PartitionLeadership | null = null;
      if (state.leader === id) {
        const isr = isrWithout(state.isr, id);
        const leader = offlinePartitionLeader(
          replicas,
          isr.filter((r) => r !== id),
          (b) => this.live.has(b),
        );
        next = { ...state, leader, isr: leader === -1 ? isr : isr.filter((r) => r !== id), leaderEpoch: state.leaderEpoch + 1, controllerEpoch: this.epoch };
        if (leader === -1) next = (await this.uncleanElection(topic, p, replicas, next)) ?? next;
      } else if (state.isr.includes(id)) {
        next = { ...state, isr: isrWithout(state.isr, id), leaderEpoch: state.leaderEpoch + 1, controllerEpoch: this.epoch };
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
      await this.announce(changed, false);
    });
  }

  /** Partitions without a leader whose ISR has a live member get it as leader. */
  private async electOffline(): Promise<string[]> {
    const changed: string[] = [];
    for (const [key, state] of this.states) {
      if (state.leader !== -1 && this.live.has(state.leader)) continue;
      const [topic, p] = splitPartitionKey(key);
      const replicas = this.topics.get(topic)?.assignment.get(p) ?? [];
      const leader = offlinePartitionLeader(replicas, state.isr, (b) => this.live.has(b) && !this.shuttingDown.has(b));
      if (leader === -1) {
        const unclean = await this.uncleanElection(topic, p, replicas, { ...state, leaderEpoch: state.leaderEpoch + 1, controllerEpoch: this.epoch });
        if (unclean) {
          if (await this.writeState(topic, p, state, unclean)) changed.push(key);
          continue;
        }
        // A leader that died while nobody was controller: ZooKeeper keeps its state (Kafka's controller writes
        // nothing when an election fails), but it is offline here, so that its return is an election (a new
        // leader epoch) rather than a silent resumption of the old term.
        if (state.leader !== -1) this.states.set(key, { ...state, leader: -1 });
        continue;
      }
      const isr = state.isr.filter((r) => this.live.has(r));
      const next = { ...state, leader, isr, leaderEpoch: state.leaderEpoch + 1, controllerEpoch: this.epoch };
      if (await this.writeState(topic, p, state, next)) changed.push(key);
    }
    return changed;
  }

  private async onTopicChange(): Promise<void> {
    const names = new Set(await this.zk.getTopics(() => void this.enqueue('topic-change', () => this.onTopicChange())));
    const created: string[] = [];
    for (const name of names) {
      if (this.topics.has(name)) continue;
      const topic = await this.loadTopic(name);
      if (!topic) continue;
      this.log.info({ topic: name, partitions: topic.assignment.size }, 'new topic');
      created.push(...(await this.initializePartitions(name, topic, [...topic.assignment.keys()])));
    }
    // Znodes removed behind the controller's back: forget the topic.
    for (const name of [...this.topics.keys()]) if (!names.has(name)) this.forgetTopic(name);
    await this.announce(created, true);
  }

  private async onPartitionChange(name: string): Promise<void> {
    const topic = this.topics.get(name);
    if (!topic) return;
    const assignment = await this.zk.getTopicAssignment(name, () => void this.enqueue('partition-change', () => this.onPartitionChange(name)));
    if (!assignment) return;
    const added = [...assignment.partitions.keys()].filter((p) => !topic.assignment.has(p));
    for (const p of added) topic.assignment.set(p, assignment.partitions.get(p)!);
    if (added.length === 0) return;
    this.log.info({ topic: name, partitions: added }, 'new partitions');
    await this.announce(await this.initializePartitions(name, topic, added), true);
  }

  private async onTopicDeletion(): Promise<void> {
    const marked = await this.zk.getTopicDeletions(() => void this.enqueue('topic-deletion', () => this.onTopicDeletion()));
    for (const name of marked) {
      const topic = this.topics.get(name);
      if (topic) {
        this.log.info({ topic: name }, 'deleting topic');
        const partitions = [...topic.assignment.keys()].sort((a, b) => a - b);
        const live = [...this.live.keys()];
        // Every broker keeps a log for every partition (see ZkCluster): all of them delete theirs.
        await Promise.all(
          live.map((id) =>
            this.send(id, API_KEYS.StopReplica, INTER_BROKER_VERSIONS.StopReplica, {
              controllerId: this.options.brokerId,
              controllerEpoch: this.epoch,
              brokerEpoch: this.live.get(id)?.epoch ?? -1,
              deletePartitions: true,
              topicStates: [{ topicName: name, partitionStates: partitions.map((p) => ({ partitionIndex: p, leaderEpoch: -2, deletePartition: true })) }],
            }),
          ),
        );
        await this.sendUpdateMetadataRaw(live, [
          {
            topicName: name,
            topicId: topic.topicId,
            partitionStates: partitions.map((p) => ({
              partitionIndex: p,
              controllerEpoch: this.epoch,
              leader: LEADER_DURING_DELETE,
              leaderEpoch: 0,
              isr: [],
              zkVersion: 0,
              replicas: [],
              offlineReplicas: [],
            })),
          },
        ]);
        this.forgetTopic(name);
      }
      await this.zk.deleteTopicZNodes(name, this.epochZkVersion);
    }
  }

  /**
   * ControlledShutdown from broker `id`: moves its leaderships to other live ISR members and takes it out
   * of the ISRs, then answers with the partitions it still leads that another ISR member could have taken.
   */
  async controlledShutdown(id: number, brokerEpoch: number): Promise<ControlledShutdownResult> {
    const result = await this.enqueue('controlled-shutdown', async (): Promise<ControlledShutdownResult> => {
      const broker = this.live.get(id);
      if (!broker) return { errorCode: ErrorCode.BROKER_NOT_AVAILABLE, remainingPartitions: [] };
      if (brokerEpoch !== -1 && brokerEpoch < broker.epoch) return { errorCode: ErrorCode.STALE_BROKER_EPOCH, remainingPartitions: [] };
      this.shuttingDown.add(id);
      const changed: string[] = [];
      const stopped: string[] = [];
      for (const [key, state] of this.states) {
        const [topic, p] = splitPartitionKey(key);
        const replicas = this.topics.get(topic)?.assignment.get(p) ?? [];
        if (!replicas.includes(id) || replicas.length < 2) continue;
        if (state.leader === id) {
          const leader = controlledShutdownLeader(replicas, state.isr, (b) => this.live.has(b), this.shuttingDown);
          if (leader === -1) continue;
          const next = { ...state, leader, isr: state.isr.filter((r) => r !== id), leaderEpoch: state.leaderEpoch + 1, controllerEpoch: this.epoch };
          if (await this.writeState(topic, p, state, next)) changed.push(key);
        } else if (state.isr.includes(id)) {
          const next = { ...state, isr: isrWithout(state.isr, id), leaderEpoch: state.leaderEpoch + 1, controllerEpoch: this.epoch };
          if (await this.writeState(topic, p, state, next)) changed.push(key);
          stopped.push(key);
        }
      }
      await this.announce(changed, false);
      if (stopped.length > 0) await this.sendStopReplica(id, stopped);
      const remainingPartitions: ControlledShutdownResult['remainingPartitions'] = [];
      for (const [key, state] of this.states) {
        if (state.leader !== id || !state.isr.some((r) => r !== id && this.live.has(r))) continue;
        const [topicName, partitionIndex] = splitPartitionKey(key);
        remainingPartitions.push({ topicName, partitionIndex });
      }
      this.log.info({ broker: id, moved: changed.length, remaining: remainingPartitions.length }, 'controlled shutdown');
      return { errorCode: ErrorCode.NONE, remainingPartitions };
    });
    return result ?? { errorCode: ErrorCode.NOT_CONTROLLER, remainingPartitions: [] };
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
    const result = await this.enqueue('alter-partition', async (): Promise<AlterPartitionResult> => {
      const broker = this.live.get(req.brokerId);
      if (!broker || (req.brokerEpoch !== -1 && req.brokerEpoch !== broker.epoch))
        return { throttleTimeMs: 0, errorCode: ErrorCode.STALE_BROKER_EPOCH, topics: [] };
      const ineligible = req.apiVersion >= 2 ? ErrorCode.INELIGIBLE_REPLICA : ErrorCode.OPERATION_NOT_ATTEMPTED;
      const eligible = (b: { brokerId: number; brokerEpoch: number }) =>
        this.live.has(b.brokerId) && !this.shuttingDown.has(b.brokerId) && (b.brokerEpoch === -1 || b.brokerEpoch === this.live.get(b.brokerId)!.epoch);
      const changed: string[] = [];
      const stale: string[] = [];
      const topics: AlterPartitionResult['topics'] = [];
      for (const t of req.topics) {
        const name = t.topicName ?? [...this.topics].find(([, topic]) => t.topicId && topic.topicId.equals(t.topicId))?.[0];
        const topic = name === undefined ? undefined : this.topics.get(name);
        const partitions: AlterPartitionResult['topics'][number]['partitions'] = [];
        for (const item of t.partitions) {
          const key = name === undefined ? '' : partitionKey(name, item.partitionIndex);
          const state = this.states.get(key);
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
          } else if (
            !isr.includes(state.leader) ||
            new Set(isr).size !== isr.length ||
            item.newIsr.some((b) => !replicas.includes(b.brokerId) || !eligible(b))
          ) {
            answer(ineligible);
          } else if (isr.length === state.isr.length && isr.every((r) => state.isr.includes(r))) {
            answer(ErrorCode.NONE, state);
          } else if (await this.writeState(name, item.partitionIndex, state, { ...state, isr, controllerEpoch: this.epoch })) {
            changed.push(key);
            this.log.info({ topic: name, partition: item.partitionIndex, from: state.isr, to: isr }, 'ISR changed');
            answer(ErrorCode.NONE, this.states.get(key));
          } else {
            stale.push(key);
            answer(ErrorCode.INVALID_UPDATE_VERSION);
          }
        }
        topics.push({ topicName: name ?? t.topicName ?? '', topicId: topic?.topicId ?? t.topicId ?? Buffer.alloc(16), partitions });
      }
      if (changed.length > 0) {
        await this.onIsrChanged(changed);
        await this.sendUpdateMetadata([...this.live.keys()], changed);
      }
      if (stale.length > 0) await this.sendLeaderAndIsr(req.brokerId, stale, false);
      return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, topics };
    });
    return result ?? { throttleTimeMs: 0, errorCode: ErrorCode.NOT_CONTROLLER, topics: [] };
  }

  /**
   * An unclean election for a partition with no live ISR member, when the topic's (or the broker default's)
   * unclean.leader.election.enable allows it: the first live replica leads, alone in the ISR. Null otherwise.
   */
  private async uncleanElection(topic: string, p: number, replicas: number[], next: PartitionLeadership): Promise<PartitionLeadership | null> {
    const leader = replicas.find((b) => this.live.has(b) && !this.shuttingDown.has(b)) ?? -1;
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
      if (this.states.has(partitionKey(name, p))) continue;
      const live = (topic.assignment.get(p) ?? []).filter((b) => this.live.has(b));
      if (live.length === 0) continue;
      fresh.set(p, { leader: live[0], leaderEpoch: 0, isr: live, controllerEpoch: this.epoch });
    }
    if (fresh.size === 0) return [];
    await this.zk.createPartitionStates(name, fresh, this.epochZkVersion);
    const keys: string[] = [];
    for (const [p, s] of fresh) {
      this.states.set(partitionKey(name, p), { ...s, zkVersion: 0 });
      keys.push(partitionKey(name, p));
    }
    return keys;
  }

  /** Writes a partition's new state (fenced); false when the znode moved on (it is re-read). */
  private async writeState(topic: string, p: number, current: PartitionState, next: PartitionLeadership): Promise<boolean> {
    try {
      const zkVersion = await this.zk.updatePartitionState(topic, p, next, current.zkVersion, this.epochZkVersion);
      this.states.set(partitionKey(topic, p), {
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
      if (fresh) this.states.set(partitionKey(topic, p), fresh);
      return false;
    }
  }

  private forgetTopic(name: string): void {
    const topic = this.topics.get(name);
    if (!topic) return;
    for (const p of topic.assignment.keys()) this.states.delete(partitionKey(name, p));
    this.topics.delete(name);
  }

  // --- requests to brokers ------------------------------------------------------------------------------

  /** Tells the replicas of `keys` their roles, and every live broker the new metadata. */
  private async announce(keys: string[], isNew: boolean): Promise<void> {
    if (keys.length === 0) return;
    await this.sendLeaderAndIsrFor(keys, [], isNew);
    await this.sendUpdateMetadata([...this.live.keys()], keys);
  }

  private async sendLeaderAndIsrFor(keys: string[], except: number[], isNew = false): Promise<void> {
    const byBroker = new Map<number, string[]>();
    for (const key of keys) {
      const [topic, p] = splitPartitionKey(key);
      for (const r of this.topics.get(topic)?.assignment.get(p) ?? []) {
        if (!this.live.has(r) || except.includes(r)) continue;
        const list = byBroker.get(r) ?? [];
        list.push(key);
        byBroker.set(r, list);
      }
    }
    await Promise.all([...byBroker].map(([id, list]) => this.sendLeaderAndIsr(id, list, isNew)));
  }

  private partitionsWithReplica(id: number): string[] {
    return [...this.states.keys()].filter((key) => {
      const [topic, p] = splitPartitionKey(key);
      return this.topics.get(topic)?.assignment.get(p)?.includes(id);
    });
  }

  private allPartitions(): string[] {
    return [...this.states.keys()];
  }

  /** Groups partition keys by topic, in a stable order. */
  private byTopic(keys: string[]): Map<string, number[]> {
    const grouped = new Map<string, number[]>();
    for (const key of keys.sort()) {
      const [topic, p] = splitPartitionKey(key);
      const list = grouped.get(topic) ?? [];
      list.push(p);
      grouped.set(topic, list);
    }
    return grouped;
  }

  /**
   * The topic states of a LeaderAndIsr or UpdateMetadata for `keys`, by topic, each partition as `describe`
   * puts it for that request from its state and replicas.
   */
  private topicStates<T>(
    keys: string[],
    describe: (p: number, s: PartitionState, replicas: number[]) => T,
  ): { topicName: string; topicId: Buffer; partitionStates: T[] }[] {
    const topicStates = [];
    for (const [topicName, partitions] of this.byTopic(keys)) {
      const topic = this.topics.get(topicName);
      if (!topic) continue;
      topicStates.push({
        topicName,
        topicId: topic.topicId,
        partitionStates: partitions.map((p) => describe(p, this.states.get(partitionKey(topicName, p))!, topic.assignment.get(p) ?? [])),
      });
    }
    return topicStates;
  }

  private async sendLeaderAndIsr(id: number, keys: string[], isNew: boolean): Promise<void> {
    const topicStates = this.topicStates(keys, (p, s, replicas) => ({
      partitionIndex: p,
      controllerEpoch: s.controllerEpoch,
      leader: s.leader,
      leaderEpoch: s.leaderEpoch,
      isr: s.isr,
      partitionEpoch: s.zkVersion,
      replicas,
      addingReplicas: [],
      removingReplicas: [],
      isNew,
      leaderRecoveryState: 0,
    }));
    const leaders = new Set<number>();
    for (const key of keys) leaders.add(this.states.get(key)!.leader);
    await this.send(id, API_KEYS.LeaderAndIsr, INTER_BROKER_VERSIONS.LeaderAndIsr, {
      controllerId: this.options.brokerId,
      isKRaftController: false,
      controllerEpoch: this.epoch,
      brokerEpoch: this.live.get(id)?.epoch ?? -1,
      type: keys.length === this.partitionsWithReplica(id).length ? 1 : 0,
      topicStates,
      liveLeaders: [...leaders].filter((l) => this.live.has(l)).map((l) => ({ brokerId: l, hostName: this.live.get(l)!.host, port: this.live.get(l)!.port })),
    });
  }

  /** UpdateMetadata of `keys`; with every partition, marked as Kafka's full snapshot (type 2). */
  private async sendUpdateMetadata(to: number[], keys: string[]): Promise<void> {
    const topicStates = this.topicStates(keys, (p, s, replicas) => ({
      partitionIndex: p,
      controllerEpoch: s.controllerEpoch,
      leader: s.leader,
      leaderEpoch: s.leaderEpoch,
      isr: s.isr,
      zkVersion: s.zkVersion,
      replicas,
      offlineReplicas: replicas.filter((r) => !this.live.has(r)),
    }));
    await this.sendUpdateMetadataRaw(to, topicStates, keys.length === this.states.size ? UPDATE_FULL : UPDATE_INCREMENTAL);
  }

  private async sendUpdateMetadataRaw(to: number[], topicStates: UpdateMetadataTopicStates, type = UPDATE_INCREMENTAL): Promise<void> {
    const liveBrokers = [...this.live.values()]
      .sort((a, b) => a.id - b.id)
      .map((b) => ({
        id: b.id,
        endpoints: [{ port: b.port, host: b.host, listener: 'PLAINTEXT', securityProtocol: 0 }],
        rack: b.rack,
      }));
    await Promise.all(
      to.map((id) =>
        this.send(id, API_KEYS.UpdateMetadata, INTER_BROKER_VERSIONS.UpdateMetadata, {
          controllerId: this.options.brokerId,
          isKRaftController: false,
          controllerEpoch: this.epoch,
          brokerEpoch: this.live.get(id)?.epoch ?? -1,
          type,
          topicStates,
          liveBrokers,
        }),
      ),
    );
  }

  private async sendStopReplica(id: number, keys: string[], deletePartition = false): Promise<void> {
    await this.send(id, API_KEYS.StopReplica, INTER_BROKER_VERSIONS.StopReplica, {
      controllerId: this.options.brokerId,
      controllerEpoch: this.epoch,
      brokerEpoch: this.live.get(id)?.epoch ?? -1,
      deletePartitions: deletePartition,
      topicStates: [...this.byTopic(keys)].map(([topicName, partitions]) => ({
        topicName,
        partitionStates: partitions.map((p) => ({
          partitionIndex: p,
          leaderEpoch: this.states.get(partitionKey(topicName, p))?.leaderEpoch ?? -1,
          deletePartition,
        })),
      })),
    });
  }

  private openChannel(id: number): void {
    const broker = this.live.get(id)!;
    const existing = this.channels.get(id);
    if (existing?.epoch === broker.epoch) return;
    existing?.client.close();
    this.channels.set(id, {
      epoch: broker.epoch,
      client: new BrokerClient({
        host: broker.host,
        port: broker.port,
        clientId: `krill-controller-${this.options.brokerId}`,
        requestTimeoutMs: this.options.requestTimeoutMs,
        log: this.log,
      }),
      queue: Promise.resolve(),
      queued: 0,
    });
  }

  private closeChannel(id: number): void {
    this.channels.get(id)?.client.close();
    this.channels.delete(id);
  }

  /**
   * One request to a live broker, queued behind the others to that broker and delivered in order (Kafka's
   * per-broker RequestSendThread): events never wait for a broker, so a stalled one (a paused process, which
   * keeps its connection and answers nothing) delays only its own requests until ZooKeeper declares it dead
   * and its channel closes. Each is tried a few times (the broker may still be binding its port), then
   * logged and given up: the broker catches up at the next change it is sent.
   */
  private send<K extends ControllerApi>(id: number, apiKey: K, version: number, body: RequestInputOf<MessageFor<K>>): Promise<void> {
    const channel = this.channels.get(id);
    if (!channel || !this.active) return Promise.resolve();
    if (channel.queued >= MAX_QUEUED_PER_BROKER) {
      this.log.warn({ broker: id, apiKey }, 'too many controller requests queued for a broker that does not answer; dropping one');
      return Promise.resolve();
    }
    channel.queued++;
    channel.queue = channel.queue
      .then(() => this.deliver(id, channel, apiKey, version, body))
      .finally(() => {
        channel.queued--;
      });
    return Promise.resolve();
  }

  private async deliver<K extends ControllerApi>(id: number, channel: Channel, apiKey: K, version: number, body: RequestInputOf<MessageFor<K>>): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      if (this.channels.get(id) !== channel || !this.active) return;
      try {
        // Each controller request's response has a top-level errorCode (ControllerApi).
        const response = (await channel.client.send(apiKey, version, body)) as { errorCode: number };
        if (response.errorCode) this.log.warn({ broker: id, apiKey, errorCode: response.errorCode }, 'broker refused a controller request');
        return;
      } catch (err) {
        if (attempt >= SEND_ATTEMPTS || this.channels.get(id) !== channel) {
          if (this.channels.get(id) === channel) this.log.warn({ broker: id, apiKey, err: (err as Error).message }, 'could not reach broker');
          return;
        }
        await sleep(SEND_RETRY_MS * attempt);
      }
    }
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
      const current = this.states.get(key);
      const next = current && change(current);
      if (!current || !next) return false;
      if (await this.writeState(topic, p, current, next)) return true;
    }
    return false;
  }

  private async reloadState(key: string, watch?: () => void): Promise<PartitionState | undefined> {
    const [topic, p] = splitPartitionKey(key);
    const state = await this.zk.getPartitionState(topic, p, watch);
    if (!state || !this.topics.has(topic)) return undefined;
    this.states.set(key, state);
    return state;
  }

  /** What controller-elections.ts and controller-reassignments.ts use of this controller. */
  private core(): ControllerCore {
    // The returned object's getters have their own `this`.
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const controller = this;
    return {
      get zk() {
        return controller.zk;
      },
      get log() {
        return controller.log;
      },
      get epoch() {
        return controller.epoch;
      },
      get epochZkVersion() {
        return controller.epochZkVersion;
      },
      enqueue: (name, fn) => this.enqueue(name, fn),
      isLive: (id) => this.live.has(id),
      isOnline: (id) => this.live.has(id) && !this.shuttingDown.has(id),
      onlineBrokerIds: () => [...this.live.keys()].filter((id) => !this.shuttingDown.has(id)),
      partitionKeys: () => [...this.states.keys()],
      state: (key) => this.states.get(key),
      replicas: (key) => {
        const [topic, p] = splitPartitionKey(key);
        return this.topics.get(topic)?.assignment.get(p);
      },
      setReplicas: (key, replicas) => {
        const [topic, p] = splitPartitionKey(key);
        this.topics.get(topic)?.assignment.set(p, [...replicas]);
      },
      topicId: (topic) => this.topics.get(topic)?.topicId,
      topicReplicas: (topic) => this.topics.get(topic)?.assignment,
      updateState: (key, change) => this.updateState(key, change),
      reloadState: (key, watch) => this.reloadState(key, watch),
      announce: (keys, isNew) => this.announce(keys, isNew),
      sendStopReplica: (id, keys, deletePartition) => this.sendStopReplica(id, keys, deletePartition),
    };
  }
}
