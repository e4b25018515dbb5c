// A real Apache Kafka 4.4 broker in KRaft mode (one process, broker and controller), started by the
// benchmark's launcher (bench/kafka.ts: a formatted log dir, `kafka.Kafka server.properties` on free ports,
// ready once it answers Metadata naming itself). For tests that hold krill's behaviour, or its tools,
// against Kafka's own. Tests start it with client JVM flags and a smaller heap: a quick start matters to
// them, a broker's steady-state speed does not.
import { startKafka } from '../../bench/kafka.js';
import { CLIENT_JVM_FLAGS } from '../jvm.js';
import { toolsMissing } from './tools.js';

export { toolsMissing as apacheKafkaMissing };

export interface ApacheKafka {
  bootstrap: string;
  port: number;
  clusterId: string;
  /** What the broker wrote on stdout and stderr so far, for a failure's message. */
  output(): string;
  stop(): Promise<void>;
}

/** Starts a one-node KRaft cluster with `overrides` added to its server.properties. */
export async function startApacheKafka(overrides: Record<string, string> = {}, timeoutMs = 120_000): Promise<ApacheKafka> {
  const k = await startKafka({ overrides, timeoutMs, jvmFlags: [...CLIENT_JVM_FLAGS, '-Xmx512m'] });
  return { bootstrap: k.bootstrap, port: k.ports[0], clusterId: k.clusterId, output: k.output, stop: k.stop };
}
