// Topic-level configs (Kafka's LogConfig): TOPIC_CONFIGS is the one table of every config a topic may set,
// with its rule, Kafka's default and the broker config whose value is the default for topics that do not
// set it (log.segment.bytes for segment.bytes). The broker's own table (config.ts) takes those broker
// configs' defaults and rules from here, the README's tables are checked against both
// (test/config/readme-tables.test.ts), and DescribeConfigs will read them.
//
// A topic's LogConfig is built once, when the topic is created or opened or its configs change, from its
// overrides over the broker's defaults (both Kafka-named strings); Produce and the partition logs read
// its typed fields and never parse a string again.

import { ConfigError, INT_MAX, checkValue, type ValueRule } from './config-value.js';

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
  /** cleanup.policy: with 'compact', every record needs a key. */
  readonly cleanupPolicy: readonly CleanupPolicy[];
}

export interface TopicConfigDef extends ValueRule {
  /** The LogConfig field that holds the value. */
  field: keyof LogConfig;
  /** Kafka's default: what a topic gets when neither it nor the broker sets the config. */
  default: string;
  /** The broker config whose value a topic without an override gets; null when there is none. */
  broker: string | null;
  doc: string;
}

/** Every topic config krill accepts, by Kafka's name. */
export const TOPIC_CONFIGS: Readonly<Record<string, TopicConfigDef>> = Object.freeze({
  'cleanup.policy': {
    field: 'cleanupPolicy', kind: 'list', choices: CLEANUP_POLICIES, default: 'delete', broker: null,
    doc: 'delete or compact; stored, and compact makes Produce require keys (the cleaner is not there yet).',
  },
  'compression.type': {
    field: 'compressionType', kind: 'enum', choices: COMPRESSION_TYPES, default: 'producer', broker: 'compression.type',
    doc: 'Codec batches are stored in; another codec than the producer\'s makes the broker recompress.',
  },
  'index.interval.bytes': {
    field: 'indexIntervalBytes', kind: 'int', min: 0, default: '4096', broker: 'log.index.interval.bytes',
    doc: 'Bytes of log between offset index entries.',
  },
  'max.message.bytes': {
    field: 'maxMessageBytes', kind: 'int', min: 0, default: '1048588', broker: 'message.max.bytes',
    doc: 'Largest record batch accepted.',
  },
  'message.timestamp.type': {
    field: 'messageTimestampType', kind: 'enum', choices: TIMESTAMP_TYPES, default: 'CreateTime', broker: 'log.message.timestamp.type',
    doc: 'CreateTime or LogAppendTime.',
  },
  'segment.bytes': {
    field: 'segmentBytes', kind: 'int', min: 14, default: '1073741824', broker: 'log.segment.bytes',
    doc: 'Segment size before rolling.',
  },
  'segment.ms': {
    // The broker's default is log.roll.ms, or log.roll.hours when that is unset (BrokerConfig.segmentMs).
    field: 'segmentMs', kind: 'long', min: 1, default: '604800000', broker: 'log.roll.ms',
    doc: 'Segment age before rolling; the broker\'s default is log.roll.ms, else log.roll.hours.',
  },
});

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
    case 'int':
    case 'long': {
      const n = Number(value);
      if (!Number.isFinite(n) || n < (def.min ?? -Infinity)) return readValue(def, def.default);
      return def.kind === 'int' ? Math.min(Math.floor(n), INT_MAX) : Math.floor(n);
    }
    case 'enum':
      return (def.choices!.includes(value) ? value : def.default) as LogConfig[keyof LogConfig];
    case 'list':
      return value.split(',').map((item) => item.trim()).filter((item) => def.choices!.includes(item)) as CleanupPolicy[];
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
  for (const [name, def] of Object.entries(TOPIC_CONFIGS)) out[def.field] = readValue(def, overrides[name] ?? defaults[name]);
  return Object.freeze(out) as unknown as LogConfig;
}

/** Kafka's defaults of every topic config: a topic's LogConfig with no broker and no topic setting. */
export const DEFAULT_LOG_CONFIG: LogConfig = buildLogConfig({});

export function isCompacted(config: LogConfig): boolean {
  return config.cleanupPolicy.includes('compact');
}
