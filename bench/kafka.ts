// Apache Kafka 4.4 in KRaft mode, run from the Maven classpath compat/kafka-tools/install.sh writes: one or
// more nodes, each a broker and a controller in one JVM, all voters of one quorum. Each node's log dir is
// formatted with Kafka's storage tool before the clock starts (a deployment formats once, then starts many
// times); the start is timed from the spawn of `kafka.Kafka server.properties` to the first Metadata
// answer that lists the node itself. The benchmark's Kafka server, and compat/kafka-tools/apache-kafka.ts's.
//
// JVM flags: what bin/kafka-server-start.sh (heap -Xmx1G -Xms1G) and bin/kafka-run-class.sh (its
// KAFKA_JVM_PERFORMANCE_OPTS) give the broker, without the GC log file and the log4j config file those
// scripts add: Kafka then logs errors only, to stderr, which costs it less than a deployment's INFO logs.

import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { waitForMetadata } from './metadata-probe.js';
import { HOST, KAFKA_CLASSPATH } from './settings.js';
import { describeExit, freePort, launch, makeTempDir, removeTempDir, runToEnd, stopProc, type Proc } from './processes.js';

/** kafka-run-class.sh's KAFKA_JVM_PERFORMANCE_OPTS (Kafka 4.4). */
export const KAFKA_PERFORMANCE_FLAGS = [
  '-server',
  '-XX:+UseG1GC',
  '-XX:MaxGCPauseMillis=20',
  '-XX:InitiatingHeapOccupancyPercent=35',
  '-XX:+ExplicitGCInvokesConcurrent',
  '-Djava.awt.headless=true',
];
/** kafka-server-start.sh's KAFKA_HEAP_OPTS. */
export const KAFKA_SERVER_HEAP = ['-Xmx1G', '-Xms1G'];

let classpath: string | null = null;

/** Why Kafka cannot run here (no classpath file, no java), or null. */
export function kafkaMissing(): string | null {
  if (!fs.existsSync(KAFKA_CLASSPATH)) return 'no Kafka classpath (run compat/kafka-tools/install.sh)';
  const java = spawnSync('java', ['-version'], { stdio: 'ignore' });
  if (java.error || java.status !== 0) return `java not usable (${java.error?.message ?? `exit ${java.status}`})`;
  return null;
}

/** `java <flags> -cp <Kafka's classpath> <mainClass>` as argv. */
export function kafkaJava(mainClass: string, flags: readonly string[]): string[] {
  classpath ??= fs.readFileSync(KAFKA_CLASSPATH, 'utf8').trim();
  return ['java', ...flags, '-cp', classpath, mainClass];
}

/** A cluster id as Kafka's Uuid.randomUuid() makes them: 16 random bytes, base64url, never starting with '-'. */
function clusterId(): string {
  for (;;) {
    const id = crypto.randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

export interface KafkaOptions {
  /** Nodes (each broker + controller + voter); default 1. */
  nodes?: number;
  /** server.properties entries added to (or replacing) the launcher's, on every node. */
  overrides?: Record<string, string>;
  /** The client listener over TLS from this PEM file (private key, then certificate chain). */
  pemKeystore?: string;
  /** JVM flags in place of the scripts' (tests that want a quick start pass client flags). */
  jvmFlags?: readonly string[];
  timeoutMs?: number;
}

export interface KafkaCluster {
  /** host:port of every node's client listener (SSL with a pemKeystore), comma-separated. */
  bootstrap: string;
  /** Each node's PLAINTEXT port. */
  ports: number[];
  clusterId: string;
  procs: Proc[];
  /** Spawn -> first Metadata answer listing node 1 itself, ms. */
  startMs: number;
  /** What the nodes wrote on stderr and stdout (the tail), for a failure's message. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts Kafka: the nodes are formatted (untimed), then spawned together (a quorum of several needs them
 * all) and resolves once Metadata from node 1 lists every node.
 */
export async function startKafka(opts: KafkaOptions = {}): Promise<KafkaCluster> {
  const nodes = opts.nodes ?? 1;
  const timeoutMs = opts.timeoutMs ?? 120_000;
  const dir = makeTempDir('kafka-bench-');
  // The raw-socket Metadata probe speaks PLAINTEXT only, so a TLS node has a PLAINTEXT listener too,
  // for that probe alone; the clients use the SSL one.
  const tls = opts.pemKeystore !== undefined;
  const ports: number[] = [];
  const sslPorts: number[] = [];
  const controllerPorts: number[] = [];
  for (let i = 0; i < nodes; i++) {
    ports.push(await freePort());
    controllerPorts.push(await freePort());
    if (tls) sslPorts.push(await freePort());
  }
  const id = clusterId();
  const clientListeners = (n: number) => `PLAINTEXT://${HOST}:${ports[n - 1]}${tls ? `,SSL://${HOST}:${sslPorts[n - 1]}` : ''}`;
  const files: string[] = [];
  for (let n = 1; n <= nodes; n++) {
    // The shipped config/server.properties' values where they differ from the defaults, replication of
    // the internal topics sized to the cluster.
    const properties: Record<string, string> = {
      'process.roles': 'broker,controller',
      'node.id': String(n),
      'controller.quorum.voters': controllerPorts.map((p, i) => `${i + 1}@${HOST}:${p}`).join(','),
      listeners: `${clientListeners(n)},CONTROLLER://${HOST}:${controllerPorts[n - 1]}`,
      'advertised.listeners': clientListeners(n),
      'controller.listener.names': 'CONTROLLER',
      'listener.security.protocol.map': 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SSL:SSL',
      'inter.broker.listener.name': 'PLAINTEXT', // no truststore needed between nodes
      'log.dirs': path.join(dir, `logs-${n}`),
      'offsets.topic.replication.factor': String(Math.min(3, nodes)),
      'transaction.state.log.replication.factor': String(Math.min(3, nodes)),
      'transaction.state.log.min.isr': String(Math.min(2, nodes)),
      'share.coordinator.state.topic.replication.factor': String(Math.min(3, nodes)),
      'share.coordinator.state.topic.min.isr': String(Math.min(2, nodes)),
      'group.initial.rebalance.delay.ms': '0',
      ...(opts.pemKeystore ? { 'ssl.keystore.type': 'PEM', 'ssl.keystore.location': opts.pemKeystore } : {}),
      ...opts.overrides,
    };
    const file = path.join(dir, `server-${n}.properties`);
    fs.writeFileSync(
      file,
      Object.entries(properties)
        .map(([k, v]) => `${k}=${v}\n`)
        .join(''),
    );
    files.push(file);
    const [java, ...args] = kafkaJava('kafka.tools.StorageTool', ['-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1']);
    const format = await runToEnd(java, [...args, 'format', '-t', id, '-c', file], 60_000);
    if (format.timedOut || format.proc.exitInfo?.code !== 0) {
      removeTempDir(dir);
      throw new Error(`kafka-storage format ${format.timedOut ? 'timed out' : describeExit(format.proc)}`);
    }
  }
  const flags = opts.jvmFlags ?? [...KAFKA_SERVER_HEAP, ...KAFKA_PERFORMANCE_FLAGS];
  const t0 = performance.now();
  const procs = files.map((file) => {
    const [java, ...args] = kafkaJava('kafka.Kafka', flags);
    return launch(java, [...args, file]);
  });
  const stop = async () => {
    await Promise.all(procs.map((p) => stopProc(p)));
    removeTempDir(dir);
  };
  const dead = () => {
    const p = procs.find((x) => x.exitInfo);
    return p ? `Kafka ${describeExit(p)}` : null;
  };
  try {
    const deadline = t0 + timeoutMs;
    let startMs: number | null = null;
    for (;;) {
      const { at, answer } = await waitForMetadata(HOST, ports[0], deadline, dead, 5);
      if (!answer.brokers.some((b) => b.port === ports[0])) throw new Error(`Kafka answered Metadata without listing itself on port ${ports[0]}`);
      startMs ??= at - t0;
      if (answer.brokers.length >= nodes) break;
      if (performance.now() > deadline) throw new Error(`Metadata lists ${answer.brokers.length} of ${nodes} Kafka nodes`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const output = () => procs.map((p) => p.stderr() + p.stdout().slice(-4000)).join('\n');
    return { bootstrap: (tls ? sslPorts : ports).map((p) => `${HOST}:${p}`).join(','), ports, clusterId: id, procs, startMs, output, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
