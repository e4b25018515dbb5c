// The compat suites of clients that are not npm packages (the Java client and what is built on it, Go,
// Python from PyPI) need a toolchain and artifacts that compat/<client>/install.sh fetches (.ci/run runs
// every such script). A suite runs when its toolchain is ready; without it, it is skipped and says why,
// except under CI=true, where a missing toolchain is a failure, never a skip.
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'vitest';

/**
 * describe(name) when `missing()` returns null; otherwise skipped with its reason, or failing with it
 * under CI=true. `missing` names what is absent and how to get it, e.g. "target/classpath.txt: run
 * bash compat/java/install.sh".
 */
export function describeWithToolchain(name: string, missing: () => string | null, options: { timeout: number }, suite: () => void): void {
  const reason = missing();
  if (reason === null) {
    describe(name, options, suite);
  } else if (process.env.CI === 'true') {
    describe(name, () => {
      it('has its toolchain installed (required when CI=true)', () => {
        throw new Error(`${name}: ${reason}`);
      });
    });
  } else {
    describe.skip(`${name} — SKIPPED: ${reason}; required when CI=true`, () => {
      it('needs its toolchain', () => {});
    });
  }
}

/**
 * A `missing` for describeWithToolchain: null when every file `installScript` builds is there, otherwise the
 * first one absent and the script that builds it.
 */
export function builtBy(installScript: string, ...files: string[]): () => string | null {
  return () => {
    const absent = files.find((f) => !fs.existsSync(f));
    return absent === undefined ? null : `${path.relative(process.cwd(), absent)} is missing: run bash ${installScript}`;
  };
}
