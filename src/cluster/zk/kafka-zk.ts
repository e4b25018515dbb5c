// Kafka's operations on ZooKeeper (ZooKeeper mode; Kafka's KafkaZkClient), typed, over one ZkClient session;
// the layout and JSON are in znodes.ts.
//
// Controller fencing, as Kafka does it: the controller's writes to partition state and its deletions go in a
// ZooKeeper multi that first checks /controller_epoch's zk version, the one its own election wrote. A
// controller that has been replaced (a newer one bumped /controller_epoch) cannot write any more: the check
// fails and the call throws ControllerMovedError.
//
// Reads that list many znodes (brokers, partition states) skip a malformed entry with a warning, so one bad
// znode cannot hide the others; reads of one znode throw MalformedZNodeError naming it.

import { childPath, isCode, ZkError, type ZkClient, type ZkOp } from './zk-client.js';
import {
  BROKER_DEFAULT_ENTITY,
  brokerDefaultConfigPath,
  brokerPath,
  CONFIG_CHANGE_PREFIX,
  decodeBrokerRegistration,
  decodeClusterId,
  decodeConfigChange,
  decodeController,
  decodeControllerEpoch,
  decodeEntityConfig,
  decodePartitionState,
  decodeProducerIdBlock,
  decodeTopicAssignment,
  deleteTopicPath,
  encodeBrokerRegistration,
  encodeClusterId,
  encodeConfigChange,
  encodeController,
  encodeControllerEpoch,
  encodeEntityConfig,
  encodePartitionState,
  encodeProducerIdBlock,
  encodeTopicAssignment,
  MalformedZNodeError,
  partitionPath,
  partitionsPath,
  partitionStatePath,
  PERSISTENT_PATHS,
  topicConfigPath,
  topicPath,
  ZK_PATHS,
  type BrokerRegistration,
  type PartitionLeadership,
  type ReassigningReplicas,
} from './znodes.js';
import type { ListenerEndpoint } from '../cluster-view.js';

export type { PartitionLeadership, ReassigningReplicas } from './znodes.js';
export { MalformedZNodeError } from './znodes.js';

export interface BrokerInfo {
  id: number;
  /** The inter-broker listener's endpoint. */
  host: string;
  port: number;
  rack: string | null;
  /** Every listener the broker registered. */
  endpoints: readonly ListenerEndpoint[];
  /** The registration znode's czxid: Kafka's broker epoch, which grows with every registration. */
  epoch: number;
}

export interface TopicAssignment {
  /** 16 bytes; null for a topic written before topic ids (a version 1-2 znode). */
  topicId: Buffer | null;
  partitions: Map<number, number[]>;
  /** The partitions being reassigned (KIP-455), with the replicas they are adding and removing. */
  reassigning: { adding: Map<number, number[]>; removing: Map<number, number[]> };
  /** The znode's zk version, for setTopicAssignment. */
  version: number;
}

/** A conditional write failed because /controller_epoch moved on: another broker is the controller now. */
export class ControllerMovedError extends Error {
  constructor(message = 'the controller moved: /controller_epoch changed since this controller was elected') {
    super(message);
    this.name = 'ControllerMovedError';
  }
}

interface Log {
  warn(o: object, m?: string): void;
}

/** Bounds the retries of read-modify-write loops that lose races to other brokers. */
const MAX_RACE_RETRIES = 100;

export class KafkaZk {
  constructor(
    readonly zk: ZkClient,
    private readonly log: Log = { warn: () => {} },
    /** The listener brokers talk to each other on: the address getBrokers gives of each. */
    private readonly interBrokerListener?: string,
  ) {}

  /** The paths Kafka creates at start, so watches and children reads find them. */
  async ensurePersistentPaths(): Promise<void> {
    for (const path of PERSISTENT_PATHS) await this.zk.createIfMissing(path);
  }

  /** The cluster id stored in /cluster/id, `proposed` when there was none (then stored). */
  async getOrCreateClusterId(proposed: string): Promise<string> {
    const path = ZK_PATHS.clusterId;
    const existing = await this.zk.getData(path);
    if (existing) return decodeClusterId(path, existing.data);
    await this.zk.createIfMissing('/cluster');
    try {
      await this.zk.create(path, encodeClusterId(proposed), 'persistent');
      return proposed;
    } catch (err) {
      if (!isCode(err, 'NODE_EXISTS')) throw err;
      const raced = await this.zk.getData(path);
      if (!raced) throw err;
      return decodeClusterId(path, raced.data);
    }
  }

  /**
   * Registers the broker (ephemeral, gone with the session); returns its broker epoch. A registration this
   * session already made (a retry after a lost answer) is accepted, as Kafka's checked ephemeral create does.
   */
  async registerBroker(b: BrokerRegistration): Promise<number> {
    const path = brokerPath(b.id);
    let existed = false;
    try {
      await this.zk.create(path, encodeBrokerRegistration(b, Date.now()), 'ephemeral');
    } catch (err) {
      if (!isCode(err, 'NODE_EXISTS')) throw err;
      existed = true;
    }
    const node = await this.zk.getData(path);
    if (!node) throw new ZkError('NO_NODE', `${path} disappeared right after it was registered`, path);
    if (existed && node.ephemeralOwner !== this.zk.sessionId()) {
      throw new ZkError('NODE_EXISTS', `broker id ${b.id} is already registered in ZooKeeper (${path}): another broker uses it`, path);
    }
    return Number(node.czxid);
  }

  /** The live brokers, sorted by id; the watch fires when one registers or goes. */
  async getBrokers(watch?: () => void): Promise<BrokerInfo[]> {
    const brokers: BrokerInfo[] = [];
    for (const child of await this.zk.getChildren(ZK_PATHS.brokerIds, watch)) {
      const path = `${ZK_PATHS.brokerIds}/${child}`;
      if (!/^\d+$/.test(child)) {
        this.log.warn({ path }, 'ignoring a broker registration whose name is not a broker id');
        continue;
      }
      const node = await this.zk.getData(path);
      if (!node) continue; // gone meanwhile
      try {
        brokers.push({ ...decodeBrokerRegistration(path, Number(child), node.data, this.interBrokerListener), epoch: Number(node.czxid) });
      } catch (err) {
        if (!(err instanceof MalformedZNodeError)) throw err;
        this.log.warn({ path, err: err.message }, 'ignoring a malformed broker registration');
      }
    }
    return brokers.sort((a, b) => a.id - b.id);
  }

  /** The controller's broker id, null when there is none; the watch fires on its creation, change or deletion. */
  async getControllerId(watch?: () => void): Promise<number | null> {
    const node = await this.zk.getData(ZK_PATHS.controller, watch);
    return node ? decodeController(ZK_PATHS.controller, node.data) : null;
  }

  async getControllerEpoch(): Promise<{ epoch: number; zkVersion: number } | null> {
    const node = await this.zk.getData(ZK_PATHS.controllerEpoch);
    return node ? { epoch: decodeControllerEpoch(ZK_PATHS.controllerEpoch, node.data), zkVersion: node.version } : null;
  }

  /**
   * Tries to become the controller. As Kafka's registerControllerAndIncrementControllerEpoch: in one multi,
   * create the ephemeral /controller and bump /controller_epoch conditionally on the version read (the node
   * is first created with epoch 0, so the first controller's epoch is 1). Null when another broker is the
   * controller. The returned zk version of /controller_epoch fences this controller's writes.
   */
  async tryCreateController(brokerId: number): Promise<{ epoch: number; epochZkVersion: number } | null> {
    for (let attempt = 0; attempt < MAX_RACE_RETRIES; attempt++) {
      const current = await this.getOrCreateControllerEpoch();
      const epoch = current.epoch + 1;
      try {
        await this.zk.multi([
          { op: 'create', path: ZK_PATHS.controller, data: encodeController(brokerId, Date.now()), mode: 'ephemeral' },
          { op: 'set', path: ZK_PATHS.controllerEpoch, data: encodeControllerEpoch(epoch), version: current.zkVersion },
        ]);
        return { epoch, epochZkVersion: current.zkVersion + 1 };
      } catch (err) {
        if (isCode(err, 'NODE_EXISTS')) return null;
        // Another broker was elected (and maybe gone) between the read and the write: look again.
        if (!isCode(err, 'BAD_VERSION')) throw err;
      }
    }
    throw new Error(`could not bump ${ZK_PATHS.controllerEpoch}: it kept changing`);
  }

  async getTopics(watch?: () => void): Promise<string[]> {
    return this.zk.getChildren(ZK_PATHS.topics, watch);
  }

  /** The topic's replica assignment; null when there is no such topic. The watch fires when it changes. */
  async getTopicAssignment(topic: string, watch?: () => void): Promise<TopicAssignment | null> {
    const path = topicPath(topic);
    const node = await this.zk.getData(path, watch);
    if (!node) return null;
    return { ...decodeTopicAssignment(path, node.data), version: node.version };
  }

  /**
   * As Kafka's AdminZkClient: the configs first (/config/topics/<t>, replacing any left by an old deletion),
   * then the assignment; the controller acts on the assignment's creation. ZkError NODE_EXISTS when the
   * topic exists.
   */
  async createTopic(topic: string, topicId: Buffer, assignment: Map<number, number[]>, configs: Record<string, string>): Promise<void> {
    const path = topicPath(topic);
    if (await this.zk.getData(path)) throw new ZkError('NODE_EXISTS', `topic ${topic} already exists (${path})`, path);
    await this.writeTopicConfig(topic, configs);
    try {
      await this.zk.create(path, encodeTopicAssignment(topicId, assignment), 'persistent');
    } catch (err) {
      if (isCode(err, 'NODE_EXISTS')) throw new ZkError('NODE_EXISTS', `topic ${topic} already exists (${path})`, path);
      throw err;
    }
  }

  /** Replaces the assignment (CreatePartitions); ZkError BAD_VERSION when it changed since it was read. */
  async setTopicAssignment(topic: string, topicId: Buffer, assignment: Map<number, number[]>, expectedVersion: number): Promise<void> {
    await this.zk.setData(topicPath(topic), encodeTopicAssignment(topicId, assignment), expectedVersion);
  }

  /**
   * The controller's rewrite of a topic's assignment (reassignments: Kafka's setTopicAssignmentRaw), whatever
   * its version, fenced by /controller_epoch's version. ZkError NO_NODE when the topic is gone.
   */
  async updateTopicAssignment(
    topic: string,
    topicId: Buffer,
    assignment: Map<number, number[]>,
    reassigning: ReassigningReplicas,
    controllerEpochZkVersion: number,
  ): Promise<void> {
    await this.fencedMulti(controllerEpochZkVersion, [{ op: 'set', path: topicPath(topic), data: encodeTopicAssignment(topicId, assignment, reassigning) }]);
  }

  /** The topic's config overrides; {} when there are none. */
  async getTopicConfig(topic: string): Promise<Record<string, string>> {
    const path = topicConfigPath(topic);
    const node = await this.zk.getData(path);
    return node ? decodeEntityConfig(path, node.data) : {};
  }

  /** Replaces the topic's overrides and notifies every broker, as Kafka's AdminZkClient.changeTopicConfig. */
  async setTopicConfig(topic: string, configs: Record<string, string>): Promise<void> {
    await this.writeTopicConfig(topic, configs);
    await this.zk.create(`${ZK_PATHS.configChanges}/${CONFIG_CHANGE_PREFIX}`, encodeConfigChange('topics', topic), 'persistent_sequential');
  }

  /** The cluster-wide dynamic broker configs (/config/brokers/<default>); null when none were ever set. */
  async getBrokerDefaultConfig(): Promise<Record<string, string> | null> {
    const node = await this.zk.getData(brokerDefaultConfigPath);
    return node ? decodeEntityConfig(brokerDefaultConfigPath, node.data) : null;
  }

  /** Replaces the cluster-wide dynamic broker configs and notifies every broker, as Kafka's AdminZkClient.changeBrokerConfig. */
  async setBrokerDefaultConfig(configs: Record<string, string>): Promise<void> {
    const data = encodeEntityConfig(configs);
    try {
      await this.zk.setData(brokerDefaultConfigPath, data);
    } catch (err) {
      if (!isCode(err, 'NO_NODE')) throw err;
      await this.zk.createIfMissing('/config/brokers');
      await this.zk.create(brokerDefaultConfigPath, data, 'persistent');
    }
    await this.zk.create(`${ZK_PATHS.configChanges}/${CONFIG_CHANGE_PREFIX}`, encodeConfigChange('brokers', BROKER_DEFAULT_ENTITY), 'persistent_sequential');
  }

  /**
   * An entity's configs under /config/<entityPath> (`users/alice`, `users/alice/clients/app`); null when the
   * znode is missing. Configs of users, clients and ips are written by update(Entity)Config below.
   */
  async getEntityConfig(entityPath: string): Promise<Record<string, string> | null> {
    const path = `/config/${entityPath}`;
    const node = await this.zk.getData(path);
    return node ? decodeEntityConfig(path, node.data) : null;
  }

  /** The entities of a config directory (`users`, `clients`, `users/<u>/clients`); [] when it is missing. */
  async getEntityNames(dir: string): Promise<string[]> {
    try {
      return await this.zk.getChildren(`/config/${dir}`);
    } catch (err) {
      if (isCode(err, 'NO_NODE')) return [];
      throw err;
    }
  }

  /**
   * Read-modify-write of an entity's configs, conditional on the version read, so that two writers of
   * different keys of one znode (SCRAM credentials and quotas share /config/users/<u>) keep each other's;
   * then the change notification, as Kafka's AdminZkClient.changeConfigs.
   */
  async updateEntityConfig(entityPath: string, update: (configs: Record<string, string>) => Record<string, string>): Promise<void> {
    const path = `/config/${entityPath}`;
    for (let attempt = 0; attempt < MAX_RACE_RETRIES; attempt++) {
      const node = await this.zk.getData(path);
      const data = encodeEntityConfig(update(node ? decodeEntityConfig(path, node.data) : {}));
      try {
        if (node) await this.zk.setData(path, data, node.version);
        else {
          await this.zk.createIfMissing(path.slice(0, path.lastIndexOf('/')));
          await this.zk.create(path, data, 'persistent');
        }
      } catch (err) {
        if (isCode(err, 'BAD_VERSION') || isCode(err, 'NODE_EXISTS') || isCode(err, 'NO_NODE')) continue;
        throw err;
      }
      const slash = entityPath.indexOf('/');
      await this.zk.create(
        `${ZK_PATHS.configChanges}/${CONFIG_CHANGE_PREFIX}`,
        encodeConfigChange(entityPath.slice(0, slash), entityPath.slice(slash + 1)),
        'persistent_sequential',
      );
      return;
    }
    throw new Error(`could not update ${path}: it kept changing`);
  }

  /** The names of the config change notifications (config_change_<seq>); the watch fires on a new one. */
  async getConfigChanges(watch?: () => void): Promise<string[]> {
    const children = await this.zk.getChildren(ZK_PATHS.configChanges, watch);
    return children.filter((c) => c.startsWith(CONFIG_CHANGE_PREFIX)).sort();
  }

  /** The entity a notification names; null when it is gone (Kafka purges old notifications). */
  async readConfigChange(name: string): Promise<{ entityType: string; entityName: string; createdMs: number } | null> {
    const path = `${ZK_PATHS.configChanges}/${name}`;
    const node = await this.zk.getData(path);
    return node ? { ...decodeConfigChange(path, node.data), createdMs: node.ctime } : null;
  }

  /** Removes a config change notification (gone already: nothing to do). */
  async deleteConfigChange(name: string): Promise<void> {
    try {
      await this.zk.delete(`${ZK_PATHS.configChanges}/${name}`);
    } catch (err) {
      if (!isCode(err, 'NO_NODE')) throw err;
    }
  }

  /** Each partition's leadership and the zk version of its state znode; partitions without one are absent. */
  async getPartitionStates(topic: string): Promise<Map<number, PartitionLeadership & { zkVersion: number }>> {
    const states = new Map<number, PartitionLeadership & { zkVersion: number }>();
    for (const child of await this.zk.getChildren(partitionsPath(topic))) {
      if (!/^\d+$/.test(child)) continue;
      const p = Number(child);
      const path = partitionStatePath(topic, p);
      const node = await this.zk.getData(path);
      if (!node) continue;
      try {
        states.set(p, { ...decodePartitionState(path, node.data), zkVersion: node.version });
      } catch (err) {
        if (!(err instanceof MalformedZNodeError)) throw err;
        this.log.warn({ path, err: err.message }, 'ignoring a malformed partition state');
      }
    }
    return states;
  }

  /**
   * One partition's leadership and the zk version of its state znode; null when it has none. The watch fires
   * when the state changes (or is created or deleted).
   */
  async getPartitionState(topic: string, partition: number, watch?: () => void): Promise<(PartitionLeadership & { zkVersion: number }) | null> {
    const path = partitionStatePath(topic, partition);
    const node = await this.zk.getData(path, watch);
    return node ? { ...decodePartitionState(path, node.data), zkVersion: node.version } : null;
  }

  /**
   * Creates the partitions' state znodes (and their parents), fenced by /controller_epoch's version. ZkError
   * NODE_EXISTS when a state exists already; then none was created.
   */
  async createPartitionStates(topic: string, states: Map<number, PartitionLeadership>, controllerEpochZkVersion: number): Promise<void> {
    await this.fencedCreateIfMissing(partitionsPath(topic), controllerEpochZkVersion);
    for (const p of states.keys()) await this.fencedCreateIfMissing(partitionPath(topic, p), controllerEpochZkVersion);
    const creates: ZkOp[] = [...states].map(([p, s]) => ({
      op: 'create',
      path: partitionStatePath(topic, p),
      data: encodePartitionState(s),
      mode: 'persistent',
    }));
    await this.fencedMulti(controllerEpochZkVersion, creates);
  }

  /** Writes a partition's new leadership if its state is still at expectedZkVersion; returns the new version. */
  async updatePartitionState(
    topic: string,
    partition: number,
    state: PartitionLeadership,
    expectedZkVersion: number,
    controllerEpochZkVersion: number,
  ): Promise<number> {
    const path = partitionStatePath(topic, partition);
    await this.fencedMulti(controllerEpochZkVersion, [{ op: 'set', path, data: encodePartitionState(state), version: expectedZkVersion }]);
    // A conditional set moves the version by exactly one.
    return expectedZkVersion + 1;
  }

  /** The topics marked for deletion; the watch fires on a new mark. */
  async getTopicDeletions(watch?: () => void): Promise<string[]> {
    return this.zk.getChildren(ZK_PATHS.deleteTopics, watch);
  }

  /** DeleteTopics' request to the controller; marking a topic twice is not an error. */
  async markTopicForDeletion(topic: string): Promise<void> {
    try {
      await this.zk.create(deleteTopicPath(topic), null, 'persistent');
    } catch (err) {
      if (!isCode(err, 'NODE_EXISTS')) throw err;
    }
  }

  /** The controller's last step of a deletion: the topic's znodes, its configs, its deletion mark. */
  async deleteTopicZNodes(topic: string, controllerEpochZkVersion: number): Promise<void> {
    await this.fencedDeleteRecursive(topicPath(topic), controllerEpochZkVersion);
    await this.fencedDeleteRecursive(topicConfigPath(topic), controllerEpochZkVersion);
    await this.fencedDeleteRecursive(deleteTopicPath(topic), controllerEpochZkVersion);
  }

  /**
   * Reserves the next block of producer ids, cluster-wide, as Kafka's ZkProducerIdManager: read
   * /latest_producer_id_block, write the block after it conditionally on the version read, again on a race.
   */
  async allocateProducerIdBlock(brokerId: number, blockSize: number): Promise<{ start: number; end: number }> {
    const path = ZK_PATHS.producerIdBlock;
    for (let attempt = 0; attempt < MAX_RACE_RETRIES; attempt++) {
      const node = await this.zk.getData(path);
      const last = node ? decodeProducerIdBlock(path, node.data) : null;
      const start = last ? last.end + 1 : 0;
      const end = start + blockSize - 1;
      if (!Number.isSafeInteger(end)) throw new Error(`producer ids are exhausted (${path} ends at ${last?.end})`);
      const data = encodeProducerIdBlock(brokerId, start, end);
      try {
        if (node) await this.zk.setData(path, data, node.version);
        else await this.zk.create(path, data, 'persistent');
        return { start, end };
      } catch (err) {
        if (!isCode(err, 'BAD_VERSION') && !isCode(err, 'NODE_EXISTS')) throw err;
      }
    }
    throw new Error(`could not reserve a producer id block: ${path} kept changing`);
  }

  private async writeTopicConfig(topic: string, configs: Record<string, string>): Promise<void> {
    const path = topicConfigPath(topic);
    const data = encodeEntityConfig(configs);
    try {
      await this.zk.setData(path, data);
    } catch (err) {
      if (!isCode(err, 'NO_NODE')) throw err;
      await this.zk.createIfMissing(ZK_PATHS.topicConfigs);
      await this.zk.create(path, data, 'persistent');
    }
  }

  private async getOrCreateControllerEpoch(): Promise<{ epoch: number; zkVersion: number }> {
    const current = await this.getControllerEpoch();
    if (current) return current;
    try {
      await this.zk.create(ZK_PATHS.controllerEpoch, encodeControllerEpoch(0), 'persistent');
      return { epoch: 0, zkVersion: 0 };
    } catch (err) {
      if (!isCode(err, 'NODE_EXISTS')) throw err;
      const raced = await this.getControllerEpoch();
      if (!raced) throw err;
      return raced;
    }
  }

  /** The ops after a check of /controller_epoch's version; ControllerMovedError when that check fails. */
  private async fencedMulti(controllerEpochZkVersion: number, ops: ZkOp[]): Promise<void> {
    try {
      await this.zk.multi([{ op: 'check', path: ZK_PATHS.controllerEpoch, version: controllerEpochZkVersion }, ...ops]);
    } catch (err) {
      if (err instanceof ZkError && err.opIndex === 0) throw new ControllerMovedError();
      if (err instanceof ZkError && err.opIndex !== undefined) {
        throw new ZkError(err.code, err.message, err.path, err.opIndex - 1);
      }
      throw err;
    }
  }

  private async fencedCreateIfMissing(path: string, controllerEpochZkVersion: number): Promise<void> {
    try {
      await this.fencedMulti(controllerEpochZkVersion, [{ op: 'create', path, data: null, mode: 'persistent' }]);
    } catch (err) {
      if (!isCode(err, 'NODE_EXISTS')) throw err;
    }
  }

  private async fencedDeleteRecursive(path: string, controllerEpochZkVersion: number): Promise<void> {
    for (const child of await this.zk.getChildren(path)) {
      await this.fencedDeleteRecursive(childPath(path, child), controllerEpochZkVersion);
    }
    try {
      await this.fencedMulti(controllerEpochZkVersion, [{ op: 'delete', path }]);
    } catch (err) {
      if (isCode(err, 'NO_NODE')) return;
      if (isCode(err, 'NOT_EMPTY')) return this.fencedDeleteRecursive(path, controllerEpochZkVersion);
      throw err;
    }
  }
}
