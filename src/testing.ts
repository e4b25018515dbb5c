// krill/testing: one broker for a whole test run, started by the test runner's global setup, so that test
// files share it instead of each starting their own. For vitest: `globalSetup: ['krill/testing']`. The
// broker listens on a free port (no port races between parallel runs) with a temporary data dir that
// teardown removes; its address is published in the environment (KRILL_BOOTSTRAP) before the test workers
// start, so every test file reads it there.
import { startBroker, type RunningBroker } from './index.js';

/** The environment variable that holds the shared broker's bootstrap address (host:port). */
export const BOOTSTRAP_ENV = 'KRILL_BOOTSTRAP';

let running: RunningBroker | null = null;

/** vitest's global setup: starts the run's broker and publishes its address in KRILL_BOOTSTRAP. */
export async function setup(): Promise<void> {
  if (running) return;
  running = await startBroker({
    port: 0,
    // As test harnesses for Kafka set it (Testcontainers' Kafka among them): a group's first member is not
    // made to wait 3 s for others to join.
    config: { 'group.initial.rebalance.delay.ms': 0 },
  });
  process.env[BOOTSTRAP_ENV] = running.bootstrap;
}

/** vitest's global teardown: closes the broker and removes its data. */
export async function teardown(): Promise<void> {
  const broker = running;
  running = null;
  delete process.env[BOOTSTRAP_ENV];
  await broker?.close();
}
