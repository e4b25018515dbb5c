// @confluentinc/kafka-javascript is not in package.json (its install builds librdkafka; .ci/run installs it
// without saving). Its suites run when it loads; without it they are skipped and say why, except under
// CI=true, where a missing module is a failure.
import { createRequire } from 'node:module';
import { describe, it } from 'vitest';

const require = createRequire(import.meta.url);
const INSTALL_HINT = 'npm i --no-save @confluentinc/kafka-javascript@1.10.1';

/* eslint-disable @typescript-eslint/no-explicit-any */
export let rdkafka: any = null;
let loadError: unknown = null;
try {
  rdkafka = require('@confluentinc/kafka-javascript');
} catch (err) {
  loadError = err;
}

/** describe(`@confluentinc/kafka-javascript <version> ... <what>`) when the client loads; see above otherwise. */
export function describeWithClient(what: string, options: { timeout: number }, suite: () => void): void {
  if (rdkafka) {
    const version = require('@confluentinc/kafka-javascript/package.json').version;
    describe(`@confluentinc/kafka-javascript ${version} (librdkafka ${rdkafka.librdkafkaVersion}) ${what}`, options, suite);
  } else if (process.env.CI === 'true') {
    describe(`@confluentinc/kafka-javascript ${what}`, () => {
      it('is installed (required when CI=true)', () => {
        throw new Error(`@confluentinc/kafka-javascript cannot be loaded (${INSTALL_HINT}): ${String(loadError)}`);
      });
    });
  } else {
    describe.skip(`@confluentinc/kafka-javascript ${what} — SKIPPED: module not installed (${INSTALL_HINT}); required when CI=true`, () => {
      it('needs @confluentinc/kafka-javascript', () => {});
    });
  }
}
