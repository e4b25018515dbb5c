// Spring for Apache Kafka (Spring Boot 4.0.7, spring-kafka and kafka-clients as Boot's BOM pins) against a
// 3-broker krill cluster (ZooKeeper-coordinated, each broker its own process), default.replication.factor 3:
// - the same app and assertions as spring.test.ts, with topics, retry and DLT topics replicated three ways and
//   the group and transaction coordinators on whichever broker owns them;
// - a partition's leader killed (SIGKILL) while Boot's KafkaTemplate sends and an @KafkaListener consumes:
//   no send fails, the listener gets every acknowledged record, and the log holds each exactly once.
import fs from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningCluster } from '../../src/embedded-cluster.js';
import { tempDir } from '../../test/helpers.js';
import { adminOf, createSettledTopic, describeCluster, formCluster, killUnderLoad, partitionsFrom } from '../cluster/cluster-util.js';
import { describeWithToolchain } from '../toolchain.js';
import type { Json } from '../util.js';
import { FAILOVER, runBasic, springApp, springMissing, springScenarios } from './spring.js';

const TIMEOUT = 240_000;
let cluster: RunningCluster;
let basic: Record<string, Json>;
let work: string;

describeWithToolchain('Spring for Apache Kafka (Spring Boot 4) against a 3-broker krill cluster', springMissing, { timeout: TIMEOUT }, () => {
  describeCluster('with ZooKeeper', { timeout: TIMEOUT }, () => {
    beforeAll(async () => {
      work = tempDir('krill-spring-cluster-');
      cluster = await formCluster('spring', { brokers: 3, processes: true, config: { 'default.replication.factor': 3 } });
      basic = await runBasic(cluster.bootstrap);
    }, TIMEOUT);
    afterAll(async () => {
      await cluster?.close();
      if (work) fs.rmSync(work, { recursive: true, force: true });
    });

    springScenarios(() => ({ bootstrap: cluster.bootstrap, basic }), 3);

    it('the leader killed (SIGKILL) under KafkaTemplate and an @KafkaListener: no failed send, every record once', async () => {
      const topic = 'spring-failover';
      const [p0] = await createSettledTopic(cluster, topic, 1);
      const leader = cluster.brokers.find((b) => b.id === p0.leaderId)!;
      const res = (
        await killUnderLoad(
          work,
          'failover',
          leader,
          ({ progress, stop }) =>
            springApp(cluster.bootstrap, [
              ...FAILOVER,
              `--krill.failover.topic=${topic}`,
              `--krill.failover.progress=${progress}`,
              `--krill.failover.stop=${stop}`,
            ]),
          { before: 500, after: 2000, beforeTimeoutMs: 90_000 },
        )
      ).failover;
      expect(res.errors).toEqual([]);
      expect(res.acked).toBe(res.sent);
      expect(res.received).toBe(res.acked);
      // The idempotent producer's retries wrote nothing twice: the log is exactly the acknowledged sends.
      const survivor = cluster.brokers.find((b) => b.running)!;
      expect((await partitionsFrom(survivor.port, topic))[0].leaderId).not.toBe(leader.id);
      const check = await adminOf(`127.0.0.1:${survivor.port}`);
      try {
        expect(await check.fetchTopicOffsets(topic)).toEqual([expect.objectContaining({ partition: 0, low: '0', high: String(res.acked) })]);
      } finally {
        await check.disconnect();
      }
    });
  });
});
