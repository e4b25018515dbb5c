// The Apache Kafka Java client (kafka-clients 4.x and 3.x, through compat/java's driver) against a 3-broker
// krill cluster (ZooKeeper-coordinated, each broker its own process):
// - replication factor 3: produce and consume in a group; Admin alterPartitionReassignments (a new replica
//   order, and a partition shrunk to two replicas), listPartitionReassignments and a preferred electLeaders;
// - the leader of a partition killed (SIGKILL) while an idempotent producer (the client's defaults) keeps
//   sending: the application sees no error, and a consumer reads every acknowledged record exactly once;
//   the broker then restarts and rejoins the ISR before the next client's turn.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningCluster } from '../../src/embedded-cluster.js';
import { tempDir } from '../../test/helpers.js';
import { createSettledTopic, describeCluster, eventually, formCluster, killUnderLoad, partitionsFrom, unique } from '../cluster/cluster-util.js';
import { describeWithToolchain } from '../toolchain.js';
import type { Json } from '../util.js';
import { CLIENTS, java, javaMissing } from './java.js';

const TIMEOUT = 180_000;
const SESSION_TIMEOUT_MS = 3000;
let cluster: RunningCluster;
let work: string;

describeWithToolchain('Java client (kafka-clients) against a 3-broker krill cluster', javaMissing, { timeout: TIMEOUT }, () => {
  describeCluster('with ZooKeeper', { timeout: TIMEOUT }, () => {
    beforeAll(async () => {
      work = tempDir('krill-java-cluster-');
      cluster = await formCluster('java', { brokers: 3, processes: true, config: { 'zookeeper.session.timeout.ms': SESSION_TIMEOUT_MS } });
    }, TIMEOUT);
    afterAll(async () => {
      await cluster?.close();
      fs.rmSync(work, { recursive: true, force: true });
    });

    for (const client of CLIENTS) {
      describe(client.name, () => {
        it('RF 3: produce and consume; reassign partitions (new order, one replica fewer) and elect the preferred leader', async () => {
          const topic = unique(`java${client.major}-admin`);
          const res = await java(client, 'cluster_admin', { bootstrap: cluster.bootstrap, topic, count: 200 }, 120_000);
          console.log(
            `java cluster admin: ${JSON.stringify({ before: res.before, reassign: res.listPartitionReassignments, after: res.afterReassign, elect: res.afterElect })}`,
          );
          expect(res.createTopic).toBe('ok');
          expect(res.describeCluster).toEqual(cluster.brokers.map((b) => b.id).sort());
          const before = res.before as Json[];
          expect(before.map((p) => [p.replicas.length, [...p.isr].sort()])).toEqual([
            [3, [...before[0].replicas].sort()],
            [3, [...before[1].replicas].sort()],
          ]);
          expect(res.consumed).toBe(200);
          expect(res.alterPartitionReassignments).toBe('ok');
          expect(res.listPartitionReassignments.error).toBeUndefined();
          expect(res.reassignmentsDone).toBe(true);
          const after = res.afterReassign as Json[];
          expect(after[0].replicas).toEqual(res.reassignTo);
          expect(after[1].replicas).toEqual(res.shrinkTo);
          expect(res.shrinkTo).toContain(after[1].leader);
          expect([...after[1].isr].sort()).toEqual([...res.shrinkTo].sort());
          expect(res.electLeaders).toBe('ok');
          expect(res.afterElect[0].leader).toBe(res.reassignTo[0]);
          // Every broker's own Metadata agrees.
          await eventually('the preferred leader on every broker', async () => {
            const views = await Promise.all(cluster.brokers.map((b) => partitionsFrom(b.port, topic)));
            return views.every((v) => v[0]?.leaderId === res.reassignTo[0] && v[1]?.replicaNodes.length === 2) ? true : undefined;
          });
        });
      });
    }

    for (const client of CLIENTS) {
      it(`${client.name}: the leader killed (SIGKILL) under an idempotent producer: no error, every acknowledged record once`, async () => {
        const topic = unique(`java${client.major}-failover`);
        const [p0] = await createSettledTopic(cluster, topic, 1);
        const leader = cluster.brokers.find((b) => b.id === p0.leaderId)!;
        // The producer goes on through the failover: 2000 more acknowledged after the kill.
        const res = await killUnderLoad(
          work,
          topic,
          leader,
          ({ progress, stop }) =>
            java(client, 'produce_under_failover', { bootstrap: cluster.bootstrap, topic, progress, stop, max: 400_000, timeoutMs: 120_000 }, 150_000),
          { before: 500, after: 2000 },
        );
        console.log(
          `java failover: killed leader ${p0.leaderId}; ${JSON.stringify({ sent: res.sent, acked: res.acked, consumed: res.consumed, endOffset: res.endOffset })}`,
        );
        expect(res.errors).toEqual([]);
        expect(res.stoppedByFile).toBe(true);
        expect(res.acked).toBe(res.sent);
        expect(res.missingAcked).toBe(0);
        expect(res.duplicated).toBe(0);
        expect(res.consumed).toBe(res.acked);
        expect(res.endOffset).toBe(res.acked);
        // The partition moved to a surviving replica.
        const survivor = cluster.brokers.find((b) => b.running)!;
        expect((await partitionsFrom(survivor.port, topic))[0].leaderId).not.toBe(leader.id);
        // Back for the next client: the killed broker restarts and rejoins the ISR.
        await leader.start();
        await eventually(
          'the restarted broker back in the ISR',
          async () => ((await partitionsFrom(leader.port, topic))[0]?.isrNodes.length === 3 ? true : undefined),
          60_000,
        );
      });
    }
  });
});
