// The elections the controller holds besides failover ones (leader-election-algorithms.ts makes the choices), as
// Kafka's ZooKeeper-mode KafkaController does them:
// - ElectLeaders (API 43): a preferred election for partitions not led by their preferred replica (the others:
//   ELECTION_NOT_NEEDED), or an unclean one for partitions without a live leader (the others likewise); a
//   partition whose candidate cannot lead gets PREFERRED_LEADER_NOT_AVAILABLE / ELIGIBLE_LEADERS_NOT_AVAILABLE,
//   an unknown one UNKNOWN_TOPIC_OR_PARTITION. Each new leader is written to the partition's state znode
//   (fenced, next leader epoch), then LeaderAndIsr goes to its replicas and UpdateMetadata to every broker.
// - The automatic leader balance (auto.leader.rebalance.enable): while this broker is the controller, a check
//   5 s after it took over (Kafka's fixed first delay) and then every leader.imbalance.check.interval.seconds;
//   resigning stops it.

import { ErrorCode } from '../../protocol/errors.js';
import { type ControllerCore, type PartitionState } from './controller-core.js';
import { ElectionType, imbalancedPartitions, preferredReplicaLeader, uncleanElection } from './leader-election-algorithms.js';
import type { PartitionLeadership } from './zk/kafka-zk.js';
import { splitPartitionKey } from '../topic-partition.js';

/** Kafka's delay of the first balance check after a controller takes over. */
const FIRST_BALANCE_CHECK_MS = 5000;
/** setTimeout's longest delay; a longer interval (about 25 days) is checked this often instead. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface ElectionResult {
  errorCode: number;
  errorMessage: string | null;
  /** The leader elected (errorCode NONE only). */
  leader?: number;
}

/** auto.leader.rebalance.enable and its two settings. */
export interface LeaderBalanceConfig {
  enable: boolean;
  checkIntervalMs: number;
  /** leader.imbalance.per.broker.percentage. */
  imbalancePercentage: number;
}

export class ControllerElections {
  private timer: NodeJS.Timeout | null = null;
  /** Bumped by start() and stop(), so that a check that was running when the controller resigned schedules no other. */
  private term = 0;

  constructor(
    private readonly core: ControllerCore,
    private readonly balance: LeaderBalanceConfig,
  ) {}

  /** ElectLeaders of `keys` (each answered once); runs inside a controller event. */
  async electLeaders(type: number, keys: readonly string[]): Promise<Map<string, ElectionResult>> {
    const results = new Map<string, ElectionResult>();
    const electable: string[] = [];
    for (const key of new Set(keys)) {
      const replicas = this.core.replicas(key);
      if (!replicas) {
        results.set(key, { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: 'The partition does not exist.' });
        continue;
      }
      const leader = this.core.state(key)?.leader ?? -1;
      const needed = type === ElectionType.PREFERRED ? leader !== replicas[0] : leader === -1 || !this.core.isLive(leader);
      if (needed) electable.push(key);
      else results.set(key, { errorCode: ErrorCode.ELECTION_NOT_NEEDED, errorMessage: null });
    }
    for (const [key, result] of await this.elect(type, electable)) results.set(key, result);
    return results;
  }

  /** The elections themselves: each partition's new state written, then all announced together. */
  private async elect(type: number, keys: readonly string[]): Promise<Map<string, ElectionResult>> {
    const results = new Map<string, ElectionResult>();
    const elected: string[] = [];
    const online = (id: number) => this.core.isOnline(id);
    for (const key of keys) {
      const replicas = this.core.replicas(key) ?? [];
      let leader = -1;
      const written = await this.core.updateState(key, (s: PartitionState): PartitionLeadership | null => {
        const next =
          type === ElectionType.PREFERRED ? { leader: preferredReplicaLeader(replicas, s.isr, online), isr: s.isr } : uncleanElection(replicas, s.isr, online);
        leader = next.leader;
        if (leader === -1) return null;
        return { leader, isr: next.isr, leaderEpoch: s.leaderEpoch + 1, controllerEpoch: this.core.epoch };
      });
      if (written) {
        elected.push(key);
        results.set(key, { errorCode: ErrorCode.NONE, errorMessage: null, leader });
        continue;
      }
      const [topic, p] = splitPartitionKey(key);
      results.set(
        key,
        type === ElectionType.PREFERRED
          ? {
              errorCode: ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE,
              errorMessage: `Failed to elect leader for partition ${topic}-${p} under strategy PreferredReplicaPartitionLeaderElectionStrategy`,
            }
          : {
              errorCode: ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE,
              errorMessage: `Failed to elect leader for partition ${topic}-${p} under strategy OfflinePartitionLeaderElectionStrategy(true)`,
            },
      );
    }
    if (elected.length > 0) {
      this.core.log.info(
        { type: type === ElectionType.PREFERRED ? 'preferred' : 'unclean', partitions: elected.map((k) => splitPartitionKey(k).join('-')) },
        'elected leaders',
      );
      await this.core.announce(elected, false);
    }
    return results;
  }

  // --- automatic leader balance ---------------------------------------------------------------------------

  /** The controller took over: the balance checks begin (when enabled). */
  start(): void {
    this.stop();
    if (this.balance.enable) this.schedule(FIRST_BALANCE_CHECK_MS, this.term);
  }

  /** The controller resigned (or the broker stops). */
  stop(): void {
    this.term++;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(delayMs: number, term: number): void {
    this.timer = setTimeout(
      () => {
        this.timer = null;
        void this.core
          .enqueue('auto-leader-balance', () => this.checkAndTriggerAutoRebalance())
          .finally(() => {
            if (this.term === term) this.schedule(this.balance.checkIntervalMs, term);
          });
      },
      Math.min(delayMs, MAX_TIMER_MS),
    );
    this.timer.unref();
  }

  /** Kafka's checkAndTriggerAutoLeaderRebalance: preferred elections where a broker leads too few of the partitions preferring it. */
  async checkAndTriggerAutoRebalance(): Promise<void> {
    const views = [];
    for (const key of this.core.partitionKeys()) {
      const replicas = this.core.replicas(key);
      const state = this.core.state(key);
      if (replicas && state) views.push({ key, replicas, leader: state.leader });
    }
    const online = (id: number) => this.core.isOnline(id);
    const candidates = imbalancedPartitions(views, this.balance.imbalancePercentage).filter((key) => {
      const state = this.core.state(key);
      return !!state && preferredReplicaLeader(this.core.replicas(key) ?? [], state.isr, online) !== -1;
    });
    if (candidates.length > 0) await this.elect(ElectionType.PREFERRED, candidates);
  }
}
