// What DescribeConfigs (and CreateTopics v5+) say about a config, as Kafka's ConfigHelper says it:
//
// - A topic lists every topic config krill has (TOPIC_CONFIGS) with its effective value. Its synonyms are
//   the topic's own override (DYNAMIC_TOPIC_CONFIG) followed by its broker config's: this broker's
//   dynamic value, the cluster-wide dynamic default, the static value, the default, each over the
//   broker config's synonym group (log.retention.ms, .minutes, .hours), and then, as Kafka does, only from
//   the first entry of the broker config itself on. So retention.ms with nothing set has no synonym
//   (log.retention.ms has no default) while compression.type has {compression.type=producer, DEFAULT}.
// - A broker (resource name = its node id) lists every broker config krill has with its value; read-only
//   unless dynamic. The resource name "" lists only the cluster-wide dynamic defaults.
// - The config source is the first synonym's, else DEFAULT_CONFIG; the whole list is sent only when
//   includeSynonyms is asked. Passwords and private keys (ssl.*) are sensitive: their values are null.

import { BROKER_CONFIGS, brokerSynonyms, type BrokerConfig, type BrokerConfigLevel } from '../config.js';
import type { Kind } from '../config-value.js';
import { TOPIC_CONFIGS } from '../log-config.js';
import type { TopicInfo } from '../storage/log-manager.js';

/** DescribeConfigsResponse.ConfigSource. */
export const ConfigSource = Object.freeze({
  TOPIC_CONFIG: 1,
  DYNAMIC_BROKER_CONFIG: 2,
  DYNAMIC_DEFAULT_BROKER_CONFIG: 3,
  STATIC_BROKER_CONFIG: 4,
  DEFAULT_CONFIG: 5,
  DYNAMIC_BROKER_LOGGER_CONFIG: 6,
});

/** DescribeConfigsResponse.ConfigType of each kind of value (an enum is a STRING with a validator in Kafka). */
const CONFIG_TYPE: Readonly<Record<Kind, number>> = Object.freeze({ bool: 1, string: 2, enum: 2, int: 3, long: 5, double: 6, list: 7 });

export interface ConfigSynonym {
  name: string;
  value: string | null;
  source: number;
}

export interface ConfigEntry {
  name: string;
  value: string | null;
  readOnly: boolean;
  configSource: number;
  isSensitive: boolean;
  synonyms: ConfigSynonym[];
  configType: number;
  documentation: string | null;
}

export interface DescribeOptions {
  /** Names to list; null or empty: all (an unknown name is just not listed). */
  keys?: readonly string[] | null;
  includeSynonyms?: boolean;
  includeDocumentation?: boolean;
}

/** The broker config `name`'s values at each level, over its synonym group, from `name` on (ConfigHelper.configSynonyms). */
export function brokerConfigSynonyms(config: BrokerConfig, name: string): ConfigSynonym[] {
  const names = brokerSynonyms(name);
  const levels: [number, (n: string) => string | null | undefined][] = [
    [ConfigSource.DYNAMIC_BROKER_CONFIG, (n) => config.dynamicConfigs('broker').get(n)],
    [ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG, (n) => config.dynamicConfigs('cluster').get(n)],
    [ConfigSource.STATIC_BROKER_CONFIG, (n) => config.staticValue(n)],
    [ConfigSource.DEFAULT_CONFIG, (n) => BROKER_CONFIGS[n]?.default],
  ];
  const all: ConfigSynonym[] = [];
  for (const [source, valueOf] of levels) {
    for (const n of names) {
      const value = valueOf(n);
      if (value != null) all.push({ name: n, value, source });
    }
  }
  const from = all.findIndex((s) => s.name === name);
  return from < 0 ? [] : all.slice(from);
}

function wanted(options: DescribeOptions): (name: string) => boolean {
  const keys = options.keys?.length ? new Set(options.keys) : null;
  return (name) => keys === null || keys.has(name);
}

function entry(
  name: string,
  value: string | null,
  readOnly: boolean,
  kind: Kind,
  doc: string,
  synonyms: ConfigSynonym[],
  options: DescribeOptions,
): ConfigEntry {
  return {
    name,
    value,
    readOnly,
    configSource: synonyms[0]?.source ?? ConfigSource.DEFAULT_CONFIG,
    isSensitive: false,
    synonyms: options.includeSynonyms ? synonyms : [],
    configType: CONFIG_TYPE[kind],
    documentation: options.includeDocumentation ? doc : null,
  };
}

/** A password or private key as Kafka describes one: sensitive, its value (and its synonyms') null. */
function hidden(e: ConfigEntry): ConfigEntry {
  return { ...e, value: null, isSensitive: true, synonyms: e.synonyms.map((s) => ({ ...s, value: null })) };
}

/** A topic's configs, by name. */
export function describeTopicConfigs(topic: Pick<TopicInfo, 'configs' | 'overrides'>, config: BrokerConfig, options: DescribeOptions = {}): ConfigEntry[] {
  const include = wanted(options);
  return Object.keys(TOPIC_CONFIGS)
    .sort()
    .filter(include)
    .map((name) => {
      const def = TOPIC_CONFIGS[name];
      const value = topic.configs[name] ?? def.default;
      const own: ConfigSynonym[] = name in topic.overrides ? [{ name, value, source: ConfigSource.TOPIC_CONFIG }] : [];
      const synonyms = [...own, ...(def.broker ? brokerConfigSynonyms(config, def.broker) : [])];
      return entry(name, value, false, def.kind, def.doc, synonyms, options);
    });
}

/** A broker's configs (level 'broker') or the cluster-wide dynamic defaults (level 'cluster'), by name. */
export function describeBrokerConfigs(config: BrokerConfig, level: BrokerConfigLevel, options: DescribeOptions = {}): ConfigEntry[] {
  const include = wanted(options);
  const names = level === 'broker' ? Object.keys(BROKER_CONFIGS) : [...config.dynamicConfigs('cluster').keys()];
  return names
    .sort()
    .filter(include)
    .map((name) => {
      const def = BROKER_CONFIGS[name];
      const all = brokerConfigSynonyms(config, name);
      const described =
        level === 'broker'
          ? entry(name, config.string(def.aliasOf ?? name), !def.dynamic, def.kind, def.doc, all, options)
          : entry(
              name,
              config.dynamicConfigs('cluster').get(name)!,
              !def.dynamic,
              def.kind,
              def.doc,
              all.filter((s) => s.source === ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG),
              options,
            );
      return def.sensitive ? hidden(described) : described;
    });
}
