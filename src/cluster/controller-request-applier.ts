// How a broker of a cluster applies the controller's requests: UpdateMetadata fills the metadata cache;
// LeaderAndIsr makes this broker leader of some partitions (Produce and Fetch are served only then) and a
// follower of others; StopReplica stops both, and with delete removes a deleted topic's logs. The partitions'
// side (roles, epochs, emptying a moved replica) is the ReplicaManager's; this module keeps the topics' logs
// in step with the cluster and the requests in order. Requests from an older controller epoch, or for an older
// registration of this broker (its epoch), are refused as Kafka refuses them.
//
// Every broker keeps a log directory for every partition of every topic, created when the controller first
// names the topic (configs read from /config/topics): those it does not replicate stay empty. This keeps one
// topic list per data dir, whatever the placement; DescribeLogDirs lists only the replicas it holds. A local
// topic the cluster does not have (deleted while this broker was away, or older than its joining) is set
// aside as stray directories, never deleted.

import type { Logger } from '../logger.js';
import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import { MAX_PARTITIONS_PER_TOPIC, type LogManager } from '../storage/log-manager.js';
import type { ReplicaManager, StopReplicaState } from '../partition/replica-manager.js';
import { interBrokerEndpoint, type BrokerEndpoint, type ListenerEndpoint } from './cluster-view.js';
import { SECURITY_PROTOCOLS } from '../listeners.js';
import { UPDATE_FULL } from './controller-channel-manager.js';
import { LEADER_DURING_DELETE, type MetadataCache, type TopicStateUpdate } from './metadata-cache.js';

export interface ControllerRequestApplierOptions {
  logs: LogManager;
  replicas: ReplicaManager;
  cache: MetadataCache;
  log: Logger;
  /** This broker's registration epoch: requests for an older one are stale. */
  brokerEpoch: () => number;
  /** A topic's configs as ZooKeeper has them ({} without a session), for its new local logs. */
  topicConfigs: (name: string) => Promise<Record<string, string>>;
  /** The listener brokers talk to each other on: each cached broker's address is its endpoint there. */
  interBrokerListener: string;
}

export interface UpdateMetadataData {
  controllerId: number;
  controllerEpoch: number;
  brokerEpoch: number;
  type: number;
  topicStates: TopicStateUpdate[];
  /** securityProtocol: Kafka's SecurityProtocol id (0 PLAINTEXT, 1 SSL, 2 SASL_PLAINTEXT, 3 SASL_SSL). */
  liveBrokers: { id: number; endpoints: { host: string; port: number; listener: string; securityProtocol: number }[]; rack: string | null }[];
}

export interface LeaderAndIsrData {
  controllerEpoch: number;
  brokerEpoch: number;
  topicStates: {
    topicName: string;
    topicId: Buffer;
    partitionStates: { partitionIndex: number; leader: number; leaderEpoch: number; isr: number[]; replicas: number[]; partitionEpoch: number }[];
  }[];
  liveLeaders?: { brokerId: number; hostName: string; port: number }[];
}

export interface StopReplicaData {
  controllerEpoch: number;
  brokerEpoch: number;
  topicStates: { topicName: string; partitionStates: StopReplicaState[] }[];
}

export class ControllerRequestApplier {
  /** Requests are applied one after the other (creating a topic reads ZooKeeper first). */
  private applying: Promise<unknown> = Promise.resolve();
  /** Where the leaders named by LeaderAndIsr listen (they may precede the UpdateMetadata naming them). */
  private readonly leaderEndpoints = new Map<number, { host: string; port: number }>();

  constructor(private readonly options: ControllerRequestApplierOptions) {}

  /** Where broker `id` listens, as a LeaderAndIsr named it among its live leaders. */
  leaderEndpoint(id: number): { host: string; port: number } | undefined {
    return this.leaderEndpoints.get(id);
  }

  /** UpdateMetadata: local logs for topics new to this broker, then the cache. Returns the error code. */
  applyUpdateMetadata(req: UpdateMetadataData): Promise<number> {
    return this.serially(async () => {
      const stale = this.staleness(req.controllerEpoch, req.brokerEpoch);
      if (stale !== null) return stale;
      for (const t of req.topicStates) {
        if (t.partitionStates.length === 0 || t.partitionStates.some((p) => p.leader === LEADER_DURING_DELETE)) continue;
        await this.ensureLocalTopic(t.topicName, t.topicId, partitionCount(t.partitionStates));
      }
      if (req.type === UPDATE_FULL) this.setStrayTopicsAside(new Set(req.topicStates.map((t) => t.topicName)));
      const brokers = req.liveBrokers.map((b): BrokerEndpoint => {
        const endpoints = b.endpoints.map((e): ListenerEndpoint => ({
          listener: e.listener,
          securityProtocol: SECURITY_PROTOCOLS[e.securityProtocol] ?? 'PLAINTEXT',
          host: e.host,
          port: e.port,
        }));
        return { nodeId: b.id, ...interBrokerEndpoint(endpoints, this.options.interBrokerListener), rack: b.rack, endpoints };
      });
      this.options.cache.update(req.controllerId, req.controllerEpoch, brokers, req.topicStates);
      return ErrorCode.NONE;
    });
  }

  /** LeaderAndIsr: this broker's role for each partition named. Returns the top-level and per-partition codes. */
  applyLeaderAndIsr(
    req: LeaderAndIsrData,
  ): Promise<{ errorCode: number; partitions: { topicName: string; topicId: Buffer; partitionIndex: number; errorCode: number }[] }> {
    return this.serially(async () => {
      const stale = this.staleness(req.controllerEpoch, req.brokerEpoch);
      if (stale !== null) return { errorCode: stale, partitions: [] };
      for (const l of req.liveLeaders ?? []) this.leaderEndpoints.set(l.brokerId, { host: l.hostName, port: l.port });
      const { replicas } = this.options;
      const partitions = [];
      for (const t of req.topicStates) {
        if (t.partitionStates.length === 0) continue;
        await this.ensureLocalTopic(t.topicName, t.topicId, partitionCount(t.partitionStates));
        for (const p of t.partitionStates) {
          const partition = replicas.partition(t.topicName, p.partitionIndex);
          const errorCode = partition
            ? replicas.becomeLeaderOrFollower(partition, {
                leaderId: p.leader,
                leaderEpoch: p.leaderEpoch,
                replicas: p.replicas,
                isr: p.isr,
                partitionEpoch: p.partitionEpoch,
              })
            : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
          partitions.push({ topicName: t.topicName, topicId: t.topicId, partitionIndex: p.partitionIndex, errorCode });
        }
      }
      return { errorCode: ErrorCode.NONE, partitions };
    });
  }

  /** StopReplica (see ReplicaManager.stopReplicas). Returns the top-level and per-partition codes. */
  applyStopReplica(req: StopReplicaData): Promise<{ errorCode: number; partitions: { topicName: string; partitionIndex: number; errorCode: number }[] }> {
    return this.serially(async () => {
      const stale = this.staleness(req.controllerEpoch, req.brokerEpoch);
      if (stale !== null) return { errorCode: stale, partitions: [] };
      const { log, replicas } = this.options;
      const partitions = [];
      for (const t of req.topicStates) {
        const stopped = replicas.stopReplicas(t.topicName, t.partitionStates);
        if (stopped.deletedTopic) log.info({ topic: t.topicName }, "deleted topic on the controller's request");
        for (const { partitionIndex, errorCode, emptied } of stopped.partitions) {
          if (emptied === true) log.info({ topic: t.topicName, partition: partitionIndex }, 'emptied the log of a replica moved away by a reassignment');
          else if (emptied === false) log.warn({ topic: t.topicName, partition: partitionIndex }, 'could not empty the log of a replica moved away');
          partitions.push({ topicName: t.topicName, partitionIndex, errorCode });
        }
      }
      return { errorCode: ErrorCode.NONE, partitions };
    });
  }

  private staleness(controllerEpoch: number, brokerEpoch: number): number | null {
    const { replicas, cache } = this.options;
    return replicas.controllerRequestStaleness(controllerEpoch, brokerEpoch, {
      brokerEpoch: this.options.brokerEpoch(),
      controllerEpoch: cache.controllerEpoch,
    });
  }

  private serially<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.applying.then(fn);
    this.applying = run.catch(() => undefined);
    return run;
  }

  /**
   * The topic's local logs, as the cluster has it: created (configs from ZooKeeper) when missing, grown when
   * it has more partitions, replaced when the local one is a namesake deleted while this broker was away.
   */
  private async ensureLocalTopic(name: string, topicId: Buffer, partitions: number): Promise<void> {
    const { logs } = this.options;
    if (partitions > MAX_PARTITIONS_PER_TOPIC) {
      throw new KafkaError('INVALID_PARTITIONS', `Topic '${name}' would have ${partitions} partitions, above krill's limit of ${MAX_PARTITIONS_PER_TOPIC}.`);
    }
    let local = logs.getTopic(name);
    if (local && !local.topicId.equals(topicId)) {
      this.setLocalTopicAside(name, local.partitions, "the cluster's topic of this name has another topic id");
      local = undefined;
    }
    if (!local) {
      const configs = await this.options.topicConfigs(name);
      if (logs.getTopic(name)) return;
      logs.createTopic(name, partitions, configs, topicId);
      this.options.log.info({ topic: name, partitions }, 'created topic logs');
    } else if (local.partitions < partitions) {
      logs.addPartitions(name, partitions);
    }
  }

  /**
   * A full metadata snapshot (sent when this broker joins, or a controller takes over) names every topic of
   * the cluster. A local topic it lacks was deleted while this broker was away, or was created before this
   * data dir joined the cluster: either way its directories are set aside as strays (kept on disk, named in
   * a warning, for an operator to remove), never deleted, since nothing here proves which.
   */
  private setStrayTopicsAside(cluster: ReadonlySet<string>): void {
    for (const topic of this.options.logs.topics()) {
      if (!cluster.has(topic.name)) this.setLocalTopicAside(topic.name, topic.partitions, 'the cluster has no such topic');
    }
  }

  private setLocalTopicAside(name: string, partitions: number, why: string): void {
    const { logs, replicas } = this.options;
    const old = Array.from({ length: partitions }, (_, p) => replicas.partition(name, p)).filter((p) => p !== undefined);
    try {
      logs.setTopicAside(name, why);
    } finally {
      replicas.partitionsRemoved(old);
    }
  }
}

/** The partitions a topic has at least, by the highest index a controller request names (never empty). */
function partitionCount(states: readonly { partitionIndex: number }[]): number {
  return states.reduce((n, p) => Math.max(n, p.partitionIndex + 1), 0);
}
