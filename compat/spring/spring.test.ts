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
import { afterAll, beforeAll } from 'vitest';
import { describeWithToolchain } from '../toolchain.js';
import { BrokerPool } from '../util.js';
import type { Json } from '../util.js';
import { runBasic, springMissing, springScenarios } from './spring.js';

const TIMEOUT = 180_000;
const pool = new BrokerPool();
let bootstrap: string;
let basic: Record<string, Json>;

describeWithToolchain('Spring for Apache Kafka (Spring Boot 4) against one krill broker', springMissing, { timeout: TIMEOUT }, () => {
  beforeAll(async () => {
    bootstrap = (await pool.start(['--data-dir', pool.dir('krill-spring-')])).bootstrap;
    basic = await runBasic(bootstrap);
  }, TIMEOUT);
  afterAll(() => pool.cleanup());

  springScenarios(() => ({ bootstrap, basic }), 1);
});
