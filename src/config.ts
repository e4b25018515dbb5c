// Broker configuration, by Kafka's own names and meanings. Every name krill honours is in BROKER_CONFIGS;
// an unknown name or an invalid value is a ConfigError, which the CLI turns into exit code 2.

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

type Kind = 'int' | 'long' | 'bool' | 'string' | 'list' | 'enum';

interface ConfigDef {
  kind: Kind;
  default: string | null;
  min?: number;
  max?: number;
  choices?: readonly string[];
  /** The name this one is an alias of (broker.id → node.id). */
  aliasOf?: string;
  doc: string;
}

const COMPRESSION_TYPES = ['producer', 'uncompressed', 'gzip', 'snappy', 'lz4', 'zstd'] as const;
const TIMESTAMP_TYPES = ['CreateTime', 'LogAppendTime'] as const;

export const BROKER_CONFIGS: Readonly<Record<string, ConfigDef>> = Object.freeze({
  'node.id': { kind: 'int', default: '1', min: 0, doc: 'This broker\'s id; Metadata names it as the controller.' },
  'broker.id': { kind: 'int', default: null, min: 0, aliasOf: 'node.id', doc: 'Alias of node.id.' },
  'listeners': { kind: 'list', default: 'PLAINTEXT://127.0.0.1:9092', doc: 'Where to listen; only PLAINTEXT for now.' },
  'advertised.listeners': { kind: 'list', default: null, doc: 'Address given to clients in Metadata; defaults to listeners.' },
  'log.dirs': { kind: 'string', default: null, doc: 'Data directory (one).' },
  'log.dir': { kind: 'string', default: './krill-data', doc: 'Data directory, when log.dirs is unset.' },
  'num.partitions': { kind: 'int', default: '1', min: 1, doc: 'Partitions of an auto-created topic.' },
  'auto.create.topics.enable': { kind: 'bool', default: 'true', doc: 'Create unknown topics named in Metadata.' },
  'default.replication.factor': { kind: 'int', default: '1', min: 1, max: 1, doc: 'Single broker: must be 1.' },
  'delete.topic.enable': { kind: 'bool', default: 'true', doc: 'Whether DeleteTopics may delete.' },
  'message.max.bytes': { kind: 'int', default: '1048588', min: 0, doc: 'Largest record batch accepted.' },
  'log.segment.bytes': { kind: 'int', default: '1073741824', min: 14, doc: 'Segment size before rolling.' },
  'log.roll.ms': { kind: 'long', default: null, min: 1, doc: 'Segment age before rolling; overrides log.roll.hours.' },
  'log.roll.hours': { kind: 'int', default: '168', min: 1, doc: 'Segment age before rolling, in hours.' },
  'log.index.interval.bytes': { kind: 'int', default: '4096', min: 0, doc: 'Bytes of log between offset index entries.' },
  'krill.log.max.open.files': { kind: 'int', default: '512', min: 1, doc: 'Segment file descriptors kept open, process-wide (krill only; the rest are closed and reopened on use).' },
  'log.message.timestamp.type': { kind: 'enum', default: 'CreateTime', choices: TIMESTAMP_TYPES, doc: 'CreateTime or LogAppendTime.' },
  'compression.type': { kind: 'enum', default: 'producer', choices: COMPRESSION_TYPES, doc: 'Codec batches are stored in.' },
  'socket.request.max.bytes': { kind: 'int', default: '104857600', min: 1, doc: 'Largest request frame accepted.' },
  'group.initial.rebalance.delay.ms': { kind: 'int', default: '0', min: 0, doc: 'Wait before the first rebalance of an empty group completes (Kafka: 3000; krill: 0).' },
  'group.min.session.timeout.ms': { kind: 'int', default: '6000', min: 0, doc: 'Smallest session timeout a group member may ask for.' },
  'group.max.session.timeout.ms': { kind: 'int', default: '1800000', min: 0, doc: 'Largest session timeout a group member may ask for.' },
  'offsets.topic.num.partitions': { kind: 'int', default: '50', min: 1, doc: 'Partitions of __consumer_offsets when it is created.' },
  'offsets.retention.minutes': { kind: 'int', default: '10080', min: 1, doc: 'How long committed offsets are kept once their group is Empty (KIP-211); for standalone commits, after the commit.' },
  'offsets.retention.check.interval.ms': { kind: 'long', default: '600000', min: 1, doc: 'How often expired committed offsets are removed.' },
});

/** Topic-level configs accepted by CreateTopics, with the broker config that supplies their default. */
export const TOPIC_CONFIGS: Readonly<Record<string, { broker: string | null; kind: Kind; choices?: readonly string[]; min?: number }>> = Object.freeze({
  'compression.type': { broker: 'compression.type', kind: 'enum', choices: COMPRESSION_TYPES },
  'max.message.bytes': { broker: 'message.max.bytes', kind: 'int', min: 0 },
  'message.timestamp.type': { broker: 'log.message.timestamp.type', kind: 'enum', choices: TIMESTAMP_TYPES },
  'segment.bytes': { broker: 'log.segment.bytes', kind: 'int', min: 14 },
  'segment.ms': { broker: null, kind: 'long', min: 1 },
  'index.interval.bytes': { broker: 'log.index.interval.bytes', kind: 'int', min: 0 },
  'cleanup.policy': { broker: null, kind: 'list', choices: ['delete', 'compact'] },
});

function checkValue(name: string, kind: Kind, raw: string, opts: { min?: number; max?: number; choices?: readonly string[] }): string {
  const value = raw.trim();
  switch (kind) {
    case 'int':
    case 'long': {
      if (!/^-?\d+$/.test(value)) throw new ConfigError(`${name}: '${raw}' is not an integer`);
      const n = Number(value);
      if (kind === 'int' && (n > 2147483647 || n < -2147483648)) throw new ConfigError(`${name}: ${raw} is out of int range`);
      if (opts.min !== undefined && n < opts.min) throw new ConfigError(`${name}: ${raw} is below the minimum ${opts.min}`);
      if (opts.max !== undefined && n > opts.max) throw new ConfigError(`${name}: ${raw} is above the maximum ${opts.max}`);
      return value;
    }
    case 'bool':
      if (value !== 'true' && value !== 'false') throw new ConfigError(`${name}: '${raw}' is not true or false`);
      return value;
    case 'enum':
      if (!opts.choices!.includes(value)) throw new ConfigError(`${name}: '${raw}' is not one of ${opts.choices!.join(', ')}`);
      return value;
    case 'list':
      if (opts.choices) {
        for (const item of value.split(',')) {
          if (!opts.choices.includes(item.trim())) throw new ConfigError(`${name}: '${item}' is not one of ${opts.choices.join(', ')}`);
        }
      }
      return value;
    default:
      return value;
  }
}

/** Validates a topic-level config; returns the normalised value or throws ConfigError. */
export function checkTopicConfig(name: string, value: string | null): string {
  const def = TOPIC_CONFIGS[name];
  if (!def) throw new ConfigError(`unknown topic config '${name}'`);
  if (value === null) throw new ConfigError(`${name}: a value is required`);
  return checkValue(name, def.kind, value, def);
}

export interface Listener {
  host: string;
  port: number;
}

export class BrokerConfig {
  private readonly values = new Map<string, string | null>();

  constructor(overrides: Record<string, string> = {}) {
    for (const [name, def] of Object.entries(BROKER_CONFIGS)) if (!def.aliasOf) this.values.set(name, def.default);
    for (const [rawName, raw] of Object.entries(overrides)) this.set(rawName, raw);
  }

  set(rawName: string, raw: string): void {
    const name = rawName.trim();
    const def = BROKER_CONFIGS[name];
    if (!def) throw new ConfigError(`unknown config '${name}'`);
    const value = checkValue(name, def.kind, raw, def);
    this.values.set(def.aliasOf ?? name, value);
  }

  string(name: string): string | null {
    if (!this.values.has(name)) throw new Error(`config '${name}' is not defined`);
    return this.values.get(name)!;
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

  get segmentMs(): number {
    const ms = this.string('log.roll.ms');
    return ms !== null ? Number(ms) : this.int('log.roll.hours') * 3600_000;
  }

  get listener(): Listener {
    return parseListener(this.string('listeners')!, 'listeners');
  }

  get advertisedListener(): Listener {
    const adv = this.string('advertised.listeners');
    const own = this.listener;
    if (adv === null) return own;
    const l = parseListener(adv, 'advertised.listeners');
    return { host: l.host, port: l.port === 0 ? own.port : l.port };
  }

  /** The broker-level defaults behind each topic config, as topic config names. */
  topicDefaults(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, def] of Object.entries(TOPIC_CONFIGS)) {
      if (def.broker) out[name] = this.string(def.broker)!;
    }
    out['segment.ms'] = String(this.segmentMs);
    out['cleanup.policy'] = 'delete';
    return out;
  }
}

function parseListener(spec: string, name: string): Listener {
  const first = spec.split(',')[0].trim();
  const m = /^(?:([A-Za-z_]+):\/\/)?(\[[^\]]*\]|[^:]*):(\d+)$/.exec(first);
  if (!m) throw new ConfigError(`${name}: '${spec}' is not of the form PLAINTEXT://host:port`);
  if (m[1] && m[1].toUpperCase() !== 'PLAINTEXT') {
    throw new ConfigError(`${name}: security protocol '${m[1]}' is not supported yet (PLAINTEXT only)`);
  }
  const port = Number(m[3]);
  if (port > 65535) throw new ConfigError(`${name}: port ${port} is out of range`);
  return { host: m[2].replace(/^\[|\]$/g, '') || '127.0.0.1', port };
}

/** Parses Java properties text (key=value or key: value, # and ! comments, line continuations). */
export function parseProperties(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.replace(/\\\r?\n\s*/g, '').split(/\r?\n/);
  for (const line of lines) {
    const trimmed = line.trim();
    if (!trimmed || trimmed.startsWith('#') || trimmed.startsWith('!')) continue;
    const m = /^([^=:\s]+)\s*[=:\s]\s*(.*)$/.exec(trimmed);
    if (!m) throw new ConfigError(`cannot parse properties line '${trimmed}'`);
    out[m[1]] = m[2];
  }
  return out;
}
