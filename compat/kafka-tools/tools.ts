// Runs Apache Kafka's own command-line tools (the 4.4.0 Maven artifacts kafka_2.13 and kafka-tools, whose
// classpath compat/kafka-tools/install.sh writes to target/classpath.txt) as the bin/kafka-*.sh scripts of
// Kafka's distribution do: `java -cp <classpath> <main class> <args>`, one JVM per run.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { javaCommand } from '../jvm.js';
import { builtBy } from '../toolchain.js';
import { describeRun, run, type RunResult } from '../util.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CLASSPATH_FILE = path.join(HERE, 'target', 'classpath.txt');

/** The main class each bin/kafka-*.sh script of Kafka 4.4.0 runs. */
export const MAIN_CLASS = {
  'kafka-topics': 'org.apache.kafka.tools.TopicCommand',
  'kafka-console-producer': 'org.apache.kafka.tools.ConsoleProducer',
  'kafka-console-consumer': 'org.apache.kafka.tools.consumer.ConsoleConsumer',
  'kafka-consumer-groups': 'org.apache.kafka.tools.consumer.group.ConsumerGroupCommand',
  'kafka-configs': 'org.apache.kafka.tools.ConfigCommand',
  'kafka-delete-records': 'org.apache.kafka.tools.DeleteRecordsCommand',
  'kafka-get-offsets': 'org.apache.kafka.tools.GetOffsetShell',
  'kafka-broker-api-versions': 'org.apache.kafka.tools.BrokerApiVersionsCommand',
  'kafka-producer-perf-test': 'org.apache.kafka.tools.ProducerPerformance',
  'kafka-consumer-perf-test': 'org.apache.kafka.tools.ConsumerPerformance',
  'kafka-transactions': 'org.apache.kafka.tools.TransactionsCommand',
  'kafka-dump-log': 'org.apache.kafka.tools.DumpLogSegments',
  'kafka-leader-election': 'org.apache.kafka.tools.LeaderElectionCommand',
  'kafka-reassign-partitions': 'org.apache.kafka.tools.reassign.ReassignPartitionsCommand',
  'kafka-log-dirs': 'org.apache.kafka.tools.LogDirsCommand',
  'kafka-metadata-quorum': 'org.apache.kafka.tools.MetadataQuorumCommand',
  'kafka-acls': 'org.apache.kafka.tools.AclCommand',
} as const;
export type Tool = keyof typeof MAIN_CLASS;

/** null when the classpath is there, else what is missing and how to get it (for describeWithToolchain). */
export const toolsMissing = builtBy('compat/kafka-tools/install.sh', CLASSPATH_FILE);

// Kafka's kafka-run-class.sh sets heap and GC flags of its own; none of them changes what a tool sends or
// prints. The no-op SLF4J binding's three lines are not the tool's.
const SLF4J_NOISE = /^SLF4J: .*\n?/gm;

/** `java <flags> -cp <classpath> <main class>`, as argv: for a tool (or a broker: more heap) a test starts and stops itself. */
export function javaArgs(mainClass: string, heap = '256m'): string[] {
  return javaCommand(CLASSPATH_FILE, mainClass, [`-Xmx${heap}`]);
}

/** Runs a tool; never rejects (see `tool` for one that must succeed). */
export async function runTool(name: Tool, args: string[], opts: { input?: string; timeoutMs?: number } = {}): Promise<RunResult> {
  const [java, ...jvm] = javaArgs(MAIN_CLASS[name]);
  const r = await run(java, [...jvm, ...args], {
    input: opts.input,
    timeoutMs: opts.timeoutMs ?? 60_000,
  });
  return { ...r, stderr: r.stderr.replace(SLF4J_NOISE, '') };
}

/** Runs a tool that must exit 0; returns its stdout and stderr. */
export async function tool(name: Tool, args: string[], opts: { input?: string; timeoutMs?: number } = {}): Promise<RunResult> {
  const r = await runTool(name, args, opts);
  if (r.code !== 0) throw new Error(`${name} ${args.join(' ')} failed: ${describeRun(r)}`);
  return r;
}

/** The first record a read_committed kafka-console-consumer reads from the start of `topic`: "Offset:<n>\t<value>". */
export async function firstCommittedRecord(bootstrapArgs: string[], topic: string): Promise<string> {
  const args = ['--topic', topic, '--from-beginning', '--isolation-level', 'read_committed', '--max-messages', '1', '--timeout-ms', '20000'];
  const read = await tool('kafka-console-consumer', [...bootstrapArgs, ...args, '--formatter-property', 'print.offset=true']);
  return read.stdout.trim();
}

/** The whitespace-separated columns of the lines of a tool's table under its header, up to a blank line. */
export function rows(stdout: string, header: RegExp): string[][] {
  const lines = stdout.split('\n');
  const at = lines.findIndex((l) => header.test(l));
  if (at < 0) throw new Error(`no header ${header} in:\n${stdout}`);
  const body = lines.slice(at + 1);
  const end = body.findIndex((l) => l.trim() === '');
  return (end < 0 ? body : body.slice(0, end)).map((l) => l.trim().split(/\s+/));
}

let seq = 0;
export const unique = (label: string): string => `tools-${label}-${process.pid}-${++seq}`;
