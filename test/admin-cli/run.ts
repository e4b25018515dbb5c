// Runs `krill <subcommand>` from the built CLI (dist/src/bin/krill.cjs) against a bootstrap server, to completion.
import { CLI } from '../helpers.js';
import { run, type RunResult } from '../../compat/util.js';

export type Krill = (args: string[], input?: string) => Promise<RunResult>;

export function krillAgainst(bootstrap: () => string): Krill {
  return (args, input) => run(process.execPath, [CLI, ...args, '--bootstrap-server', bootstrap()], { input, timeoutMs: 30_000 });
}

/** The JSON a --json run printed, after checking it exited 0. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function json<T = any>(krill: Krill, args: string[], input?: string): Promise<T> {
  const r = await krill([...args, '--json'], input);
  if (r.code !== 0) throw new Error(`krill ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}
