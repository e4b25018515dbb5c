// A broker's part in a ZooKeeper-coordinated cluster (zookeeper.connect set), as a Kafka 2.8-3.x broker in
// ZooKeeper mode, put together from the modules that each do one job of it:
//
// - zk-membership.ts: the ZooKeeper session, the cluster id, the registration and the candidacy for
//   controller (controller.ts, while this broker is the active one).
// - controller-request-applier.ts: UpdateMetadata, LeaderAndIsr and StopReplica from the controller, applied
//   through the ReplicaManager; the replica fetchers (replica-fetcher.ts) and the coordinators follow each
//   partition's new role.
// - alter-partition-manager.ts: a leader's ISR changes, sent to the controller (AlterPartition). The
//   ReplicaManager decides them, on its periodic check (the broker's scheduler) and on a catching-up fetch.
// - zk-topic-store.ts and zk-config-changes.ts: topics and configs written through ZooKeeper, and their
//   changes applied on every broker.
// - txn-marker-channel.ts: transaction markers for partitions other brokers lead.
// - controlled-shutdown-request.ts: moving this broker's leaderships away before it stops.
//
// Loaded only in that mode (Broker.start imports it lazily), so a single broker never loads a ZooKeeper client.

import type tls from 'node:tls';
import type { SaslClientLogin } from '../security/sasl-client.js';
import type { Logger } from '../logger.js';
import type { BrokerConfig } from '../config.js';
import type { LogManager } from '../storage/log-manager.js';
import type { ReplicaManager } from '../partition/replica-manager.js';
import type { Partition } from '../partition/partition.js';
import type { BrokerEndpoint, ClusterView, ListenerEndpoint, PartitionMetadata } from './cluster-view.js';
import type { CoordinatorElections, CoordinatorOwnership } from './coordinator-guard.js';
import type { TxnMarker } from '../txn/markers.js';
import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import { MetadataCache } from './metadata-cache.js';
import type { AlterPartitionRequestData, AlterPartitionResult, ControlledShutdownResult } from './controller-broker-requests.js';
import type { ElectionResult } from './controller-elections.js';
import type { OngoingReassignment, ReassignmentRequest, ReassignmentResult } from './controller-reassignments.js';
import { ReplicaFetcherManager } from './replica-fetcher.js';
import { OFFSETS_TOPIC } from '../group/offsets-topic.js';
import { partitionForGroup } from '../group/records.js';
import { TRANSACTION_STATE_TOPIC, partitionForTransactionalId } from '../txn/state-topic.js';
import { partitionKey } from '../topic-partition.js';
import type { ControllerRequests, PartitionElections, PartitionResult } from './cluster-services.js';
import { ZkMembership } from './zk-membership.js';
import { ZkConfigChanges } from './zk-config-changes.js';
import { ZkAcls } from './zk-acls.js';
import type { KafkaZk } from './zk/kafka-zk.js';
import type { AclBinding } from '../security/acl.js';
import { ZkTopicStore } from './zk-topic-store.js';
import { ControllerRequestApplier, type LeaderAndIsrData, type StopReplicaData, type UpdateMetadataData } from './controller-request-applier.js';
import { AlterPartitionManager } from './alter-partition-manager.js';
import { PeerClients } from './peer-clients.js';
import { TxnMarkerChannel } from './txn-marker-channel.js';
import { requestControlledShutdown } from './controlled-shutdown-request.js';
import { ClusterTopicStore, type ClusterTopics } from './cluster-topic-store.js';
import type { ClusterWideConfigs } from '../config-admin/cluster-wide-configs.js';
import type { ClientQuotaPersistence, ClientQuotaStore } from '../security/quotas/client-quota-store.js';
import { zkClientQuotas } from './zk-client-quotas.js';
import type { CredentialPersistence, ScramCredentialStore } from '../security/scram-credential-store.js';
import { zkScramCredentials } from './zk-scram-credentials.js';

export interface ZkClusterOptions {
  config: BrokerConfig;
  log: Logger;
  dataDir: string;
  logs: LogManager;
  replicas: ReplicaManager;
  /** meta.properties as read (or just created) at start. */
  meta: { clusterId: string; nodeId: number; created: boolean };
  /** Every advertised listener, with the ports bound. */
  advertised: () => ListenerEndpoint[];
  /** TLS settings of the inter-broker listener, when it is SSL: how this broker connects to the others. */
  interBrokerTls?: tls.ConnectionOptions;
  /** The login brokers make on each other's inter-broker listener, when it is SASL. */
  interBrokerSasl?: SaslClientLogin;
  /** The coordinators, told when this broker starts or stops leading a partition of their internal topics. */
  coordinators?: CoordinatorElections;
  /** Sets the cluster-wide dynamic broker configs ZooKeeper holds on this broker; throws when they are refused. */
  applyClusterBrokerConfigs: (configs: Record<string, string>) => void;
  /** The ACLs ZooKeeper holds, at registration and after each change (for the authorizer, when there is one). */
  onAclsChanged?: (bindings: AclBinding[]) => void;
  /** The client quotas this broker enforces: ZooKeeper's, kept up to date here. */
  clientQuotas?: Pick<ClientQuotaStore, 'replace' | 'replaceAll'>;
  /** The SCRAM credentials this broker logs users in with, kept as ZooKeeper has them. */
  scramCredentials?: Pick<ScramCredentialStore, 'replaceUser' | 'replaceAll'>;
}

export class ZkCluster implements ClusterView, CoordinatorOwnership, ClusterTopics, ClusterWideConfigs, ControllerRequests, PartitionElections {
  readonly cache = new MetadataCache();
  /** Copies the partitions this broker follows from their leaders. */
  readonly fetchers: ReplicaFetcherManager;
  private readonly log: Logger;
  private readonly membership: ZkMembership;
  private readonly applier: ControllerRequestApplier;
  private readonly alterPartitions: AlterPartitionManager;
  private readonly topicStore: ZkTopicStore;
  private readonly peers: PeerClients;
  private readonly markers: TxnMarkerChannel;
  /** Where the authorizer keeps its ACLs in a cluster. */
  readonly acls: ZkAcls;

  constructor(private readonly options: ZkClusterOptions) {
    const { config, replicas, logs } = options;
    const log = (this.log = options.log.child({ component: 'cluster' }));
    const configChanges = new ZkConfigChanges({
      config,
      logs,
      log,
      isSession: (zk) => this.membership.session === zk,
      activeController: () => this.membership.activeController,
      applyClusterBrokerConfigs: options.applyClusterBrokerConfigs,
      clientQuotas: options.clientQuotas,
      scramCredentials: options.scramCredentials,
    });
    const isSession = (zk: KafkaZk) => this.membership.session === zk;
    this.acls = new ZkAcls({ zk: () => this.membership.requireZk(), isSession, onChange: (b) => options.onAclsChanged?.(b), log });
    const onRegistered = async (zk: KafkaZk) => {
      await configChanges.follow(zk);
      if (options.onAclsChanged) await this.acls.follow(zk);
    };
    // The controller and the other brokers connect once they see this one registered: with SCRAM between
    // brokers, their logins are checked against these credentials.
    const beforeRegistering = (zk: KafkaZk) => configChanges.readScramCredentials(zk);
    this.membership = new ZkMembership({ ...options, log, onRegistered, beforeRegistering });
    this.peers = new PeerClients(config.nodeId, config.int('controller.socket.timeout.ms'), log, options.interBrokerTls, options.interBrokerSasl);
    this.markers = new TxnMarkerChannel(this.cache, this.peers, log);
    this.topicStore = new ZkTopicStore(() => this.membership.requireZk(), this.cache, logs);
    this.applier = new ControllerRequestApplier({
      logs,
      replicas,
      cache: this.cache,
      log,
      brokerEpoch: () => this.membership.brokerEpoch,
      topicConfigs: async (name) => (await this.membership.session?.getTopicConfig(name)) ?? {},
      interBrokerListener: config.interBrokerListener,
    });
    this.fetchers = new ReplicaFetcherManager({
      localId: config.nodeId,
      replicas,
      log: log.child({ component: 'replica-fetcher' }),
      endpoint: (id) => this.cache.broker(id) ?? this.applier.leaderEndpoint(id),
      tls: options.interBrokerTls,
      sasl: options.interBrokerSasl,
      config: {
        maxWaitMs: config.int('replica.fetch.wait.max.ms'),
        minBytes: config.int('replica.fetch.min.bytes'),
        partitionMaxBytes: config.int('replica.fetch.max.bytes'),
        maxBytes: config.int('replica.fetch.response.max.bytes'),
        backoffMs: config.int('replica.fetch.backoff.ms'),
        socketTimeoutMs: config.int('replica.socket.timeout.ms'),
      },
    });
    this.alterPartitions = new AlterPartitionManager({
      localNodeId: config.nodeId,
      brokerEpoch: () => this.membership.brokerEpoch,
      controller: () => this.cache.broker(this.cache.controllerId),
      peers: this.peers,
      replicas,
      log,
    });
    replicas.replicaLagTimeMaxMs = config.int('replica.lag.time.max.ms');
    replicas.useIsrChanger((partition, isr) => this.alterPartitions.submit(partition, isr));
    replicas.onRoleChange((partition) => this.followOrUnfollow(partition));
    replicas.onRoleChange((partition) => this.coordinatorPartitionChanged(partition));
  }

  get clusterId(): string {
    return this.membership.clusterId;
  }

  get brokerEpoch(): number {
    return this.membership.brokerEpoch;
  }

  get localNodeId(): number {
    return this.options.config.nodeId;
  }

  get controllerId(): number {
    return this.cache.controllerId;
  }

  /**
   * Why this broker does not serve the cluster's requests, or null once it does: registered in ZooKeeper (a
   * session expiry unregisters it until it rejoins) and named in the controller's metadata (UpdateMetadata).
   */
  notReadyReason(): string | null {
    if (!this.membership.session) return 'not registered in ZooKeeper (rejoining)';
    if (!this.cache.broker(this.localNodeId)) return "waiting for the controller's metadata";
    return null;
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
  start(): Promise<void> {
    return this.membership.start();
  }

  // --- the controller's requests, and the requests the controller answers --------------------------------

  applyUpdateMetadata(req: UpdateMetadataData): Promise<number> {
    return this.applier.applyUpdateMetadata(req);
  }

  applyLeaderAndIsr(req: LeaderAndIsrData) {
    return this.applier.applyLeaderAndIsr(req);
  }

  applyStopReplica(req: StopReplicaData) {
    return this.applier.applyStopReplica(req);
  }

  /** AlterPartition, answered by the controller. */
  alterPartition(req: AlterPartitionRequestData): Promise<AlterPartitionResult> {
    const controller = this.membership.activeController;
    if (!controller) return Promise.resolve({ throttleTimeMs: 0, errorCode: ErrorCode.NOT_CONTROLLER, topics: [] });
    return controller.alterPartition(req);
  }

  /** ControlledShutdown, answered by the controller. */
  controlledShutdown(brokerId: number, brokerEpoch: number): Promise<ControlledShutdownResult> {
    const controller = this.membership.activeController;
    if (!controller) return Promise.resolve({ errorCode: ErrorCode.NOT_CONTROLLER, remainingPartitions: [] });
    return controller.controlledShutdown(brokerId, brokerEpoch);
  }

  /**
   * After a LeaderAndIsr or StopReplica: a leader stops fetching the partition, a follower fetches it from its
   * leader, a broker that is no replica does neither.
   */
  private followOrUnfollow(partition: Partition): void {
    if (partition.isLeader || partition.leaderId < 0 || !partition.replicas.includes(this.localNodeId)) this.fetchers.unfollow(partition);
    else this.fetchers.follow(partition);
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

  // --- topics and configs, through ZooKeeper (zk-topic-store.ts) ------------------------------------------

  createTopic(name: string, assignment: number[][], configs: Record<string, string>, timeoutMs: number): Promise<Buffer> {
    return this.topicStore.createTopic(name, assignment, configs, timeoutMs);
  }

  addPartitions(name: string, expected: number, assignment: number[][], timeoutMs: number): Promise<void> {
    return this.topicStore.addPartitions(name, expected, assignment, timeoutMs);
  }

  deleteTopic(name: string, timeoutMs: number): Promise<void> {
    return this.topicStore.deleteTopic(name, timeoutMs);
  }

  setTopicConfigs(name: string, configs: Record<string, string>): Promise<void> {
    return this.topicStore.setTopicConfigs(name, configs);
  }

  /** TopicAdmin's store of this cluster's topics. */
  topics(): ClusterTopicStore {
    return new ClusterTopicStore(this, this.options.logs, this.log);
  }

  /** Where AlterClientQuotas writes in a cluster (zk-client-quotas.ts). */
  readonly clientQuotaPersistence: ClientQuotaPersistence = zkClientQuotas(() => this.membership.requireZk());

  /** Where AlterUserScramCredentials writes in a cluster (zk-scram-credentials.ts). */
  readonly scramCredentialPersistence: CredentialPersistence = zkScramCredentials(() => this.membership.requireZk());

  share(configs: Record<string, string>): Promise<void> {
    return this.topicStore.setClusterBrokerConfigs(configs);
  }

  /** A block of producer ids no other broker of the cluster hands out (ProducerIdManager). */
  allocateProducerIdBlock(size: number): Promise<{ start: number; end: number }> {
    return this.membership.requireZk().allocateProducerIdBlock(this.localNodeId, size);
  }

  /** A transaction marker for a partition another broker leads (see TxnMarkerChannel.send). */
  sendTxnMarker(topic: string, partition: number, marker: TxnMarker, delivered: () => void): boolean {
    return this.markers.send(topic, partition, marker, delivered);
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
    const elected = (await this.membership.activeController?.electLeaders(type, partitions)) ?? null;
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
    const results = (await this.membership.activeController?.alterPartitionReassignments(requests)) ?? null;
    if (!results) throw new KafkaError('NOT_CONTROLLER', 'This broker is not the controller.');
    const unique = new Map(requests.map(({ topic, partition }) => [partitionKey(topic, partition), { topic, partition }]));
    return [...unique].map(([key, { topic, partition }]) => {
      const r: ReassignmentResult = results.get(key)!;
      return { topic, partition, errorCode: r.errorCode, errorMessage: r.errorMessage };
    });
  }

  /** ListPartitionReassignments, by the controller (NOT_CONTROLLER elsewhere, as a KafkaError). */
  async listPartitionReassignments(partitions: { topic: string; partition: number }[] | null): Promise<OngoingReassignment[]> {
    const listed = (await this.membership.activeController?.listPartitionReassignments(partitions)) ?? null;
    if (!listed) throw new KafkaError('NOT_CONTROLLER', 'This broker is not the controller.');
    return listed;
  }

  // --- stopping -----------------------------------------------------------------------------------------

  /** Kafka's controlled shutdown (see requestControlledShutdown); nothing to ask without a session. */
  async controlledShutdownRequest(): Promise<void> {
    const zk = this.membership.session;
    if (!zk) return;
    await requestControlledShutdown(zk, {
      config: this.options.config,
      log: this.log,
      localNodeId: this.localNodeId,
      brokerEpoch: this.membership.brokerEpoch,
      peers: this.peers,
    });
  }

  /** Leaves the cluster: the controller role and the registration go with the session. */
  async close(): Promise<void> {
    this.membership.resign();
    this.alterPartitions.close();
    this.options.replicas.useIsrChanger(null);
    await this.fetchers.close();
    this.peers.closeAll();
    await this.membership.close();
  }
}
