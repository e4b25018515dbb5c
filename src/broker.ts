// The broker: where the parts are built and wired together, and nowhere else. It owns the configuration,
// the log manager, the replica manager, the group coordinator and topic admin, the handler registry and
// the listening socket; handlers and connections see only the narrow services (BrokerServices) made here.
// start() locks the data dir, binds the port, then opens the data dir (recovering logs); close() stops
// accepting, closes every connection, checkpoints the logs so the next start needs no recovery scan, and
// unlocks the data dir.

import path from 'node:path';
import type { Logger } from './logger.js';
import { BrokerConfig, type ClientListener, type Listener } from './config.js';
import { interBrokerTls, listenerTls } from './security/tls-context.js';
import { ListenerServers } from './server/listener-servers.js';
import type { ListenerEndpoint } from './cluster/cluster-view.js';
import { HandlerRegistry } from './handlers/registry.js';
import { CLUSTER_HANDLERS, HANDLERS } from './handlers/index.js';
import { Connection, type ConnectionHost } from './server/connection.js';
import { ScramCredentialStore, type CredentialPersistence } from './security/scram-credential-store.js';
import { SCRAM_CREDENTIALS_FILE, ScramCredentialsFile } from './security/scram-credentials-file.js';
import { interBrokerSaslLogin, saslListener } from './security/sasl-configs.js';
import type { SaslClientLogin } from './security/sasl-client.js';
import type { SaslListener } from './security/sasl-authenticator.js';
import type { BrokerServices } from './server/request-context.js';
import { Authorizer, type AclPersistence } from './security/authorizer.js';
import { aclFile } from './security/acl-file.js';
import { ConnectionRegistry, normaliseAddress } from './server/connection-registry.js';
import { LogManager } from './storage/log-manager.js';
import { syncInBackground } from './storage/atomic-file.js';
import { META_PROPERTIES, readOrCreateMetaProperties } from './storage/meta-properties.js';
import { holdDataDir, type DataDirHold } from './storage/data-dir.js';
import storageFs from './storage/storage-fs.js';
import { LOCK_FILE } from './storage/data-dir-lock.js';
import { BROKER_CONFIGS_FILE } from './storage/broker-configs-file.js';
import { readBuffers } from './storage/read-buffers.js';
import type { GroupCoordinator } from './group/coordinator.js';
import { OffsetsTopicStore } from './group/offsets-topic.js';
import { ReplicaManager, clusterStart, singleBrokerStart } from './partition/replica-manager.js';
import { SingleBrokerCluster } from './cluster/cluster-view.js';
import type { ZkCluster } from './cluster/zk-cluster.js';
import { TopicAdmin } from './topics.js';
import { ConfigAdmin } from './config-admin/config-admin.js';
import { DynamicBrokerConfigs } from './config-admin/dynamic-broker-configs.js';
import { PRODUCER_ID_BLOCK_FILE, ProducerIdManager } from './cluster/producer-id-manager.js';
import type { TransactionCoordinator } from './txn/coordinator.js';
import type { TransactionStateTopic } from './txn/state-topic.js';
import { coordinatorElections, openGroupCoordinator, openTransactionCoordinator } from './coordinators.js';
import { Scheduler } from './scheduler.js';
import { BrokerTasks } from './broker-tasks.js';
import { SINGLE_BROKER_CONTROLLER_REQUESTS, SINGLE_BROKER_COORDINATORS, singleBrokerElections, singleBrokerReassignments } from './cluster/cluster-services.js';
import { ServedPartitions } from './group/served-partitions.js';
import { LocalTopicStore } from './topic-store.js';
import { SINGLE_BROKER_WIDE_CONFIGS } from './config-admin/cluster-wide-configs.js';
import { FaultInjector } from './faults/fault-injector.js';
import { CREATE_IN_LOCAL_LOGS, CREATED_BY_CONTROLLER } from './internal-topic-creation.js';
import type { ClientQuotas } from './security/quotas/client-quotas.js';
import { openClientQuotas } from './security/quotas/open-client-quotas.js';
import { CLIENT_QUOTAS_FILE } from './storage/client-quotas-file.js';
import type { BrokerMetrics } from './metrics/broker-metrics.js';
import type { HealthSources, HttpListener } from './metrics/http-listener.js';

type ZkClusterClass = typeof ZkCluster;

export class Broker {
  readonly registry: HandlerRegistry;
  readonly connections: ConnectionRegistry;
  /** One server per client listener, once bound. */
  private servers: ListenerServers | null = null;
  /** Background work (the periodic checkpoint), off the request path; a reset() starts a new one. */
  scheduler: Scheduler;
  /** The faults a test sets to make this broker fail on purpose. */
  readonly faults: FaultInjector;
  /** The fsync of a meta.properties written by this start (see readOrCreateMetaProperties). */
  private metaSynced: Promise<void> = Promise.resolve();
  /** What handlers are given; open() makes them, reset() makes them anew under the same connections. */
  private liveServices!: BrokerServices;
  /** The ACLs and their checks (authorizer.class.name); null without. */
  private authorizer: Authorizer | null = null;
  private resetting = false;
  // Set by open(), right after the port is bound (see start()).
  clusterId!: string;
  logs!: LogManager;
  replicas!: ReplicaManager;
  groups!: GroupCoordinator;
  offsetsTopic!: OffsetsTopicStore;
  transactions!: TransactionCoordinator;
  transactionState!: TransactionStateTopic;
  producerIds!: ProducerIdManager;
  /** Broker configs changed at run time, kept in the data dir. */
  dynamicConfigs!: DynamicBrokerConfigs;
  /** The periodic work (checkpoints, retention, expirations, the cleaner), once started. */
  private tasks: BrokerTasks | null = null;
  /** What each accepted connection is given, by listener name; connectionHost is the first listener's. */
  private readonly connectionHosts = new Map<string, ConnectionHost>();
  connectionHost!: ConnectionHost;
  /** The SCRAM credentials logins are checked against; opened with the data dir. */
  scramCredentials!: ScramCredentialStore;
  /** Membership of a ZooKeeper cluster (zookeeper.connect set); null for a single broker. */
  zkCluster: ZkCluster | null = null;
  /** The request path's counters and the HTTP listener serving them, when krill.http.listener is set. */
  metrics: BrokerMetrics | null = null;
  /** The client quotas, their store and their rates; made once, kept across a reset (they are configs). */
  clientQuotas!: ClientQuotas;
  http: HttpListener | null = null;
  private state: 'starting' | 'started' | 'closing' = 'starting';

  private constructor(
    readonly config: BrokerConfig,
    readonly log: Logger,
    readonly dataDir: string,
    private readonly lock: DataDirHold,
  ) {
    this.connections = new ConnectionRegistry({ ...Broker.connectionQuotas(config), idleMs: config.int('connections.max.idle.ms') }, log);
    this.scheduler = new Scheduler(log);
    this.faults = new FaultInjector(log);
    this.registry = new HandlerRegistry(config.zookeeperConnect === null ? HANDLERS : [...HANDLERS, ...CLUSTER_HANDLERS]);
  }

  /**
   * Like Kafka: the data dir's lock before anything is read, then the port, and only then any write (log
   * recovery, checkpoints, meta.properties, the clean-shutdown marker). A start refused by either leaves
   * the directory as it found it, and never touches the data of a broker already running on it.
   */
  static async start(config: BrokerConfig, log: Logger): Promise<Broker> {
    // Loaded only for a cluster: a single broker never loads a ZooKeeper client.
    const clusterClass = config.zookeeperConnect === null ? null : (await import('./cluster/zk-cluster.js')).ZkCluster;
    const httpModule = config.httpListener === null ? null : await import('./metrics/http-listener.js');
    const lock = await holdDataDir(config);
    const broker = new Broker(config, log, lock.dataDir, lock);
    broker.metrics = httpModule && new httpModule.BrokerMetrics();
    try {
      await broker.listen();
    } catch (err) {
      await lock.release();
      throw err;
    }
    try {
      lock.recordOwner();
      // Synchronous from the bind on, so that no connection is accepted before the logs are open.
      broker.open(clusterClass);
      // Before joining the cluster, so that /ready can say what the start waits for.
      if (httpModule) broker.http = await httpModule.startHttpListener(config.httpListener!, broker.healthSources(), log);
      if (broker.zkCluster) await broker.joinCluster(broker.zkCluster);
    } catch (err) {
      await broker.http?.close();
      await broker.zkCluster?.close();
      if (broker.logs) {
        broker.groups.close();
        broker.logs.close();
      }
      await broker.scheduler.close(); // tasks a half-opened coordinator scheduled
      await broker.servers?.close();
      await lock.release();
      throw err;
    }
    broker.startTasks();
    broker.state = 'started';
    return broker;
  }

  /** What the HTTP listener reads: the services, the connections, and whether the broker serves yet (/ready). */
  private healthSources(): HealthSources {
    // Getters: a reset() gives the broker new services, which the next scrape must read.
    const services = () => this.connectionHost.services;
    return {
      get replicas() {
        return services().replicas;
      },
      get groups() {
        return services().groups;
      },
      get cluster() {
        return services().cluster;
      },
      metrics: this.metrics!,
      faults: this.config.bool('krill.http.faults') ? this.faults : null,
      listenerName: this.config.listener.name,
      connectionCount: () => this.connections.size,
      quotaStats: () => this.clientQuotas.stats(),
      notReadyReason: () => {
        if (this.state === 'closing') return 'shutting down';
        if (this.state === 'starting') return this.zkCluster ? 'joining the cluster through ZooKeeper' : 'starting';
        return this.zkCluster?.notReadyReason() ?? null;
      },
    };
  }

  /** The connection quotas, which dynamic configs may change. */
  private static connectionQuotas(config: BrokerConfig) {
    return {
      maxConnections: config.int('max.connections'),
      maxPerIp: config.int('max.connections.per.ip'),
      perIpOverrides: config.maxConnectionsPerIpOverrides,
    };
  }

  private startTasks(): void {
    const { config, log, scheduler, logs, replicas, transactions } = this;
    this.tasks = new BrokerTasks({ config, log, scheduler, logs, replicas, transactions, clustered: this.zkCluster !== null });
    this.tasks.start();
  }

  /** Registers in ZooKeeper (refusing to start as Kafka refuses) and takes producer id blocks from it. */
  private async joinCluster(cluster: ZkCluster): Promise<void> {
    await cluster.start();
    this.clusterId = cluster.clusterId;
    await this.producerIds.useBlockSource((size) => cluster.allocateProducerIdBlock(size));
  }

  /** Opens the data dir: the dynamic broker configs, the logs (recovering them), the group coordinator, meta.properties. */
  private open(clusterClass: ZkClusterClass | null): void {
    const { config, log, dataDir } = this;
    // First: they change the topic defaults the logs are opened with.
    this.dynamicConfigs = new DynamicBrokerConfigs(config, dataDir, () => this.reconfigure(), log);
    // In a cluster they are ZooKeeper's, read once the broker registers (zk-config-changes.ts).
    this.scramCredentials = new ScramCredentialStore(clusterClass ? this.clusterScramPersistence() : new ScramCredentialsFile(dataDir));
    this.dynamicConfigs.load();
    this.connections.setQuotas(Broker.connectionQuotas(config));
    this.clientQuotas ??= openClientQuotas(config, dataDir, clusterClass && (() => this.zkCluster!.clientQuotaPersistence));
    const logs = LogManager.open({ dataDir, defaults: config.topicDefaults(), log, maxOpenFiles: config.int('krill.log.max.open.files') });
    try {
      // What differs between a single broker and a member of a cluster, decided here once.
      const single = clusterClass === null;
      this.replicas = new ReplicaManager(logs, config.nodeId, single ? singleBrokerStart(config.nodeId) : clusterStart(dataDir));
      const createInternal = single ? CREATE_IN_LOCAL_LOGS : CREATED_BY_CONTROLLER;
      const served = () => (single ? ServedPartitions.all() : ServedPartitions.byElection());
      this.offsetsTopic = OffsetsTopicStore.open(logs, this.replicas, config.int('offsets.topic.num.partitions'), createInternal);
      this.groups = openGroupCoordinator(config, logs, this.offsetsTopic, this.scheduler, served());
      this.producerIds = new ProducerIdManager(dataDir, config.nodeId);
      const txn = openTransactionCoordinator({
        config,
        logs,
        replicas: this.replicas,
        producerIds: this.producerIds,
        groups: this.groups,
        zkCluster: () => this.zkCluster,
        createTopic: createInternal,
        served: served(),
      });
      this.transactionState = txn.state;
      this.transactions = txn.coordinator;
      // A single broker's coordinators load their topics now; in a cluster, each partition when elected its leader.
      if (single) {
        this.offsetsTopic.load(this.groups);
        this.transactionState.load(this.transactions);
      }
      const meta = readOrCreateMetaProperties(dataDir, config.nodeId);
      this.clusterId = meta.clusterId;
      if (clusterClass) {
        this.zkCluster = new clusterClass({
          config,
          log,
          dataDir,
          logs,
          replicas: this.replicas,
          meta: { clusterId: meta.clusterId, nodeId: meta.nodeId, created: meta.created !== undefined },
          advertised: () => this.advertisedEndpoints(),
          interBrokerTls: interBrokerTls(config),
          interBrokerSasl: this.interBrokerSasl(),
          coordinators: coordinatorElections(() => this, log),
          onAclsChanged: config.string('authorizer.class.name') ? (bindings) => this.authorizer?.replaceAll(bindings) : undefined,
          applyClusterBrokerConfigs: (configs) => {
            const wanted = new Map(Object.entries(configs));
            const current = this.dynamicConfigs.current('cluster');
            const same = wanted.size === current.size && [...wanted].every(([k, v]) => current.get(k) === v);
            if (!same) this.dynamicConfigs.replace('cluster', wanted, false);
          },
          clientQuotas: this.clientQuotas.store,
          scramCredentials: this.scramCredentials,
        });
      }
      this.authorizer = Broker.openAuthorizer(config, this.zkCluster?.acls ?? aclFile(dataDir));
      this.liveServices = this.services(logs);
      // Connections keep the host they were accepted with: its services are whatever the broker has now.
      if (this.connectionHosts.size === 0) {
        for (const l of config.clientListeners) this.connectionHosts.set(l.name, this.makeConnectionHost(l));
        this.connectionHost = this.connectionHosts.get(config.listener.name)!;
      }
      if (meta.created) {
        this.metaSynced = syncInBackground(meta.created).catch((err) =>
          log.warn({ err: (err as Error).message, file: meta.created }, 'fsync of meta.properties failed'),
        );
      }
    } catch (err) {
      this.groups?.close();
      logs.close();
      throw err;
    }
    this.logs = logs;
  }

  /** What the connections accepted on `listener` are given. */
  private makeConnectionHost(listener: ClientListener): ConnectionHost {
    const current = () => this.liveServices;
    return {
      registry: this.registry,
      get services() {
        return current();
      },
      connections: this.connections,
      log: this.log,
      maxRequestBytes: this.config.int('socket.request.max.bytes'),
      lentBuffers: readBuffers,
      faults: this.faults,
      listener: { name: listener.name, securityProtocol: listener.securityProtocol },
      quotas: this.clientQuotas,
      ...this.saslHost(listener.name, listener.securityProtocol),
    };
  }

  /** Applies a change of dynamic broker configs to the parts that read them once (Kafka's reconfigure()). */
  private reconfigure(): void {
    this.logs.setDefaults(this.config.topicDefaults());
    this.connections.setQuotas(Broker.connectionQuotas(this.config));
    this.tasks?.reconfigureCleaner();
  }

  /** The authorizer authorizer.class.name asks for, over the ACLs of the data dir or of ZooKeeper; null without one. */
  private static openAuthorizer(config: BrokerConfig, persistence: AclPersistence): Authorizer | null {
    if (!config.string('authorizer.class.name')) return null;
    const superUsers = (config.string('super.users') ?? '')
      .split(';')
      .map((u) => u.trim())
      .filter(Boolean);
    return new Authorizer({ superUsers, allowEveryoneIfNoAclFound: config.bool('allow.everyone.if.no.acl.found'), persistence });
  }

  /** The cluster's SCRAM credential persistence, through whichever ZkCluster the broker has when one is saved. */
  private clusterScramPersistence(): CredentialPersistence {
    return { load: () => new Map(), save: (user, credentials, all) => this.zkCluster!.scramCredentialPersistence.save(user, credentials, all) };
  }

  /** The login brokers make on each other's inter-broker listener when it is SASL (checked by BrokerConfig). */
  private interBrokerSasl(): SaslClientLogin | undefined {
    const listener = this.config.clientListeners.find((l) => l.name === this.config.interBrokerListener);
    if (!listener?.securityProtocol.startsWith('SASL_')) return undefined;
    const login = interBrokerSaslLogin(this.config.saslSource, listener.name);
    return typeof login === 'string' ? undefined : login;
  }

  /** A SASL listener's mechanisms for its connections (nothing on other listeners). */
  private saslHost(listener: string, protocol: string): { sasl?: SaslListener } {
    if (!protocol.startsWith('SASL_')) return {};
    // A reset() opens the store anew: logins read whichever is current.
    return { sasl: saslListener(this.config.saslSource, listener, (user, mechanism) => this.scramCredentials.get(user, mechanism)) };
  }

  /** The narrow services handlers are given (see RequestContext). */
  private services(logs: LogManager): BrokerServices {
    const registry = this.registry;
    const store = this.zkCluster ? this.zkCluster.topics() : new LocalTopicStore(logs, this.replicas, this.log);
    const topics = new TopicAdmin(logs, this.replicas, store, this.config, this.offsetsTopic, this.transactionState);
    return {
      cluster: this.zkCluster ?? new SingleBrokerCluster(this.clusterId, this.config.nodeId, () => this.advertisedEndpoints()),
      ...this.clusterServices(topics),
      replicas: this.replicas,
      groups: this.groups,
      topics,
      configs: new ConfigAdmin(topics, this.config, this.dynamicConfigs, this.log.level, this.zkCluster ?? SINGLE_BROKER_WIDE_CONFIGS),
      producerIds: this.producerIds,
      transactions: this.transactions,
      transactionState: this.transactionState,
      config: this.config,
      clientQuotas: this.clientQuotas,
      apiVersions: () => registry.apiVersions(),
      metrics: this.metrics,
      authorizer: this.authorizer,
      scramCredentials: this.scramCredentials,
    };
  }

  /** The cluster's part of the services: ZooKeeper's in a cluster, a single broker's own otherwise. */
  private clusterServices(topics: TopicAdmin): Pick<BrokerServices, 'coordinators' | 'controllerRequests' | 'elections' | 'reassignments'> {
    const zk = this.zkCluster;
    if (!zk) {
      return {
        coordinators: SINGLE_BROKER_COORDINATORS,
        controllerRequests: SINGLE_BROKER_CONTROLLER_REQUESTS,
        elections: singleBrokerElections(topics, this.replicas),
        reassignments: singleBrokerReassignments(topics),
      };
    }
    return {
      coordinators: zk,
      controllerRequests: zk,
      elections: zk,
      reassignments: { alter: (requests) => zk.alterPartitionReassignments(requests), list: (partitions) => zk.listPartitionReassignments(partitions) },
    };
  }

  get nodeId(): number {
    return this.config.nodeId;
  }

  /** The first client listener (the one of --host/--port), with its real port (after binding to port 0). */
  get listener(): Listener {
    return { host: this.config.listener.host, port: this.servers?.port(this.config.listener.name) ?? 0 };
  }

  /** The address clients of the first listener are told to use in Metadata and DescribeCluster. */
  get advertised(): Listener {
    const { host, port } = this.advertisedEndpoints()[0];
    return { host, port };
  }

  /** Every client listener's advertised endpoint, with the ports actually bound. */
  advertisedEndpoints(): ListenerEndpoint[] {
    if (!this.servers) throw new Error('the broker does not listen yet');
    return this.servers.advertised();
  }

  private async listen(): Promise<void> {
    this.servers = await ListenerServers.bind(this.config.clientListeners, {
      log: this.log,
      // Over a connection quota the new connection is closed before anything is read from it.
      admits: (socket) => this.connections.admits(normaliseAddress(socket.remoteAddress)),
      accept: (listener, socket, principal) => {
        const address = normaliseAddress(socket.remoteAddress);
        this.connections.add(new Connection(socket, this.connectionHosts.get(listener.name)!, address, principal));
      },
      tls: (listener) => listenerTls(listener.name, (name) => this.config.listenerConfig(listener.name, name)),
    });
  }

  /**
   * Makes a single broker as it was when first started, on the same port: every topic, group, committed
   * offset, transactional id, producer state and fault is gone. What stays is what identifies the broker and
   * how it was configured: the data dir's lock, meta.properties (the cluster id), dynamic broker configs, and
   * the producer id counter (a producer from before the reset never meets its own id again). Connections
   * stay open and are served by the new state from then on. The background work is stopped first, while
   * requests are still served; the old state is then closed, removed and opened anew in one synchronous
   * step, so that no request sees half of it.
   */
  async reset(): Promise<void> {
    if (this.zkCluster) throw new Error('reset() is for a single broker: a cluster is reset by starting a new one');
    if (this.resetting || !this.servers) throw new Error(this.resetting ? 'a reset is already under way' : 'the broker is closed');
    this.resetting = true;
    try {
      await this.tasks?.stop();
      await this.metaSynced;
      this.faults.clear();
      this.groups.close();
      this.logs.close();
      const kept = new Set([LOCK_FILE, META_PROPERTIES, BROKER_CONFIGS_FILE, PRODUCER_ID_BLOCK_FILE, CLIENT_QUOTAS_FILE, SCRAM_CREDENTIALS_FILE]);
      for (const entry of storageFs.readdirSync(this.dataDir)) {
        if (!kept.has(entry)) storageFs.rmSync(path.join(this.dataDir, entry), { recursive: true, force: true });
      }
      this.scheduler = new Scheduler(this.log);
      this.open(null);
      this.startTasks();
      this.log.info('reset: every topic, group and transactional id removed');
    } finally {
      this.resetting = false;
    }
  }

  async close(): Promise<void> {
    this.state = 'closing';
    // In a cluster: leaderships move away first (while this broker still answers the controller), then the
    // registration goes with the ZooKeeper session.
    if (this.zkCluster) {
      await this.zkCluster.controlledShutdownRequest();
      await this.zkCluster.close();
    }
    // No new background runs from now on; a checkpoint under way is awaited below, before the final ones.
    const backgroundStopped = this.tasks ? this.tasks.stop() : this.scheduler.close();
    this.groups.close();
    const servers = this.servers;
    this.servers = null;
    if (servers) {
      const closed = servers.close();
      this.connections.closeAll();
      await closed;
    }
    await this.metaSynced;
    await backgroundStopped;
    try {
      if (this.zkCluster) {
        try {
          this.replicas.checkpointHighWatermarksNow();
        } catch (err) {
          this.log.warn({ err: (err as Error).message }, 'could not write the high watermark checkpoint');
        }
      }
      this.logs.close();
    } finally {
      await this.http?.close();
      await this.lock.release();
    }
  }
}
