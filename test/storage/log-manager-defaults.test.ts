// LogManager.setDefaults: a change of the broker's topic defaults (a dynamic broker config) rebuilds every
// topic's configs and LogConfig over its own overrides, reaches its partition logs, and writes nothing.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { BrokerConfig } from '../../src/config.js';
import { LogManager, TOPICS_FILE } from '../../src/storage/log-manager.js';
import { rmDir, tempDir } from './batches.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmDir(d);
});

it('rebuilds each topic over its overrides and updates its logs; the topics file is untouched', () => {
  const dataDir = tempDir();
  dirs.push(dataDir);
  const config = new BrokerConfig();
  const logs = LogManager.open({ dataDir, defaults: config.topicDefaults() });
  try {
    logs.createTopic('plain', 2);
    logs.createTopic('own', 1, { 'segment.bytes': '5000', 'compression.type': 'lz4' });
    const saved = fs.readFileSync(path.join(dataDir, TOPICS_FILE), 'utf8');

    config.setDynamic(
      'cluster',
      new Map([
        ['log.segment.bytes', '7000'],
        ['compression.type', 'gzip'],
        ['log.retention.ms', '1000'],
      ]),
    );
    logs.setDefaults(config.topicDefaults());

    const plain = logs.getTopic('plain')!;
    expect(plain.logConfig).toMatchObject({ segmentBytes: 7000, compressionType: 'gzip', retentionMs: 1000 });
    expect(plain.configs).toMatchObject({ 'segment.bytes': '7000', 'compression.type': 'gzip', 'retention.ms': '1000' });
    expect(plain.overrides).toEqual({});
    expect([0, 1].map((p) => logs.partition('plain', p)!.config.segmentBytes)).toEqual([7000, 7000]);

    const own = logs.getTopic('own')!;
    expect(own.logConfig).toMatchObject({ segmentBytes: 5000, compressionType: 'lz4', retentionMs: 1000 });
    expect(logs.partition('own', 0)!.config.segmentBytes).toBe(5000);
    expect(fs.readFileSync(path.join(dataDir, TOPICS_FILE), 'utf8')).toBe(saved);
  } finally {
    logs.close();
  }
});
