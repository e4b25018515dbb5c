// Spring for Apache Kafka (Spring Boot 4.0.7 with the spring-kafka and kafka-clients versions its BOM pins)
// against one krill broker: the Boot app of compat/spring runs with spring.kafka.bootstrap-servers on its
// command line and Boot's defaults otherwise (auto-offset-reset earliest aside), and prints what it received.
// - KafkaAdmin creates the NewTopic beans' topics at start (partitions, replication, configs; an existing topic
//   with fewer partitions grown), read back with kafkajs;
// - KafkaTemplate sends and an @KafkaListener receives exactly those records (keys, values, headers), and the
//   container commits the group's offsets;
// - @RetryableTopic: failing records go through the retry topics into the DLT with Spring's exception headers,
//   good ones are processed once;
// - a KafkaTransactionManager: committed transactions are read by a read_committed listener, rolled back ones
//   are not (a read_uncommitted listener sees them).
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CliBroker } from '../../test/helpers.js';
import { adminOf } from '../cluster/cluster-util.js';
import { describeWithToolchain } from '../toolchain.js';
import { BrokerPool } from '../util.js';
import type { Json } from '../util.js';
import { BASIC, TX, expectAdmin, expectPlain, expectRetry, expectTx, springApp, springMissing } from './spring.js';

const TIMEOUT = 180_000;
const pool = new BrokerPool();
let broker: CliBroker;
let bootstrap: string;
let basic: Record<string, Json>;

describeWithToolchain('Spring for Apache Kafka (Spring Boot 4) against one krill broker', springMissing, { timeout: TIMEOUT }, () => {
  beforeAll(async () => {
    broker = await pool.start(['--data-dir', pool.dir('krill-spring-')]);
    bootstrap = broker.bootstrap;
    const admin = await adminOf(bootstrap);
    try {
      await admin.createTopics({ topics: [{ topic: 'spring-admin-grown', numPartitions: 1 }], waitForLeaders: true });
    } finally {
      await admin.disconnect();
    }
    basic = await springApp(bootstrap, BASIC);
  }, TIMEOUT);
  afterAll(() => pool.cleanup());

  it('KafkaAdmin creates the NewTopic beans at start, with their partitions and configs', async () => {
    const admin = await adminOf(bootstrap);
    try {
      await expectAdmin(admin, basic.admin, 1);
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
    const tx = await springApp(bootstrap, TX);
    expectTx(tx.tx);
    const admin = await adminOf(bootstrap);
    try {
      // The listeners' containers committed their offsets past the last transaction's records.
      for (const groupId of ['spring-tx-committed', 'spring-tx-uncommitted']) {
        expect((await admin.fetchOffsets({ groupId, topics: ['spring-tx'] }))[0].partitions).toEqual([{ partition: 0, offset: '8', metadata: null }]);
      }
    } finally {
      await admin.disconnect();
    }
  });
});
