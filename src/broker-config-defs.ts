// The broker configs krill honours, by Kafka's names (Kafka's ServerConfigs/KafkaConfig definitions): each
// one's kind, bounds, default, whether it may change at run time, and its doc. BrokerConfig (config.ts)
// holds the values.
import { configTable, type ValueRule } from './config-value.js';
import { TOPIC_CONFIGS } from './log-config.js';
import { SSL_CONFIGS } from './security/ssl-configs.js';
import { DEFAULT_PROTOCOL_MAP } from './listeners.js';

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
export const SYNONYM_GROUPS: readonly (readonly { name: string; unitMs: number }[])[] = [
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

/** The default of a numeric broker config, for parts that may run without a BrokerConfig (a coordinator in a test). */
export function brokerConfigDefault(name: string): number {
  const value = BROKER_CONFIGS[name]?.default;
  if (value == null || !/^-?\d+$/.test(value)) throw new Error(`config '${name}' has no numeric default`);
  return Number(value);
}
