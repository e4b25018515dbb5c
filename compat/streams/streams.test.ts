// Kafka Streams 4.4.0 (Java 17) against a real krill CLI process: one application with
// processing.guarantee=exactly_once_v2 (a word count through a groupBy repartition, a tumbling-window word
// count, a KTable with its changelog), run through the steps of its life in life.ts: one instance, a second
// sharing the tasks, kill -9 of one mid-stream, both restarted, then reset by StreamsResetter.
import { afterAll, beforeAll } from 'vitest';
import type { CliBroker } from '../../test/helpers.js';
import { BrokerPool } from '../util.js';
import { describeWithToolchain } from '../toolchain.js';
import { streamsMissing } from './streams.js';
import { livesThroughKillRestartAndReset } from './life.js';
import { WordCountApp } from './wordcount.js';

const TEST_TIMEOUT = 240_000;

const pool = new BrokerPool();
let broker: CliBroker;
const app = new WordCountApp(() => broker.bootstrap, 'wordcount');

beforeAll(async () => {
  if (streamsMissing() !== null) return;
  broker = await pool.start(['--data-dir', pool.dir('krill-streams-'), '--set', 'group.initial.rebalance.delay.ms=0']);
});
afterAll(async () => {
  await app.stopAll();
  await pool.cleanup();
});

describeWithToolchain('Kafka Streams 4.4.0 (exactly_once_v2) against one krill broker', streamsMissing, { timeout: TEST_TIMEOUT }, () => {
  livesThroughKillRestartAndReset({ app, bootstrap: () => broker.bootstrap, stateDir: (prefix) => pool.dir(prefix) });
});
