// Dynamic broker configs (Kafka's DynamicBrokerConfig): the checks a change of a BROKER resource's configs
// must pass, and the change itself: checked against the other configs, written to the data dir
// (storage/broker-configs-file.ts), set on the BrokerConfig, then handed to the parts that apply it live
// (onChange; the broker wires it to the log manager's topic defaults and the connection quotas).
//
// Which configs are dynamic is BROKER_CONFIGS' `dynamic` flag: every broker config that is a topic
// config's default (log.segment.bytes, log.retention.ms, message.max.bytes, compression.type, ...), the
// connection quotas, the cleaner's threads/backoff/buffer and producer.id.expiration.ms, as in Kafka.
// Precedence, as in Kafka: this broker's dynamic value > the cluster-wide dynamic default > the static
// value > the default.
//
// Errors, as Kafka's ConfigAdminManager gives them for broker resources: INVALID_REQUEST for a config
// that is not dynamic or a value that is not valid (KAFKA-13609 keeps that code). A name neither Kafka's
// broker nor krill knows (kafkajs's own tests set cleanup.policy on a broker) is accepted and stored, as
// Kafka stores it, and logged as unused: it is kept in the file and in the level's set, so that a later
// AlterConfigs or IncrementalAlterConfigs replaces or keeps it as Kafka would, but nothing reads it and
// DescribeConfigs does not list it.

import { KafkaError } from '../../protocol/errors.js';
import { BROKER_CONFIGS, ConfigError, type BrokerConfig, type BrokerConfigLevel } from '../config.js';
import { checkValue } from '../config-value.js';
import { KAFKA_ONLY_CONFIGS } from '../kafka-only-configs.js';
import type { Logger } from '../logger.js';
import { readBrokerConfigsFile, writeBrokerConfigsFile, type PersistedBrokerConfigs } from '../storage/broker-configs-file.js';

/**
 * Checks one level's whole new set of dynamic configs; returns the known ones normalised and the unknown
 * ones as given, or throws INVALID_REQUEST.
 */
export function checkDynamicConfigs(configs: ReadonlyMap<string, string>): { known: Map<string, string>; unknown: Map<string, string> } {
  const fixed: string[] = [];
  const unknown = new Map<string, string>();
  const problems: string[] = [];
  const out = new Map<string, string>();
  for (const [name, value] of configs) {
    const def = BROKER_CONFIGS[name];
    if (!def) {
      if (name in KAFKA_ONLY_CONFIGS) fixed.push(name);
      else unknown.set(name, value);
    } else if (!def.dynamic) {
      fixed.push(name);
    } else {
      try {
        out.set(name, checkValue(name, value, def));
      } catch (err) {
        if (!(err instanceof ConfigError)) throw err;
        problems.push(...err.problems);
      }
    }
  }
  if (fixed.length > 0) throw new KafkaError('INVALID_REQUEST', `Cannot update these configs dynamically: ${fixed.join(', ')}`);
  if (problems.length > 0) throw new KafkaError('INVALID_REQUEST', problems.join('; '));
  return { known: out, unknown };
}

/** Kafka's LogCleaner.validateReconfiguration: the cleaner's threads change by at most a factor of two, never to 0. */
function cleanerThreadsChange(current: number, next: number): string | null {
  if (next === current) return null;
  if (next < 1) return 'Log cleaner threads should be at least 1';
  if (next < current / 2) return `Log cleaner threads cannot be reduced to less than half the current value ${current}`;
  if (next > current * 2) return `Log cleaner threads cannot be increased to more than double the current value ${current}`;
  return null;
}

export class DynamicBrokerConfigs {
  /** The file's entries of other node ids, written back untouched. */
  private otherBrokers: PersistedBrokerConfigs['brokers'] = {};
  /** Each level's configs of names krill does not know: stored, never read (see the file comment). */
  private readonly unknown: Record<BrokerConfigLevel, Map<string, string>> = { cluster: new Map(), broker: new Map() };

  constructor(
    private readonly config: BrokerConfig,
    private readonly dataDir: string,
    /** Called with the names whose value changed, once the change is set and persisted. */
    private readonly onChange: (names: string[]) => void,
    private readonly log: Logger,
  ) {}

  /**
   * Reads the data dir's dynamic configs into the BrokerConfig. An entry no longer valid (a hand edit, a
   * config krill stopped honouring) is left out with a warning, as Kafka drops invalid dynamic configs.
   */
  load(): void {
    const persisted = readBrokerConfigsFile(this.dataDir);
    const own = String(this.config.nodeId);
    this.otherBrokers = Object.fromEntries(Object.entries(persisted.brokers).filter(([id]) => id !== own));
    const levels: [BrokerConfigLevel, Record<string, string>][] = [
      ['cluster', persisted.cluster],
      ['broker', persisted.brokers[own] ?? {}],
    ];
    const kept: Record<BrokerConfigLevel, Map<string, string>> = { cluster: new Map(), broker: new Map() };
    for (const [level, entries] of levels) {
      for (const [name, value] of Object.entries(entries)) {
        try {
          const { known, unknown } = checkDynamicConfigs(new Map([[name, value]]));
          for (const [n, v] of known) kept[level].set(n, v);
          for (const [n, v] of unknown) this.unknown[level].set(n, v);
        } catch (err) {
          this.log.warn({ config: name, value, scope: level, err: (err as Error).message }, 'ignoring a stored dynamic broker config');
        }
      }
    }
    // Both levels checked together: one may need the other's values (max.connections.per.ip=0 cluster-wide
    // with this broker's overrides). Only when together they cannot be honoured is a level tried alone.
    try {
      this.config.setDynamicLevels(kept);
      return;
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
    }
    for (const [level] of levels) {
      try {
        this.config.setDynamic(level, kept[level]);
      } catch (err) {
        if (!(err instanceof ConfigError)) throw err;
        this.log.warn({ scope: level, configs: Object.fromEntries(kept[level]), err: err.message }, 'ignoring the stored dynamic broker configs of this level');
      }
    }
  }

  /** The level a BROKER resource name addresses: "" the cluster-wide defaults, this node's id its own. */
  levelOf(resourceName: string): BrokerConfigLevel {
    if (resourceName === '') return 'cluster';
    if (!/^-?\d+$/.test(resourceName)) throw new KafkaError('INVALID_REQUEST', `Node id must be an integer, but it is: ${resourceName}`);
    if (Number(resourceName) !== this.config.nodeId) {
      throw new KafkaError('INVALID_REQUEST', `Unexpected broker id, expected ${this.config.nodeId}, but received ${resourceName}`);
    }
    return 'broker';
  }

  /** A level's dynamic configs, those of unknown names included. */
  current(level: BrokerConfigLevel): ReadonlyMap<string, string> {
    return new Map([...this.config.dynamicConfigs(level), ...this.unknown[level]]);
  }

  /**
   * Replaces the dynamic configs of one level (checked as a whole); with validateOnly, only checks.
   * Throws KafkaError: INVALID_REQUEST for a refused change, KAFKA_STORAGE_ERROR when it cannot be written.
   */
  replace(level: BrokerConfigLevel, configs: ReadonlyMap<string, string>, validateOnly: boolean): void {
    const { known: checked, unknown } = checkDynamicConfigs(configs);
    const before = new Map(this.config.dynamicConfigs(level));
    const unknownBefore = this.unknown[level];
    const threadsBefore = this.config.int('log.cleaner.threads');
    try {
      this.config.setDynamic(level, checked);
    } catch (err) {
      if (err instanceof ConfigError) throw new KafkaError('INVALID_REQUEST', err.message);
      throw err;
    }
    const cleanerProblem = cleanerThreadsChange(threadsBefore, this.config.int('log.cleaner.threads'));
    if (cleanerProblem !== null) {
      this.config.setDynamic(level, before);
      throw new KafkaError('INVALID_REQUEST', cleanerProblem);
    }
    if (validateOnly) {
      this.config.setDynamic(level, before);
      return;
    }
    this.unknown[level] = unknown;
    try {
      this.persist();
    } catch (err) {
      this.config.setDynamic(level, before);
      this.unknown[level] = unknownBefore;
      this.log.error({ err }, 'writing the dynamic broker configs failed');
      throw new KafkaError('KAFKA_STORAGE_ERROR', `Could not write the dynamic broker configs: ${(err as Error).message}`);
    }
    const changed = [...new Set([...before.keys(), ...checked.keys()])].filter((name) => before.get(name) !== checked.get(name));
    this.log.info({ scope: level, configs: Object.fromEntries(checked), changed }, 'dynamic broker configs updated');
    if (unknown.size > 0) {
      this.log.warn({ scope: level, configs: [...unknown.keys()] }, 'stored dynamic configs that are no broker config krill knows; nothing reads them');
    }
    if (changed.length > 0) this.onChange(changed);
  }

  private persist(): void {
    const own = Object.fromEntries(this.current('broker'));
    const brokers = { ...this.otherBrokers, ...(Object.keys(own).length > 0 ? { [String(this.config.nodeId)]: own } : {}) };
    writeBrokerConfigsFile(this.dataDir, { cluster: Object.fromEntries(this.current('cluster')), brokers });
  }
}
