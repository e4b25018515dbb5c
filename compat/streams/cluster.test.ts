// Kafka Streams 4.4.0 (Java 17) against a 3-broker krill cluster (broker processes, a real ZooKeeper): the
// word count of streams.test.ts with processing.guarantee=exactly_once_v2 and replication.factor=3 for its
// internal topics, through the same steps of its life (life.ts: two instances sharing the tasks, kill -9 of
// one mid-stream, both restarted, a reset and a rerun), then exact counts still when a broker is killed
// (kill -9) while the input flows.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningCluster } from '../../src/embedded-cluster.js';
import { BrokerPool } from '../util.js';
import { describeCluster, formCluster } from '../cluster/cluster-util.js';
import { describeWithToolchain } from '../toolchain.js';
import { streamsMissing } from './streams.js';
import { livesThroughKillRestartAndReset } from './life.js';
import { WordCountApp, expected, lines, sum } from './wordcount.js';

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

    const afterReset = livesThroughKillRestartAndReset({ app, bootstrap: () => cluster!.bootstrap, stateDir: (prefix) => pool.dir(prefix) });

    it('keeps every count exact when a broker is killed mid-stream', async () => {
      const { rerun, outputsFrom } = afterReset();
      const seen = Math.max(0, ...rerun.events.filter((e) => e.event === 'progress').map((e) => e.lines!));
      const producing = app.produce(lines(1500), { batch: 50, pauseMs: 40 });
      await rerun.waitFor('processing the next batch', (e) => e.event === 'progress' && e.lines! > seen);
      await cluster!.brokers[1].kill();
      await producing;
      // The rerun's output since the reset: every count exact, none counted twice.
      const res = await app.inspect(expected(app.input), outputsFrom);
      app.expectExact(res);
      expect(sum(app.committedLines(res))).toBe(app.linesIn());
    });
  });
});
