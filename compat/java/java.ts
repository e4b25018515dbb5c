// Runs the Java client driver (compat/java/src/main/java/krill/compat/Driver.java) with kafka-clients 4.x or
// 3.x, as compat/java/install.sh built it, and parses its one JSON line.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeRun, run } from '../util.js';
import type { Json } from '../util.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** The client versions the suite runs against: the classpath file install.sh writes for each. */
export const CLIENTS = [
  { name: 'kafka-clients 4.x', major: 4, classpath: path.join(HERE, 'target', 'classpath.txt') },
  { name: 'kafka-clients 3.x', major: 3, classpath: path.join(HERE, 'target', 'classpath3.txt') },
] as const;
export type Client = (typeof CLIENTS)[number];

/** What describeWithToolchain needs: null when java and both classpaths are there. */
export function javaMissing(): string | null {
  for (const c of CLIENTS) if (!fs.existsSync(c.classpath)) return `${path.relative(process.cwd(), c.classpath)} is missing: run bash compat/java/install.sh`;
  return null;
}

/** Runs `scenario` with `args` on stdin; throws with the driver's exception and stderr when it fails. */
export async function java<T = Json>(client: Client, scenario: string, args: object, timeoutMs = 60_000): Promise<T> {
  const classpath = fs.readFileSync(client.classpath, 'utf8').trim();
  const jvm = ['-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-Xshare:auto', '-Dorg.slf4j.simpleLogger.defaultLogLevel=warn'];
  const r = await run('java', [...jvm, '-cp', classpath, 'krill.compat.Driver', scenario], { input: JSON.stringify(args), timeoutMs });
  const line = r.stdout.trim().split('\n').pop() ?? '';
  let parsed: Json;
  try {
    parsed = JSON.parse(line);
  } catch {
    throw new Error(`Driver ${scenario}: no JSON on stdout\n${describeRun(r)}`);
  }
  if (r.code !== 0 || parsed.exception) throw new Error(`Driver ${scenario} failed: ${parsed.exception ?? ''}\n${parsed.trace ?? ''}\n${describeRun(r)}`);
  return parsed as T;
}
