// Spring for Apache Kafka (Spring Boot 4.0.7, spring-kafka and kafka-clients as Boot's BOM pins) against a
// 3-broker krill cluster (ZooKeeper-coordinated, each broker its own process), default.replication.factor 3:
// the same app and assertions as spring.test.ts, with topics, retry and DLT topics replicated three ways and
// the group and transaction coordinators on whichever broker owns them.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningCluster } from '../../src/embedded-cluster.js';
import { adminOf, describeCluster, formCluster } from '../cluster/cluster-util.js';
import { describeWithToolchain } from '../toolchain.js';
import type { Json } from '../util.js';
import { BASIC, TX, expectAdmin, expectPlain, expectRetry, expectTx, springApp, springMissing } from './spring.js';

const TIMEOUT = 240_000;
let cluster: RunningCluster;
let basic: Record<string, Json>;

describeWithToolchain('Spring for Apache Kafka (Spring Boot 4) against a 3-broker krill cluster', springMissing, { timeout: TIMEOUT }, () => {
  describeCluster('with ZooKeeper', { timeout: TIMEOUT }, () => {
    beforeAll(async () => {
      cluster = await formCluster('spring', { brokers: 3, processes: true, config: { 'default.replication.factor': 3 } });
      const admin = await adminOf(cluster.bootstrap);
      try {
        await admin.createTopics({ topics: [{ topic: 'spring-admin-grown', numPartitions: 1 }], waitForLeaders: true });
      } finally {
        await admin.disconnect();
      }
      basic = await springApp(cluster.bootstrap, BASIC);
    }, TIMEOUT);
    afterAll(async () => {
      await cluster?.close();
    });

    it('KafkaAdmin creates the NewTopic beans at start, replicated by the broker default', async () => {
      const admin = await adminOf(cluster.bootstrap);
      try {
        await expectAdmin(admin, basic.admin, 3);
      } finally {
        await admin.disconnect();
      }
    });

    it('KafkaTemplate sends, an @KafkaListener receives exactly those records and its group commits them', () => {
      expectPlain(basic.plain);
    });

    it('@RetryableTopic: failing records go through the retry topics to the DLT with the exception headers', () => {
      expectRetry(basic.retry);
    });

    it('KafkaTransactionManager: a read_committed listener sees committed transactions, not rolled back ones', async () => {
      expectTx((await springApp(cluster.bootstrap, TX)).tx);
      const admin = await adminOf(cluster.bootstrap);
      try {
        for (const groupId of ['spring-tx-committed', 'spring-tx-uncommitted']) {
          expect((await admin.fetchOffsets({ groupId, topics: ['spring-tx'] }))[0].partitions).toEqual([{ partition: 0, offset: '8', metadata: null }]);
        }
      } finally {
        await admin.disconnect();
      }
    });
  });
});
