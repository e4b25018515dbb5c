// IBM Sarama (github.com/IBM/sarama v1.61.1) against a real krill CLI process, through the Go driver
// (compat/go/sarama.go), once with Sarama's default config.Version (2.8.0) and once with recent ones
// (3.9.0, 4.0.0), which make it send newer request versions:
// - an idempotent SyncProducer and AsyncProducer (acks=all, one request in flight, retries), then a Consumer
//   reading every partition: exactly what was sent, at the acknowledged offsets;
// - a ConsumerGroup with two members (Sarama's default range assignor, eager rebalances) and commits;
// - ClusterAdmin: topics, partitions, delete records, consumer groups and their offsets, configs, the cluster.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliBroker } from '../../test/helpers.js';
import { BrokerPool } from '../util.js';
import { describeWithToolchain } from '../toolchain.js';
import { go, goMissing, sampleRecords, saramaGroupRun, unique, type Acked, type GoRecord } from './go.js';

const TEST_TIMEOUT = 120_000;
const VERSIONS = [
  { label: 'default (2.8.0)', version: '', expect: '2.8.0' },
  { label: '3.9.0', version: '3.9.0', expect: '3.9.0' },
  { label: '4.0.0', version: '4.0.0', expect: '4.0.0' },
];
const pool = new BrokerPool();
let broker: CliBroker;

describeWithToolchain('IBM Sarama v1.61.1 against one krill broker', goMissing, { timeout: TEST_TIMEOUT }, () => {
  beforeAll(async () => {
    broker = await pool.start(['--data-dir', pool.dir('krill-sarama-')]);
  });
  afterAll(() => pool.cleanup());

  for (const v of VERSIONS) {
    describe(`config.Version ${v.label}`, () => {
      it('idempotent SyncProducer and AsyncProducer, then a Consumer reads exactly what was sent', async () => {
        const topic = unique('sarama-pc');
        const records = sampleRecords(40, 'sarama');
        const res = await go<{ acked: Acked[]; consumed: GoRecord[]; version: string }>('sarama_produce_consume', {
          bootstrap: broker.bootstrap,
          version: v.version,
          topic,
          partitions: 3,
          records,
        });
        expect(res.version).toBe(v.expect);
        expect(res.consumed).toHaveLength(records.length);
        const byPosition = new Map(res.consumed.map((r) => [`${r.partition}/${r.offset}`, r]));
        records.forEach((sent, i) => {
          const { partition, offset } = res.acked[i];
          expect(byPosition.get(`${partition}/${offset}`), `record ${i} at ${partition}/${offset}`).toEqual({ topic, partition, offset, ...sent });
        });
        for (const p of new Set(res.acked.map((a) => a.partition))) {
          const offsets = res.consumed.filter((r) => r.partition === p).map((r) => r.offset);
          expect(offsets).toEqual(offsets.map((_, i) => i));
        }
      });

      it('ConsumerGroup: two members, the rebalances as one joins and leaves, each record once, commits', async () => {
        await saramaGroupRun(broker.bootstrap, v.version, 1);
      });

      it('ClusterAdmin: topics, partitions, delete records, groups and offsets, configs, cluster', async () => {
        const topic = unique('sarama-admin');
        const group = unique('sarama-admin-g');
        const r = await go('sarama_admin', { bootstrap: broker.bootstrap, version: v.version, topic, group });
        expect(r.create.error).toBe('');
        expect(r.create.again).toMatch(/Topic with this name already exists/);
        expect(r.list).toEqual({ found: true, partitions: 2, rf: 1, retention: '3600000' });
        expect(r.describe).toEqual([{ name: topic, error: '', partitions: 2 }]);
        expect(r.createPartitions).toEqual({ error: '', after: 4 });
        expect(r.deleteRecords).toEqual({ error: '', oldest: 4, newest: 6 });
        expect(r.groups.listed).toBe('consumer');
        expect(r.groups.described).toEqual({
          state: 'Stable',
          protocolType: 'consumer',
          protocol: 'range',
          error: '',
          members: [{ clientId: 'krill-compat-sarama', assigned: [0, 1, 2, 3] }],
        });
        // Partition 0 consumed to its end (6); partitions 1-3 are empty and were never committed.
        expect(r.groups.committed).toEqual({ 0: 6, 1: -1 });
        expect(r.groups.deleteOffset).toBe('');
        expect(r.groups.afterDelete).toBe(-1);
        expect(r.groups.deleteGroup).toBe('');
        expect(r.groups.stillListed).toBe(false);
        expect(r.describeConfig).toEqual({
          'retention.ms': { value: '3600000', default: false, source: 'Topic' },
          'cleanup.policy': { value: 'delete', default: true, source: 'Default' },
          'max.message.bytes': { value: '1048588', default: true, source: 'Default' },
        });
        // AlterConfigs replaces the topic's whole dynamic config; IncrementalAlterConfigs adds to it.
        expect(r.alterConfig).toEqual({
          error: '',
          after: {
            'retention.ms': { value: '7200000', default: false, source: 'Topic' },
            'cleanup.policy': { value: 'delete', default: true, source: 'Default' },
            'max.message.bytes': { value: '1048588', default: true, source: 'Default' },
          },
        });
        expect(r.incrementalAlterConfig).toEqual({
          error: '',
          after: {
            'retention.ms': { value: '7200000', default: false, source: 'Topic' },
            'cleanup.policy': { value: 'compact', default: false, source: 'Topic' },
            'max.message.bytes': { value: '1048588', default: true, source: 'Default' },
          },
        });
        expect(r.cluster.brokers).toEqual([1]);
        expect(r.cluster.controller).toBe(1);
        expect(r.cluster.logDirs[1]).toMatchObject({ error: '' });
        expect(r.cluster.logDirs[1].topics).toBeGreaterThan(0);
        expect(r.delete).toEqual({ error: '', left: false, wait: '' });
      });
    });
  }
});
