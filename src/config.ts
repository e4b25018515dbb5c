// Broker configuration, by Kafka's own names and meanings. Every name krill honours is in BROKER_CONFIGS;
// Kafka's names that mean nothing here are in KAFKA_ONLY_CONFIGS (accepted, listed in one warning). An
// unknown name, an invalid value or a combination krill cannot honour is a ConfigError naming every such
// problem at once, which the CLI turns into exit code 2.
import { isIP } from 'node:net';
import type { Logger } from './logger.js';
import { ConfigError, asText, checkValue, type ConfigValue } from './config-value.js';
import { BROKER_CONFIGS, SYNONYM_GROUPS, brokerSynonyms, type ConfigDef } from './broker-config-defs.js';
import { TOPIC_CONFIGS } from './log-config.js';
import { KAFKA_ONLY_CONFIGS } from './kafka-only-configs.js';
import { AUTHORIZER_CLASS_NAMES } from './security/acl.js';
import { interBrokerSaslLogin, listenerScopedSaslRule, saslListenerProblems, type SaslConfigSource } from './security/sasl-configs.js';
import { SSL_CONFIGS, listenerOverride, overrideName } from './security/ssl-configs.js';
import { resolveListeners, withAddress, type ClientListener, type Listener, type NamedListener, type ResolvedListeners } from './listeners.js';

export type { ClientListener, Listener, SecurityProtocol } from './listeners.js';
export { ConfigError, type ConfigValue, type ValueRule } from './config-value.js';
export { BROKER_CONFIGS, brokerConfigDefault, brokerSynonyms, type ConfigDef } from './broker-config-defs.js';

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
