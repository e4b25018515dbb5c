// Apache Kafka 4.4.0's cluster tools against a 3-broker krill cluster (brokers in child processes, a real
// ZooKeeper): kafka-topics --describe (leaders, replicas, ISR), kafka-reassign-partitions (--generate,
// --execute, --verify), kafka-leader-election (preferred, unclean), kafka-log-dirs --describe,
// kafka-transactions abort of a transaction left open, and
// kafka-metadata-quorum, which is for KRaft clusters only. Asserted: what the tools print, and each broker's
// own Metadata answer read back.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Kafka, logLevel } from 'kafkajs';
import type { RunningCluster } from '../../src/embedded-cluster.js';
import { describeCluster, eventually, formCluster, partitionsFrom, settled } from '../cluster/cluster-util.js';
import { describeWithToolchain } from '../toolchain.js';
import { BrokerPool } from '../util.js';
import { firstCommittedRecord, rows, runTool, tool, toolsMissing, unique } from './tools.js';

let cluster: RunningCluster;
let bs: string[];
const pool = new BrokerPool();

/** The partition lines of kafka-topics --describe: [partition, leader, replicas, isr]. */
async function describeTopic(topic: string): Promise<[number, number, number[], number[]][]> {
  const out = (await tool('kafka-topics', [...bs, '--describe', '--topic', topic])).stdout;
  const ids = (s: string) => s.split(',').map(Number);
  return [...out.matchAll(/^\tTopic: \S+\tPartition: (\d+)\tLeader: (-?\d+)\tReplicas: ([\d,]+)\tIsr: ([\d,]*)\tElr: \tLastKnownElr: $/gm)].map((m) => [
    Number(m[1]),
    Number(m[2]),
    ids(m[3]),
    ids(m[4]),
  ]);
}

const json = (name: string, value: unknown): string => {
  const file = path.join(pool.dir('krill-tools-cluster-'), name);
  fs.writeFileSync(file, JSON.stringify(value));
  return file;
};

describeWithToolchain('Kafka 4.4.0 cluster tools', toolsMissing, { timeout: 120_000 }, () => {
  describeCluster('against a 3-broker krill cluster', { timeout: 120_000 }, () => {
    beforeAll(async () => {
      // No automatic leader balance (Kafka's default runs its first check 5 s after a controller takes
      // over): a preferred leader is the tool's doing here.
      cluster = await formCluster('kafka-tools', { brokers: 3, processes: true, config: { 'auto.leader.rebalance.enable': false } });
      bs = ['--bootstrap-server', cluster.bootstrap];
    }, 90_000);
    afterAll(async () => {
      await cluster?.close();
      await pool.cleanup();
    });

    it('kafka-topics --describe shows the leaders, replicas and ISR every broker reports', async () => {
      const topic = unique('cluster-describe');
      await tool('kafka-topics', [...bs, '--create', '--topic', topic, '--partitions', '3', '--replication-factor', '3']);
      const md = await settled(cluster, topic, 3);
      await eventually('full ISRs', async () =>
        (await partitionsFrom(cluster.brokers[0].port, topic)).every((p) => p.isrNodes.length === 3) ? true : undefined,
      );
      const described = await describeTopic(topic);
      expect(described.map(([p, leader, replicas]) => [p, leader, replicas])).toEqual(md.map((p) => [p.partitionIndex, p.leaderId, p.replicaNodes]));
      for (const [, leader, replicas, isr] of described) {
        expect(leader).toBe(replicas[0]);
        expect([...isr].sort()).toEqual([1, 2, 3]);
      }
      expect(new Set(described.map(([, leader]) => leader))).toEqual(new Set([1, 2, 3]));
    });

    it('kafka-reassign-partitions --generate, --execute, --verify, then kafka-leader-election preferred and unclean', async () => {
      const topic = unique('cluster-reassign');
      await tool('kafka-topics', [...bs, '--create', '--topic', topic, '--partitions', '2', '--replication-factor', '2']);
      await settled(cluster, topic, 2);
      const before = await describeTopic(topic);
      const [, leader0, replicas0] = before[0];
      const [, , replicas1] = before[1];

      const generated = await tool('kafka-reassign-partitions', [
        ...bs,
        '--topics-to-move-json-file',
        json('move.json', { version: 1, topics: [{ topic }] }),
        '--broker-list',
        '1,2,3',
        '--generate',
      ]);
      const [current, proposed] = [...generated.stdout.matchAll(/^(\{"version":1,.*\})$/gm)].map((m) => JSON.parse(m[1]));
      expect(generated.stdout).toContain('Current partition replica assignment');
      expect(generated.stdout).toContain('Proposed partition reassignment configuration');
      expect(current.partitions.map((p: { partition: number; replicas: number[] }) => [p.partition, p.replicas])).toEqual([
        [0, replicas0],
        [1, replicas1],
      ]);
      expect(proposed.partitions).toHaveLength(2);
      for (const p of proposed.partitions) expect(p.replicas).toHaveLength(2);

      // Partition 0: the same replicas, the other first (its leader stays, no longer the preferred one).
      // Partition 1: one replica moves to the broker that had none.
      const spare = [1, 2, 3].find((b) => !replicas1.includes(b))!;
      const plan = {
        version: 1,
        partitions: [
          { topic, partition: 0, replicas: [replicas0[1], replicas0[0]] },
          { topic, partition: 1, replicas: [replicas1[0], spare] },
        ],
      };
      const planFile = json('plan.json', plan);
      const executed = await tool('kafka-reassign-partitions', [...bs, '--reassignment-json-file', planFile, '--execute']);
      expect(executed.stdout).toContain(`Successfully started partition reassignments for ${topic}-0,${topic}-1`);
      await eventually(
        'the reassignment to complete, as --verify reports it',
        async () => {
          const v = await tool('kafka-reassign-partitions', [...bs, '--reassignment-json-file', planFile, '--verify']);
          return v.stdout.includes(`Reassignment of partition ${topic}-0 is completed.`) &&
            v.stdout.includes(`Reassignment of partition ${topic}-1 is completed.`)
            ? v
            : undefined;
        },
        60_000,
        500,
      );
      const after = await describeTopic(topic);
      expect(after[0]).toEqual([0, leader0, plan.partitions[0].replicas, expect.anything()]);
      expect(after[1][2]).toEqual(plan.partitions[1].replicas);
      expect([...after[1][3]].sort()).toEqual([...plan.partitions[1].replicas].sort());

      const preferred = await tool('kafka-leader-election', [...bs, '--election-type', 'preferred', '--topic', topic, '--partition', '0']);
      expect(preferred.stdout.trim()).toBe(`Successfully completed leader election (PREFERRED) for partitions ${topic}-0`);
      await eventually('the preferred leader on every broker', async () => {
        const views = await Promise.all(cluster.brokers.map((b) => partitionsFrom(b.port, topic)));
        return views.every((v) => v[0].leaderId === replicas0[1]) ? true : undefined;
      });
      expect((await describeTopic(topic))[0][1]).toBe(replicas0[1]);

      // An unclean election where the leader is alive elects nobody.
      const unclean = await tool('kafka-leader-election', [...bs, '--election-type', 'unclean', '--topic', topic, '--partition', '1']);
      expect(unclean.stdout.trim()).toBe(`Valid replica already elected for partitions ${topic}-1`);
    });

    it('kafka-log-dirs --describe: each broker lists the replicas it holds', async () => {
      const topic = unique('cluster-logdirs');
      await tool('kafka-topics', [...bs, '--create', '--topic', topic, '--partitions', '3', '--replication-factor', '2']);
      const md = await settled(cluster, topic, 3);
      const out = await tool('kafka-log-dirs', [...bs, '--describe', '--topic-list', topic]);
      expect(out.stdout).toContain('Received log directory information from brokers 1,2,3');
      const report = JSON.parse(out.stdout.trim().split('\n').at(-1)!);
      for (const b of report.brokers) {
        expect(b.logDirs).toHaveLength(1);
        expect(b.logDirs[0].error).toBeNull();
        const held = b.logDirs[0].partitions.map((p: { partition: string }) => p.partition).sort();
        const expected = md.filter((p) => p.replicaNodes.includes(b.broker)).map((p) => `${topic}-${p.partitionIndex}`);
        expect(held).toEqual(expected.sort());
      }
    });

    it('kafka-transactions abort: a transaction left open is aborted on its partition, and read_committed reads on', async () => {
      const topic = unique('cluster-abort');
      const txnId = unique('cluster-abort-txn');
      await tool('kafka-topics', [...bs, '--create', '--topic', topic, '--partitions', '1', '--replication-factor', '3']);
      await settled(cluster, topic, 1);
      const kafka = new Kafka({ brokers: cluster.bootstrap.split(','), logLevel: logLevel.NOTHING });
      // A producer that opens a transaction and never ends it: its record (offset 0) holds read_committed
      // consumers back until the transaction is aborted.
      const producer = kafka.producer({ transactionalId: txnId, idempotent: true, maxInFlightRequests: 1 });
      await producer.connect();
      const txn = await producer.transaction();
      await txn.send({ topic, messages: [{ value: 'left open' }] });
      try {
        const listed = rows((await tool('kafka-transactions', [...bs, 'list'])).stdout, /^TransactionalId\s+Coordinator/).find((r) => r[0] === txnId);
        expect(listed?.[3]).toBe('Ongoing');
        const producerId = listed![2];
        // The explicit form (producer id, epoch, coordinator epoch): the one that needs no open-transaction
        // offset from DescribeProducers.
        const aborted = await tool('kafka-transactions', [
          ...bs,
          'abort',
          '--topic',
          topic,
          '--partition',
          '0',
          '--producer-id',
          producerId,
          '--producer-epoch',
          '0',
          '--coordinator-epoch',
          '0',
        ]);
        expect(aborted.stdout.trim()).toBe('');
        // The abort marker took offset 1.
        expect((await tool('kafka-get-offsets', [...bs, '--topic', topic])).stdout.trim()).toBe(`${topic}:0:2`);
        const plain = kafka.producer();
        await plain.connect();
        await plain.send({ topic, messages: [{ value: 'after the abort' }] });
        await plain.disconnect();
        expect(await firstCommittedRecord(bs, topic)).toBe('Offset:2\tafter the abort');
      } finally {
        await producer.disconnect();
      }
    });

    it('kafka-metadata-quorum: DescribeQuorum is KRaft-only, and krill is a ZooKeeper-mode cluster', async () => {
      const r = await runTool('kafka-metadata-quorum', [...bs, 'describe', '--status']);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('UnsupportedVersionException: The node does not support DESCRIBE_QUORUM');
    });
  });
});
