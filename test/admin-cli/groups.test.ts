// krill groups against a real krill and a kafkajs consumer group: describe sees its members, assignments and
// lag; reset-offsets moves what kafkajs's admin then fetches, only with --execute and only while it is empty.
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withBroker } from '../helpers.js';
import type { RunningBroker } from '../../src/index.js';
import { json, krillAgainst } from './run.js';

const require = createRequire(import.meta.url);
/* eslint-disable @typescript-eslint/no-explicit-any */
const { Kafka, logLevel } = require('kafkajs');

describe('krill groups', { timeout: 60_000 }, () => {
  let broker: RunningBroker;
  let kafka: any;
  let admin: any;
  const krill = krillAgainst(() => broker.bootstrap);
  const now = Date.now();
  const old = now - 2 * 3600_000;
  const committed = async () => {
    const [t] = await admin.fetchOffsets({ groupId: 'g', topics: ['gt'] });
    return t.partitions.sort((a: any, b: any) => a.partition - b.partition).map((p: any) => Number(p.offset));
  };

  beforeAll(async () => {
    broker = await withBroker();
    kafka = new Kafka({ clientId: 'cli-test', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
    admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'gt', numPartitions: 2 }] });
    const producer = kafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    const stamps = [
      [old, old + 1000, old + 2000, now, now, now],
      [old, old + 1000, old + 2000, old + 3000],
    ];
    for (const [partition, ts] of stamps.entries()) {
      await producer.send({ topic: 'gt', messages: ts.map((t, i) => ({ value: `p${partition}-${i}`, partition, timestamp: String(t) })) });
    }
    await producer.disconnect();
  });
  afterAll(async () => {
    await admin?.disconnect();
    await broker?.close();
  });

  it('describes a live group: members, assignments, committed offsets and lag', async () => {
    const consumer = kafka.consumer({ groupId: 'g', sessionTimeout: 10_000, heartbeatInterval: 500 });
    await consumer.connect();
    await consumer.subscribe({ topic: 'gt', fromBeginning: true });
    let read = 0;
    const all = new Promise<void>((resolve) => {
      void consumer.run({
        autoCommit: false,
        eachMessage: async () => {
          if (++read === 10) resolve();
        },
      });
    });
    await all;
    await consumer.commitOffsets([
      { topic: 'gt', partition: 0, offset: '4' },
      { topic: 'gt', partition: 1, offset: '2' },
    ]);
    try {
      const d = await json(krill, ['groups', 'describe', 'g']);
      expect(d).toMatchObject({ group: 'g', state: 'Stable', protocolType: 'consumer', coordinator: 1 });
      expect(d.members).toHaveLength(1);
      expect(d.members[0].clientId).toBe('cli-test');
      expect(d.members[0].assignment).toEqual([
        { topic: 'gt', partition: 0 },
        { topic: 'gt', partition: 1 },
      ]);
      const member = d.members[0].memberId;
      expect(d.offsets).toEqual([
        { topic: 'gt', partition: 0, committedOffset: 4, logEndOffset: 6, lag: 2, memberId: member },
        { topic: 'gt', partition: 1, committedOffset: 2, logEndOffset: 4, lag: 2, memberId: member },
      ]);
      const table = await krill(['groups', 'describe', 'g']);
      expect(table.stdout).toMatch(/^Group: g {2}State: Stable .* Members: 1 {2}Lag: 4\n/);
      expect(table.stdout).toMatch(/\ngt\s+0\s+4\s+6\s+2\s+\S+\ngt\s+1\s+2\s+4\s+2\s+\S+\n$/);
      const busy = await krill(['groups', 'reset-offsets', 'g', '--all-topics', '--to-earliest', '--execute']);
      expect(busy.code).toBe(1);
      expect(busy.stderr).toMatch(/^krill groups reset-offsets: NON_EMPTY_GROUP: group 'g': .* it is Stable\n$/);
      expect(await committed()).toEqual([4, 2]);
    } finally {
      await consumer.disconnect();
    }
  });

  it('lists groups with their states', async () => {
    expect(await json(krill, ['groups', 'list'])).toContainEqual({ group: 'g', state: 'Empty', protocolType: 'consumer', coordinator: 1 });
    expect((await krill(['groups', 'list'])).stdout).toMatch(/^GROUP\s+STATE\s+PROTOCOL-TYPE\s+COORDINATOR\n(.*\n)*g\s+Empty\s+consumer\s+1\n/);
  });

  it('resets offsets only with --execute: dry runs change nothing', async () => {
    const dry = await krill(['groups', 'reset-offsets', 'g', '--all-topics', '--to-earliest']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/^TOPIC\s+PARTITION\s+CURRENT-OFFSET\s+NEW-OFFSET\ngt\s+0\s+4\s+0\ngt\s+1\s+2\s+0\n$/);
    expect(dry.stderr).toMatch(/dry run/);
    expect((await krill(['groups', 'reset-offsets', 'g', '--all-topics', '--to-latest', '--dry-run'])).code).toBe(0);
    expect(await committed()).toEqual([4, 2]);

    await json(krill, ['groups', 'reset-offsets', 'g', '--all-topics', '--to-earliest', '--execute']);
    expect(await committed()).toEqual([0, 0]);
    await json(krill, ['groups', 'reset-offsets', 'g', '--topic', 'gt:0', '--to-offset', '5', '--execute']);
    expect(await committed()).toEqual([5, 0]);
    await json(krill, ['groups', 'reset-offsets', 'g', '--topic', 'gt', '--to-offset', '99', '--execute']);
    expect(await committed()).toEqual([6, 4]);
    await json(krill, ['groups', 'reset-offsets', 'g', '--topic', 'gt', '--shift-by=-3', '--execute']);
    expect(await committed()).toEqual([3, 1]);
    await json(krill, ['groups', 'reset-offsets', 'g', '--topic', 'gt', '--to-datetime', new Date(old + 1500).toISOString(), '--execute']);
    expect(await committed()).toEqual([2, 2]);
    // The first record of the last hour: none in partition 1, whose end it then is.
    const r = await json(krill, ['groups', 'reset-offsets', 'g', '--topic', 'gt', '--by-duration', 'PT1H', '--execute']);
    expect(r.offsets).toEqual([
      { topic: 'gt', partition: 0, currentOffset: 2, newOffset: 3 },
      { topic: 'gt', partition: 1, currentOffset: 2, newOffset: 4 },
    ]);
    expect(await committed()).toEqual([3, 4]);
    const both = await krill(['groups', 'reset-offsets', 'g', '--topic', 'gt', '--to-earliest', '--to-latest']);
    expect(both.code).toBe(2);
    expect(both.stderr.split('\n')[0]).toMatch(/^krill groups reset-offsets: give exactly one of --to-earliest/);
    const badDuration = await krill(['groups', 'reset-offsets', 'g', '--topic', 'gt', '--by-duration', '1h']);
    expect(badDuration.code).toBe(2);
  });

  it('deletes a group', async () => {
    expect(await json(krill, ['groups', 'delete', 'g'])).toEqual([{ group: 'g', deleted: true }]);
    expect((await admin.listGroups()).groups.map((g: any) => g.groupId)).not.toContain('g');
    const again = await krill(['groups', 'delete', 'g']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^krill groups delete: GROUP_ID_NOT_FOUND: deleting group 'g'/);
    const described = await krill(['groups', 'describe', 'g']);
    expect(described.code).toBe(1);
    expect(described.stderr).toMatch(/GROUP_ID_NOT_FOUND/);
  });
});
