// Runs the Spring Boot compat app (compat/spring/src/main/java/krill/compat/spring/App.java) as
// compat/spring/install.sh built it, against a krill bootstrap address given on the command line, and parses
// the JSON line each of its scenarios prints.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { ConfigResourceTypes, type Admin } from 'kafkajs';
import { adminOf } from '../cluster/cluster-util.js';
import { javaCommand } from '../jvm.js';
import { builtBy } from '../toolchain.js';
import { describeRun, run } from '../util.js';
import type { Json } from '../util.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CLASSPATH = path.join(HERE, 'target', 'classpath.txt');

/** What describeWithToolchain needs: null when the app's classpath file is there. */
export const springMissing = builtBy('compat/spring/install.sh', CLASSPATH);

/** The basic profile: KafkaAdmin's NewTopic beans, KafkaTemplate and @KafkaListener, @RetryableTopic. */
export const BASIC = ['--spring.profiles.active=basic'];
/** The tx profile: Boot's transactional template and KafkaTransactionManager, a read_committed listener. */
export const TX = [
  '--spring.profiles.active=tx',
  '--spring.kafka.producer.transaction-id-prefix=krill-tx-',
  '--spring.kafka.consumer.isolation-level=read_committed',
];

/** The failover profile (clusters): KafkaTemplate sends until told to stop while the test kills a leader. */
export const FAILOVER = ['--spring.profiles.active=failover'];

/**
 * Runs the app with `--spring.kafka.bootstrap-servers=<bootstrap>` and `args` until it exits; returns its
 * scenarios' lines by scenario name. Throws with the app's exception and output when it fails.
 */
export async function springApp(bootstrap: string, args: string[], timeoutMs = 150_000): Promise<Record<string, Json>> {
  const [java, ...jvm] = javaCommand(CLASSPATH, 'krill.compat.spring.App');
  const r = await run(java, [...jvm, `--spring.kafka.bootstrap-servers=${bootstrap}`, ...args], { timeoutMs });
  const lines: Record<string, Json> = {};
  for (const l of r.stdout.split('\n')) {
    if (!l.startsWith('{"scenario":')) continue;
    const parsed = JSON.parse(l);
    lines[parsed.scenario] = parsed;
  }
  const failed = Object.values(lines).find((l) => l.exception);
  if (r.code !== 0 || failed) throw new Error(`Spring app failed: ${failed?.exception ?? ''}\n${failed?.trace ?? ''}\n${describeRun(r)}`);
  return lines;
}

/** The records one listener got, as the test compares them: [partition, offset, key, value, headers]. */
function rows(records: Json[]): Json[] {
  return records.map((r) => [r.partition, r.offset, r.key, r.value, r.headers]);
}

/** Scenario 2: every record sent arrives once, with its key, value and headers, and the group committed it. */
export function expectPlain(plain: Json): void {
  const sentHeaders = (i: number): Json[] => [['trace', `t-${i}`], ...(i % 3 === 0 ? [['trace', 'again']] : []), ...(i === 4 ? [['empty', '']] : [])];
  const sent = (plain.sent as Json[]).map((s, i) => [s.partition, s.offset, s.key, s.value, sentHeaders(i)]);
  expect(sent.map((s) => [s[0], s[2], s[3]])).toEqual([0, 1, 2, 3, 4, 5].map((i) => [i % 2, i === 5 ? null : `key-${i}`, `value-${i}`]));
  const received = rows(plain.received).filter((r) => r[2] !== 'end');
  const byPosition = (a: Json[], b: Json[]): number => a[0] - b[0] || a[1] - b[1];
  expect(received.sort(byPosition)).toEqual(sent.sort(byPosition));
  // One end marker per partition; the listener gets the two partitions' records in no promised order.
  expect(
    rows(plain.received)
      .filter((r) => r[2] === 'end')
      .map((r) => [r[0], r[1]])
      .sort(byPosition),
  ).toEqual([
    [0, 3],
    [1, 3],
  ]);
  expect(plain.committed).toEqual({ 'spring-plain-0': 4, 'spring-plain-1': 4 });
}

/** Scenario 3: good records once on the main topic; bad ones through both retry topics into the DLT with Spring's headers. */
export function expectRetry(retry: Json): void {
  const attempts = (retry.attempts as Json[]).map((a) => [a.value, a.topic]);
  const of = (value: string): Json[] => attempts.filter((a) => a[0] === value).map((a) => a[1]);
  for (const good of ['good-1', 'good-2', 'good-3', 'good-end']) expect(of(good)).toEqual(['spring-retry']);
  for (const bad of ['bad-1', 'bad-2']) expect(of(bad)).toEqual(['spring-retry', 'spring-retry-retry-200', 'spring-retry-retry-400']);
  expect(retry.topics).toEqual(['spring-retry', 'spring-retry-dlt', 'spring-retry-retry-200', 'spring-retry-retry-400']);
  const dlt = retry.dlt as Json[];
  expect(dlt.map((d) => [d.topic, d.key, d.value])).toEqual([
    ['spring-retry-dlt', 'k-bad-1', 'bad-1'],
    ['spring-retry-dlt', 'k-bad-2', 'bad-2'],
  ]);
  for (const d of dlt) {
    const h = Object.fromEntries(d.headers as Json[]);
    expect(h['kafka_original-topic']).toBe('spring-retry');
    expect(h['kafka_original-partition']).toBe(0);
    expect(h['kafka_original-offset']).toBe(retry.offsets[d.value]);
    expect(h['kafka_dlt-original-consumer-group']).toBe('spring-retry-group');
    expect(h['kafka_exception-fqcn']).toBe('org.springframework.kafka.listener.ListenerExecutionFailedException');
    expect(h['kafka_exception-cause-fqcn']).toBe('java.lang.IllegalStateException');
    expect(h['kafka_exception-message']).toBe(`Listener failed; rejected ${d.value}`);
    // Each hop (main -> retry-200 -> retry-400 -> DLT) added its attempt count: the last one says 4.
    expect((d.headers as Json[]).filter((x) => x[0] === 'retry_topic-attempts').map((x) => x[1])).toEqual([2, 3, 4]);
  }
}

/** Scenario 4: the read_committed listener sees the committed transactions only; read_uncommitted sees every record. */
export function expectTx(tx: Json): void {
  expect(tx.transactional).toBe(true);
  expect(tx.thrown).toBe('abort this one');
  // Each transaction ends with a marker that takes an offset: data at 0,1 (marker 2), 3 (abort 4), 5 (abort 6), 7.
  expect(rows(tx.committed)).toEqual([
    [0, 0, 'c', 'committed-1', []],
    [0, 1, 'c', 'committed-2', []],
    [0, 7, 'c', 'committed-3', []],
  ]);
  expect(rows(tx.uncommitted)).toEqual([
    [0, 0, 'c', 'committed-1', []],
    [0, 1, 'c', 'committed-2', []],
    [0, 3, 'r', 'rolled-back-1', []],
    [0, 5, 'r', 'rolled-back-2', []],
    [0, 7, 'c', 'committed-3', []],
  ]);
}

/**
 * Scenario 1, read back with kafkajs: KafkaAdmin made each NewTopic bean's topic with its partitions and configs,
 * and grew spring-admin-grown (made by the test with 1 partition) to the bean's 4. `replicas` is what topics
 * without a replication factor got (the broker's default.replication.factor), @RetryableTopic's included.
 */
export async function expectAdmin(admin: Admin, fromApp: Json, replicas: number): Promise<void> {
  const want: Record<string, { partitions: number; replicas: number; configs: string[][] }> = {
    'spring-admin-compacted': {
      partitions: 3,
      replicas: 1,
      configs: [
        ['cleanup.policy', 'compact'],
        ['min.compaction.lag.ms', '60000'],
      ],
    },
    'spring-admin-defaults': { partitions: 2, replicas, configs: [] },
    'spring-admin-grown': { partitions: 4, replicas, configs: [] },
    'spring-admin-retention': {
      partitions: 1,
      replicas,
      configs: [
        ['max.message.bytes', '200000'],
        ['retention.ms', '3600000'],
      ],
    },
  };
  const names = Object.keys(want);
  expect(fromApp.topics).toEqual(Object.fromEntries(names.map((n) => [n, { partitions: want[n].partitions, replicas: want[n].replicas }])));
  const md = await admin.fetchTopicMetadata({ topics: names });
  expect(Object.fromEntries(md.topics.map((t) => [t.name, [t.partitions.length, t.partitions.map((p) => p.replicas.length)]]))).toEqual(
    Object.fromEntries(names.map((n) => [n, [want[n].partitions, Array(want[n].partitions).fill(want[n].replicas)]])),
  );
  // The retry and DLT topics @RetryableTopic made at start ask for the broker's defaults too.
  const retryTopics = ['spring-retry', 'spring-retry-retry-200', 'spring-retry-retry-400', 'spring-retry-dlt'];
  const retryMd = await admin.fetchTopicMetadata({ topics: retryTopics });
  expect(Object.fromEntries(retryMd.topics.map((t) => [t.name, t.partitions.map((p) => p.replicas.length)]))).toEqual(
    Object.fromEntries(retryTopics.map((n) => [n, [replicas]])),
  );
  const configs = await admin.describeConfigs({ resources: names.map((name) => ({ type: ConfigResourceTypes.TOPIC, name })), includeSynonyms: false });
  const set = Object.fromEntries(
    configs.resources.map((r) => [
      r.resourceName,
      r.configEntries
        .filter((e) => !e.isDefault)
        .map((e) => [e.configName, e.configValue])
        .sort(),
    ]),
  );
  expect(set).toEqual(Object.fromEntries(names.map((n) => [n, want[n].configs])));
}

/**
 * The suite's tests, for one broker and for a cluster alike: `target()` gives the bootstrap address and the
 * basic profile's lines (the caller's beforeAll ran the app); the test of transactions runs the tx profile.
 * `replicas` is the broker's default.replication.factor.
 */
export function springScenarios(target: () => { bootstrap: string; basic: Record<string, Json> }, replicas: number): void {
  it('KafkaAdmin creates the NewTopic beans at start, with their partitions, replication and configs', async () => {
    const admin = await adminOf(target().bootstrap);
    try {
      await expectAdmin(admin, target().basic.admin, replicas);
    } finally {
      await admin.disconnect();
    }
  });

  it('KafkaTemplate sends, an @KafkaListener receives exactly those records and its group commits them', () => {
    expectPlain(target().basic.plain);
  });

  it('@RetryableTopic: failing records go through the retry topics to the DLT with the exception headers', () => {
    expectRetry(target().basic.retry);
  });

  it('KafkaTransactionManager: a read_committed listener sees committed transactions, not rolled back ones', async () => {
    const { bootstrap } = target();
    expectTx((await springApp(bootstrap, TX)).tx);
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
}

/** Creates spring-admin-grown with 1 partition (KafkaAdmin grows it to 4), then runs the basic profile. */
export async function runBasic(bootstrap: string): Promise<Record<string, Json>> {
  const admin = await adminOf(bootstrap);
  try {
    await admin.createTopics({ topics: [{ topic: 'spring-admin-grown', numPartitions: 1 }], waitForLeaders: true });
  } finally {
    await admin.disconnect();
  }
  return springApp(bootstrap, BASIC);
}
