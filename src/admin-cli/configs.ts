// krill configs describe|alter: Kafka's kafka-configs for topics and brokers, over DescribeConfigs and
// IncrementalAlterConfigs (KIP-339: only the named configs change).
import { UsageError, keyValues, listOption, requireOption, stringOption, type Command } from './command.js';
import { check, type KafkaClient } from './kafka-client.js';
import { columns } from './table.js';

/** ConfigResource.Type's wire values. */
export const RESOURCE_TOPIC = 2;
export const RESOURCE_BROKER = 4;

/** DescribeConfigsResponse's config sources, by Kafka's names (ConfigSource). */
const SOURCES = [
  'UNKNOWN',
  'DYNAMIC_TOPIC_CONFIG',
  'DYNAMIC_BROKER_CONFIG',
  'DYNAMIC_DEFAULT_BROKER_CONFIG',
  'STATIC_BROKER_CONFIG',
  'DEFAULT_CONFIG',
  'DYNAMIC_BROKER_LOGGER_CONFIG',
  'CLIENT_METRICS_CONFIG',
  'GROUP_CONFIG',
];
const DEFAULT_CONFIG = 5;

export interface ConfigEntry {
  name: string;
  value: string | null;
  source: string;
  readOnly: boolean;
  sensitive: boolean;
}

/** A broker's configs are its own to describe and change; a topic's, any broker's. */
function target(type: number, name: string): number | null {
  return type === RESOURCE_BROKER && name !== '' ? Number(name) : null;
}

/** The configs of one resource; `all` includes those at their defaults. Sensitive values are null, as Kafka sends them. */
export async function describeConfigs(client: KafkaClient, type: number, name: string, all: boolean): Promise<ConfigEntry[]> {
  const request = { resources: [{ resourceType: type, resourceName: name, configurationKeys: null }], includeSynonyms: false, includeDocumentation: false };
  const node = target(type, name);
  const res = node === null ? await client.send(32, request) : await client.sendTo(node, 32, request);
  const r = res.results[0];
  check(r.errorCode, `describing the configs of ${type === RESOURCE_TOPIC ? 'topic' : 'broker'} '${name}'`, r.errorMessage);
  return r.configs
    .filter((c) => all || c.configSource !== DEFAULT_CONFIG)
    .map((c) => ({ name: c.name, value: c.value, source: SOURCES[c.configSource] ?? String(c.configSource), readOnly: c.readOnly, sensitive: c.isSensitive }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** Sets and deletes (returns to the default) configs of one resource, with one IncrementalAlterConfigs. */
export async function alterConfigs(client: KafkaClient, type: number, name: string, sets: [string, string][], deletes: string[]): Promise<void> {
  const request = {
    resources: [
      {
        resourceType: type,
        resourceName: name,
        configs: [...sets.map(([n, value]) => ({ name: n, configOperation: 0, value })), ...deletes.map((n) => ({ name: n, configOperation: 1, value: null }))],
      },
    ],
    validateOnly: false,
  };
  const node = target(type, name);
  const res = node === null ? await client.send(44, request) : await client.sendTo(node, 44, request);
  const r = res.responses[0];
  check(r.errorCode, `altering the configs of ${type === RESOURCE_TOPIC ? 'topic' : 'broker'} '${name}'`, r.errorMessage);
}

const ENTITY_OPTIONS = {
  'entity-type': { type: 'string' },
  'entity-name': { type: 'string' },
  'entity-default': { type: 'boolean', default: false },
} as const;
const ENTITY_HELP = `  --entity-type topics|brokers  what the configs are of
  --entity-name NAME            the topic's name, or the broker's id
  --entity-default              the cluster-wide default of every broker (with --entity-type brokers)`;

function entity(values: Record<string, unknown>): { type: number; name: string } {
  const kind = requireOption(values as never, 'entity-type');
  const type = kind === 'topics' ? RESOURCE_TOPIC : kind === 'brokers' ? RESOURCE_BROKER : undefined;
  if (type === undefined) throw new UsageError(`--entity-type must be topics or brokers, got '${kind}'`);
  if (values['entity-default']) {
    if (type !== RESOURCE_BROKER) throw new UsageError('--entity-default goes with --entity-type brokers');
    return { type, name: '' };
  }
  const name = stringOption(values as never, 'entity-name');
  if (name === undefined) throw new UsageError('--entity-name (or --entity-default) is required');
  if (type === RESOURCE_BROKER && !/^\d+$/.test(name)) throw new UsageError(`a broker's --entity-name is its id, got '${name}'`);
  return { type, name };
}

const describe: Command = {
  name: 'configs describe',
  summary: 'the configs of a topic or broker that are not at their defaults (all of them with --all)',
  usage: `--entity-type topics|brokers (--entity-name NAME | --entity-default) [--all]
${ENTITY_HELP}
  --all                         include the configs at their defaults`,
  options: { ...ENTITY_OPTIONS, all: { type: 'boolean', default: false } },
  async run(ctx) {
    const { type, name } = entity(ctx.values);
    const configs = await describeConfigs(await ctx.client(), type, name, ctx.values.all === true);
    ctx.print(configs, columns('name', 'value', 'source', 'readOnly', 'sensitive'));
  },
};

const alter: Command = {
  name: 'configs alter',
  summary: 'set or delete configs of a topic or broker',
  usage: `--entity-type topics|brokers (--entity-name NAME | --entity-default) [--add-config key=value]... [--delete-config key]...
${ENTITY_HELP}
  --add-config key=value        set a config (repeatable)
  --delete-config key           return a config to its default (repeatable)`,
  options: { ...ENTITY_OPTIONS, 'add-config': { type: 'string', multiple: true }, 'delete-config': { type: 'string', multiple: true } },
  async run(ctx) {
    const { type, name } = entity(ctx.values);
    const sets = keyValues(ctx.values, 'add-config');
    const deletes = listOption(ctx.values, 'delete-config');
    if (sets.length === 0 && deletes.length === 0) throw new UsageError('nothing to alter: give --add-config or --delete-config');
    await alterConfigs(await ctx.client(), type, name, sets, deletes);
    const result = { entity: name, set: Object.fromEntries(sets), deleted: deletes };
    ctx.print([{ entity: name || '<default>', altered: true }], columns('entity', 'altered'), result);
  },
};

export const CONFIG_COMMANDS = [describe, alter];
