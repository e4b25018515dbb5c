// Kafka's ZooKeeper layout (ZooKeeper mode, Kafka 2.8-3.x; kafka.zk.ZkData): the paths and the JSON of each
// znode, byte-compatible with what Kafka writes, so that Kafka's tools and people reading the tree
// understand krill's. Key order is Kafka's as it appears on real clusters (Kafka builds some of these from
// hash maps, so the order is not alphabetical); value types are Kafka's (timestamps and producer ids are
// strings, ports and epochs numbers, /cluster/id's version the string "1").
//
//   /cluster/id                               {"version":"1","id":"<cluster id>"}
//   /brokers/ids/<id>          (ephemeral)    {"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"},
//                                              "endpoints":["PLAINTEXT://host:port"],"jmx_port":-1,"features":{},
//                                              "host":"host","timestamp":"<ms>","port":9092,"version":5}
//                                             (+ "rack":"<rack>" when the broker has one; one endpoint per
//                                             listener, host/port the PLAINTEXT one's, null/-1 without one)
//   /controller                (ephemeral)    {"version":1,"brokerid":N,"timestamp":"<ms>"}
//   /controller_epoch                         <epoch> as decimal text
//   /brokers/topics/<t>                       {"partitions":{"0":[1,2]},"topic_id":"<base64url uuid>",
//                                              "adding_replicas":{},"removing_replicas":{},"version":3}
//                                             (while a partition is reassigned (KIP-455) its "partitions" entry
//                                             lists target and original replicas, and "adding_replicas" /
//                                             "removing_replicas" name it with the replicas being added / removed)
//   /brokers/topics/<t>/partitions/<p>/state  {"controller_epoch":C,"leader":L,"version":1,"leader_epoch":E,"isr":[..]}
//   /config/topics/<t>                        {"version":1,"config":{"k":"v"}}
//   /config/changes/config_change_<seq>       {"version":2,"entity_path":"topics/<t>"}
//   /admin/delete_topics/<t>                  (no data)
//   /latest_producer_id_block                 {"version":1,"broker":N,"block_start":"<first>","block_end":"<last>"}
//
// Decoding is defensive: a znode that is not what Kafka writes throws MalformedZNodeError naming its path.

import { SECURITY_PROTOCOLS, type SecurityProtocol } from '../../listeners.js';
import type { ListenerEndpoint } from '../cluster-view.js';

export const ZK_PATHS = {
  clusterId: '/cluster/id',
  brokerIds: '/brokers/ids',
  brokerSeqId: '/brokers/seqid',
  topics: '/brokers/topics',
  controller: '/controller',
  controllerEpoch: '/controller_epoch',
  topicConfigs: '/config/topics',
  configChanges: '/config/changes',
  deleteTopics: '/admin/delete_topics',
  isrChangeNotification: '/isr_change_notification',
  producerIdBlock: '/latest_producer_id_block',
} as const;

/** The paths Kafka creates when a broker starts (ZkData's PersistentZkPaths and one per config type). */
export const PERSISTENT_PATHS = [
  '/consumers',
  ZK_PATHS.brokerIds,
  ZK_PATHS.topics,
  ZK_PATHS.configChanges,
  ZK_PATHS.deleteTopics,
  ZK_PATHS.brokerSeqId,
  ZK_PATHS.isrChangeNotification,
  ZK_PATHS.producerIdBlock,
  '/log_dir_event_notification',
  ZK_PATHS.topicConfigs,
  '/config/clients',
  '/config/users',
  '/config/brokers',
  '/config/ips',
];

/** The prefix of the sequential config change notifications under /config/changes. */
export const CONFIG_CHANGE_PREFIX = 'config_change_';

export const brokerPath = (id: number): string => `${ZK_PATHS.brokerIds}/${id}`;
export const topicPath = (topic: string): string => `${ZK_PATHS.topics}/${topic}`;
export const partitionsPath = (topic: string): string => `${topicPath(topic)}/partitions`;
export const partitionPath = (topic: string, p: number): string => `${partitionsPath(topic)}/${p}`;
export const partitionStatePath = (topic: string, p: number): string => `${partitionPath(topic, p)}/state`;
export const topicConfigPath = (topic: string): string => `${ZK_PATHS.topicConfigs}/${topic}`;
export const deleteTopicPath = (topic: string): string => `${ZK_PATHS.deleteTopics}/${topic}`;
/** The cluster-wide dynamic broker configs, Kafka's /config/brokers/<default> (ConfigEntityName.Default). */
export const BROKER_DEFAULT_ENTITY = '<default>';
export const brokerDefaultConfigPath = `/config/brokers/${BROKER_DEFAULT_ENTITY}`;

/** A znode whose content is not what Kafka writes there. */
export class MalformedZNodeError extends Error {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(`malformed znode ${path}: ${reason}`);
    this.name = 'MalformedZNodeError';
  }
}

/** A broker's registration; `host`/`port` are the inter-broker listener's endpoint. */
export interface BrokerRegistration {
  id: number;
  host: string;
  port: number;
  rack: string | null;
  /** Every advertised listener; absent: one PLAINTEXT listener at host:port. */
  endpoints?: readonly ListenerEndpoint[];
}

export interface PartitionLeadership {
  leader: number;
  leaderEpoch: number;
  isr: number[];
  controllerEpoch: number;
}

const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value), 'utf8');

export function encodeClusterId(id: string): Buffer {
  return json({ version: '1', id });
}

export function decodeClusterId(path: string, data: Buffer | null): string {
  const o = parseObject(path, data);
  return stringField(path, o, 'id');
}

const hostPort = (host: string, port: number) => `${host.includes(':') ? `[${host}]` : host}:${port}`;

export function encodeBrokerRegistration(b: BrokerRegistration, timestampMs: number): Buffer {
  const endpoints = b.endpoints ?? [{ listener: 'PLAINTEXT', securityProtocol: 'PLAINTEXT', host: b.host, port: b.port }];
  // As Kafka: `host`/`port` hold the PLAINTEXT endpoint, for clients of old, and are null/-1 without one.
  const plaintext = endpoints.find((e) => e.securityProtocol === 'PLAINTEXT');
  return json({
    listener_security_protocol_map: Object.fromEntries(endpoints.map((e) => [e.listener, e.securityProtocol])),
    endpoints: endpoints.map((e) => `${e.listener}://${hostPort(e.host, e.port)}`),
    ...(b.rack === null ? {} : { rack: b.rack }),
    jmx_port: -1,
    features: {},
    host: plaintext?.host ?? null,
    timestamp: String(timestampMs),
    port: plaintext?.port ?? -1,
    version: 5,
  });
}

/** A registration as read, every endpoint named. */
export type DecodedBroker = BrokerRegistration & { endpoints: readonly ListenerEndpoint[] };

/** A listener's protocol as the registration maps it; a name that is a protocol maps to itself (versions 1-3). */
function protocolOf(path: string, map: unknown, listener: string): SecurityProtocol {
  const named = typeof map === 'object' && map !== null ? (map as Record<string, unknown>)[listener] : undefined;
  const protocol = typeof named === 'string' ? named : listener;
  if (!SECURITY_PROTOCOLS.includes(protocol as SecurityProtocol)) {
    throw new MalformedZNodeError(path, `listener ${listener} has no security protocol in listener_security_protocol_map`);
  }
  return protocol as SecurityProtocol;
}

/**
 * A broker's registration. Its address is its endpoint on `interBrokerListener` (the first endpoint when
 * that is not given or missing); `host`/`port` are the fallback for version 1 nodes, which have no endpoints.
 */
export function decodeBrokerRegistration(path: string, id: number, data: Buffer | null, interBrokerListener?: string): DecodedBroker {
  const o = parseObject(path, data);
  const rack = o.rack === undefined || o.rack === null ? null : stringField(path, o, 'rack');
  const raw = o.endpoints;
  if (Array.isArray(raw) && raw.length > 0) {
    const endpoints = raw.map((entry): ListenerEndpoint => {
      const m = typeof entry === 'string' ? /^([^:]+):\/\/(.*):(\d+)$/.exec(entry) : null;
      if (!m) throw new MalformedZNodeError(path, `endpoint ${JSON.stringify(entry)} is not LISTENER://host:port`);
      const listener = m[1].toUpperCase();
      return {
        listener,
        securityProtocol: protocolOf(path, o.listener_security_protocol_map, listener),
        host: m[2].replace(/^\[(.*)\]$/, '$1'),
        port: Number(m[3]),
      };
    });
    const own = endpoints.find((e) => e.listener === interBrokerListener) ?? endpoints[0];
    return { id, host: own.host, port: own.port, rack, endpoints };
  }
  const host = stringField(path, o, 'host');
  const port = intField(path, o, 'port');
  return { id, host, port, rack, endpoints: [{ listener: 'PLAINTEXT', securityProtocol: 'PLAINTEXT', host, port }] };
}

export function encodeController(brokerId: number, timestampMs: number): Buffer {
  return json({ version: 1, brokerid: brokerId, timestamp: String(timestampMs) });
}

export function decodeController(path: string, data: Buffer | null): number {
  // Kafka before 0.9 wrote the bare broker id.
  const text = data?.toString('utf8').trim() ?? '';
  if (/^\d+$/.test(text)) return Number(text);
  return intField(path, parseObject(path, data), 'brokerid');
}

export function encodeControllerEpoch(epoch: number): Buffer {
  return Buffer.from(String(epoch), 'utf8');
}

export function decodeControllerEpoch(path: string, data: Buffer | null): number {
  const text = data?.toString('utf8').trim() ?? '';
  if (!/^\d+$/.test(text)) throw new MalformedZNodeError(path, `${JSON.stringify(text)} is not an epoch`);
  return Number(text);
}

/** Kafka's Uuid.toString: URL-safe base64 of the 16 bytes, without padding. */
export function encodeTopicId(id: Buffer): string {
  return id.toString('base64url');
}

/** The partitions being reassigned (KIP-455): partition → the replicas being added, and those being removed. */
export interface ReassigningReplicas {
  adding: ReadonlyMap<number, readonly number[]>;
  removing: ReadonlyMap<number, readonly number[]>;
}

const NOT_REASSIGNING: ReassigningReplicas = { adding: new Map(), removing: new Map() };

/** Partition → replicas as Kafka's JSON object, partitions in order (with `skipEmpty`, those with none left out, as Kafka's adding/removing lists). */
function byPartition(replicas: ReadonlyMap<number, readonly number[]>, skipEmpty = false): Record<string, readonly number[]> {
  const o: Record<string, readonly number[]> = {};
  for (const [p, ids] of [...replicas].sort((a, b) => a[0] - b[0])) if (!skipEmpty || ids.length > 0) o[String(p)] = ids;
  return o;
}

export function encodeTopicAssignment(topicId: Buffer, assignment: Map<number, number[]>, reassigning: ReassigningReplicas = NOT_REASSIGNING): Buffer {
  return json({
    partitions: byPartition(assignment),
    topic_id: encodeTopicId(topicId),
    adding_replicas: byPartition(reassigning.adding, true),
    removing_replicas: byPartition(reassigning.removing, true),
    version: 3,
  });
}

/**
 * The replicas of each partition, the topic id (null in version 1-2 nodes, written before topic ids) and
 * the reassignments in progress (absent before version 2: none).
 */
export function decodeTopicAssignment(
  path: string,
  data: Buffer | null,
): { topicId: Buffer | null; partitions: Map<number, number[]>; reassigning: { adding: Map<number, number[]>; removing: Map<number, number[]> } } {
  const o = parseObject(path, data);
  const partitions = decodeByPartition(path, o, 'partitions');
  if (!partitions) throw new MalformedZNodeError(path, '"partitions" is not an object');
  const reassigning = {
    adding: decodeByPartition(path, o, 'adding_replicas') ?? new Map(),
    removing: decodeByPartition(path, o, 'removing_replicas') ?? new Map(),
  };
  let topicId: Buffer | null = null;
  if (o.topic_id !== undefined && o.topic_id !== null) {
    topicId = Buffer.from(stringField(path, o, 'topic_id'), 'base64url');
    if (topicId.length !== 16) throw new MalformedZNodeError(path, 'topic_id is not a 16-byte uuid');
  }
  return { topicId, partitions, reassigning };
}

/** A {"<partition>":[ids]} field; undefined when absent or null. */
function decodeByPartition(path: string, o: Record<string, unknown>, field: string): Map<number, number[]> | undefined {
  const raw = o[field];
  if (raw === undefined || raw === null) return undefined;
  if (!isObject(raw)) throw new MalformedZNodeError(path, `"${field}" is not an object`);
  const replicas = new Map<number, number[]>();
  for (const [key, ids] of Object.entries(raw)) {
    if (!/^\d+$/.test(key)) throw new MalformedZNodeError(path, `partition ${JSON.stringify(key)} is not a number`);
    replicas.set(Number(key), intArray(path, ids, `${field}.${key}`));
  }
  return replicas;
}

export function encodePartitionState(s: PartitionLeadership): Buffer {
  return json({
    controller_epoch: s.controllerEpoch,
    leader: s.leader,
    version: 1,
    leader_epoch: s.leaderEpoch,
    isr: s.isr,
  });
}

export function decodePartitionState(path: string, data: Buffer | null): PartitionLeadership {
  const o = parseObject(path, data);
  return {
    leader: intField(path, o, 'leader'),
    leaderEpoch: intField(path, o, 'leader_epoch'),
    isr: intArray(path, o.isr, 'isr'),
    controllerEpoch: intField(path, o, 'controller_epoch'),
  };
}

export function encodeEntityConfig(configs: Record<string, string>): Buffer {
  return json({ version: 1, config: configs });
}

export function decodeEntityConfig(path: string, data: Buffer | null): Record<string, string> {
  if (data === null || data.length === 0) return {};
  const raw = parseObject(path, data).config;
  if (raw === undefined || raw === null) return {};
  if (!isObject(raw)) throw new MalformedZNodeError(path, '"config" is not an object');
  const configs: Record<string, string> = Object.create(null);
  for (const [k, v] of Object.entries(raw)) {
    if (typeof v !== 'string') throw new MalformedZNodeError(path, `config ${k} is not a string`);
    configs[k] = v;
  }
  return configs;
}

export function encodeConfigChange(entityType: string, entityName: string): Buffer {
  return json({ version: 2, entity_path: `${entityType}/${entityName}` });
}

/** The changed entity. Version 1 notifications ({"version":1,"entity_type":..,"entity_name":..}) too. */
export function decodeConfigChange(path: string, data: Buffer | null): { entityType: string; entityName: string } {
  const o = parseObject(path, data);
  if (o.version === 1) return { entityType: stringField(path, o, 'entity_type'), entityName: stringField(path, o, 'entity_name') };
  const entityPath = stringField(path, o, 'entity_path');
  const slash = entityPath.indexOf('/');
  if (slash <= 0) throw new MalformedZNodeError(path, `entity_path ${JSON.stringify(entityPath)} is not <type>/<name>`);
  return { entityType: entityPath.slice(0, slash), entityName: entityPath.slice(slash + 1) };
}

export function encodeProducerIdBlock(brokerId: number, start: number, end: number): Buffer {
  return json({ version: 1, broker: brokerId, block_start: String(start), block_end: String(end) });
}

/** The last block handed out; null when none was (Kafka creates the node empty). */
export function decodeProducerIdBlock(path: string, data: Buffer | null): { start: number; end: number } | null {
  if (data === null || data.length === 0) return null;
  const o = parseObject(path, data);
  const start = Number(stringField(path, o, 'block_start'));
  const end = Number(stringField(path, o, 'block_end'));
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
    throw new MalformedZNodeError(path, `block ${o.block_start}..${o.block_end} is not a range of producer ids`);
  }
  return { start, end };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function parseObject(path: string, data: Buffer | null): Record<string, unknown> {
  if (data === null || data.length === 0) throw new MalformedZNodeError(path, 'no data');
  let parsed: unknown;
  try {
    parsed = JSON.parse(data.toString('utf8'));
  } catch (err) {
    throw new MalformedZNodeError(path, `not JSON (${(err as Error).message})`);
  }
  if (!isObject(parsed)) throw new MalformedZNodeError(path, 'not a JSON object');
  return parsed;
}

function stringField(path: string, o: Record<string, unknown>, key: string): string {
  const v = o[key];
  if (typeof v !== 'string') throw new MalformedZNodeError(path, `"${key}" is not a string`);
  return v;
}

function intField(path: string, o: Record<string, unknown>, key: string): number {
  const v = o[key];
  if (!Number.isSafeInteger(v)) throw new MalformedZNodeError(path, `"${key}" is not an integer`);
  return v as number;
}

function intArray(path: string, v: unknown, what: string): number[] {
  if (!Array.isArray(v) || !v.every((x) => Number.isSafeInteger(x))) {
    throw new MalformedZNodeError(path, `"${what}" is not a list of integers`);
  }
  return v as number[];
}
