// The Go clients against a 3-broker krill cluster (processes, a real ZooKeeper), through the Go driver:
// - franz-go v1.22.3 (kgo defaults: idempotent, acks=all) produces to an RF 3 topic with
//   min.insync.replicas=2 while the test SIGKILLs a partition leader (not the controller): no produce fails
//   (kgo retries through the failover), the partitions move to another ISR member, and a fresh consumer
//   reads every acknowledged record exactly once;
// - IBM Sarama v1.61.1 (idempotent sync and async producers, then a Consumer) on an RF 3 topic spread over
//   the three leaders, with its default config.Version and with 4.0.0;
// - on RF 3 topics, with coordinators and leaders on different brokers: franz-go's two-member cooperative
//   group and its GroupTransactSession, and Sarama's two-member ConsumerGroup (asserted as in the
//   single-broker suites, compat/go/go.ts).
import { expect, it } from 'vitest';
import { adminOf, agreedController, describeCluster, settled } from '../cluster/cluster-util.js';
import { fullIsr, useProcessCluster, zkState } from '../cluster/replication-util.js';
import { describeWithToolchain } from '../toolchain.js';
import {
  expectSweepClean,
  franzGroupRun,
  franzTxnRun,
  go,
  goMissing,
  goSteered,
  sampleRecords,
  saramaGroupRun,
  unique,
  type Acked,
  type GoRecord,
  type SweepResult,
} from './go.js';

const TEST_TIMEOUT = 150_000;
const SESSION_TIMEOUT_MS = 6000;
const PARTITIONS = 3;

describeWithToolchain('Go clients against a 3-broker krill cluster', goMissing, { timeout: TEST_TIMEOUT }, () => {
  describeCluster('franz-go and Sarama on a 3-broker cluster', { timeout: TEST_TIMEOUT }, () => {
    const env = useProcessCluster('go', { 'zookeeper.session.timeout.ms': SESSION_TIMEOUT_MS, 'auto.leader.rebalance.enable': false }, TEST_TIMEOUT);

    async function createTopic(config: { name: string; value: string }[] = []): Promise<string> {
      const topic = unique('cluster');
      const admin = await adminOf(env.cluster.bootstrap);
      try {
        await admin.createTopics({ topics: [{ topic, numPartitions: PARTITIONS, replicationFactor: 3, configEntries: config }], waitForLeaders: true });
      } finally {
        await admin.disconnect();
      }
      await settled(env.cluster, topic, PARTITIONS);
      await fullIsr(env.zk, topic, PARTITIONS);
      return topic;
    }

    it('franz-go: a partition leader killed (SIGKILL) under load; every acknowledged record consumed exactly once', async () => {
      const topic = await createTopic([{ name: 'min.insync.replicas', value: '2' }]);
      const controller = await agreedController(env.cluster.brokers.map((b) => b.port));
      const before = await Promise.all(Array.from({ length: PARTITIONS }, (_, p) => zkState(env.zk, topic, p)));
      const victimId = [...new Set(before.map((s) => s.leader))].find((id) => id !== controller)!;
      expect(victimId, `a leader other than the controller ${controller}: ${JSON.stringify(before)}`).toBeDefined();
      const victim = env.cluster.brokers.find((b) => b.id === victimId)!;
      const led = before.map((s, p) => (s.leader === victimId ? p : -1)).filter((p) => p >= 0);

      const total = 3000;
      let killedAt = 0;
      const res = await goSteered<{ failures: string[]; acked: string[]; consumed: string[]; lastAck: Record<string, number> }>(
        'franz_failover',
        { bootstrap: env.cluster.bootstrap, topic, total, killAfter: 400 },
        async () => {
          await victim.kill();
          killedAt = Date.now();
        },
      );
      expect(killedAt).toBeGreaterThan(0);
      // The load went on across the failover: the partitions the victim led acknowledged records after it died.
      for (const p of led) expect(res.lastAck[p], `partition ${p}`).toBeGreaterThan(killedAt);
      expect(res.failures).toEqual([]);
      expect(res.acked).toHaveLength(total);
      // Each acknowledged value exactly once: no duplicate from a retried batch, nothing lost.
      expect(res.consumed).toEqual(res.acked);
      for (const p of led) {
        const s = await zkState(env.zk, topic, p);
        expect(s.leader).not.toBe(victimId);
        expect(s.leader_epoch).toBeGreaterThan(before[p].leader_epoch);
      }
      await victim.start();
      await fullIsr(env.zk, topic, PARTITIONS);
    });

    for (const version of ['', '4.0.0']) {
      it(`Sarama (config.Version ${version || 'default'}): idempotent sync and async producers, then a Consumer, over three leaders`, async () => {
        const topic = unique('cluster-sarama');
        const records = sampleRecords(60, 'cluster');
        const res = await go<{ acked: Acked[]; consumed: GoRecord[] }>('sarama_produce_consume', {
          bootstrap: env.cluster.bootstrap,
          version,
          topic,
          partitions: PARTITIONS,
          rf: 3,
          records,
        });
        const parts = await settled(env.cluster, topic, PARTITIONS);
        expect(new Set(parts.map((p) => p.leaderId))).toEqual(new Set([1, 2, 3]));
        expect(parts.every((p) => p.replicaNodes.length === 3)).toBe(true);
        expect(res.consumed).toHaveLength(records.length);
        const byPosition = new Map(res.consumed.map((r) => [`${r.partition}/${r.offset}`, r]));
        records.forEach((sent, i) => {
          const { partition, offset } = res.acked[i];
          expect(byPosition.get(`${partition}/${offset}`), `record ${i}`).toEqual({ topic, partition, offset, ...sent });
        });
      });
    }

    // Coordinators and partition leaders spread over the three brokers: the group and transaction
    // coordinators are wherever their __consumer_offsets / __transaction_state partitions are led.
    it('franz-go: a two-member cooperative consumer group on RF 3 topics', async () => {
      await franzGroupRun(env.cluster.bootstrap, 3);
    });

    it('franz-go: GroupTransactSession on RF 3 topics, an aborted transaction invisible to read_committed', async () => {
      await franzTxnRun(env.cluster.bootstrap, 3);
    });

    it('Sarama (config.Version 4.0.0): a two-member ConsumerGroup on an RF 3 topic', async () => {
      await saramaGroupRun(env.cluster.bootstrap, '4.0.0', 3);
    });

    it('every (API, version) a cluster broker advertises: answered, decoded by kmsg, re-encoded to the same bytes', async () => {
      const res = await go<{ results: SweepResult[]; unknownToKmsg: number[] }>('kmsg_sweep', { bootstrap: env.cluster.brokers[0].bootstrap });
      expectSweepClean(res);
      // Still a working cluster afterwards: every broker agrees on one controller.
      await agreedController(env.cluster.brokers.map((b) => b.port));
    });
  });
});
