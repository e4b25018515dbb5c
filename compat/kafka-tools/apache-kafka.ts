// A real Apache Kafka 4.4 broker in KRaft mode (one process, broker and controller), run from the classpath
// compat/kafka-tools/install.sh writes: a temporary log dir formatted with Kafka's storage tool, then
// `kafka.Kafka server.properties` on free ports, ready once it answers Metadata naming itself. For tests that
// hold krill's behaviour, or its tools, against Kafka's own, and for benchmarks that compare the two.
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KafkaClient } from '../../src/admin-cli/kafka-client.js';
import { freePort } from '../../bench/processes.js';
import { eventually, run, describeRun } from '../util.js';
import { javaArgs, toolsMissing } from './tools.js';

export { toolsMissing as apacheKafkaMissing };

export interface ApacheKafka {
  bootstrap: string;
  port: number;
  clusterId: string;
  /** What the broker wrote on stdout and stderr so far, for a failure's message. */
  output(): string;
  stop(): Promise<void>;
}

/** A cluster id as Kafka's Uuid.randomUuid() makes them: 16 random bytes, base64url, never starting with '-'. */
function clusterId(): string {
  for (;;) {
    const id = crypto.randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

/** Starts a one-node KRaft cluster with `overrides` added to its server.properties. */
export async function startApacheKafka(overrides: Record<string, string> = {}, timeoutMs = 120_000): Promise<ApacheKafka> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apache-kafka-'));
  const [port, controllerPort] = [await freePort(), await freePort()];
  const properties = {
    'process.roles': 'broker,controller',
    'node.id': '1',
    'controller.quorum.voters': `1@127.0.0.1:${controllerPort}`,
    listeners: `PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}`,
    'advertised.listeners': `PLAINTEXT://127.0.0.1:${port}`,
    'controller.listener.names': 'CONTROLLER',
    'listener.security.protocol.map': 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
    'inter.broker.listener.name': 'PLAINTEXT',
    'log.dirs': path.join(dir, 'logs'),
    'offsets.topic.replication.factor': '1',
    'transaction.state.log.replication.factor': '1',
    'transaction.state.log.min.isr': '1',
    'group.initial.rebalance.delay.ms': '0',
    ...overrides,
  };
  const file = path.join(dir, 'server.properties');
  fs.writeFileSync(
    file,
    Object.entries(properties)
      .map(([k, v]) => `${k}=${v}\n`)
      .join(''),
  );
  const id = clusterId();
  const [java, ...formatArgs] = javaArgs('kafka.tools.StorageTool');
  const format = await run(java, [...formatArgs, 'format', '-t', id, '-c', file], { timeoutMs: 60_000 });
  if (format.code !== 0) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(`kafka-storage format failed: ${describeRun(format)}`);
  }
  const [, ...serverArgs] = javaArgs('kafka.Kafka', '512m');
  const proc: ChildProcess = spawn(java, [...serverArgs, file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const keep = (d: Buffer) => (out = (out + d.toString()).slice(-20_000));
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGTERM');
      const killer = setTimeout(() => proc.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(killer);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const bootstrap = `127.0.0.1:${port}`;
  try {
    await eventually(
      `Apache Kafka answering on ${bootstrap}`,
      async () => {
        if (proc.exitCode !== null) throw new Error(`Apache Kafka exited with ${proc.exitCode}: ${out}`);
        let client: KafkaClient | undefined;
        try {
          client = await KafkaClient.connect(bootstrap, 2000);
          const md = await client.metadata([]);
          return md.brokers.some((b) => b.port === port) ? true : undefined;
        } catch {
          return undefined;
        } finally {
          client?.close();
        }
      },
      timeoutMs,
      200,
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { bootstrap, port, clusterId: id, output: () => out, stop };
}
