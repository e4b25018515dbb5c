// A broker's membership of a ZooKeeper-coordinated cluster (zookeeper.connect set), as a Kafka 2.8-3.x
// broker in ZooKeeper mode: its session, its registration under /brokers/ids, its candidacy for controller,
// and how it applies what the controller tells it. Loaded only in that mode (Broker.start imports it lazily),
// so a single broker never loads a ZooKeeper client.
//
// - Start: connect (giving up after zookeeper.connection.timeout.ms), create Kafka's persistent paths, agree
//   on the cluster id (/cluster/id against meta.properties: a data dir of another cluster refuses to
//   start), register (an id already registered refuses to start), then run for controller.
// - The session expires (ZooKeeper lost for longer than zookeeper.session.timeout.ms): the controller role
//   is dropped at once, and the broker reconnects, registers again and runs again, with backoff, until it
//   can. Its logs are untouched meanwhile: losing ZooKeeper never loses data.
// - From the controller: UpdateMetadata fills the metadata cache; LeaderAndIsr makes this broker leader of
//   some partitions (Produce and Fetch are served only then) and a follower of others (the replica fetcher
//   copies them from their leader, replica-fetcher.ts); StopReplica stops both, and with delete removes a
//   deleted topic's logs. Requests from an older controller epoch, or for an older registration of this
//   broker (its epoch, the registration znode's czxid), are refused as Kafka refuses them.
// - As a leader it asks the controller for ISR changes (AlterPartition): every replica.lag.time.max.ms / 2 it
//   looks for followers that fell behind, and a follower's fetch that catches up asks at once.
// - Every broker keeps a log directory for every partition of every topic, created when the controller first
//   names the topic (configs read from /config/topics): those it does not replicate stay empty. This keeps
//   one topic list per data dir, whatever the placement; DescribeLogDirs lists only the replicas it holds.
//   A local topic the cluster does not have (deleted while this broker was away, or older than its joining)
//   is set aside as stray directories, never deleted.

import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../logger.js';
import type { BrokerConfig } from '../config.js';
import { MAX_PARTITIONS_PER_TOPIC, type LogManager } from '../storage/log-manager.js';
import type { ReplicaManager } from '../partition/replica-manager.js';
import type { BrokerEndpoint, ClusterView, PartitionMetadata } from './cluster-view.js';
import type { CoordinatorElections, CoordinatorOwnership } from './coordinator-guard.js';
import { markerKey, type TxnMarker } from '../txn/markers.js';
import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import { MetadataCache, LEADER_DURING_DELETE, type TopicStateUpdate } from './metadata-cache.js';
import { Controller } from './controller.js';
import { UPDATE_FULL } from './controller-channel-manager.js';
import type { ElectionResult, LeaderBalanceConfig } from './controller-elections.js';
import type { OngoingReassignment, ReassignmentRequest, ReassignmentResult } from './controller-reassignments.js';
import { ZkClient, ZkError } from './zk/zk-client.js';
import { KafkaZk } from './zk/kafka-zk.js';
import { BROKER_DEFAULT_ENTITY } from './zk/znodes.js';
import { BrokerClient, INTER_BROKER_VERSIONS } from './broker-client.js';
import { API_KEYS } from '../../protocol/messages/index.js';
import { ReplicaFetcherManager } from './replica-fetcher.js';
import type { Partition } from '../partition/partition.js';
import type { AlterPartitionRequestData, AlterPartitionResult, ControlledShutdownResult } from './controller-broker-requests.js';
import { randomKafkaUuid, writeMetaProperties } from '../storage/meta-properties.js';
import { OFFSETS_TOPIC } from '../group/offsets-topic.js';
import { partitionForGroup } from '../group/records.js';
import { TRANSACTION_STATE_TOPIC, partitionForTransactionalId } from '../txn/state-topic.js';
import { partitionKey } from '../topic-partition.js';
import type { ControllerRequests, PartitionElections, PartitionResult } from './cluster-services.js';

/** Kafka's LeaderAndIsr.EpochDuringDelete: StopReplica's leader epoch for the partitions of a topic being deleted. */
const EPOCH_DURING_DELETE = -2;
const ALTER_PARTITION_RETRY_MS = 1000;
const REJOIN_BACKOFF_MS = 1000;
/** Kafka's ZkNodeChangeNotificationListener.changeExpirationMs. */
const CONFIG_CHANGE_EXPIRATION_MS = 15 * 60_000;
/** Markers on their way to other brokers at once; more wait for the coordinator's next retry. */
const MAX_MARKERS_IN_FLIGHT = 10_000;
/** A stopping broker whose controller moved asks ZooKeeper again, this often and this many times. */
const CONTROLLER_LOOKUP_MS = 100;
const MAX_CONTROLLER_LOOKUPS = 50;

export interface ZkClusterOptions {
  config: BrokerConfig;
  log: Logger;
  dataDir: string;
  logs: LogManager;
  replicas: ReplicaManager;
  /** meta.properties as read (or just created) at start. */
  meta: { clusterId: string; nodeId: number; created: boolean };
  advertised: () => { host: string; port: number };
  /** The coordinators, told when this broker starts or stops leading a partition of their internal topics. */
  coordinators?: CoordinatorElections;
  /** Sets the cluster-wide dynamic broker configs ZooKeeper holds on this broker; throws when they are refused. */
  applyClusterBrokerConfigs: (configs: Record<string, string>) => void;
}

/** One partition's answer to an operator's request to the controller. */

/** The topic changes TopicAdmin makes in a cluster: through ZooKeeper and the controller. */
export interface ClusterTopics {
  liveBrokerIds(): number[];
  /** Whether the cluster has the topic (its metadata names it). */
  hasTopic(name: string): boolean;
  /** The topic's replica count (its first partition's), or undefined when unknown. */
  replicationFactor(name: string): number | undefined;
  /** A partition as the cluster's metadata has it. */
  partitionMetadata(topic: string, partition: number): PartitionMetadata | undefined;
  createTopic(name: string, assignment: number[][], configs: Record<string, string>, timeoutMs: number): Promise<Buffer>;
  deleteTopic(name: string, timeoutMs: number): Promise<void>;
  /** Adds partitions after the `current` ones (checked against ZooKeeper: INVALID_PARTITIONS if it moved on). */
  addPartitions(name: string, current: number, assignment: number[][], timeoutMs: number): Promise<void>;
  setTopicConfigs(name: string, configs: Record<string, string>): Promise<void>;
}

export class ZkCluster implements ClusterView, CoordinatorOwnership, ClusterTopics, ControllerRequests, PartitionElections {
  readonly cache = new MetadataCache();
  clusterId: string;
  brokerEpoch = -1;
  private zk: KafkaZk | null = null;
  private controller: Controller | null = null;
  private closing = false;
  /** Controller requests are applied one after the other (creating a topic reads ZooKeeper first). */
  private applying: Promise<unknown> = Promise.resolve();
  private readonly log: Logger;
  /** The config change notifications already applied (their sequence numbers), and when each was made. */
  private lastConfigChange = -1;
  private readonly configChangeTimes = new Map<string, number>();
  /** Transaction markers sent to other brokers: written there (until the coordinator takes note), or on their way. */
  private readonly markersWritten = new Set<string>();
  private readonly markersInFlight = new Set<string>();
  /** Connections to other brokers, for transaction markers and AlterPartition, one per broker endpoint. */
  private readonly peerClients = new Map<string, BrokerClient>();
  /** Whether meta.properties was created by this start and its cluster id not yet agreed with ZooKeeper. */
  private dataDirIsNew: boolean;
  /** Copies the partitions this broker follows from their leaders. */
  readonly fetchers: ReplicaFetcherManager;
  /** Where the leaders named by LeaderAndIsr listen (they may precede the UpdateMetadata naming them). */
  private readonly leaderEndpoints = new Map<number, { host: string; port: number }>();
  /** The newest controller epoch a request was accepted from (see staleness). */
  private controllerEpoch = -1;

  constructor(private readonly options: ZkClusterOptions) {
    this.clusterId = options.meta.clusterId;
    this.dataDirIsNew = options.meta.created;
    this.log = options.log.child({ component: 'cluster' });
    const { config, replicas } = options;
    this.fetchers = new ReplicaFetcherManager({
      localId: config.nodeId,
      replicas,
      log: this.log.child({ component: 'replica-fetcher' }),
      endpoint: (id) => this.cache.broker(id) ?? this.leaderEndpoints.get(id),
      config: {
        maxWaitMs: config.int('replica.fetch.wait.max.ms'),
        minBytes: config.int('replica.fetch.min.bytes'),
        partitionMaxBytes: config.int('replica.fetch.max.bytes'),
        maxBytes: config.int('replica.fetch.response.max.bytes'),
        backoffMs: config.int('replica.fetch.backoff.ms'),
        socketTimeoutMs: config.int('replica.socket.timeout.ms'),
      },
    });
    replicas.replicaLagTimeMaxMs = config.int('replica.lag.time.max.ms');
    replicas.isrChanger = (partition, isr) => this.sendAlterPartition(partition, isr);
  }

  get localNodeId(): number {
    return this.options.config.nodeId;
  }

  get controllerId(): number {
    return this.cache.controllerId;
  }

  localEndpoint(): BrokerEndpoint {
    const { host, port } = this.options.advertised();
    return { nodeId: this.localNodeId, host, port, rack: this.options.config.string('broker.rack') };
  }

  brokers(): BrokerEndpoint[] {
    return this.cache.brokers();
  }

  partitionLeader(topic: string, partition: number): number | undefined {
    return this.cache.partition(topic, partition)?.leaderId;
  }

  partitionMetadata(topic: string, partition: number): PartitionMetadata | undefined {
    return this.cache.partition(topic, partition);
  }

  liveBrokerIds(): number[] {
    return this.cache.liveBrokerIds();
  }

  hasTopic(name: string): boolean {
    return this.cache.topic(name) !== undefined;
  }

  replicationFactor(name: string): number | undefined {
    return this.cache.topic(name)?.partitions.get(0)?.replicas.length;
  }

  /** Connects, agrees on the cluster id, registers and runs for controller. Throws when the broker must not start. */
  async start(): Promise<void> {
    const { config } = this.options;
    const connect = config.zookeeperConnect!;
    const sessionTimeoutMs = config.int('zookeeper.session.timeout.ms');
    const connectionTimeoutMs = config.string('zookeeper.connection.timeout.ms') === null ? sessionTimeoutMs : config.int('zookeeper.connection.timeout.ms');
    const client = await ZkClient.connect({ connect, sessionTimeoutMs, connectionTimeoutMs, log: this.log });
    try {
      const zk = new KafkaZk(client);
      await zk.ensurePersistentPaths();
      await this.agreeOnClusterId(zk);
      await this.register(zk);
    } catch (err) {
      await client.close();
      throw err;
    }
  }

  /**
   * /cluster/id is the cluster's: a new data dir takes it, an old one of another cluster refuses to start.
   * Once agreed, the data dir is the cluster's: a rejoin (after a session expiry) proposes that id, and
   * refuses another one, as at a restart.
   */
  private async agreeOnClusterId(zk: KafkaZk): Promise<void> {
    const { meta, dataDir } = this.options;
    const clusterId = await zk.getOrCreateClusterId(this.clusterId);
    if (clusterId !== this.clusterId) {
      if (!this.dataDirIsNew) {
        throw new Error(
          `The Cluster ID ${clusterId} doesn't match stored clusterId ${this.clusterId} in meta.properties. The broker is trying to join the wrong cluster. Configured zookeeper.connect may be wrong.`,
        );
      }
      writeMetaProperties(dataDir, { clusterId, nodeId: meta.nodeId });
      this.clusterId = clusterId;
    }
    this.dataDirIsNew = false;
  }

  private async register(zk: KafkaZk): Promise<void> {
    const { host, port } = this.options.advertised();
    try {
      this.brokerEpoch = await zk.registerBroker({ id: this.localNodeId, host, port, rack: this.options.config.string('broker.rack') });
    } catch (err) {
      if (err instanceof ZkError && err.code === 'NODE_EXISTS') {
        throw new Error(
          `Error while creating ephemeral at /brokers/ids/${this.localNodeId}, node already exists: broker.id ${this.localNodeId} is registered by another broker (NODE_EXISTS)`,
        );
      }
      throw err;
    }
    this.zk = zk;
    this.controller = new Controller({
      zk,
      brokerId: this.localNodeId,
      log: this.log,
      requestTimeoutMs: this.options.config.int('controller.socket.timeout.ms'),
      uncleanLeaderElectionDefault: () => this.options.config.bool('unclean.leader.election.enable'),
      leaderBalance: leaderBalanceConfig(this.options.config),
    });
    zk.zk.on('expired', () => this.onSessionExpired(zk));
    this.log.info({ brokerId: this.localNodeId, brokerEpoch: this.brokerEpoch }, 'registered in ZooKeeper');
    await this.elect(zk);
    await this.applyBrokerDefaults(zk);
    await this.watchConfigChanges(zk);
  }

  /** Runs for controller now, and again whenever /controller changes. */
  private async elect(zk: KafkaZk): Promise<void> {
    if (this.closing || this.zk !== zk) return;
    const again = () => void this.elect(zk).catch((err) => this.log.warn({ err: (err as Error).message }, 'controller election failed'));
    const current = await zk.getControllerId(again);
    if (current !== null) {
      if (current !== this.localNodeId) this.controller?.resign();
      return;
    }
    const won = await zk.tryCreateController(this.localNodeId);
    if (won) await this.controller?.onElected(won.epoch, won.epochZkVersion);
  }

  private onSessionExpired(zk: KafkaZk): void {
    if (this.zk !== zk) return;
    this.log.warn('ZooKeeper session expired: rejoining');
    this.controller?.resign();
    this.zk = null;
    void zk.zk.close();
    void this.rejoin();
  }

  private async rejoin(): Promise<void> {
    while (!this.closing) {
      try {
        await this.start();
        return;
      } catch (err) {
        this.log.warn({ err: (err as Error).message }, 'could not rejoin the cluster yet');
        await sleep(REJOIN_BACKOFF_MS);
      }
    }
  }

  private requireZk(): KafkaZk {
    if (!this.zk) throw new KafkaError('NOT_CONTROLLER', 'This broker is not connected to ZooKeeper right now.');
    return this.zk;
  }

  // --- topic configs changed on any broker -------------------------------------------------------------

  /** Kafka's config change notifications: a topic's configs changed through one broker apply on all. */
  private async watchConfigChanges(zk: KafkaZk): Promise<void> {
    if (this.closing || this.zk !== zk) return;
    const names = await zk.getConfigChanges(
      () => void this.watchConfigChanges(zk).catch((err) => this.log.warn({ err: (err as Error).message }, 'reading config changes failed')),
    );
    const sequence = (n: string) => Number(n.slice(n.lastIndexOf('_') + 1));
    const pending = names.filter((n) => sequence(n) > this.lastConfigChange).sort((a, b) => sequence(a) - sequence(b));
    for (const name of pending) {
      this.lastConfigChange = sequence(name);
      const change = await zk.readConfigChange(name);
      if (!change) continue;
      this.configChangeTimes.set(name, change.createdMs);
      if (change.entityType === 'brokers' && change.entityName === BROKER_DEFAULT_ENTITY) {
        await this.applyBrokerDefaults(zk);
        if (this.options.config.bool('unclean.leader.election.enable') && this.controller?.isActive) this.controller.uncleanElectionMayBeAllowed();
      }
      if (change.entityType !== 'topics' || !this.options.logs.getTopic(change.entityName)) continue;
      const configs = await zk.getTopicConfig(change.entityName);
      this.options.logs.setTopicConfigs(change.entityName, configs);
      if (configs['unclean.leader.election.enable'] === 'true' && this.controller?.isActive) this.controller.uncleanElectionMayBeAllowed();
    }
    // As Kafka's brokers do, notifications older than 15 minutes go: every broker has applied them by then.
    const now = Date.now();
    for (const [name, createdMs] of this.configChangeTimes) {
      if (createdMs + CONFIG_CHANGE_EXPIRATION_MS > now) continue;
      this.configChangeTimes.delete(name);
      await zk.deleteConfigChange(name);
    }
  }

  /**
   * The cluster-wide dynamic broker configs as ZooKeeper has them, applied to this broker (at start, and
   * on each change notification); a broker keeps its own when none were ever set cluster-wide.
   */
  private async applyBrokerDefaults(zk: KafkaZk): Promise<void> {
    const configs = await zk.getBrokerDefaultConfig();
    if (configs === null) return;
    try {
      this.options.applyClusterBrokerConfigs(configs);
    } catch (err) {
      this.log.warn({ configs, err: (err as Error).message }, 'cannot apply the cluster-wide dynamic broker configs');
    }
  }

  /**
   * Changes the cluster-wide dynamic broker configs (AlterConfigs of the "" BROKER resource): written to
   * /config/brokers/<default> with a change notification, from which every broker (this one too) applies them.
   */
  async setClusterBrokerConfigs(configs: Record<string, string>): Promise<void> {
    const zk = this.requireZk();
    try {
      await zk.setBrokerDefaultConfig(configs);
    } catch (err) {
      throw new KafkaError('UNKNOWN_SERVER_ERROR', `Could not write the cluster-wide broker configs to ZooKeeper: ${(err as Error).message}`);
    }
  }

  // --- the controller's requests ----------------------------------------------------------------------

  /**
   * STALE_CONTROLLER_EPOCH / STALE_BROKER_EPOCH as Kafka checks them, or null. A request that passes makes
   * its controller epoch the one to beat, whichever of the three it is (Kafka's ReplicaManager.controllerEpoch):
   * a new controller's LeaderAndIsr fences the old one before its UpdateMetadata has arrived.
   */
  private staleness(controllerEpoch: number, brokerEpoch: number): number | null {
    if (controllerEpoch < Math.max(this.controllerEpoch, this.cache.controllerEpoch)) return ErrorCode.STALE_CONTROLLER_EPOCH;
    if (brokerEpoch !== -1 && brokerEpoch < this.brokerEpoch) return ErrorCode.STALE_BROKER_EPOCH;
    this.controllerEpoch = Math.max(this.controllerEpoch, controllerEpoch);
    return null;
  }

  private serially<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.applying.then(fn);
    this.applying = run.catch(() => undefined);
    return run;
  }

  /** UpdateMetadata: local logs for topics new to this broker, then the cache. Returns the error code. */
  applyUpdateMetadata(req: {
    controllerId: number;
    controllerEpoch: number;
    brokerEpoch: number;
    type: number;
    topicStates: TopicStateUpdate[];
    liveBrokers: { id: number; endpoints: { host: string; port: number }[]; rack: string | null }[];
  }): Promise<number> {
    return this.serially(async () => {
      const stale = this.staleness(req.controllerEpoch, req.brokerEpoch);
      if (stale !== null) return stale;
      for (const t of req.topicStates) {
        if (t.partitionStates.length === 0 || t.partitionStates.some((p) => p.leader === LEADER_DURING_DELETE)) continue;
        await this.ensureLocalTopic(t.topicName, t.topicId, partitionCount(t.partitionStates));
      }
      if (req.type === UPDATE_FULL) this.setStrayTopicsAside(new Set(req.topicStates.map((t) => t.topicName)));
      const brokers = req.liveBrokers.map((b): BrokerEndpoint => ({
        nodeId: b.id,
        host: b.endpoints[0]?.host ?? '',
        port: b.endpoints[0]?.port ?? -1,
        rack: b.rack,
      }));
      this.cache.update(req.controllerId, req.controllerEpoch, brokers, req.topicStates);
      return ErrorCode.NONE;
    });
  }

  /** LeaderAndIsr: this broker's role for each partition named. Returns the top-level and per-partition codes. */
  applyLeaderAndIsr(req: {
    controllerEpoch: number;
    brokerEpoch: number;
    topicStates: {
      topicName: string;
      topicId: Buffer;
      partitionStates: { partitionIndex: number; leader: number; leaderEpoch: number; isr: number[]; replicas: number[]; partitionEpoch: number }[];
    }[];
    liveLeaders?: { brokerId: number; hostName: string; port: number }[];
  }): Promise<{ errorCode: number; partitions: { topicName: string; topicId: Buffer; partitionIndex: number; errorCode: number }[] }> {
    return this.serially(async () => {
      const stale = this.staleness(req.controllerEpoch, req.brokerEpoch);
      if (stale !== null) return { errorCode: stale, partitions: [] };
      for (const l of req.liveLeaders ?? []) this.leaderEndpoints.set(l.brokerId, { host: l.hostName, port: l.port });
      const partitions = [];
      for (const t of req.topicStates) {
        if (t.partitionStates.length === 0) continue;
        await this.ensureLocalTopic(t.topicName, t.topicId, partitionCount(t.partitionStates));
        for (const p of t.partitionStates) {
          const partition = this.options.replicas.partition(t.topicName, p.partitionIndex);
          let errorCode: number = ErrorCode.NONE;
          if (!partition) errorCode = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
          else if (
            !partition.setLeaderState({ leaderId: p.leader, leaderEpoch: p.leaderEpoch, replicas: p.replicas, isr: p.isr, partitionEpoch: p.partitionEpoch })
          )
            errorCode = ErrorCode.STALE_CONTROLLER_EPOCH;
          else {
            this.becomeLeaderOrFollower(partition);
            this.coordinatorPartitionChanged(partition);
          }
          partitions.push({ topicName: t.topicName, topicId: t.topicId, partitionIndex: p.partitionIndex, errorCode });
        }
      }
      return { errorCode: ErrorCode.NONE, partitions };
    });
  }

  /**
   * After a LeaderAndIsr: a leader stops fetching the partition, a follower fetches it from its leader, a
   * broker that is no replica does neither; whatever waited on its old role is answered.
   */
  private becomeLeaderOrFollower(partition: Partition): void {
    if (partition.isLeader || partition.leaderId < 0 || !partition.replicas.includes(this.localNodeId)) this.fetchers.unfollow(partition);
    else this.fetchers.follow(partition);
    this.options.replicas.leadershipChanged(partition);
  }

  /**
   * AlterPartition to the controller for `partition`'s new ISR; its answer becomes the partition's state. A
   * refusal drops the request (the next ISR check, or catching-up fetch, asks again); a failed send is retried.
   */
  private sendAlterPartition(partition: Partition, isr: number[]): void {
    const controller = this.cache.broker(this.cache.controllerId);
    const pending = partition.pendingIsr;
    if (!controller) {
      partition.pendingIsr = null;
      return;
    }
    const leaderEpoch = partition.leaderEpoch;
    this.peerClient(controller)
      .send(API_KEYS.AlterPartition, INTER_BROKER_VERSIONS.AlterPartition, {
        brokerId: this.localNodeId,
        brokerEpoch: this.brokerEpoch,
        topics: [
          {
            topicName: partition.topic,
            partitions: [{ partitionIndex: partition.index, leaderEpoch, newIsr: isr, leaderRecoveryState: 0, partitionEpoch: partition.partitionEpoch }],
          },
        ],
      })
      .then(
        (response) => {
          if (partition.pendingIsr !== pending) return;
          partition.pendingIsr = null;
          const r = response.topics[0]?.partitions[0];
          const errorCode = r?.errorCode ?? response.errorCode;
          if (errorCode !== ErrorCode.NONE || !r) {
            this.log.info({ topic: partition.topic, partition: partition.index, isr, errorCode }, 'the controller did not change the ISR');
            return;
          }
          if (!partition.isLeader || r.leaderEpoch !== partition.leaderEpoch || r.leaderId !== this.localNodeId) return;
          partition.setLeaderState({
            leaderId: r.leaderId,
            leaderEpoch: r.leaderEpoch,
            replicas: partition.replicas,
            isr: r.isr,
            partitionEpoch: r.partitionEpoch,
          });
          this.options.replicas.highWatermarkMoved(partition);
        },
        (err) => {
          this.log.warn(
            { topic: partition.topic, partition: partition.index, err: (err as Error).message },
            'could not send AlterPartition to the controller; retrying',
          );
          // As Kafka's leader: the controller may still apply it, so the ISR in flight keeps counting (the larger
          // set) and the request is sent again, until an answer or a new LeaderAndIsr ends it.
          const retry = setTimeout(() => {
            if (!this.closing && partition.pendingIsr === pending && partition.isLeader && partition.leaderEpoch === leaderEpoch)
              this.sendAlterPartition(partition, isr);
          }, ALTER_PARTITION_RETRY_MS);
          retry.unref();
        },
      );
  }

  /** AlterPartition, answered by the controller. */
  alterPartition(req: AlterPartitionRequestData): Promise<AlterPartitionResult> {
    if (!this.controller?.isActive) return Promise.resolve({ throttleTimeMs: 0, errorCode: ErrorCode.NOT_CONTROLLER, topics: [] });
    return this.controller.alterPartition(req);
  }

  /**
   * StopReplica: not a leader any more of these. With delete, a deleted topic's logs go (its partitions come
   * with Kafka's EpochDuringDelete, -2); a partition deleted with its real leader epoch is a replica moved away
   * by a reassignment: its log is emptied, unless the request is older than the replica (FENCED_LEADER_EPOCH).
   */
  applyStopReplica(req: {
    controllerEpoch: number;
    brokerEpoch: number;
    topicStates: { topicName: string; partitionStates: { partitionIndex: number; leaderEpoch: number; deletePartition: boolean }[] }[];
  }): Promise<{ errorCode: number; partitions: { topicName: string; partitionIndex: number; errorCode: number }[] }> {
    return this.serially(async () => {
      const stale = this.staleness(req.controllerEpoch, req.brokerEpoch);
      if (stale !== null) return { errorCode: stale, partitions: [] };
      const { logs, replicas } = this.options;
      const partitions = [];
      for (const t of req.topicStates) {
        const removed = [];
        for (const p of t.partitionStates) {
          const partition = replicas.partition(t.topicName, p.partitionIndex);
          const movedAway = p.deletePartition && p.leaderEpoch !== EPOCH_DURING_DELETE;
          let errorCode: number = ErrorCode.NONE;
          if (partition && movedAway && p.leaderEpoch < partition.leaderEpoch) {
            errorCode = ErrorCode.FENCED_LEADER_EPOCH;
          } else if (partition) {
            partition.setLeaderState({ leaderId: -1, leaderEpoch: partition.leaderEpoch, replicas: partition.replicas, isr: partition.isr });
            this.fetchers.unfollow(partition);
            this.coordinatorPartitionChanged(partition);
            removed.push(partition);
            if (movedAway) errorCode = this.emptyMovedReplica(partition);
          }
          partitions.push({ topicName: t.topicName, partitionIndex: p.partitionIndex, errorCode });
        }
        // The controller deletes a topic by asking every broker to delete all its partitions.
        if (t.partitionStates.some((p) => p.deletePartition && p.leaderEpoch === EPOCH_DURING_DELETE) && logs.getTopic(t.topicName)) {
          try {
            logs.deleteTopic(t.topicName);
            this.log.info({ topic: t.topicName }, "deleted topic on the controller's request");
          } finally {
            replicas.partitionsRemoved(removed);
          }
        } else {
          for (const partition of removed) replicas.leadershipChanged(partition);
        }
      }
      return { errorCode: ErrorCode.NONE, partitions };
    });
  }

  /**
   * A replica a reassignment moved away (StopReplica with delete): an explicit request to drop its records,
   * as Kafka deletes the log. The directory stays, emptied (every segment deleted, the log start offset moved
   * up to the log end offset), since every broker keeps one for every partition of every topic; should the
   * partition come back here, this broker follows the leader from there. Returns the partition's error code.
   */
  private emptyMovedReplica(partition: Partition): number {
    try {
      partition.log.deleteRecordsBefore(partition.logEndOffset);
      this.log.info({ topic: partition.topic, partition: partition.index }, 'emptied the log of a replica moved away by a reassignment');
      return ErrorCode.NONE;
    } catch (err) {
      this.log.warn({ topic: partition.topic, partition: partition.index, err: (err as Error).message }, 'could not empty the log of a replica moved away');
      return ErrorCode.KAFKA_STORAGE_ERROR;
    }
  }

  /** ControlledShutdown, answered by the controller. */
  controlledShutdown(brokerId: number, brokerEpoch: number): Promise<ControlledShutdownResult> {
    if (!this.controller?.isActive) return Promise.resolve({ errorCode: ErrorCode.NOT_CONTROLLER, remainingPartitions: [] });
    return this.controller.controlledShutdown(brokerId, brokerEpoch);
  }

  // --- elections and reassignments, answered by the controller -------------------------------------------

  /**
   * ElectLeaders of these partitions (null: every partition this broker's metadata has), by the controller:
   * elsewhere each partition is NOT_CONTROLLER, as a Kafka broker answers it (it asks its own, inactive,
   * controller). As Kafka's DelayedElectLeader, an election that succeeded is answered once this broker's
   * metadata names the new leader, or REQUEST_TIMED_OUT after `timeoutMs`.
   */
  async electLeaders(type: number, requested: { topic: string; partition: number }[] | null, timeoutMs: number): Promise<PartitionResult[]> {
    const partitions =
      requested ?? this.cache.topicNames().flatMap((topic) => [...this.cache.topic(topic)!.partitions.keys()].map((partition) => ({ topic, partition })));
    const elected = this.controller?.isActive ? await this.controller.electLeaders(type, partitions) : null;
    const results = partitions.map((tp): PartitionResult & { leader?: number } => {
      const r: ElectionResult = elected?.get(partitionKey(tp.topic, tp.partition)) ?? { errorCode: ErrorCode.NOT_CONTROLLER, errorMessage: null };
      return { ...tp, ...r };
    });
    const waiting = results.filter((r) => r.errorCode === ErrorCode.NONE);
    const visible = (r: { topic: string; partition: number; leader?: number }) => this.cache.partition(r.topic, r.partition)?.leaderId === r.leader;
    if (!(await this.cache.waitFor(() => waiting.every(visible), timeoutMs))) {
      for (const r of waiting) if (!visible(r)) Object.assign(r, { errorCode: ErrorCode.REQUEST_TIMED_OUT, errorMessage: null });
    }
    return results.map(({ topic, partition, errorCode, errorMessage }) => ({ topic, partition, errorCode, errorMessage }));
  }

  /** AlterPartitionReassignments, by the controller (NOT_CONTROLLER elsewhere, as a KafkaError); a partition named twice is answered once. */
  async alterPartitionReassignments(requests: ReassignmentRequest[]): Promise<PartitionResult[]> {
    const results = this.controller?.isActive ? await this.controller.alterPartitionReassignments(requests) : null;
    if (!results) throw new KafkaError('NOT_CONTROLLER', 'This broker is not the controller.');
    const unique = new Map(requests.map(({ topic, partition }) => [partitionKey(topic, partition), { topic, partition }]));
    return [...unique].map(([key, { topic, partition }]) => {
      const r: ReassignmentResult = results.get(key)!;
      return { topic, partition, errorCode: r.errorCode, errorMessage: r.errorMessage };
    });
  }

  /** ListPartitionReassignments, by the controller (NOT_CONTROLLER elsewhere, as a KafkaError). */
  async listPartitionReassignments(partitions: { topic: string; partition: number }[] | null): Promise<OngoingReassignment[]> {
    const listed = this.controller?.isActive ? await this.controller.listPartitionReassignments(partitions) : null;
    if (!listed) throw new KafkaError('NOT_CONTROLLER', 'This broker is not the controller.');
    return listed;
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
      const configs = this.zk ? await this.zk.getTopicConfig(name) : {};
      if (logs.getTopic(name)) return;
      logs.createTopic(name, partitions, configs, topicId);
      this.log.info({ topic: name, partitions }, 'created topic logs');
    } else if (local.partitions < partitions) {
      logs.addPartitions(name, partitions);
    }
  }

  // --- coordinators -------------------------------------------------------------------------------------

  coordinatesGroup(groupId: string): boolean {
    const topic = this.options.logs.getTopic(OFFSETS_TOPIC);
    return !!topic && !!this.options.replicas.partition(OFFSETS_TOPIC, partitionForGroup(groupId, topic.partitions))?.isLeader;
  }

  coordinatesTransactionalId(transactionalId: string): boolean {
    const topic = this.options.logs.getTopic(TRANSACTION_STATE_TOPIC);
    return !!topic && !!this.options.replicas.partition(TRANSACTION_STATE_TOPIC, partitionForTransactionalId(transactionalId, topic.partitions))?.isLeader;
  }

  groupLoading(groupId: string): boolean {
    return this.options.coordinators?.groupLoading(groupId) ?? false;
  }

  transactionalIdLoading(transactionalId: string): boolean {
    return this.options.coordinators?.transactionalIdLoading(transactionalId) ?? false;
  }

  /** A partition of a coordinator's topic changed hands: its coordinator loads or unloads it. */
  private coordinatorPartitionChanged(partition: Partition): void {
    const { coordinators } = this.options;
    if (!coordinators || (partition.topic !== OFFSETS_TOPIC && partition.topic !== TRANSACTION_STATE_TOPIC)) return;
    if (partition.isLeader) coordinators.elected(partition.topic, partition.index, partition.leaderEpoch);
    else coordinators.resigned(partition.topic, partition.index);
  }

  // --- topic administration -----------------------------------------------------------------------------

  /**
   * Writes a new topic to ZooKeeper (the controller takes it from there) and waits until this broker's
   * metadata names a leader for each of its partitions. REQUEST_TIMED_OUT when that takes longer than
   * `timeoutMs` (the topic is still being created, as in Kafka).
   */
  async createTopic(name: string, assignment: number[][], configs: Record<string, string>, timeoutMs: number): Promise<Buffer> {
    const zk = this.requireZk();
    const topicId = Buffer.from(randomKafkaUuid().bytes);
    try {
      await zk.createTopic(name, topicId, new Map(assignment.map((replicas, p) => [p, replicas])), configs);
    } catch (err) {
      if (err instanceof ZkError && err.code === 'NODE_EXISTS') {
        // Still in ZooKeeper, gone from the metadata: a deletion the controller has not finished.
        const deleting = !this.cache.topic(name) && (await zk.getTopicDeletions()).includes(name);
        throw new KafkaError('TOPIC_ALREADY_EXISTS', deleting ? `Topic '${name}' is marked for deletion.` : `Topic '${name}' already exists.`);
      }
      throw err;
    }
    await this.awaitLeaders(name, assignment.length, timeoutMs, `Topic '${name}' is being created`);
    return topicId;
  }

  async addPartitions(name: string, expected: number, assignment: number[][], timeoutMs: number): Promise<void> {
    const zk = this.requireZk();
    const current = await zk.getTopicAssignment(name);
    if (!current) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `Topic '${name}' does not exist.`);
    if (current.partitions.size !== expected) {
      throw new KafkaError('INVALID_PARTITIONS', `Topic '${name}' has ${current.partitions.size} partition(s) now, not ${expected}: it was changed meanwhile.`);
    }
    // As Kafka: rewriting the assignment would race the controller's own rewrites while it moves replicas.
    if (current.reassigning.adding.size > 0 || current.reassigning.removing.size > 0) {
      throw new KafkaError('REASSIGNMENT_IN_PROGRESS', `A partition reassignment is in progress for the topic '${name}'.`);
    }
    const partitions = new Map(current.partitions);
    const first = partitions.size;
    assignment.forEach((replicas, i) => partitions.set(first + i, replicas));
    try {
      await zk.setTopicAssignment(name, current.topicId ?? Buffer.from(randomKafkaUuid().bytes), partitions, current.version);
    } catch (err) {
      if (err instanceof ZkError && err.code === 'BAD_VERSION')
        throw new KafkaError('REASSIGNMENT_IN_PROGRESS', `Topic '${name}' changed meanwhile; try again.`);
      throw err;
    }
    await this.awaitLeaders(name, partitions.size, timeoutMs, `Partitions of '${name}' are being created`);
  }

  async deleteTopic(name: string, timeoutMs: number): Promise<void> {
    await this.requireZk().markTopicForDeletion(name);
    const gone = await this.cache.waitFor(() => !this.cache.topic(name), timeoutMs);
    if (!gone) throw new KafkaError('REQUEST_TIMED_OUT', `Topic '${name}' is being deleted.`);
  }

  /** A block of producer ids no other broker of the cluster hands out (ProducerIdManager). */
  allocateProducerIdBlock(size: number): Promise<{ start: number; end: number }> {
    return this.requireZk().allocateProducerIdBlock(this.localNodeId, size);
  }

  async setTopicConfigs(name: string, configs: Record<string, string>): Promise<void> {
    const zk = this.requireZk();
    try {
      await zk.setTopicConfig(name, configs);
    } catch (err) {
      throw new KafkaError('UNKNOWN_SERVER_ERROR', `Could not write the configs of topic '${name}' to ZooKeeper: ${(err as Error).message}`);
    }
  }

  private async awaitLeaders(name: string, count: number, timeoutMs: number, pending: string): Promise<void> {
    const ready = () => {
      for (let p = 0; p < count; p++) if ((this.cache.partition(name, p)?.leaderId ?? -1) < 0) return false;
      return !!this.options.logs.getTopic(name);
    };
    if (!(await this.cache.waitFor(ready, timeoutMs))) throw new KafkaError('REQUEST_TIMED_OUT', `${pending}: its partitions have no leader yet.`);
  }

  // --- transaction markers for partitions other brokers lead ------------------------------------------------

  /**
   * The transaction coordinator's marker for a partition another broker leads (Kafka's WriteTxnMarkers).
   * True once that leader has written it; false while it is on its way (or has no leader yet): the
   * coordinator keeps the transaction prepared and asks again, and `delivered` is called when the leader
   * answers, so that it does at once.
   */
  sendTxnMarker(topic: string, partition: number, marker: TxnMarker, delivered: () => void): boolean {
    const key = markerKey(marker, topic, partition);
    if (this.markersWritten.delete(key)) return true;
    if (this.markersInFlight.has(key)) return false;
    const leader = this.cache.partition(topic, partition)?.leaderId ?? -1;
    const endpoint = this.cache.broker(leader);
    if (!endpoint || this.markersInFlight.size >= MAX_MARKERS_IN_FLIGHT) return false;
    this.markersInFlight.add(key);
    const client = this.peerClient(endpoint);
    client
      .send(API_KEYS.WriteTxnMarkers, INTER_BROKER_VERSIONS.WriteTxnMarkers, {
        markers: [
          {
            producerId: marker.producerId,
            producerEpoch: marker.producerEpoch,
            transactionResult: marker.commit,
            topics: [{ name: topic, partitionIndexes: [partition] }],
            coordinatorEpoch: marker.coordinatorEpoch,
          },
        ],
      })
      .then(
        (response) => {
          const errorCode = response.markers[0]?.topics[0]?.partitions[0]?.errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR;
          if (errorCode !== ErrorCode.NONE) {
            this.log.warn({ topic, partition, leader, errorCode }, 'the leader did not write a transaction marker; retrying later');
            return;
          }
          // Consumed by the coordinator's synchronous retry inside delivered(), or dropped: a later transaction of
          // the same producer and epoch must not find it.
          this.markersWritten.add(key);
          delivered();
          this.markersWritten.delete(key);
        },
        (err) => {
          this.log.warn({ topic, partition, leader, err: (err as Error).message }, 'could not send a transaction marker; retrying later');
        },
      )
      .finally(() => this.markersInFlight.delete(key));
    return false;
  }

  private peerClient(endpoint: BrokerEndpoint): BrokerClient {
    const key = `${endpoint.nodeId}/${endpoint.host}:${endpoint.port}`;
    let client = this.peerClients.get(key);
    if (!client) {
      client = new BrokerClient({
        host: endpoint.host,
        port: endpoint.port,
        clientId: `krill-broker-${this.localNodeId}`,
        requestTimeoutMs: this.options.config.int('controller.socket.timeout.ms'),
        log: this.log,
      });
      this.peerClients.set(key, client);
    }
    return client;
  }

  // --- stopping -----------------------------------------------------------------------------------------

  /**
   * Kafka's controlled shutdown: asks the controller (as ZooKeeper names it now) to move this broker's
   * leaderships away, up to controlled.shutdown.max.retries times, waiting controlled.shutdown.retry.backoff.ms
   * while it answers with partitions it could not move yet. A controller that changed or went away meanwhile
   * (NOT_CONTROLLER, a refused connection: other brokers may be stopping too) is looked up again at once.
   */
  async controlledShutdownRequest(): Promise<void> {
    const { config } = this.options;
    const zk = this.zk;
    if (!config.bool('controlled.shutdown.enable') || !zk) return;
    const retries = config.int('controlled.shutdown.max.retries');
    const backoffMs = config.int('controlled.shutdown.retry.backoff.ms');
    // ZooKeeper unreachable for a session's length: the session is over, and with it the registration.
    const boundMs = config.int('zookeeper.session.timeout.ms');
    let lookups = 0;
    for (let attempt = 1; attempt <= retries;) {
      let outcome: 'done' | 'incomplete' | 'moved';
      try {
        outcome = await withTimeout(this.sendControlledShutdown(zk), boundMs);
      } catch (err) {
        if (err instanceof TimeoutError) {
          this.log.warn('stopping without a controlled shutdown: ZooKeeper or the controller did not answer');
          return;
        }
        this.log.warn({ err: (err as Error).message }, 'controlled shutdown request failed');
        outcome = 'moved';
      }
      if (outcome === 'done') return;
      if (outcome === 'moved' && ++lookups <= MAX_CONTROLLER_LOOKUPS) {
        await sleep(CONTROLLER_LOOKUP_MS);
        continue;
      }
      if (++attempt <= retries) await sleep(backoffMs);
    }
    this.log.warn('stopping without a complete controlled shutdown');
  }

  /** One ControlledShutdown to the current controller: done, incomplete (partitions remain), or moved (no controller to ask). */
  private async sendControlledShutdown(zk: KafkaZk): Promise<'done' | 'incomplete' | 'moved'> {
    const controllerId = await zk.getControllerId();
    const controller = controllerId === null ? undefined : (await zk.getBrokers()).find((b) => b.id === controllerId);
    if (!controller) return 'moved';
    const { config } = this.options;
    const client = new BrokerClient({
      host: controller.host,
      port: controller.port,
      clientId: `krill-broker-${this.localNodeId}`,
      requestTimeoutMs: config.int('controller.socket.timeout.ms'),
      log: this.log,
    });
    try {
      const response = await client.send(API_KEYS.ControlledShutdown, INTER_BROKER_VERSIONS.ControlledShutdown, {
        brokerId: this.localNodeId,
        brokerEpoch: this.brokerEpoch,
      });
      if (response.errorCode === ErrorCode.NONE && response.remainingPartitions.length === 0) {
        this.log.info('controlled shutdown complete');
        return 'done';
      }
      if (response.errorCode === ErrorCode.NOT_CONTROLLER) return 'moved';
      this.log.warn({ errorCode: response.errorCode, remaining: response.remainingPartitions.length }, 'controlled shutdown incomplete');
      return 'incomplete';
    } finally {
      client.close();
    }
  }

  /** Leaves the cluster: the controller role and the registration go with the session. */
  async close(): Promise<void> {
    this.closing = true;
    this.controller?.resign();
    this.options.replicas.isrChanger = null;
    await this.fetchers.close();
    for (const client of this.peerClients.values()) client.close();
    this.peerClients.clear();
    const zk = this.zk;
    this.zk = null;
    await zk?.zk.close();
  }
}

class TimeoutError extends Error {}

/** auto.leader.rebalance.enable and its settings, for the controller. */
function leaderBalanceConfig(config: BrokerConfig): LeaderBalanceConfig {
  return {
    enable: config.bool('auto.leader.rebalance.enable'),
    checkIntervalMs: config.int('leader.imbalance.check.interval.seconds') * 1000,
    imbalancePercentage: config.int('leader.imbalance.per.broker.percentage'),
  };
}

/** `promise`, or a TimeoutError after `ms` (the promise is left to settle on its own). */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The partitions a topic has at least, by the highest index a controller request names (never empty). */
function partitionCount(states: readonly { partitionIndex: number }[]): number {
  return states.reduce((n, p) => Math.max(n, p.partitionIndex + 1), 0);
}
