// Spring for Apache Kafka (Spring Boot 4.0.7, spring-kafka and kafka-clients as Boot's BOM pins) against a
// 3-broker krill cluster (ZooKeeper-coordinated, each broker its own process), default.replication.factor 3:
// the same app and assertions as spring.test.ts, with topics, retry and DLT topics replicated three ways and
// the group and transaction coordinators on whichever broker owns them.
import { afterAll, beforeAll } from 'vitest';
import type { RunningCluster } from '../../src/embedded-cluster.js';
import { describeCluster, formCluster } from '../cluster/cluster-util.js';
import { describeWithToolchain } from '../toolchain.js';
import type { Json } from '../util.js';
import { runBasic, springMissing, springScenarios } from './spring.js';

const TIMEOUT = 240_000;
let cluster: RunningCluster;
let basic: Record<string, Json>;

describeWithToolchain('Spring for Apache Kafka (Spring Boot 4) against a 3-broker krill cluster', springMissing, { timeout: TIMEOUT }, () => {
  describeCluster('with ZooKeeper', { timeout: TIMEOUT }, () => {
    beforeAll(async () => {
      cluster = await formCluster('spring', { brokers: 3, processes: true, config: { 'default.replication.factor': 3 } });
      basic = await runBasic(cluster.bootstrap);
    }, TIMEOUT);
    afterAll(async () => {
      await cluster?.close();
    });

    springScenarios(() => ({ bootstrap: cluster.bootstrap, basic }), 3);
  });
});
