// __consumer_offsets is a real topic that any client can read: after a group commits, kcat sees the
// commits as records in the group's partition (Kafka's hash of the group id), keyed in Kafka's
// OffsetCommitKey format (version int16 1, group, topic, partition).
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withBroker } from '../../test/helpers.js';
import { partitionForGroup } from '../../src/group/records.js';
import { describeRun, run } from '../util.js';
import type { RunningBroker } from '../../src/index.js';

const require = createRequire(import.meta.url);
const { Kafka, logLevel } = require('kafkajs');

let broker: RunningBroker;
beforeAll(async () => {
  broker = await withBroker({ config: { 'offsets.topic.num.partitions': '10' } });
});
afterAll(() => broker.close());

describe('kcat -C -t __consumer_offsets', () => {
  it("shows committed offsets as records in the group's partition, in Kafka's key format", async () => {
    const kafka = new Kafka({ clientId: 'offsets-reader', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    try {
      await admin.createTopics({ topics: [{ topic: 'co-topic', numPartitions: 2 }] });
      await admin.setOffsets({
        groupId: 'co-group',
        topic: 'co-topic',
        partitions: [
          { partition: 0, offset: '7' },
          { partition: 1, offset: '9' },
        ],
      });
    } finally {
      await admin.disconnect();
    }
    const r = await run(
      'kcat',
      ['-C', '-b', broker.bootstrap, '-t', '__consumer_offsets', '-e', '-o', 'beginning', '-q', '-f', '%p\t%K\t%S\n', '-X', 'broker.address.family=v4'],
      { timeoutMs: 30_000 },
    );
    expect(r.code, describeRun(r)).toBe(0);
    const rows = r.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split('\t').map(Number));
    const expectedPartition = partitionForGroup('co-group', 10);
    // key = int16 version + string group + string topic + int32 partition
    const keyLength = 2 + (2 + 'co-group'.length) + (2 + 'co-topic'.length) + 4;
    const commits = rows.filter(([, k]) => k === keyLength);
    expect(commits).toHaveLength(2);
    for (const [p, , valueSize] of commits) {
      expect(p).toBe(expectedPartition);
      expect(valueSize).toBeGreaterThan(0);
    }
  }, 60_000);
});
