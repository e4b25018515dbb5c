// The describe/alter logic without a broker: BrokerConfig's dynamic layers and their precedence, Kafka's
// synonym lists for each source, and the checks of a dynamic broker config change.
import { describe, expect, it } from 'vitest';
import { BrokerConfig, brokerSynonyms } from '../../src/config.js';
import { brokerConfigSynonyms, describeBrokerConfigs, describeTopicConfigs } from '../../src/config-admin/describe.js';
import { checkDynamicConfigs } from '../../src/config-admin/dynamic-broker-configs.js';
import { KafkaError } from '../../protocol/errors.js';

const map = (o: Record<string, string>) => new Map(Object.entries(o));

describe('BrokerConfig dynamic layers', () => {
  it("this broker's dynamic value > the cluster-wide default > the static value > the default", () => {
    const config = new BrokerConfig({ 'message.max.bytes': '900' });
    expect(config.string('message.max.bytes')).toBe('900');
    config.setDynamic('cluster', map({ 'message.max.bytes': '800' }));
    expect(config.string('message.max.bytes')).toBe('800');
    config.setDynamic('broker', map({ 'message.max.bytes': '700' }));
    expect(config.string('message.max.bytes')).toBe('700');
    expect(config.topicDefaults()['max.message.bytes']).toBe('700');
    config.setDynamic('broker', new Map());
    expect(config.topicDefaults()['max.message.bytes']).toBe('800');
    expect(config.staticValue('message.max.bytes')).toBe('900');
    expect(config.staticValue('num.partitions')).toBeUndefined();
  });

  it('a dynamic log.retention.ms wins over static minutes and hours, as the first of its synonyms', () => {
    const config = new BrokerConfig({ 'log.retention.hours': '2', 'log.roll.hours': '3' });
    expect(config.retentionMs).toBe(2 * 3_600_000);
    expect(config.segmentMs).toBe(3 * 3_600_000);
    config.setDynamic('cluster', map({ 'log.retention.ms': '5000', 'log.roll.ms': '6000' }));
    expect(config.retentionMs).toBe(5000);
    expect(config.topicDefaults()).toMatchObject({ 'retention.ms': '5000', 'segment.ms': '6000' });
    expect(brokerSynonyms('log.retention.minutes')).toEqual(['log.retention.ms', 'log.retention.minutes', 'log.retention.hours']);
    expect(brokerSynonyms('message.max.bytes')).toEqual(['message.max.bytes']);
  });

  it('refuses, changing nothing, a layer that breaks a rule between configs', () => {
    const config = new BrokerConfig();
    expect(() => config.setDynamic('broker', map({ 'max.connections.per.ip': '0' }))).toThrow(/only with max.connections.per.ip.overrides/);
    expect(config.dynamicConfigs('broker').size).toBe(0);
    expect(config.int('max.connections.per.ip')).toBe(2147483647);
  });
});

describe('synonyms and sources (ConfigHelper)', () => {
  it('lists every level of the synonym group from the config itself on', () => {
    const config = new BrokerConfig({ 'log.retention.ms': '1000', 'log.retention.hours': '5' });
    config.setDynamic('cluster', map({ 'log.retention.ms': '2000' }));
    expect(brokerConfigSynonyms(config, 'log.retention.ms')).toEqual([
      { name: 'log.retention.ms', value: '2000', source: 3 },
      { name: 'log.retention.ms', value: '1000', source: 4 },
      { name: 'log.retention.hours', value: '5', source: 4 },
      { name: 'log.retention.hours', value: '168', source: 5 },
    ]);
    // Describing the hours config drops what comes before its first own entry.
    expect(brokerConfigSynonyms(config, 'log.retention.hours')).toEqual([
      { name: 'log.retention.hours', value: '5', source: 4 },
      { name: 'log.retention.hours', value: '168', source: 5 },
    ]);
    // Only minutes set: retention.ms's chain starts at log.retention.ms, which is set nowhere: no synonym.
    expect(brokerConfigSynonyms(new BrokerConfig({ 'log.retention.minutes': '30' }), 'log.retention.ms')).toEqual([]);
  });

  it("a topic: its override first, then the broker chain; the source is the first synonym's", () => {
    const config = new BrokerConfig({ 'compression.type': 'gzip' });
    const defaults = config.topicDefaults();
    const overrides = { 'segment.bytes': '5000' };
    const entries = describeTopicConfigs({ configs: { ...defaults, ...overrides }, overrides }, config, {
      includeSynonyms: true,
      keys: ['segment.bytes', 'compression.type', 'retention.ms', 'nope'],
    });
    expect(entries.map((e) => [e.name, e.value, e.configSource, e.synonyms.length])).toEqual([
      ['compression.type', 'gzip', 4, 2],
      ['retention.ms', '604800000', 5, 0],
      ['segment.bytes', '5000', 1, 2],
    ]);
    expect(entries[2].synonyms).toEqual([
      { name: 'segment.bytes', value: '5000', source: 1 },
      { name: 'log.segment.bytes', value: '1073741824', source: 5 },
    ]);
    expect(describeTopicConfigs({ configs: defaults, overrides: {} }, config, { keys: ['compression.type'] })[0].synonyms).toEqual([]);
  });

  it('the broker: every config, read-only unless dynamic; the cluster level lists only its own values', () => {
    const config = new BrokerConfig({ 'node.id': '3' });
    config.setDynamic('cluster', map({ 'log.cleaner.threads': '2' }));
    config.setDynamic('broker', map({ 'log.cleaner.threads': '4' }));
    const broker = Object.fromEntries(describeBrokerConfigs(config, 'broker', { includeSynonyms: true }).map((e) => [e.name, e]));
    expect(broker['log.cleaner.threads']).toMatchObject({ value: '4', configSource: 2, readOnly: false, configType: 3 });
    expect(broker['log.cleaner.threads'].synonyms.map((s) => s.source)).toEqual([2, 3, 5]);
    expect(broker['node.id']).toMatchObject({ value: '3', configSource: 4, readOnly: true });
    expect(broker['broker.id']).toMatchObject({ value: '3', configSource: 5 });
    expect(broker['log.cleaner.enable']).toMatchObject({ readOnly: true, configType: 1 });
    const cluster = describeBrokerConfigs(config, 'cluster', { includeSynonyms: true });
    expect(cluster).toMatchObject([{ name: 'log.cleaner.threads', value: '2', configSource: 3, synonyms: [{ source: 3 }] }]);
  });
});

describe('checkDynamicConfigs', () => {
  const refusal = (configs: Record<string, string>) => {
    try {
      checkDynamicConfigs(map(configs));
    } catch (err) {
      return [(err as KafkaError).code, (err as Error).message];
    }
    return null;
  };

  it('accepts and normalises the dynamic ones', () => {
    expect(checkDynamicConfigs(map({ 'log.cleanup.policy': ' compact ', 'max.connections': '5' }))).toEqual({
      known: map({ 'log.cleanup.policy': 'compact', 'max.connections': '5' }),
      unknown: map({}),
    });
  });

  it('takes names no broker knows apart, as given (Kafka stores them)', () => {
    expect(checkDynamicConfigs(map({ 'cleanup.policy': 'delete', 'max.connections': '5' }))).toEqual({
      known: map({ 'max.connections': '5' }),
      unknown: map({ 'cleanup.policy': 'delete' }),
    });
  });

  it('refuses static and Kafka-only names, and bad values, with INVALID_REQUEST', () => {
    expect(refusal({ 'log.dirs': '/x', 'broker.id': '2' })).toEqual([42, 'Cannot update these configs dynamically: log.dirs, broker.id']);
    expect(refusal({ 'num.network.threads': '2' })).toEqual([42, 'Cannot update these configs dynamically: num.network.threads']);
    expect(refusal({ 'log.cleaner.min.cleanable.ratio': '2' })).toEqual([42, 'log.cleaner.min.cleanable.ratio: 2 is above the maximum 1']);
  });
});
