// A broker's membership of a ZooKeeper cluster, as a Kafka broker in ZooKeeper mode holds it: its session,
// the cluster id it agrees on, its registration under /brokers/ids and its candidacy for controller.
//
// - Start: connect (giving up after zookeeper.connection.timeout.ms), create Kafka's persistent paths, agree
//   on the cluster id (/cluster/id against meta.properties: a data dir of another cluster refuses to
//   start), register (an id already registered refuses to start), then run for controller.
// - The session expires (ZooKeeper lost for longer than zookeeper.session.timeout.ms): the controller role
//   is dropped at once, and the broker reconnects, registers again and runs again, with backoff, until it
//   can. Its logs are untouched meanwhile: losing ZooKeeper never loses data.

import type tls from 'node:tls';
import type { SaslClientLogin } from '../security/sasl-client.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../logger.js';
import type { BrokerConfig } from '../config.js';
import { KafkaError } from '../../protocol/errors.js';
import { writeMetaProperties } from '../storage/meta-properties.js';
import { Controller } from './controller.js';
import type { LeaderBalanceConfig } from './controller-elections.js';
import { ZkClient, ZkError } from './zk/zk-client.js';
import { KafkaZk } from './zk/kafka-zk.js';
import { interBrokerEndpoint, type ListenerEndpoint } from './cluster-view.js';

const REJOIN_BACKOFF_MS = 1000;

export interface ZkMembershipOptions {
  config: BrokerConfig;
  log: Logger;
  dataDir: string;
  /** meta.properties as read (or just created) at start. */
  meta: { clusterId: string; nodeId: number; created: boolean };
  /** Every advertised listener, with the ports bound. */
  advertised: () => ListenerEndpoint[];
  /** TLS settings of the inter-broker listener, when it is SSL. */
  interBrokerTls?: tls.ConnectionOptions;
  interBrokerSasl?: SaslClientLogin;
  /** Run after each registration (at start, and after a session expiry) with the new session. */
  onRegistered: (zk: KafkaZk) => Promise<void>;
  /** Run before each registration: what other brokers need of this one as soon as they see it registered. */
  beforeRegistering?: (zk: KafkaZk) => Promise<void>;
}

export class ZkMembership {
  clusterId: string;
  /** This registration's epoch (the czxid of /brokers/ids/<id>), -1 before the first. */
  brokerEpoch = -1;
  private zk: KafkaZk | null = null;
  private controller: Controller | null = null;
  private closing = false;
  /** Whether meta.properties was created by this start and its cluster id not yet agreed with ZooKeeper. */
  private dataDirIsNew: boolean;

  constructor(private readonly options: ZkMembershipOptions) {
    this.clusterId = options.meta.clusterId;
    this.dataDirIsNew = options.meta.created;
  }

  private get localNodeId(): number {
    return this.options.config.nodeId;
  }

  /** The session now, or null while there is none (reconnecting after an expiry, or closed). */
  get session(): KafkaZk | null {
    return this.zk;
  }

  /** The session, or NOT_CONTROLLER (what Kafka's brokers answer while they cannot reach ZooKeeper). */
  requireZk(): KafkaZk {
    if (!this.zk) throw new KafkaError('NOT_CONTROLLER', 'This broker is not connected to ZooKeeper right now.');
    return this.zk;
  }

  /** This broker's controller, while it is the cluster's active one; null otherwise. */
  get activeController(): Controller | null {
    return this.controller?.isActive ? this.controller : null;
  }

  /** Connects, agrees on the cluster id, registers and runs for controller. Throws when the broker must not start. */
  async start(): Promise<void> {
    const { config, log } = this.options;
    const connect = config.zookeeperConnect!;
    const sessionTimeoutMs = config.int('zookeeper.session.timeout.ms');
    const connectionTimeoutMs = config.string('zookeeper.connection.timeout.ms') === null ? sessionTimeoutMs : config.int('zookeeper.connection.timeout.ms');
    const client = await ZkClient.connect({ connect, sessionTimeoutMs, connectionTimeoutMs, log });
    try {
      const zk = new KafkaZk(client, log, config.interBrokerListener);
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
    const { config, log } = this.options;
    await this.options.beforeRegistering?.(zk);
    const endpoints = this.options.advertised();
    const { host, port } = interBrokerEndpoint(endpoints, config.interBrokerListener);
    try {
      this.brokerEpoch = await zk.registerBroker({ id: this.localNodeId, host, port, rack: config.string('broker.rack'), endpoints });
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
      log,
      requestTimeoutMs: config.int('controller.socket.timeout.ms'),
      interBrokerTls: this.options.interBrokerTls,
      interBrokerSasl: this.options.interBrokerSasl,
      uncleanLeaderElectionDefault: () => config.bool('unclean.leader.election.enable'),
      leaderBalance: leaderBalanceConfig(config),
    });
    zk.zk.on('expired', () => this.onSessionExpired(zk));
    log.info({ brokerId: this.localNodeId, brokerEpoch: this.brokerEpoch }, 'registered in ZooKeeper');
    await this.elect(zk);
    await this.options.onRegistered(zk);
  }

  /** Runs for controller now, and again whenever /controller changes. */
  private async elect(zk: KafkaZk): Promise<void> {
    if (this.closing || this.zk !== zk) return;
    const again = () => void this.elect(zk).catch((err) => this.options.log.warn({ err: (err as Error).message }, 'controller election failed'));
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
    this.options.log.warn('ZooKeeper session expired: rejoining');
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
        this.options.log.warn({ err: (err as Error).message }, 'could not rejoin the cluster yet');
        await sleep(REJOIN_BACKOFF_MS);
      }
    }
  }

  /** Stops being, or becoming, the controller: the first step of leaving the cluster. */
  resign(): void {
    this.closing = true;
    this.controller?.resign();
  }

  /** Leaves the cluster: the controller role and the registration go with the session. */
  async close(): Promise<void> {
    this.resign();
    const zk = this.zk;
    this.zk = null;
    await zk?.zk.close();
  }
}

/** auto.leader.rebalance.enable and its settings, for the controller. */
function leaderBalanceConfig(config: BrokerConfig): LeaderBalanceConfig {
  return {
    enable: config.bool('auto.leader.rebalance.enable'),
    checkIntervalMs: config.int('leader.imbalance.check.interval.seconds') * 1000,
    imbalancePercentage: config.int('leader.imbalance.per.broker.percentage'),
  };
}
