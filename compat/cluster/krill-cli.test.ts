// The krill CLI against a 3-broker krill cluster: requests go to each partition's leader and to the group's
// coordinator, wherever they are, and `krill cluster` reports the partitions a stopped broker leaves
// under-replicated.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningCluster } from '../../src/index.js';
import { adminOf, createSettledTopic, describeCluster, eventually, formCluster, settled } from './cluster-util.js';
import { json, krillAgainst } from '../../test/admin-cli/run.js';

/* eslint-disable @typescript-eslint/no-explicit-any */

describeCluster('krill CLI against a krill cluster', { timeout: 120_000 }, () => {
  let cluster: RunningCluster;
  const krill = krillAgainst(() => cluster.bootstrap);

  beforeAll(async () => {
    cluster = await formCluster('krill-cli', { brokers: 3 });
  }, 120_000);
  afterAll(async () => {
    await cluster?.close();
  });

  it('produces to and consumes from the leaders of partitions spread over the brokers, and a group on its coordinator', async () => {
    const partitions = await createSettledTopic(cluster, 'spread', 6);
    expect(new Set(partitions.map((p) => p.leaderId)).size).toBeGreaterThan(1);
    const values = Array.from({ length: 60 }, (_, i) => `key${i}:v${i}`);
    const sent = await json(krill, ['produce', 'spread', '--key-separator', ':'], values.join('\n') + '\n');
    expect(sent.reduce((n: number, s: any) => n + s.records, 0)).toBe(60);
    const read = (await krill(['consume', 'spread', '--group', 'g', '--format', 'json'])).stdout.trim().split('\n');
    expect(read.map((l) => JSON.parse(l).value).sort()).toEqual(values.map((v) => v.split(':')[1]).sort());
    const d = await json(krill, ['groups', 'describe', 'g']);
    expect(d.offsets.reduce((n: number, o: any) => n + o.committedOffset, 0)).toBe(60);
    expect(d.offsets.every((o: any) => o.lag === 0)).toBe(true);
    const admin = await adminOf(cluster.bootstrap);
    try {
      const [offsets] = await admin.fetchOffsets({ groupId: 'g', topics: ['spread'] });
      expect(offsets.partitions.reduce((n, p) => n + Number(p.offset), 0)).toBe(60);
    } finally {
      await admin.disconnect();
    }
  });

  it('shows three brokers, then the partitions a stopped one leaves under-replicated', async () => {
    const c = await json(krill, ['cluster']);
    expect(c.brokers.map((b: any) => b.nodeId)).toEqual([1, 2, 3]);
    expect(c.brokers.filter((b: any) => b.controller)).toHaveLength(1);
    expect(c.underReplicated).toEqual([]);
    await createSettledTopic(cluster, 'watched', 3);
    const stopped = cluster.brokers[2];
    await stopped.stop();
    await settled(cluster, 'watched', 3);
    const seen = await eventually('the ISR without the stopped broker', async () => {
      const now = await json(krill, ['cluster']);
      const watched = now.underReplicated.filter((p: any) => p.topic === 'watched');
      return watched.length === 3 ? now : undefined;
    });
    expect(seen.brokers.map((b: any) => b.nodeId)).toEqual([1, 2]);
    for (const p of seen.underReplicated) expect(p.isr).not.toContain(stopped.id);
    expect(seen.offline).toEqual([]);
    await stopped.start();
  });
});
