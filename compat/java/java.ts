// Runs the Java client driver (compat/java/src/main/java/krill/compat/Driver.java) with kafka-clients 4.x or
// 3.x, as compat/java/install.sh built it, and parses its one JSON line.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { javaCommand } from '../jvm.js';
import { builtBy } from '../toolchain.js';
import { runDriver } from '../util.js';
import type { Json } from '../util.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SLF4J_WARN = ['-Dorg.slf4j.simpleLogger.defaultLogLevel=warn'];

/** The client versions the suite runs against: the classpath file install.sh writes for each. */
export const CLIENTS = [
  { name: 'kafka-clients 4.x', major: 4, classpath: path.join(HERE, 'target', 'classpath.txt') },
  { name: 'kafka-clients 3.x', major: 3, classpath: path.join(HERE, 'target', 'classpath3.txt') },
] as const;
export type Client = (typeof CLIENTS)[number];

/** What describeWithToolchain needs: null when java and both classpaths are there. */
export const javaMissing = builtBy('compat/java/install.sh', ...CLIENTS.map((c) => c.classpath));

/** Runs `scenario` with `args` on stdin; throws with the driver's exception and stderr when it fails. */
export function java<T = Json>(client: Client, scenario: string, args: object, timeoutMs = 60_000): Promise<T> {
  const [java, ...jvm] = javaCommand(client.classpath, 'krill.compat.Driver', SLF4J_WARN);
  return runDriver<T>(`Driver ${scenario}`, java, [...jvm, scenario], args, { timeoutMs });
}
