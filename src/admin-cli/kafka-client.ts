// The Kafka client behind `krill <subcommand>`: krill's own codec (protocol/) over the broker-to-broker
// connection (cluster/broker-client.ts), so the CLI speaks to krill and to Apache Kafka alike.
//
// As Kafka's AdminClient does, it asks the bootstrap server for its API versions and cluster metadata, then
// sends each request where it belongs: partition requests to the partition's leader, group and transaction
// requests to the coordinator FindCoordinator names. The versions are the bootstrap broker's, taken as the
// cluster's: brokers of one cluster run one version of Kafka outside a rolling upgrade.

import type tls from 'node:tls';
import { BrokerClient, BrokerRequestError } from '../cluster/broker-client.js';
import { ErrorCode, errorName } from '../../protocol/errors.js';
import { MESSAGES_BY_KEY, type ApiKey, type MessageFor } from '../../protocol/messages/index.js';
import { parseVersions, type DecodedResponseOf, type RequestInputOf } from '../../protocol/schema.js';

/** A broker answered with an error code; the message starts with Kafka's name for it (UNKNOWN_TOPIC_OR_PARTITION). */
export class BrokerError extends Error {
  constructor(
    readonly code: number,
    context: string,
    detail?: string | null,
  ) {
    super(`${errorName(code)}: ${context}${detail ? `: ${detail}` : ''}`);
  }
}

/** The broker could not be reached, or did not answer in time. */
export class ConnectionError extends Error {}

/** Throws a BrokerError for any code but NONE. */
export function check(code: number, context: string, detail?: string | null): void {
  if (code !== ErrorCode.NONE) throw new BrokerError(code, context, detail);
}

export interface Node {
  nodeId: number;
  host: string;
  port: number;
  rack: string | null;
}

export interface PartitionMetadata {
  partition: number;
  errorCode: number;
  leader: number;
  leaderEpoch: number;
  replicas: number[];
  isr: number[];
  offline: number[];
}

export interface TopicMetadata {
  name: string;
  topicId: string;
  errorCode: number;
  isInternal: boolean;
  partitions: PartitionMetadata[];
}

export interface ClusterMetadata {
  clusterId: string | null;
  controllerId: number;
  brokers: Node[];
  topics: TopicMetadata[];
}

export const COORDINATOR_GROUP = 0;
export const COORDINATOR_TRANSACTION = 1;

const CLIENT_ID = 'krill-cli';
const RETRY_BACKOFF_MS = 100;
/** What FindCoordinator answers while the coordinator's partition is being created or loaded. */
const COORDINATOR_PENDING = new Set<number>([ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.NOT_COORDINATOR]);

export function parseHostPort(address: string): { host: string; port: number } {
  const m = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(address.trim());
  if (!m || Number(m[2]) > 65535) throw new RangeError(`a bootstrap server is host:port, got '${address}'`);
  return { host: m[1].replace(/^\[|\]$/g, ''), port: Number(m[2]) };
}

export class KafkaClient {
  private readonly connections = new Map<number, BrokerClient>();
  private readonly nodes = new Map<number, Node>();
  private versions = new Map<number, { min: number; max: number }>();

  private constructor(
    private readonly bootstrap: BrokerClient,
    private readonly bootstrapAddress: string,
    private readonly requestTimeoutMs: number,
    /** TLS settings (--command-config with security.protocol=SSL); absent: PLAINTEXT. */
    private readonly tls?: tls.ConnectionOptions,
  ) {}

  /** Connects to the first bootstrap server that answers ApiVersions. */
  static async connect(bootstrapServers: string, requestTimeoutMs = 30_000, tls?: tls.ConnectionOptions): Promise<KafkaClient> {
    const failures: string[] = [];
    for (const address of bootstrapServers.split(',')) {
      const { host, port } = parseHostPort(address);
      const conn = new BrokerClient({ host, port, clientId: CLIENT_ID, requestTimeoutMs, tls });
      const client = new KafkaClient(conn, `${host}:${port}`, requestTimeoutMs, tls);
      try {
        await client.negotiate();
        return client;
      } catch (err) {
        conn.close();
        if (!(err instanceof ConnectionError)) throw err;
        failures.push(err.message);
      }
    }
    throw new ConnectionError(failures.join('; '));
  }

  private async negotiate(): Promise<void> {
    // v3 (KIP-511, Kafka 2.4) carries the client's name; every broker Kafka 4's clients still talk to speaks it.
    const res = await this.call(this.bootstrap, 18, 3, { clientSoftwareName: CLIENT_ID, clientSoftwareVersion: '1' });
    check(res.errorCode, `ApiVersions from ${this.bootstrapAddress}`);
    this.versions = new Map(res.apiKeys.map((k) => [k.apiKey, { min: k.minVersion, max: k.maxVersion }]));
  }

  /** The version to send: the newest both sides speak, at most `cap` (where a later version changes a field the CLI reads). */
  version(apiKey: ApiKey, cap = Infinity): number {
    const def = MESSAGES_BY_KEY.get(apiKey)!;
    const ours = parseVersions(def.validVersions);
    const theirs = this.versions.get(apiKey);
    const max = Math.min(cap, ours.max, theirs?.max ?? -1);
    if (!theirs || max < Math.max(ours.min, theirs.min)) {
      throw new BrokerError(
        ErrorCode.UNSUPPORTED_VERSION,
        `${this.bootstrapAddress} does not serve ${def.name} in a version krill speaks (${def.validVersions})`,
      );
    }
    return max;
  }

  /** Whether the broker serves the API at all (DescribeLogDirs, the transaction APIs are not everywhere). */
  serves(apiKey: ApiKey): boolean {
    return this.versions.has(apiKey);
  }

  private async call<K extends ApiKey>(
    conn: BrokerClient,
    apiKey: K,
    version: number,
    body: RequestInputOf<MessageFor<K>>,
  ): Promise<DecodedResponseOf<MessageFor<K>>> {
    try {
      return await conn.send(apiKey, version, body);
    } catch (err) {
      if (err instanceof BrokerRequestError && err.reason !== 'invalid') throw new ConnectionError(err.message);
      throw err;
    }
  }

  /** Sends to the bootstrap broker (requests any broker answers: Metadata, CreateTopics, DescribeConfigs of topics). */
  send<K extends ApiKey>(apiKey: K, body: RequestInputOf<MessageFor<K>>, cap?: number): Promise<DecodedResponseOf<MessageFor<K>>> {
    return this.call(this.bootstrap, apiKey, this.version(apiKey, cap), body);
  }

  /** Sends to one broker by node id, as the last Metadata named it. */
  async sendTo<K extends ApiKey>(nodeId: number, apiKey: K, body: RequestInputOf<MessageFor<K>>, cap?: number): Promise<DecodedResponseOf<MessageFor<K>>> {
    return this.call(await this.connectionTo(nodeId), apiKey, this.version(apiKey, cap), body);
  }

  private async connectionTo(nodeId: number): Promise<BrokerClient> {
    let conn = this.connections.get(nodeId);
    if (conn) return conn;
    if (!this.nodes.has(nodeId)) await this.metadata([]);
    const node = this.nodes.get(nodeId);
    if (!node) throw new BrokerError(ErrorCode.BROKER_NOT_AVAILABLE, `broker ${nodeId} is not in the cluster's metadata`);
    conn = new BrokerClient({ host: node.host, port: node.port, clientId: CLIENT_ID, requestTimeoutMs: this.requestTimeoutMs, tls: this.tls });
    this.connections.set(nodeId, conn);
    return conn;
  }

  /** Sends one request to every broker (what each broker keeps of its own: the groups and transactions it coordinates). */
  async sendToEach<K extends ApiKey>(
    apiKey: K,
    body: RequestInputOf<MessageFor<K>>,
    cap?: number,
  ): Promise<{ nodeId: number; response: DecodedResponseOf<MessageFor<K>> }[]> {
    const { brokers } = await this.metadata([]);
    return Promise.all(brokers.map(async (b) => ({ nodeId: b.nodeId, response: await this.sendTo(b.nodeId, apiKey, body, cap) })));
  }

  /** Metadata of these topics (null: every topic; []: brokers only). Never creates a topic. */
  async metadata(topics: string[] | null): Promise<ClusterMetadata> {
    const res = await this.send(3, { topics: topics?.map((name) => ({ name })) ?? null, allowAutoTopicCreation: false }, 12);
    const brokers = res.brokers.map((b) => ({ nodeId: b.nodeId, host: b.host, port: b.port, rack: b.rack }));
    for (const b of brokers) this.nodes.set(b.nodeId, b);
    return {
      clusterId: res.clusterId,
      controllerId: res.controllerId,
      brokers: brokers.sort((a, b) => a.nodeId - b.nodeId),
      topics: res.topics
        .map((t) => ({
          name: t.name ?? '',
          topicId: t.topicId.toString('base64url'),
          errorCode: t.errorCode,
          isInternal: t.isInternal,
          partitions: t.partitions
            .map((p) => ({
              partition: p.partitionIndex,
              errorCode: p.errorCode,
              leader: p.leaderId,
              leaderEpoch: p.leaderEpoch,
              replicas: p.replicaNodes,
              isr: p.isrNodes,
              offline: p.offlineReplicas,
            }))
            .sort((a, b) => a.partition - b.partition),
        }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    };
  }

  /**
   * Metadata of topics that must exist: an unknown topic is an error naming it. With `leaders`, waits (up to
   * the request timeout) while a partition has no leader, as a just-created topic may not yet have one.
   */
  async topics(names: string[], leaders = false): Promise<TopicMetadata[]> {
    const deadline = Date.now() + this.requestTimeoutMs;
    for (;;) {
      const md = await this.metadata(names);
      const leaderless = md.topics.some((t) => t.errorCode === ErrorCode.LEADER_NOT_AVAILABLE || t.partitions.some((p) => p.leader < 0));
      if (!leaders || !leaderless || Date.now() > deadline) {
        for (const t of md.topics) check(t.errorCode, `topic '${t.name}'`);
        return md.topics;
      }
      await new Promise((resolve) => setTimeout(resolve, RETRY_BACKOFF_MS));
    }
  }

  /**
   * The node id of the coordinator of a group (COORDINATOR_GROUP) or transactional id (COORDINATOR_TRANSACTION).
   * Waits, as Kafka's clients do, while there is none yet: the first FindCoordinator of a cluster creates the
   * coordinator's topic, and its partitions take a moment to load.
   */
  async coordinator(key: string, keyType: number): Promise<number> {
    const deadline = Date.now() + this.requestTimeoutMs;
    for (;;) {
      // v3 and below ask for one key; v4+ (KIP-699) for a batch, which one key does not need.
      const res = await this.send(10, { key, keyType }, 3);
      if (COORDINATOR_PENDING.has(res.errorCode) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, RETRY_BACKOFF_MS));
        continue;
      }
      check(res.errorCode, `FindCoordinator for ${keyType === COORDINATOR_GROUP ? 'group' : 'transactional id'} '${key}'`, res.errorMessage);
      this.nodes.set(res.nodeId, { nodeId: res.nodeId, host: res.host, port: res.port, rack: null });
      return res.nodeId;
    }
  }

  /**
   * Sends a request to the coordinator of `key`, finding it first; while the response says the coordinator
   * is still loading or has moved (`errorsOf` gives its codes), finds it again and resends, up to the request
   * timeout, as Kafka's AdminClient does.
   */
  async sendToCoordinator<K extends ApiKey>(
    key: string,
    keyType: number,
    apiKey: K,
    body: RequestInputOf<MessageFor<K>>,
    errorsOf: (response: DecodedResponseOf<MessageFor<K>>) => number[],
    cap?: number,
  ): Promise<{ coordinator: number; response: DecodedResponseOf<MessageFor<K>> }> {
    const deadline = Date.now() + this.requestTimeoutMs;
    for (;;) {
      const coordinator = await this.coordinator(key, keyType);
      const response = await this.sendTo(coordinator, apiKey, body, cap);
      if (!errorsOf(response).some((code) => COORDINATOR_PENDING.has(code)) || Date.now() > deadline) return { coordinator, response };
      await new Promise((resolve) => setTimeout(resolve, RETRY_BACKOFF_MS));
    }
  }

  close(): void {
    this.bootstrap.close();
    for (const c of this.connections.values()) c.close();
  }
}

/** Partitions grouped by their leader, for one request per broker. */
export function byLeader<T extends { leader: number }>(items: T[]): Map<number, T[]> {
  const out = new Map<number, T[]>();
  for (const it of items) {
    if (it.leader < 0) throw new BrokerError(ErrorCode.LEADER_NOT_AVAILABLE, 'a partition has no leader');
    out.set(it.leader, [...(out.get(it.leader) ?? []), it]);
  }
  return out;
}
