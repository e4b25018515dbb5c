import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LogManager } from '../../src/storage/log-manager.js';
import { BROKER_CONFIGS, BrokerConfig, ConfigError } from '../../src/config.js';
import { DEFAULT_LOG_CONFIG, TOPIC_CONFIGS, buildLogConfig, checkTopicConfig, type LogConfig } from '../../src/log-config.js';
import { INFLATE_FACTOR, topicAppendConfig } from '../../src/log-validator.js';
import { CODEC_GZIP } from '../../protocol/compression/index.js';

/** Long.MAX_VALUE as the number the config holds (2^63 - 1 is not a double; 2^63 is the one it rounds to). */
const LONG_MAX = 2 ** 63;

const KAFKA_DEFAULTS: LogConfig = {
  segmentBytes: 1073741824,
  segmentMs: 604800000,
  indexIntervalBytes: 4096,
  maxMessageBytes: 1048588,
  compressionType: 'producer',
  messageTimestampType: 'CreateTime',
  cleanupPolicy: ['delete'],
  retentionMs: 604800000,
  retentionBytes: -1,
  deleteRetentionMs: 86400000,
  minCleanableDirtyRatio: 0.5,
  minCompactionLagMs: 0,
  maxCompactionLagMs: LONG_MAX,
  fileDeleteDelayMs: 60000,
  messageTimestampBeforeMaxMs: LONG_MAX,
  messageTimestampAfterMaxMs: LONG_MAX,
  minInsyncReplicas: 1,
  uncleanLeaderElectionEnable: false,
};

describe('TOPIC_CONFIGS', () => {
  it('gives every LogConfig field exactly one config', () => {
    const fields = Object.values(TOPIC_CONFIGS)
      .flatMap((d) => (d.field ? [d.field] : []))
      .sort();
    expect(fields).toEqual(Object.keys(KAFKA_DEFAULTS).sort());
  });

  it("makes each broker config behind a topic config take the topic config's rule and default", () => {
    for (const [name, def] of Object.entries(TOPIC_CONFIGS)) {
      if (def.broker === null) continue;
      const broker = BROKER_CONFIGS[def.broker];
      expect(broker, `${name} ← ${def.broker}`).toBeDefined();
      expect({ kind: broker.kind, min: broker.min, max: broker.max, choices: broker.choices }).toEqual({
        kind: def.kind,
        min: def.min,
        max: def.max,
        choices: def.choices,
      });
      // log.roll.ms is unset by default: log.roll.hours gives segment.ms its default then.
      if (def.broker === 'log.roll.ms') expect(Number(BROKER_CONFIGS['log.roll.hours'].default) * 3_600_000).toBe(Number(def.default));
      else if (def.broker === 'log.retention.ms') expect(Number(BROKER_CONFIGS['log.retention.hours'].default) * 3_600_000).toBe(Number(def.default));
      else expect(broker.default, def.broker).toBe(def.default);
    }
  });
});

describe('buildLogConfig', () => {
  it("is Kafka's defaults with nothing set", () => {
    expect(DEFAULT_LOG_CONFIG).toEqual(KAFKA_DEFAULTS);
    expect(buildLogConfig({}, new BrokerConfig().topicDefaults())).toEqual(KAFKA_DEFAULTS);
  });

  it("takes the topic's override, else the broker's default, as typed values", () => {
    const broker = new BrokerConfig({ 'log.segment.bytes': 5000, 'log.roll.hours': 2, 'compression.type': 'lz4', 'message.max.bytes': 900 });
    const config = buildLogConfig(
      { 'segment.bytes': '700', 'cleanup.policy': 'compact, delete', 'message.timestamp.type': 'LogAppendTime', 'retention.ms': '5' },
      broker.topicDefaults(),
    );
    expect(config).toEqual({
      ...KAFKA_DEFAULTS,
      segmentBytes: 700,
      segmentMs: 7_200_000,
      indexIntervalBytes: 4096,
      maxMessageBytes: 900,
      compressionType: 'lz4',
      messageTimestampType: 'LogAppendTime',
      cleanupPolicy: ['compact', 'delete'],
      retentionMs: 5,
    });
    expect(Object.isFrozen(config)).toBe(true);
    expect(buildLogConfig({}, new BrokerConfig({ 'log.roll.ms': 1234, 'log.roll.hours': 2 }).topicDefaults()).segmentMs).toBe(1234);
    // Booleans: the topic's override, else the broker default; an unreadable value is Kafka's default.
    expect(buildLogConfig({}, new BrokerConfig({ 'unclean.leader.election.enable': true }).topicDefaults()).uncleanLeaderElectionEnable).toBe(true);
    expect(
      buildLogConfig({ 'unclean.leader.election.enable': 'false' }, new BrokerConfig({ 'unclean.leader.election.enable': true }).topicDefaults())
        .uncleanLeaderElectionEnable,
    ).toBe(false);
    expect(buildLogConfig({ 'unclean.leader.election.enable': 'maybe' }).uncleanLeaderElectionEnable).toBe(false);
    // Kafka's precedence: log.retention.ms, else .minutes, else .hours.
    expect(buildLogConfig({}, new BrokerConfig({ 'log.retention.hours': 1 }).topicDefaults()).retentionMs).toBe(3_600_000);
    expect(buildLogConfig({}, new BrokerConfig({ 'log.retention.minutes': 2, 'log.retention.hours': 1 }).topicDefaults()).retentionMs).toBe(120_000);
    expect(buildLogConfig({}, new BrokerConfig({ 'log.retention.ms': -1, 'log.retention.minutes': 2 }).topicDefaults()).retentionMs).toBe(-1);
    // Any negative value is "no limit", in whichever unit: never Kafka's 7-day default.
    expect(buildLogConfig({}, new BrokerConfig({ 'log.retention.hours': -1 }).topicDefaults()).retentionMs).toBe(-1);
    expect(buildLogConfig({}, new BrokerConfig({ 'log.retention.minutes': -1, 'log.retention.hours': 5 }).topicDefaults()).retentionMs).toBe(-1);
    expect(new BrokerConfig({ 'log.retention.hours': -1 }).topicDefaults()['retention.ms']).toBe('-1');
  });

  it('gives the KIP-937 timestamp bounds the deprecated message.timestamp.difference.max.ms when they are not set', () => {
    expect(buildLogConfig({ 'message.timestamp.difference.max.ms': '1000' })).toMatchObject({
      messageTimestampBeforeMaxMs: 1000,
      messageTimestampAfterMaxMs: 1000,
    });
    expect(buildLogConfig({ 'message.timestamp.difference.max.ms': '1000', 'message.timestamp.after.max.ms': '50' })).toMatchObject({
      messageTimestampBeforeMaxMs: 1000,
      messageTimestampAfterMaxMs: 50,
    });
    expect(buildLogConfig({ 'min.cleanable.dirty.ratio': '0.25' }).minCleanableDirtyRatio).toBe(0.25);
    expect(buildLogConfig({ 'min.cleanable.dirty.ratio': '1.5' }).minCleanableDirtyRatio).toBe(0.5);
  });

  it("reads a value from the data dir that is empty or unreadable as Kafka's default, as storage always did", () => {
    const config = buildLogConfig(
      { 'segment.bytes': 'lots', 'segment.ms': '0', 'index.interval.bytes': '', 'compression.type': 'brotli', 'message.timestamp.type': 'Now' },
      { 'segment.bytes': '600' },
    );
    expect(config).toMatchObject({
      segmentBytes: 1073741824,
      segmentMs: 604800000,
      indexIntervalBytes: 4096,
      compressionType: 'producer',
      messageTimestampType: 'CreateTime',
    });
    expect(buildLogConfig({ 'segment.bytes': '99999999999', 'segment.ms': '1500.7' })).toMatchObject({ segmentBytes: 2147483647, segmentMs: 1500 });
    expect(buildLogConfig({ 'cleanup.policy': 'compact,bogus' }).cleanupPolicy).toEqual(['compact']);
  });
});

describe('checkTopicConfig', () => {
  it('normalises a valid value and names the problem of an invalid one', () => {
    expect(checkTopicConfig('segment.bytes', ' 2048 ')).toBe('2048');
    expect(checkTopicConfig('cleanup.policy', 'compact,delete')).toBe('compact,delete');
    const problems: [string, string | null, string][] = [
      ['retention.byte', '1', "unknown topic config 'retention.byte'"],
      ['constructor', 'x', "unknown topic config 'constructor'"],
      ['toString', 'x', "unknown topic config 'toString'"],
      ['retention.ms', '-2', 'retention.ms: -2 is below the minimum -1'],
      ['min.cleanable.dirty.ratio', '1.1', 'min.cleanable.dirty.ratio: 1.1 is above the maximum 1'],
      ['min.cleanable.dirty.ratio', 'half', "min.cleanable.dirty.ratio: 'half' is not a number"],
      ['segment.bytes', null, 'segment.bytes: a value is required'],
      ['segment.bytes', '13', 'segment.bytes: 13 is below the minimum 14'],
      ['segment.bytes', '2147483648', 'segment.bytes: 2147483648 is out of int range'],
      ['segment.ms', 'soon', "segment.ms: 'soon' is not an integer"],
      ['compression.type', 'brotli', "compression.type: 'brotli' is not one of producer, uncompressed, gzip, snappy, lz4, zstd"],
      ['cleanup.policy', 'compact,keep', "cleanup.policy: 'keep' is not one of delete, compact"],
    ];
    for (const [name, value, message] of problems) {
      expect(() => checkTopicConfig(name, value)).toThrow(ConfigError);
      expect(() => checkTopicConfig(name, value)).toThrow(message);
    }
  });
});

describe('topicAppendConfig', () => {
  it("derives Produce's checks from a LogConfig once", () => {
    const config = buildLogConfig({
      'compression.type': 'gzip',
      'max.message.bytes': '1000',
      'cleanup.policy': 'compact',
      'message.timestamp.type': 'LogAppendTime',
    });
    const cfg = topicAppendConfig(config);
    expect(cfg).toEqual({
      maxMessageBytes: 1000,
      maxInflatedBytes: 1000 * INFLATE_FACTOR,
      logAppendTime: true,
      targetCodec: CODEC_GZIP,
      compacted: true,
      timestampBounds: null,
      minInsyncReplicas: 1,
    });
    expect(topicAppendConfig(buildLogConfig({ 'message.timestamp.after.max.ms': '5000', 'min.insync.replicas': '2' }))).toMatchObject({
      timestampBounds: { beforeMaxMs: LONG_MAX, afterMaxMs: 5000 },
      minInsyncReplicas: 2,
    });
    expect(topicAppendConfig(config)).toBe(cfg);
    expect(topicAppendConfig(DEFAULT_LOG_CONFIG)).toMatchObject({ maxMessageBytes: 1048588, logAppendTime: false, targetCodec: null, compacted: false });
  });
});

describe("a topic's LogConfig in the LogManager", () => {
  it('is built when the topic is created, opened again, and given new configs, and reaches its logs', () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'krill-log-config-'));
    try {
      const defaults = new BrokerConfig({ 'log.segment.bytes': 5000 }).topicDefaults();
      let logs = LogManager.open({ dataDir, defaults });
      const created = logs.createTopic('t', 2, { 'compression.type': 'zstd', 'index.interval.bytes': '100' });
      expect(created.logConfig).toMatchObject({ segmentBytes: 5000, compressionType: 'zstd', indexIntervalBytes: 100 });
      expect(logs.partition('t', 1)!.config).toEqual({ segmentBytes: 5000, segmentMs: 604800000, indexIntervalBytes: 100, fileDeleteDelayMs: 60000 });
      logs.close();

      logs = LogManager.open({ dataDir, defaults });
      const opened = logs.getTopic('t')!;
      expect(opened.logConfig).toEqual(created.logConfig);
      const changed = logs.setTopicConfigs('t', { 'segment.bytes': '800', 'cleanup.policy': 'compact' });
      expect(changed.logConfig).toMatchObject({ segmentBytes: 800, compressionType: 'producer', indexIntervalBytes: 4096, cleanupPolicy: ['compact'] });
      expect(logs.getTopic('t')!.logConfig).toBe(changed.logConfig);
      expect(logs.partition('t', 0)!.config).toEqual({ segmentBytes: 800, segmentMs: 604800000, indexIntervalBytes: 4096, fileDeleteDelayMs: 60000 });
      logs.close();
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
