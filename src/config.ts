// Broker configuration, by Kafka's own names and meanings. Every name krill honours is in BROKER_CONFIGS;
// Kafka's names that mean nothing here are in KAFKA_ONLY_CONFIGS (accepted, listed in one warning). An
// unknown name, an invalid value or a combination krill cannot honour is a ConfigError naming every such
// problem at once, which the CLI turns into exit code 2.
import { isIP } from 'node:net';
import type { Logger } from './logger.js';
import { ConfigError, asText, checkValue, configTable, type ConfigValue, type ValueRule } from './config-value.js';
import { TOPIC_CONFIGS } from './log-config.js';
import { KAFKA_ONLY_CONFIGS } from './kafka-only-configs.js';
import { AUTHORIZER_CLASS_NAMES } from './security/acl.js';
import { interBrokerSaslLogin, listenerScopedSaslRule, saslListenerProblems, type SaslConfigSource } from './security/sasl-configs.js';
import { SSL_CONFIGS, listenerOverride, overrideName } from './security/ssl-configs.js';
import {
  DEFAULT_PROTOCOL_MAP,
  resolveListeners,
  withAddress,
  type ClientListener,
  type Listener,
  type NamedListener,
  type ResolvedListeners,
} from './listeners.js';

export type { ClientListener, Listener, SecurityProtocol } from './listeners.js';
export { ConfigError, type ConfigValue, type ValueRule } from './config-value.js';

export interface ConfigDef extends ValueRule {
  default: string | null;
  /** The name this one is an alias of (broker.id → node.id). */
  aliasOf?: string;
  /**
   * May be changed at run time with AlterConfigs / IncrementalAlterConfigs (Kafka's
   * DynamicBrokerConfig.AllDynamicConfigs, where krill can apply the change live).
   */
  dynamic?: true;
  /** A password or private key: DescribeConfigs never shows its value. */
  sensitive?: true;
  doc: string;
}

/**
 * A broker config that is the default of a topic config (log.segment.bytes → segment.bytes): the topic
 * config's rule and default. Dynamic, as Kafka's DynamicLogConfig makes every such config: a change
 * rebuilds the LogConfig of each topic that does not override it.
 */
function topicConfigDefault(topicConfig: string, doc: string): ConfigDef {
  const { kind, min, max, choices, default: value } = TOPIC_CONFIGS[topicConfig];
  return { kind, min, max, choices, default: value, dynamic: true, doc };
}

const HOUR_MS = 3_600_000;

/**
 * Kafka's broker config synonyms (DynamicBrokerConfig.brokerConfigSynonyms): names of one setting in
 * different units, the first one set winning. Only the first of each group is dynamic, so a dynamic value
 * always wins over the static ones, as in Kafka.
 */
const SYNONYM_GROUPS: readonly (readonly { name: string; unitMs: number }[])[] = [
  [
    { name: 'log.roll.ms', unitMs: 1 },
    { name: 'log.roll.hours', unitMs: HOUR_MS },
  ],
  [
    { name: 'log.retention.ms', unitMs: 1 },
    { name: 'log.retention.minutes', unitMs: 60_000 },
    { name: 'log.retention.hours', unitMs: HOUR_MS },
  ],
];

/** The names of `name`'s setting, in precedence order (itself alone for most configs). */
export function brokerSynonyms(name: string): string[] {
  return SYNONYM_GROUPS.find((g) => g.some((s) => s.name === name))?.map((s) => s.name) ?? [name];
}

export const BROKER_CONFIGS: Readonly<Record<string, ConfigDef>> = configTable({
  ...SSL_CONFIGS,
  'node.id': { kind: 'int', default: '1', min: 0, doc: "This broker's id; Metadata names it as the controller." },
  'broker.id': { kind: 'int', default: null, min: 0, aliasOf: 'node.id', doc: 'Alias of node.id.' },
  listeners: { kind: 'list', default: 'PLAINTEXT://127.0.0.1:9092', doc: 'Where to listen: NAME://host:port, one server per listener (PLAINTEXT or SSL).' },
  'advertised.listeners': { kind: 'list', default: null, doc: 'Addresses given to clients in Metadata, per listener; a listener left out advertises its own.' },
  'listener.security.protocol.map': { kind: 'list', default: DEFAULT_PROTOCOL_MAP, doc: 'Security protocol of each listener name.' },
  'inter.broker.listener.name': { kind: 'string', default: null, doc: 'The listener brokers of a cluster talk to each other on.' },
  'security.inter.broker.protocol': {
    kind: 'string',
    default: null,
    doc: 'Unset: PLAINTEXT. The inter-broker listener is the one named after this protocol (when inter.broker.listener.name is unset).',
  },
  'controller.listener.names': { kind: 'list', default: null, doc: 'KRaft controller listeners, which krill (its own controller) does not open.' },
  'connections.max.idle.ms': { kind: 'long', default: '600000', doc: 'A connection idle this long is closed; negative: never.' },
  'max.connections.per.ip': { kind: 'int', dynamic: true, default: '2147483647', min: 0, doc: 'Connections allowed from one IP address.' },
  'max.connections.per.ip.overrides': { kind: 'string', dynamic: true, default: '', doc: 'ip:count,... exceptions to max.connections.per.ip.' },
  'max.connections': { kind: 'int', dynamic: true, default: '2147483647', min: 0, doc: 'Connections allowed in all.' },
  'quota.window.num': { kind: 'int', default: '11', min: 1, doc: 'Samples a client quota rate is measured over.' },
  'quota.window.size.seconds': { kind: 'int', default: '1', min: 1, doc: 'Length of each client quota sample.' },
  // SASL (src/security/sasl-configs.ts; listener.name.<l>.… forms are accepted beside these).
  'sasl.enabled.mechanisms': { kind: 'list', default: 'GSSAPI', doc: 'SASL mechanisms of SASL listeners: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER.' },
  'sasl.jaas.config': { kind: 'string', default: null, doc: 'JAAS login module of a mechanism without a listener.name.<l>.<mechanism>.sasl.jaas.config.' },
  'sasl.mechanism.inter.broker.protocol': { kind: 'string', default: 'GSSAPI', doc: 'The mechanism brokers authenticate to each other with.' },
  'connections.max.reauth.ms': {
    kind: 'long',
    default: '0',
    doc: 'SASL session lifetime (KIP-368): a client re-authenticates before it, or is disconnected; 0: none.',
  },
  'connection.failed.authentication.delay.ms': {
    kind: 'int',
    default: '100',
    min: 0,
    doc: 'How long a failed SASL login waits before its answer and the close.',
  },
  'log.dirs': { kind: 'string', default: null, doc: 'Data directory (one).' },
  'log.dir': { kind: 'string', default: './krill-data', doc: 'Data directory, when log.dirs is unset.' },
  'num.partitions': { kind: 'int', default: '1', min: 1, doc: 'Partitions of an auto-created topic.' },
  'auto.create.topics.enable': { kind: 'bool', default: 'true', doc: 'Create unknown topics named in Metadata.' },
  'max.request.partition.size.limit': {
    kind: 'int',
    default: '2000',
    min: 1,
    doc: 'The most partitions one DescribeTopicPartitions response describes; the client pages through the rest.',
  },
  'default.replication.factor': {
    kind: 'int',
    default: '1',
    min: 1,
    doc: 'Replicas of an auto-created topic, or of one created with replication factor -1; a single broker (no zookeeper.connect) has one.',
  },
  'zookeeper.connect': {
    kind: 'string',
    default: null,
    doc: 'host:port[,host:port...][/chroot] of the ZooKeeper ensemble: set, the broker joins that cluster; unset, it is a cluster of one.',
  },
  'zookeeper.session.timeout.ms': {
    kind: 'int',
    default: '18000',
    min: 1,
    doc: 'ZooKeeper session timeout: how long a broker that stops answering stays registered (and controller).',
  },
  'zookeeper.connection.timeout.ms': {
    kind: 'int',
    default: null,
    min: 1,
    doc: 'How long start-up waits to reach ZooKeeper before giving up; unset: zookeeper.session.timeout.ms.',
  },
  'broker.rack': { kind: 'string', default: null, doc: 'Rack of this broker, in Metadata and its ZooKeeper registration.' },
  'controlled.shutdown.enable': { kind: 'bool', default: 'true', doc: 'In a cluster, ask the controller to move leadership away before stopping.' },
  'controlled.shutdown.max.retries': { kind: 'int', default: '3', min: 1, doc: 'ControlledShutdown attempts before stopping anyway.' },
  'controlled.shutdown.retry.backoff.ms': { kind: 'long', default: '5000', min: 0, doc: 'Wait between ControlledShutdown attempts.' },
  'controller.socket.timeout.ms': { kind: 'int', default: '30000', min: 1, doc: 'How long the controller waits for a broker to answer its requests.' },
  'auto.leader.rebalance.enable': {
    kind: 'bool',
    default: 'true',
    doc: 'In a cluster, the controller moves leadership back to preferred replicas when brokers lead too few of the partitions preferring them.',
  },
  'leader.imbalance.check.interval.seconds': {
    kind: 'long',
    default: '300',
    min: 1,
    doc: 'How often the controller checks the leader balance (the first check is 5 s after it takes over).',
  },
  'leader.imbalance.per.broker.percentage': {
    kind: 'int',
    default: '10',
    doc: 'Share (percent) of the partitions preferring a broker that may be led elsewhere before the controller moves them back.',
  },
  'offsets.topic.replication.factor': {
    kind: 'int',
    default: '3',
    min: 1,
    doc: 'Replicas of __consumer_offsets in a cluster: it is created once that many brokers are alive (a single broker ignores it).',
  },
  'transaction.state.log.replication.factor': {
    kind: 'int',
    default: '3',
    min: 1,
    doc: 'Replicas of __transaction_state in a cluster, as offsets.topic.replication.factor (a single broker ignores it).',
  },
  'authorizer.class.name': {
    kind: 'string',
    default: '',
    doc: "One of Kafka's ACL authorizers (AclAuthorizer, StandardAuthorizer, SimpleAclAuthorizer): ACLs are checked; empty: every request is allowed.",
  },
  'super.users': { kind: 'string', default: null, doc: 'Principals allowed everything by the authorizer, separated by ;, as User:admin;User:ops.' },
  'allow.everyone.if.no.acl.found': { kind: 'bool', default: 'false', doc: 'With an authorizer, allow a resource no ACL names to everyone.' },
  'delete.topic.enable': { kind: 'bool', default: 'true', doc: 'Whether DeleteTopics may delete.' },
  'message.max.bytes': topicConfigDefault('max.message.bytes', 'Largest record batch accepted.'),
  'log.segment.bytes': topicConfigDefault('segment.bytes', 'Segment size before rolling.'),
  'log.roll.ms': { ...topicConfigDefault('segment.ms', 'Segment age before rolling; overrides log.roll.hours.'), default: null },
  'log.roll.hours': {
    kind: 'int',
    default: String(Number(TOPIC_CONFIGS['segment.ms'].default) / HOUR_MS),
    min: 1,
    doc: 'Segment age before rolling, in hours.',
  },
  'log.retention.ms': {
    ...topicConfigDefault('retention.ms', 'Age past which closed segments are deleted; -1: no limit. Overrides log.retention.minutes and .hours.'),
    default: null,
  },
  'log.retention.minutes': { kind: 'int', default: null, doc: 'Retention in minutes, when log.retention.ms is unset; overrides log.retention.hours.' },
  'log.retention.hours': {
    kind: 'int',
    default: String(Number(TOPIC_CONFIGS['retention.ms'].default) / HOUR_MS),
    doc: 'Retention in hours, when log.retention.ms and .minutes are unset.',
  },
  'log.retention.bytes': topicConfigDefault('retention.bytes', "Size past which a partition's oldest closed segments are deleted; -1: no limit."),
  'log.retention.check.interval.ms': {
    kind: 'long',
    default: '300000',
    min: 1,
    doc: 'How often retention is applied (and quiet active segments rolled on segment.ms).',
  },
  'log.segment.delete.delay.ms': topicConfigDefault('file.delete.delay.ms', 'How long a .deleted segment stays before it is removed.'),
  'log.cleanup.policy': topicConfigDefault('cleanup.policy', 'delete, compact, or both.'),
  'log.cleaner.enable': {
    kind: 'bool',
    default: 'true',
    doc: 'Run the log cleaner (compaction of cleanup.policy=compact topics, __consumer_offsets and __transaction_state).',
  },
  'log.cleaner.threads': {
    kind: 'int',
    dynamic: true,
    default: '1',
    min: 0,
    max: 64,
    doc: "Cleaner workers; 0 cleans nothing; at most 64 (krill's bound: they share one event loop).",
  },
  'log.cleaner.backoff.ms': { kind: 'long', dynamic: true, default: '15000', min: 0, doc: 'How long the cleaner sleeps when no log needs cleaning.' },
  'log.cleaner.min.cleanable.ratio': topicConfigDefault('min.cleanable.dirty.ratio', 'Dirty share at which a log is cleaned.'),
  'log.cleaner.delete.retention.ms': topicConfigDefault('delete.retention.ms', 'How long tombstones are kept after cleaning.'),
  'log.cleaner.min.compaction.lag.ms': topicConfigDefault('min.compaction.lag.ms', 'Records younger are not compacted.'),
  'log.cleaner.max.compaction.lag.ms': topicConfigDefault('max.compaction.lag.ms', 'Records older make a log cleanable.'),
  'log.cleaner.dedupe.buffer.size': {
    kind: 'long',
    dynamic: true,
    default: '134217728',
    min: 0,
    doc: "Memory for the cleaner's key map, across its threads: bounds how much of a log one pass cleans.",
  },
  'log.message.timestamp.before.max.ms': topicConfigDefault('message.timestamp.before.max.ms', 'How far in the past a CreateTime timestamp may be.'),
  'log.message.timestamp.after.max.ms': topicConfigDefault('message.timestamp.after.max.ms', 'How far in the future a CreateTime timestamp may be.'),
  'log.message.timestamp.difference.max.ms': topicConfigDefault('message.timestamp.difference.max.ms', 'Deprecated: the bound before/after take when unset.'),
  'min.insync.replicas': topicConfigDefault('min.insync.replicas', 'In-sync replicas an acks=all produce needs.'),
  'unclean.leader.election.enable': topicConfigDefault(
    'unclean.leader.election.enable',
    'Elect an out-of-sync replica when no in-sync one is alive (accepting loss).',
  ),
  'replica.lag.time.max.ms': { kind: 'long', default: '30000', min: 1, doc: 'A follower that has not caught up with its leader for this long leaves the ISR.' },
  'replica.fetch.wait.max.ms': { kind: 'int', default: '500', min: 0, doc: "How long a follower's fetch waits at the leader for new records." },
  'replica.fetch.min.bytes': { kind: 'int', default: '1', min: 1, doc: "Bytes a follower's fetch waits for at the leader." },
  'replica.fetch.max.bytes': { kind: 'int', default: '1048576', min: 0, doc: 'Bytes a follower fetches per partition per request (one batch at least).' },
  'replica.fetch.response.max.bytes': { kind: 'int', default: '10485760', min: 0, doc: 'Bytes a follower fetches per request (one batch at least).' },
  'replica.fetch.backoff.ms': { kind: 'int', default: '1000', min: 0, doc: 'How long a follower waits after a failed fetch before retrying that partition.' },
  'replica.socket.timeout.ms': {
    kind: 'int',
    default: '30000',
    min: 1,
    doc: 'How long a follower waits for its leader to answer (beyond replica.fetch.wait.max.ms).',
  },
  'log.index.interval.bytes': topicConfigDefault('index.interval.bytes', 'Bytes of log between offset index entries.'),
  'krill.log.max.open.files': {
    kind: 'int',
    default: '512',
    min: 1,
    doc: 'Segment file descriptors kept open, per broker (krill only; the rest are closed and reopened on use).',
  },
  'krill.http.listener': {
    kind: 'string',
    default: null,
    doc: 'host:port of the HTTP listener serving /metrics (Prometheus), /health and /ready (krill only); unset: none. Port 0 picks a free one.',
  },
  'krill.http.faults': {
    kind: 'bool',
    default: 'false',
    doc: 'Serve /faults on the HTTP listener, to set faults from outside the process (krill only; for tests).',
  },
  'krill.storage': {
    kind: 'enum',
    choices: ['disk', 'memory'],
    default: 'disk',
    doc: 'Where the logs live: disk (the data dir) or memory (no file written, everything lost when the broker stops).',
  },
  'krill.storage.memory.max.bytes': {
    kind: 'long',
    default: '1073741824',
    min: 1,
    doc: 'With krill.storage=memory, the bytes its files may hold; a produce past it fails with KAFKA_STORAGE_ERROR.',
  },
  'log.message.timestamp.type': topicConfigDefault('message.timestamp.type', 'CreateTime or LogAppendTime.'),
  'compression.type': topicConfigDefault('compression.type', 'Codec batches are stored in.'),
  'socket.request.max.bytes': { kind: 'int', default: '104857600', min: 1, doc: 'Largest request frame accepted.' },
  'group.initial.rebalance.delay.ms': {
    kind: 'int',
    default: '0',
    min: 0,
    doc: 'Wait before the first rebalance of an empty group completes (Kafka: 3000; krill: 0).',
  },
  'group.min.session.timeout.ms': { kind: 'int', default: '6000', min: 0, doc: 'Smallest session timeout a group member may ask for.' },
  'group.max.session.timeout.ms': { kind: 'int', default: '1800000', min: 0, doc: 'Largest session timeout a group member may ask for.' },
  'offsets.topic.num.partitions': { kind: 'int', default: '50', min: 1, doc: 'Partitions of __consumer_offsets when it is created.' },
  'offsets.retention.minutes': {
    kind: 'int',
    default: '10080',
    min: 1,
    doc: 'How long committed offsets are kept once their group is Empty (KIP-211); for standalone commits, after the commit.',
  },
  'offsets.retention.check.interval.ms': { kind: 'long', default: '600000', min: 1, doc: 'How often expired committed offsets are removed.' },
  'transaction.state.log.num.partitions': { kind: 'int', default: '50', min: 1, doc: 'Partitions of __transaction_state when it is created.' },
  'transaction.state.log.segment.bytes': { kind: 'int', default: '104857600', min: 1, doc: 'Segment size of __transaction_state.' },
  'transaction.max.timeout.ms': { kind: 'int', default: '900000', min: 1, doc: 'Largest transaction timeout a producer may ask for.' },
  'transaction.abort.timed.out.transaction.cleanup.interval.ms': {
    kind: 'int',
    default: '10000',
    min: 1,
    doc: 'How often transactions open past their timeout are aborted.',
  },
  'transactional.id.expiration.ms': { kind: 'int', default: '604800000', min: 1, doc: 'How long a transactional id without a transaction is kept.' },
  'transaction.remove.expired.transaction.cleanup.interval.ms': {
    kind: 'int',
    default: '3600000',
    min: 1,
    doc: 'How often expired transactional ids are removed.',
  },
  'producer.id.expiration.ms': {
    kind: 'int',
    dynamic: true,
    default: '86400000',
    min: 1,
    doc: "How long a partition keeps an idempotent producer's state after its last batch.",
  },
  'producer.id.expiration.check.interval.ms': { kind: 'int', default: '600000', min: 1, doc: 'How often expired producer state is removed.' },
});

/**
 * The two levels of dynamic broker configs: this broker's own (a BROKER resource named by its node id) and
 * the cluster-wide defaults (the resource named ""); this broker's own win.
 */
export type BrokerConfigLevel = 'broker' | 'cluster';

export class BrokerConfig {
  private readonly values = new Map<string, string | null>();
  private readonly given = new Set<string>();
  /**
   * Dynamic configs (set with AlterConfigs, kept in the data dir): this broker's own, then the cluster-wide
   * defaults, both over the static values, as Kafka's DynamicBrokerConfig layers them.
   */
  private readonly dynamic: Record<BrokerConfigLevel, Map<string, string>> = { broker: new Map(), cluster: new Map() };
  private resolved!: ResolvedListeners;

  /** All of `overrides` at once: every problem found is reported in one ConfigError. */
  constructor(overrides: Record<string, ConfigValue> | Iterable<readonly [string, ConfigValue]> = {}) {
    for (const [name, def] of Object.entries(BROKER_CONFIGS)) if (!def.aliasOf) this.values.set(name, def.default);
    const entries = Symbol.iterator in overrides ? overrides : Object.entries(overrides);
    const problems: string[] = [];
    for (const [name, raw] of entries) {
      try {
        this.assign(name, raw);
      } catch (err) {
        if (!(err instanceof ConfigError)) throw err;
        problems.push(...err.problems);
      }
    }
    problems.push(...this.check());
    if (problems.length > 0) throw new ConfigError(problems);
  }

  /** Sets one config (checked alone and against the others); throws ConfigError and changes nothing. */
  set(rawName: string, raw: ConfigValue): void {
    const name = rawName.trim();
    const key = BROKER_CONFIGS[name]?.aliasOf ?? name;
    const [had, before, wasGiven] = [this.values.has(key), this.values.get(key), this.given.has(name)];
    this.assign(name, raw);
    const problems = this.check();
    if (problems.length === 0) return;
    if (had) this.values.set(key, before!);
    else this.values.delete(key);
    if (!wasGiven) this.given.delete(name);
    this.check();
    throw new ConfigError(problems);
  }

  private assign(rawName: string, raw: unknown): void {
    const name = rawName.trim();
    const override = listenerOverride(name);
    const def = BROKER_CONFIGS[name] ?? KAFKA_ONLY_CONFIGS[name] ?? (override && SSL_CONFIGS[override.config]) ?? listenerScopedSaslRule(name);
    if (!def) throw new ConfigError(`unknown config '${name}'`);
    const value = checkValue(name, asText(name, raw), def);
    this.given.add(name);
    this.values.set((def as ConfigDef).aliasOf ?? name, value);
  }

  /** The checks that involve several configs; records the listeners when they are sound. */
  private check(): string[] {
    const listeners = resolveListeners((name) => this.string(name));
    const problems = 'problems' in listeners ? [...listeners.problems] : [];
    if (!('problems' in listeners)) this.resolved = listeners;
    if (!('problems' in listeners)) {
      for (const l of listeners.clients) if (l.securityProtocol.startsWith('SASL_')) problems.push(...saslListenerProblems(this.saslSource, l.name));
      const interBroker = listeners.clients.find((l) => l.name === listeners.interBroker);
      if (this.values.get('zookeeper.connect') != null && interBroker?.securityProtocol.startsWith('SASL_')) {
        const login = interBrokerSaslLogin(this.saslSource, interBroker.name);
        if (typeof login === 'string') problems.push(login);
      }
    }
    const roles = this.values.get('process.roles');
    if (roles != null && !roles.split(',').some((r) => r.trim() === 'broker')) {
      problems.push(`process.roles: '${roles}' has no broker role; krill is always a broker (and its own controller)`);
    }
    const voters = this.values.get('controller.quorum.voters');
    if (voters != null) {
      const others = new Set<string>();
      for (const v of voters
        .split(',')
        .map((e) => e.trim())
        .filter(Boolean)) {
        const m = /^(\d+)@.+:\d+$/.exec(v);
        if (!m) problems.push(`controller.quorum.voters: '${v}' is not of the form id@host:port`);
        else if (Number(m[1]) !== this.nodeId) others.add(m[1]);
      }
      if (others.size > 0) {
        problems.push(
          `controller.quorum.voters: names node ${[...others].join(', ')}, but krill is a single node (node.id ${this.nodeId}) and joins no quorum`,
        );
      }
    }
    const authorizer = this.string('authorizer.class.name') ?? '';
    if (authorizer !== '' && !AUTHORIZER_CLASS_NAMES.includes(authorizer)) {
      problems.push(`authorizer.class.name: '${authorizer}' is not an authorizer krill has; use one of ${AUTHORIZER_CLASS_NAMES.join(', ')}`);
    }
    if (this.string('krill.storage') === 'memory' && (this.given.has('log.dirs') || this.given.has('log.dir'))) {
      problems.push('krill.storage: memory keeps no data dir, but log.dirs or log.dir is set');
    }
    try {
      void this.httpListener;
    } catch (err) {
      problems.push((err as Error).message);
    }
    try {
      const overrides = this.maxConnectionsPerIpOverrides;
      if (this.int('max.connections.per.ip') === 0 && overrides.size === 0) {
        problems.push('max.connections.per.ip: 0 is allowed only with max.connections.per.ip.overrides');
      }
    } catch (err) {
      problems.push((err as Error).message);
    }
    return problems;
  }

  /** The Kafka configs given that krill accepts but has no use for, in the order given. */
  get ignored(): string[] {
    // A name honoured since (in BROKER_CONFIGS too) is not ignored, whatever the other list still says.
    const kraft = this.values.get('process.roles') != null;
    return [...this.given].filter((name) => (name in KAFKA_ONLY_CONFIGS && !(name in BROKER_CONFIGS)) || (kraft && name.startsWith('zookeeper.')));
  }

  /**
   * The ZooKeeper ensemble this broker joins, or null for a single broker. A file that declares KRaft
   * (process.roles) keeps its leftover zookeeper.* lines without meaning, as Kafka's KRaft brokers do.
   */
  get zookeeperConnect(): string | null {
    return this.values.get('process.roles') != null ? null : this.string('zookeeper.connect');
  }

  /** Controller listeners krill does not open. */
  get ignoredListeners(): string[] {
    return this.resolved.ignored;
  }

  /** Logs one warning naming everything given that krill ignores; nothing when there is nothing to say. */
  warnIgnored(log: Pick<Logger, 'warn'>): void {
    const configs = this.ignored;
    const listeners = this.ignoredListeners;
    if (configs.length === 0 && listeners.length === 0) return;
    const parts = [
      ...(configs.length ? [`Kafka configs with no meaning for krill: ${configs.join(', ')}`] : []),
      ...(listeners.length ? [`controller listeners (krill is its own controller): ${listeners.join(', ')}`] : []),
    ];
    log.warn({ ignoredConfigs: configs, ignoredListeners: listeners }, `ignoring ${parts.join('; ')}`);
  }

  /** The SASL configs as src/security/sasl-configs.ts reads them: listener-scoped names only when given. */
  get saslSource(): SaslConfigSource {
    return { get: (n) => this.string(n), given: (n) => (this.given.has(n) ? (this.values.get(n) ?? null) : null) };
  }

  string(name: string): string | null {
    const dynamic = this.dynamic.broker.get(name) ?? this.dynamic.cluster.get(name);
    if (dynamic !== undefined) return dynamic;
    if (!this.values.has(name)) {
      if (name in KAFKA_ONLY_CONFIGS) return null;
      throw new Error(`config '${name}' is not defined`);
    }
    return this.values.get(name)!;
  }

  /** An SSL config as it applies to `listener`: its `listener.name.<listener>.` form when given, else the plain one. */
  listenerConfig(listener: string, name: string): string | null {
    const prefixed = overrideName(listener, name);
    return this.values.has(prefixed) ? this.values.get(prefixed)! : this.string(name);
  }

  /** The value given at start (properties file, --set, the embedded API's config), or undefined. */
  staticValue(name: string): string | null | undefined {
    return this.given.has(name) ? this.values.get(BROKER_CONFIGS[name]?.aliasOf ?? name) : undefined;
  }

  /** The dynamic configs of one level, by name. */
  dynamicConfigs(level: BrokerConfigLevel): ReadonlyMap<string, string> {
    return this.dynamic[level];
  }

  /**
   * Replaces the dynamic configs of one level. The values must already be checked one by one (see
   * dynamic-broker-configs.ts); this checks them against the others and throws ConfigError, changing
   * nothing, when the result cannot be honoured.
   */
  setDynamic(level: BrokerConfigLevel, configs: ReadonlyMap<string, string>): void {
    this.setDynamicLevels({ [level]: configs });
  }

  /** setDynamic of several levels at once, checked together (at start, a level may need the other's values). */
  setDynamicLevels(levels: Partial<Record<BrokerConfigLevel, ReadonlyMap<string, string>>>): void {
    const before = { ...this.dynamic };
    for (const [level, configs] of Object.entries(levels) as [BrokerConfigLevel, ReadonlyMap<string, string>][]) {
      this.dynamic[level] = new Map(configs);
    }
    const problems = this.check();
    if (problems.length === 0) return;
    Object.assign(this.dynamic, before);
    this.check();
    throw new ConfigError(problems);
  }

  /**
   * The value of a synonym group (log.retention.ms > .minutes > .hours), in the first name's unit. Any
   * negative value is -1, "no limit", as Kafka's logRetentionTimeMillis reads log.retention.hours=-1.
   */
  private synonymValue(first: string): number {
    const group = SYNONYM_GROUPS.find((g) => g[0].name === first)!;
    for (const { name, unitMs } of group) {
      const value = this.string(name);
      if (value !== null) return Number(value) < 0 ? -1 : Number(value) * unitMs;
    }
    throw new Error(`config '${first}' has no value`);
  }

  int(name: string): number {
    return Number(this.string(name));
  }

  bool(name: string): boolean {
    return this.string(name) === 'true';
  }

  get nodeId(): number {
    return this.int('node.id');
  }

  get dataDir(): string {
    return this.string('log.dirs')?.split(',')[0].trim() || this.string('log.dir')!;
  }

  /** log.retention.ms, else log.retention.minutes, else log.retention.hours, as Kafka's KafkaConfig.logRetentionTimeMillis. */
  get retentionMs(): number {
    return this.synonymValue('log.retention.ms');
  }

  /** log.roll.ms, else log.roll.hours. */
  get segmentMs(): number {
    return this.synonymValue('log.roll.ms');
  }

  /** The one listener clients connect to. */
  get listener(): NamedListener {
    return this.resolved.listener;
  }

  /** Every listener clients connect to, the first being `listener`. */
  get clientListeners(): readonly ClientListener[] {
    return this.resolved.clients;
  }

  /** The name of the listener brokers of a cluster talk to each other on. */
  get interBrokerListener(): string {
    return this.resolved.interBroker;
  }

  /** What Metadata advertises for the listener; port 0 means the port actually bound. */
  get advertisedListener(): Listener {
    return this.resolved.advertised;
  }

  /** Moves the client listener to `host` and/or `port`, keeping its name and any controller listener. */
  setListenerAddress(host: string | undefined, port: number | undefined): void {
    if (host === undefined && port === undefined) return;
    this.set('listeners', withAddress(this.string('listeners')!, this.resolved, host, port));
  }

  /** krill.http.listener as an address, or null when unset. */
  get httpListener(): Listener | null {
    const value = this.string('krill.http.listener');
    if (value === null) return null;
    const m = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(value.trim());
    if (!m || Number(m[3]) > 65535 || (m[1] !== undefined && isIP(m[1]) !== 6)) {
      throw new ConfigError(`krill.http.listener: '${value}' is not of the form host:port (an IPv6 address in brackets)`);
    }
    return { host: m[1] ?? (m[2] || '0.0.0.0'), port: Number(m[3]) };
  }

  /** max.connections.per.ip.overrides as IP address → limit. */
  get maxConnectionsPerIpOverrides(): Map<string, number> {
    const out = new Map<string, number>();
    for (const entry of this.string('max.connections.per.ip.overrides')!
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean)) {
      const at = entry.lastIndexOf(':');
      const ip = entry.slice(0, at).replace(/^\[|\]$/g, '');
      const count = entry.slice(at + 1);
      if (at <= 0 || !/^\d+$/.test(count)) {
        throw new ConfigError(`max.connections.per.ip.overrides: '${entry}' is not of the form ip:count`);
      }
      if (isIP(ip) === 0) {
        throw new ConfigError(`max.connections.per.ip.overrides: '${ip}' is not an IP address (krill matches addresses, it resolves no host names)`);
      }
      out.set(ip, Number(count));
    }
    return out;
  }

  /** The broker-level defaults behind each topic config, by topic config name (segment.bytes, ...). */
  topicDefaults(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, def] of Object.entries(TOPIC_CONFIGS)) {
      if (!def.broker) out[name] = def.default;
      // log.roll.ms, else log.roll.hours; log.retention.ms, else .minutes, else .hours
      else if (brokerSynonyms(def.broker).length > 1) out[name] = String(this.synonymValue(def.broker));
      else out[name] = this.string(def.broker)!;
    }
    return out;
  }
}

/** The default of a numeric broker config, for parts that may run without a BrokerConfig (a coordinator in a test). */
export function brokerConfigDefault(name: string): number {
  const value = BROKER_CONFIGS[name]?.default;
  if (value == null || !/^-?\d+$/.test(value)) throw new Error(`config '${name}' has no numeric default`);
  return Number(value);
}
