// The Java programs of the compat suites (the client driver, Kafka Streams, the Spring app, Kafka's own
// tools) run as client JVMs tuned to start fast: the serial collector, the C1 compiler only, class-data
// sharing. None of this changes what a client sends. Each suite's install.sh writes the classpath file.
import fs from 'node:fs';

export const CLIENT_JVM_FLAGS = ['-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-Xshare:auto'];

const classpaths = new Map<string, string>();

/** `java <flags> -cp <classpath> <mainClass>` as argv, the classpath read (once) from `classpathFile`. */
export function javaCommand(classpathFile: string, mainClass: string, extraFlags: readonly string[] = []): string[] {
  let classpath = classpaths.get(classpathFile);
  if (classpath === undefined) {
    classpath = fs.readFileSync(classpathFile, 'utf8').trim();
    classpaths.set(classpathFile, classpath);
  }
  return ['java', ...CLIENT_JVM_FLAGS, ...extraFlags, '-cp', classpath, mainClass];
}
