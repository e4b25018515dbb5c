// Reading and changing configs at run time: DescribeConfigs, AlterConfigs and IncrementalAlterConfigs on
// TOPIC (2), BROKER (4) and BROKER_LOGGER (8) resources, as Kafka's ConfigHelper, ConfigAdminManager and
// the controller's ConfigurationControlManager answer them.
//
// - Each resource succeeds or fails on its own; a resource named twice in one request fails both, a config
//   named twice in one resource, or given a null value (except to DELETE it), fails the resource
//   (INVALID_REQUEST).
// - AlterConfigs replaces the resource's whole set of dynamic configs with the given one (configs left out
//   go back to their defaults); IncrementalAlterConfigs SETs, DELETEs, APPENDs to or SUBTRACTs from single
//   configs, APPEND/SUBTRACT only on LIST configs (INVALID_CONFIG otherwise), starting from the config's
//   default when the resource does not set it.
// - A topic's overrides are checked as CreateTopics checks them (INVALID_CONFIG with the reason), then
//   applied through the log manager: Produce and the partition logs see them at once, krill-topics.json
//   keeps them. A broker resource is the cluster-wide default ("") or this broker (its node id); see
//   dynamic-broker-configs.ts for what may change and how.
// - validateOnly checks everything and changes nothing.
// - BROKER_LOGGER: krill has one logger, "root", at the level it was started with; it is described, and a
//   change is refused (INVALID_REQUEST): the level is set at start only.

import { KafkaError } from '../../protocol/errors.js';
import type { BrokerConfig, BrokerConfigLevel } from '../config.js';
import type { Logger } from '../logger.js';
import { BROKER_CONFIGS } from '../config.js';
import { TOPIC_CONFIGS } from '../log-config.js';
import { validateTopicName, type TopicAdmin, type TopicInfo } from '../topics.js';
import { ConfigSource, describeBrokerConfigs, describeTopicConfigs, type ConfigEntry, type DescribeOptions } from './describe.js';
import type { DynamicBrokerConfigs } from './dynamic-broker-configs.js';
import { SINGLE_BROKER_WIDE_CONFIGS, type ClusterWideConfigs } from './cluster-wide-configs.js';

/** ConfigResource.Type. */
export const ResourceType = Object.freeze({ TOPIC: 2, BROKER: 4, BROKER_LOGGER: 8 });

/** AlterConfigOp.OpType. */
export const AlterConfigOp = Object.freeze({ SET: 0, DELETE: 1, APPEND: 2, SUBTRACT: 3 });
const OP_NAMES = ['SET', 'DELETE', 'APPEND', 'SUBTRACT'];

export interface ConfigResource {
  resourceType: number;
  resourceName: string;
}

/** One config of an alteration: AlterConfigs' entries are all SETs of the whole set. */
export interface ConfigChange {
  name: string;
  value: string | null;
  configOperation?: number;
}

export interface AlterResource extends ConfigResource {
  configs: readonly ConfigChange[];
}

export interface ResourceResult extends ConfigResource {
  errorCode: number;
  errorMessage: string | null;
}

/** A resource whose configs can be replaced as a whole: a topic's overrides or one level of broker configs. */
interface Target {
  current: ReadonlyMap<string, string>;
  /** The value a config has when the resource does not set it, for APPEND and SUBTRACT. */
  defaultOf(name: string): string | null;
  isList(name: string): boolean;
  /** In a cluster a topic's configs are written to ZooKeeper first: then it resolves once they are. */
  replace(configs: Map<string, string>, validateOnly: boolean): void | Promise<void>;
}

export class ConfigAdmin {
  constructor(
    private readonly topics: TopicAdmin,
    private readonly config: BrokerConfig,
    private readonly dynamic: DynamicBrokerConfigs,
    /** The broker's log level (BROKER_LOGGER's "root"). */
    private readonly logLevel: string,
    /** Where the cluster-wide dynamic broker configs are shared with the other brokers (ZooKeeper in a cluster). */
    private readonly clusterWide: ClusterWideConfigs = SINGLE_BROKER_WIDE_CONFIGS,
  ) {}

  /** One resource's configs; throws KafkaError for that resource. */
  describe(resource: ConfigResource, options: DescribeOptions): ConfigEntry[] {
    const { resourceType, resourceName } = resource;
    switch (resourceType) {
      case ResourceType.TOPIC:
        return describeTopicConfigs(this.topic(resourceName), this.config, options);
      case ResourceType.BROKER:
        return describeBrokerConfigs(this.config, this.dynamic.levelOf(resourceName), options);
      case ResourceType.BROKER_LOGGER:
        if (resourceName === '') throw new KafkaError('INVALID_REQUEST', 'Broker id must not be empty');
        this.dynamic.levelOf(resourceName);
        return options.keys?.length && !options.keys.includes('root')
          ? []
          : [
              {
                name: 'root',
                value: this.logLevel.toUpperCase(),
                readOnly: false,
                configSource: ConfigSource.DYNAMIC_BROKER_LOGGER_CONFIG,
                isSensitive: false,
                synonyms: [],
                configType: 0,
                documentation: null,
              },
            ];
      default:
        throw new KafkaError('INVALID_REQUEST', `Unsupported resource type: ${resourceType}`);
    }
  }

  /** AlterConfigs: each resource's dynamic configs become exactly the ones given. */
  alter(resources: readonly AlterResource[], validateOnly: boolean): Promise<ResourceResult[]> {
    return this.each(resources, 'legacy', (resource, target) => target.replace(new Map(resource.configs.map((c) => [c.name, c.value!])), validateOnly));
  }

  /** IncrementalAlterConfigs (KIP-339): each resource's configs changed one operation at a time. */
  incrementalAlter(resources: readonly AlterResource[], validateOnly: boolean): Promise<ResourceResult[]> {
    return this.each(resources, 'incremental', (resource, target) => {
      const next = new Map(target.current);
      for (const { name, value, configOperation: op } of resource.configs) {
        if (op === AlterConfigOp.SET) next.set(name, value!);
        else if (op === AlterConfigOp.DELETE) next.delete(name);
        else {
          if (!target.isList(name)) throw new KafkaError('INVALID_CONFIG', `Can't ${OP_NAMES[op!]} to key ${name} because its type is not LIST.`);
          next.set(name, changeList(next.get(name) ?? target.defaultOf(name) ?? '', op === AlterConfigOp.APPEND, value!));
        }
      }
      return target.replace(next, validateOnly);
    });
  }

  /** Runs `change` on each resource after the checks every resource gets; one result per resource, in order. */
  private each(
    resources: readonly AlterResource[],
    api: 'legacy' | 'incremental',
    change: (resource: AlterResource, target: Target) => void | Promise<void>,
  ): Promise<ResourceResult[]> {
    const seen = new Map<string, number>();
    const keyOf = (r: ConfigResource) => `${r.resourceType}\u0000${r.resourceName}`;
    for (const r of resources) seen.set(keyOf(r), (seen.get(keyOf(r)) ?? 0) + 1);
    return Promise.all(
      resources.map(async (resource) => {
        const { resourceType, resourceName } = resource;
        try {
          if (seen.get(keyOf(resource))! > 1) throw new KafkaError('INVALID_REQUEST', 'Each resource must appear at most once.');
          checkChanges(resource.configs);
          await change(resource, this.target(resource, api));
          return { resourceType, resourceName, errorCode: 0, errorMessage: null };
        } catch (err) {
          if (!(err instanceof KafkaError)) throw err;
          return { resourceType, resourceName, errorCode: err.code, errorMessage: err.message };
        }
      }),
    );
  }

  private target({ resourceType, resourceName }: ConfigResource, api: 'legacy' | 'incremental'): Target {
    switch (resourceType) {
      case ResourceType.TOPIC:
        return this.topicTarget(resourceName);
      case ResourceType.BROKER:
        return this.brokerTarget(this.dynamic.levelOf(resourceName));
      case ResourceType.BROKER_LOGGER:
        // Not a resource of the legacy API at all, as in Kafka.
        if (api === 'legacy') break;
        throw new KafkaError('INVALID_REQUEST', "krill's log level is set at start (--log-level) and cannot be changed at run time");
    }
    throw new KafkaError('INVALID_REQUEST', `Unknown resource type ${resourceType}`);
  }

  private topic(name: string): TopicInfo {
    validateTopicName(name);
    const info = this.topics.getTopic(name);
    if (!info) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `Topic '${name}' does not exist.`);
    return info;
  }

  private topicTarget(name: string): Target {
    // As Kafka's controller says it (DescribeConfigs answers INVALID_TOPIC_EXCEPTION, as for any bad name).
    if (name === '') throw new KafkaError('INVALID_REQUEST', 'Default topic resources are not allowed.');
    const info = this.topic(name);
    return {
      current: new Map(Object.entries(info.overrides)),
      defaultOf: (config) => TOPIC_CONFIGS[config]?.default ?? null,
      isList: (config) => TOPIC_CONFIGS[config]?.kind === 'list',
      replace: async (configs, validateOnly) => {
        const checked = this.topics.checkTopicConfigs(Object.fromEntries(configs));
        if (!validateOnly) await this.topics.alterTopicConfigs(name, checked);
      },
    };
  }

  private brokerTarget(level: BrokerConfigLevel): Target {
    return {
      current: this.dynamic.current(level),
      defaultOf: (config) => BROKER_CONFIGS[config]?.default ?? null,
      isList: (config) => BROKER_CONFIGS[config]?.kind === 'list',
      replace: async (configs, validateOnly) => {
        // The cluster-wide defaults: checked here, shared (in a cluster every broker applies them from
        // ZooKeeper), then applied here at once.
        if (level === 'cluster' && !validateOnly) {
          this.dynamic.replace(level, configs, true);
          await this.clusterWide.share(Object.fromEntries(configs));
        }
        this.dynamic.replace(level, configs, validateOnly);
      },
    };
  }
}

/** APPEND (each item not there yet, in order) or SUBTRACT (every occurrence of each item) on a list value. */
function changeList(current: string, append: boolean, value: string): string {
  let parts = current.split(',').filter((p) => p !== '');
  for (const item of value.split(',')) {
    if (!append) parts = parts.filter((p) => p !== item);
    else if (!parts.includes(item)) parts.push(item);
  }
  return parts.join(',');
}

/** The checks of ConfigAdminManager.preprocess: no config twice, no null value except to DELETE, known operations. */
function checkChanges(configs: readonly ConfigChange[]): void {
  const names = new Set<string>();
  const nulls: string[] = [];
  for (const { name, value, configOperation: op } of configs) {
    if (names.has(name)) throw new KafkaError('INVALID_REQUEST', 'Error due to duplicate config keys');
    names.add(name);
    if (op !== undefined && OP_NAMES[op] === undefined) throw new KafkaError('INVALID_REQUEST', `Unknown operations type ${op}`);
    if (value === null && op !== AlterConfigOp.DELETE) nulls.push(name);
  }
  if (nulls.length > 0) throw new KafkaError('INVALID_REQUEST', `Null value not supported for : ${nulls.join(', ')}`);
}

/** Logs what an alteration did: each refusal at info (a client's mistake), each change made. */
export function logResults(log: Logger, results: readonly ResourceResult[], validateOnly: boolean): void {
  for (const { resourceType, resourceName, errorCode, errorMessage } of results) {
    if (errorCode !== 0) log.info({ resourceType, resourceName, code: errorCode }, errorMessage ?? 'config change refused');
    else if (!validateOnly) log.info({ resourceType, resourceName }, 'configs changed');
  }
}
