// The README's recipes for krill/testing, run as a user's suite: vitest with `globalSetup: ['krill/testing']`
// (resolved through this package's exports, to the built dist/), one test file per client, each reaching the
// run's one broker through KRILL_BOOTSTRAP. Run `npm run build` first.
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../test/helpers.js';
import { rdkafka } from '../confluent-js/client.js';

const RECIPES = ['kafkajs', 'platformatic', ...(rdkafka || process.env.CI === 'true' ? ['confluent-js'] : [])];

describe('the krill/testing recipes of the README', () => {
  it(
    `${RECIPES.join(', ')} suites share the run's broker${rdkafka || process.env.CI === 'true' ? '' : ' (confluent-js SKIPPED: @confluentinc/kafka-javascript not installed)'}`,
    { timeout: 120_000 },
    () => {
      const files = RECIPES.map((r) => `compat/testing-recipes/${r}.recipe.ts`);
      const run = spawnSync(
        process.execPath,
        [path.join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--config', 'compat/testing-recipes/vitest.config.mjs', ...files],
        {
          cwd: ROOT,
          encoding: 'utf8',
          timeout: 110_000,
          env: { ...process.env, KRILL_BOOTSTRAP: '' },
        },
      );
      // eslint-disable-next-line no-control-regex -- vitest colours its summary
      const out = (run.stdout + run.stderr).replace(/\x1b\[[0-9;]*m/g, '');
      expect(run.status, out).toBe(0);
      expect(out).toMatch(new RegExp(`Test Files\\s+${RECIPES.length} passed \\(${RECIPES.length}\\)`));
    },
  );
});
