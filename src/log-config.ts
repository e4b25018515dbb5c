// Topic-level configs (Kafka's LogConfig): TOPIC_CONFIGS is the one table of every config a topic may set,
// with its rule, Kafka's default and the broker config whose value is the default for topics that do not
// set it (log.segment.bytes for segment.bytes). The broker's own table (config.ts) takes those broker
// configs' defaults and rules from here, the README's tables are checked against both
// (test/config/readme-tables.test.ts), and DescribeConfigs will read them.
//
// A topic's LogConfig is built once, when the topic is created or opened or its configs change, from its
// overrides over the broker's defaults (both Kafka-named strings); Produce and the partition logs read
// its typed fields and never parse a string again.

import { ConfigError, INT_MAX, checkValue, configTable, type ValueRule } from './config-value.js';

export const COMPRESSION_TYPES = ['producer', 'uncompressed', 'gzip', 'snappy', 'lz4', 'zstd'] as const;
export const TIMESTAMP_TYPES = ['CreateTime', 'LogAppendTime'] as const;
export const CLEANUP_POLICIES = ['delete', 'compact'] as const;

export type CompressionType = (typeof COMPRESSION_TYPES)[number];
export type TimestampType = (typeof TIMESTAMP_TYPES)[number];
export type CleanupPolicy = (typeof CLEANUP_POLICIES)[number];

/** A topic's configs, read once from their Kafka-named strings. */
export interface LogConfig {
  /** segment.bytes: roll when an append would take the active segment past this size. */
  readonly segmentBytes: number;
  /** segment.ms: roll when the active segment started receiving data longer ago than this. */
  readonly segmentMs: number;
  /** index.interval.bytes: bytes of log between offset index entries. */
  readonly indexIntervalBytes: number;
  /** max.message.bytes: the largest record batch a producer may append. */
  readonly maxMessageBytes: number;
  /** compression.type: the codec batches are stored in; 'producer' keeps the producer's. */
  readonly compressionType: CompressionType;
  /** message.timestamp.type: LogAppendTime makes the broker stamp every batch. */
  readonly messageTimestampType: TimestampType;
  /** cleanup.policy: 'delete' (retention), 'compact' (the log cleaner; every record needs a key), or both. */
  readonly cleanupPolicy: readonly CleanupPolicy[];
  /** retention.ms: closed segments whose newest record is older than this leave the disk; -1: no limit. */
  readonly retentionMs: number;
  /** retention.bytes: closed segments leave the disk, oldest first, while the log is larger than this; -1: no limit. */
  readonly retentionBytes: number;
  /** delete.retention.ms: how long the cleaner keeps a tombstone (and a transaction marker) once it has cleaned past it. */
  readonly deleteRetentionMs: number;
  /** min.cleanable.dirty.ratio: the share of the log not yet cleaned at which the cleaner takes the log. */
  readonly minCleanableDirtyRatio: number;
  /** min.compaction.lag.ms: records younger than this are never compacted. */
  readonly minCompactionLagMs: number;
  /** max.compaction.lag.ms: a record older than this makes its log cleanable whatever the dirty ratio. */
  readonly maxCompactionLagMs: number;
  /** file.delete.delay.ms: how long a segment renamed .deleted stays on disk before it is removed. */
  readonly fileDeleteDelayMs: number;
  /** message.timestamp.before.max.ms: how far in the past a CreateTime timestamp may be (KIP-937). */
  readonly messageTimestampBeforeMaxMs: number;
  /** message.timestamp.after.max.ms: how far in the future a CreateTime timestamp may be (KIP-937). */
  readonly messageTimestampAfterMaxMs: number;
  /** min.insync.replicas: in-sync replicas an acks=all produce needs. */
  readonly minInsyncReplicas: number;
  /** unclean.leader.election.enable: a replica outside the ISR may lead when no ISR member is alive. */
  readonly uncleanLeaderElectionEnable: boolean;
}

/** Java's Long.MAX_VALUE as Kafka writes it: the default of the lag and timestamp bounds ("no bound"). */
export const LONG_MAX = '9223372036854775807';

export interface TopicConfigDef extends ValueRule {
  /** The LogConfig field that holds the value. */
  field: keyof LogConfig | null;
  /** Kafka's default: what a topic gets when neither it nor the broker sets the config. */
  default: string;
  /** The broker config whose value a topic without an override gets; null when there is none. */
  broker: string | null;
  doc: string;
}

/** The topic configs krill honours, by Kafka's name. */
const HONOURED_TOPIC_CONFIGS: Readonly<Record<string, TopicConfigDef>> = {
  'cleanup.policy': {
    field: 'cleanupPolicy',
    kind: 'list',
    choices: CLEANUP_POLICIES,
    default: 'delete',
    broker: 'log.cleanup.policy',
    doc: 'delete (retention), compact (the log cleaner; every record needs a key) or both.',
  },
  'delete.retention.ms': {
    field: 'deleteRetentionMs',
    kind: 'long',
    min: 0,
    default: '86400000',
    broker: 'log.cleaner.delete.retention.ms',
    doc: 'How long the cleaner keeps tombstones and transaction markers after cleaning past them.',
  },
  'file.delete.delay.ms': {
    field: 'fileDeleteDelayMs',
    kind: 'long',
    min: 0,
    default: '60000',
    broker: 'log.segment.delete.delay.ms',
    doc: 'How long a segment renamed .deleted stays on disk before it is removed.',
  },
  'max.compaction.lag.ms': {
    field: 'maxCompactionLagMs',
    kind: 'long',
    min: 1,
    default: LONG_MAX,
    broker: 'log.cleaner.max.compaction.lag.ms',
    doc: 'A record older than this makes its log cleanable whatever its dirty ratio.',
  },
  'message.timestamp.after.max.ms': {
    field: 'messageTimestampAfterMaxMs',
    kind: 'long',
    min: 0,
    default: LONG_MAX,
    broker: 'log.message.timestamp.after.max.ms',
    doc: "How far ahead of the broker's clock a CreateTime timestamp may be (KIP-937).",
  },
  'message.timestamp.before.max.ms': {
    field: 'messageTimestampBeforeMaxMs',
    kind: 'long',
    min: 0,
    default: LONG_MAX,
    broker: 'log.message.timestamp.before.max.ms',
    doc: "How far behind the broker's clock a CreateTime timestamp may be (KIP-937).",
  },
  'message.timestamp.difference.max.ms': {
    field: null,
    kind: 'long',
    min: 0,
    default: LONG_MAX,
    broker: 'log.message.timestamp.difference.max.ms',
    doc: 'Deprecated (Kafka 3.x): the bound before.max.ms and after.max.ms take when they are not set.',
  },
  'min.cleanable.dirty.ratio': {
    field: 'minCleanableDirtyRatio',
    kind: 'double',
    min: 0,
    max: 1,
    default: '0.5',
    broker: 'log.cleaner.min.cleanable.ratio',
    doc: 'Share of the log not yet cleaned at which the cleaner takes it.',
  },
  'min.compaction.lag.ms': {
    field: 'minCompactionLagMs',
    kind: 'long',
    min: 0,
    default: '0',
    broker: 'log.cleaner.min.compaction.lag.ms',
    doc: 'Records younger than this are not compacted.',
  },
  'min.insync.replicas': {
    field: 'minInsyncReplicas',
    kind: 'int',
    min: 1,
    default: '1',
    broker: 'min.insync.replicas',
    doc: 'In-sync replicas an acks=all produce needs; with fewer it is refused NOT_ENOUGH_REPLICAS (one broker is one).',
  },
  'unclean.leader.election.enable': {
    field: 'uncleanLeaderElectionEnable',
    kind: 'bool',
    default: 'false',
    broker: 'unclean.leader.election.enable',
    doc: 'When no in-sync replica of a partition is alive, elect an out-of-sync one (accepting the loss of what it lacks) rather than keep the partition offline.',
  },
  'compression.type': {
    field: 'compressionType',
    kind: 'enum',
    choices: COMPRESSION_TYPES,
    default: 'producer',
    broker: 'compression.type',
    doc: "Codec batches are stored in; another codec than the producer's makes the broker recompress.",
  },
  'index.interval.bytes': {
    field: 'indexIntervalBytes',
    kind: 'int',
    min: 0,
    default: '4096',
    broker: 'log.index.interval.bytes',
    doc: 'Bytes of log between offset index entries.',
  },
  'max.message.bytes': {
    field: 'maxMessageBytes',
    kind: 'int',
    min: 0,
    default: '1048588',
    broker: 'message.max.bytes',
    doc: 'Largest record batch accepted.',
  },
  'message.timestamp.type': {
    field: 'messageTimestampType',
    kind: 'enum',
    choices: TIMESTAMP_TYPES,
    default: 'CreateTime',
    broker: 'log.message.timestamp.type',
    doc: 'CreateTime or LogAppendTime.',
  },
  'retention.bytes': {
    field: 'retentionBytes',
    kind: 'long',
    default: '-1',
    broker: 'log.retention.bytes',
    doc: 'Closed segments are deleted, oldest first, while the partition is larger; -1: no limit.',
  },
  'retention.ms': {
    // The broker's default is log.retention.ms, else .minutes, else .hours (BrokerConfig.retentionMs).
    field: 'retentionMs',
    kind: 'long',
    min: -1,
    default: '604800000',
    broker: 'log.retention.ms',
    doc: 'Closed segments whose newest record is older are deleted; -1: no limit. Broker default: log.retention.ms, else .minutes, else .hours.',
  },
  'segment.bytes': {
    field: 'segmentBytes',
    kind: 'int',
    min: 14,
    default: '1073741824',
    broker: 'log.segment.bytes',
    doc: 'Segment size before rolling.',
  },
  'segment.ms': {
    // The broker's default is log.roll.ms, or log.roll.hours when that is unset (BrokerConfig.segmentMs).
    field: 'segmentMs',
    kind: 'long',
    min: 1,
    default: '604800000',
    broker: 'log.roll.ms',
    doc: "Segment age before rolling; the broker's default is log.roll.ms, else log.roll.hours.",
  },
};

/**
 * Kafka's topic configs that mean nothing on krill (flushing, preallocation, replication throttles, tiered
 * storage, compression levels, ...): CreateTopics and AlterConfigs accept them with their values checked,
 * the topic keeps them and DescribeConfigs lists them, so that tools and test suites that set them work
 * unchanged; nothing reads them. Their defaults are Kafka's; they have no broker config here (Kafka's
 * are in kafka-only-configs.ts, accepted and ignored the same way).
 */
function kafkaOnly(kind: TopicConfigDef['kind'], value: string, doc: string, rule: Pick<TopicConfigDef, 'min' | 'max'> = {}): TopicConfigDef {
  return { field: null, kind, default: value, broker: null, ...rule, doc: `Accepted and kept, no effect on krill: ${doc}` };
}

const KAFKA_ONLY_TOPIC_CONFIGS: Readonly<Record<string, TopicConfigDef>> = {
  'compression.gzip.level': kafkaOnly('int', '-1', "krill compresses at its codecs' default levels.", { min: -1, max: 9 }),
  'compression.lz4.level': kafkaOnly('int', '9', "krill compresses at its codecs' default levels.", { min: 1, max: 17 }),
  'compression.zstd.level': kafkaOnly('int', '3', "krill compresses at its codecs' default levels.", { min: -131072, max: 22 }),
  'flush.messages': kafkaOnly('long', LONG_MAX, 'krill fsyncs at roll and close (see The command line).', { min: 1 }),
  'flush.ms': kafkaOnly('long', LONG_MAX, 'krill fsyncs at roll and close (see The command line).', { min: 0 }),
  'follower.replication.throttled.replicas': kafkaOnly('list', '', 'no replication throttles.'),
  'leader.replication.throttled.replicas': kafkaOnly('list', '', 'no replication throttles.'),
  'local.retention.bytes': kafkaOnly('long', '-2', 'no tiered storage.', { min: -2 }),
  'local.retention.ms': kafkaOnly('long', '-2', 'no tiered storage.', { min: -2 }),
  'message.downconversion.enable': kafkaOnly('bool', 'true', 'krill serves record batches (magic 2) only.'),
  'message.format.version': kafkaOnly('string', '3.0-IV1', 'deprecated in Kafka 3.x; krill writes magic 2 only.'),
  preallocate: kafkaOnly('bool', 'false', 'segment files grow as they are written.'),
  'remote.log.copy.disable': kafkaOnly('bool', 'false', 'no tiered storage.'),
  'remote.log.delete.on.disable': kafkaOnly('bool', 'false', 'no tiered storage.'),
  'remote.storage.enable': kafkaOnly('bool', 'false', 'no tiered storage.'),
  'segment.index.bytes': kafkaOnly('int', '10485760', "krill's index files grow as they are written.", { min: 4 }),
  'segment.jitter.ms': kafkaOnly('long', '0', 'segments roll at segment.ms exactly.', { min: 0 }),
};

/** Every topic config krill accepts, by Kafka's name: those it honours, then Kafka's it only keeps. */
export const TOPIC_CONFIGS: Readonly<Record<string, TopicConfigDef>> = configTable({ ...HONOURED_TOPIC_CONFIGS, ...KAFKA_ONLY_TOPIC_CONFIGS });

/** Validates a topic-level config as CreateTopics does; returns the normalised value or throws ConfigError. */
export function checkTopicConfig(name: string, value: string | null): string {
  const def = TOPIC_CONFIGS[name];
  if (!def) throw new ConfigError(`unknown topic config '${name}'`);
  if (value === null) throw new ConfigError(`${name}: a value is required`);
  return checkValue(name, value, def);
}

/**
 * Reads a value already accepted once (by CreateTopics or the broker's config) or read back from the data
 * dir, so it never fails: a missing, empty or unreadable value is Kafka's default. Numbers are read as
 * storage always read them (any finite number at least the minimum, rounded down; ints capped at 2^31-1);
 * list items that are no choice are dropped.
 */
function readValue(def: TopicConfigDef, raw: string | undefined): LogConfig[keyof LogConfig] {
  const value = raw?.trim() ?? '';
  if (value === '') return readValue(def, def.default);
  switch (def.kind) {
    case 'double':
    case 'int':
    case 'long': {
      const n = Number(value);
      if (!Number.isFinite(n) || n < (def.min ?? -Infinity)) return readValue(def, def.default);
      if (def.max !== undefined && n > def.max) return readValue(def, def.default);
      if (def.kind === 'double') return n;
      return def.kind === 'int' ? Math.min(Math.floor(n), INT_MAX) : Math.floor(n);
    }
    case 'enum':
      return (def.choices!.includes(value) ? value : def.default) as LogConfig[keyof LogConfig];
    case 'bool':
      return value.toLowerCase() === 'true' || (value.toLowerCase() !== 'false' && def.default === 'true');
    case 'list':
      return value
        .split(',')
        .map((item) => item.trim())
        .filter((item) => def.choices!.includes(item)) as CleanupPolicy[];
    default:
      throw new Error(`topic config kind ${def.kind} has no LogConfig reading`);
  }
}

/**
 * A topic's LogConfig: each config from the topic's `overrides`, else the broker's `defaults` (both by topic
 * config name, as BrokerConfig.topicDefaults() gives them), else Kafka's default. Names not in
 * TOPIC_CONFIGS are kept in the topic's maps but mean nothing here.
 */
export function buildLogConfig(overrides: Readonly<Record<string, string>>, defaults: Readonly<Record<string, string>> = {}): LogConfig {
  const out: Record<string, unknown> = {};
  const raw = (name: string) => overrides[name] ?? defaults[name];
  for (const [name, def] of Object.entries(TOPIC_CONFIGS)) if (def.field) out[def.field] = readValue(def, raw(name));
  // Kafka 3.x's LogConfig: a timestamp bound left at "no bound" takes the deprecated difference.max.ms.
  const difference = readValue(TOPIC_CONFIGS['message.timestamp.difference.max.ms'], raw('message.timestamp.difference.max.ms')) as number;
  for (const field of ['messageTimestampBeforeMaxMs', 'messageTimestampAfterMaxMs'] as const) {
    if ((out[field] as number) >= Number(LONG_MAX)) out[field] = difference;
  }
  return Object.freeze(out) as unknown as LogConfig;
}

/** Kafka's defaults of every topic config: a topic's LogConfig with no broker and no topic setting. */
export const DEFAULT_LOG_CONFIG: LogConfig = buildLogConfig({});

export function isCompacted(config: LogConfig): boolean {
  return config.cleanupPolicy.includes('compact');
}
