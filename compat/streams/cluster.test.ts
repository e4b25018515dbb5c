// Kafka Streams 4.4.0 (Java 17) against a 3-broker krill cluster (broker processes, a real ZooKeeper): the
// word count of streams.test.ts with processing.guarantee=exactly_once_v2 and replication.factor=3 for its
// internal topics, two instances sharing the tasks: exact counts read_committed, internal topics
// replicated three ways with Streams' configs, and exact counts still when a broker is killed (kill -9)
// while the input flows.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningCluster } from '../../src/embedded-cluster.js';
import { BrokerPool } from '../util.js';
import { describeCluster, formCluster } from '../cluster/cluster-util.js';
import { describeWithToolchain } from '../toolchain.js';
import { StreamsInstance, streamsMissing } from './streams.js';
import { WordCountApp, expected, lines, regions, sum } from './wordcount.js';

const TEST_TIMEOUT = 240_000;

const pool = new BrokerPool();
let cluster: RunningCluster | undefined;
const app = new WordCountApp(() => cluster!.bootstrap, 'wordcount-cluster', 3);

describeWithToolchain('Kafka Streams 4.4.0 (exactly_once_v2)', streamsMissing, { timeout: TEST_TIMEOUT }, () => {
  describeCluster('against a 3-broker krill cluster', { timeout: TEST_TIMEOUT }, () => {
    beforeAll(async () => {
      cluster = await formCluster('streams', { brokers: 3, processes: true, config: { 'group.initial.rebalance.delay.ms': 0 } });
    }, 120_000);
    afterAll(async () => {
      await app.stopAll();
      await cluster?.close();
      await pool.cleanup();
    });

    let a: StreamsInstance;
    let b: StreamsInstance;

    it('counts words exactly with two instances, its internal topics replicated three ways', async () => {
      a = app.instance('A', pool.dir('krill-streams-ca-'));
      b = app.instance('B', pool.dir('krill-streams-cb-'));
      await app.produce([...lines(600), ...regions(20)]);
      await Promise.all([a.running(), b.running()]);
      const res = await app.inspect(expected(app.input));
      app.expectExact(res);
      app.expectInternalTopics(res);
      expect(sum(app.committedLines(res))).toBe(app.linesIn());
    });

    it('keeps every count exact when a broker is killed mid-stream', async () => {
      const seenByA = Math.max(0, ...a.events.filter((e) => e.event === 'progress').map((e) => e.lines!));
      const producing = app.produce(lines(1500), { batch: 50, pauseMs: 40 });
      await a.waitFor('processing the second batch', (e) => e.event === 'progress' && e.lines! > seenByA);
      await cluster!.brokers[1].kill();
      await producing;
      const res = await app.inspect(expected(app.input));
      app.expectExact(res);
      expect(sum(app.committedLines(res))).toBe(app.linesIn());
    });
  });
});
