// Shared helpers for the cluster compat suites (compat/cluster/*.test.ts): a krill cluster of three brokers
// joined through a real Debian ZooKeeper (startCluster), read back with real clients and a ZooKeeper client.
//
// - describeCluster: the suite runs when ZooKeeper and java are installed; without them it is skipped,
//   except under CI=true, where CI installs ZooKeeper and a missing one is a failure.
// - metadataFrom: one broker's own answer to Metadata (a connection to that broker alone), for checks that
//   must not depend on which broker a client library happens to ask (kafkajs and librdkafka pick any).
// - settled: bounded polling until every running broker's Metadata shows a topic's partitions all led;
//   createSettledTopic makes a topic and waits for that.
// - killUnderLoad: a broker killed while a client's driver sends, the driver counting its acknowledgements in
//   a progress file and stopping when a stop file appears.
// - ZkReader: raw znodes (JSON parsed, with czxid), as an operator's zkCli would read them.
// - measure: the `[measure]` log line the lead collects figures from; tests assert outcomes only.
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'vitest';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { startCluster, type ClusterStartOptions, type RunningCluster } from '../../src/embedded-cluster.js';
import { zookeeperInstalled } from '../../src/cluster/zookeeper-server.js';
import { ZkClient } from '../../src/cluster/zk/zk-client.js';
import { TestClient } from '../../test/server/client.js';
import { eventually } from '../util.js';
import type { Json } from '../util.js';

export { eventually };

const INSTALL_HINT = 'apt-get install zookeeper default-jre-headless';

/** describe(name) when ZooKeeper can be started; skipped otherwise, failing instead when CI=true. */
export function describeCluster(name: string, options: { timeout: number }, suite: () => void): void {
  if (zookeeperInstalled()) {
    describe(name, options, suite);
  } else if (process.env.CI === 'true') {
    describe(name, () => {
      it('has ZooKeeper installed (required when CI=true)', () => {
        throw new Error(`Debian's ZooKeeper or java is missing (${INSTALL_HINT})`);
      });
    });
  } else {
    describe.skip(`${name} — SKIPPED: ZooKeeper not installed (${INSTALL_HINT}); required when CI=true`, () => {
      it('needs ZooKeeper', () => {});
    });
  }
}

/** Starts a cluster and logs how long it took to form (every broker ready). */
export async function formCluster(label: string, options: ClusterStartOptions): Promise<RunningCluster> {
  const t0 = performance.now();
  const cluster = await startCluster(options);
  measure(`${label}: ${cluster.brokers.length}-broker cluster formed (processes: ${!!options.processes})`, performance.now() - t0);
  return cluster;
}

export function measure(what: string, ms: number): void {
  console.log(`[measure] ${what}: ${Math.round(ms)} ms`);
}

let seq = 0;
export const unique = (label: string): string => `cluster-${label}-${process.pid}-${++seq}`;

export function kafka(bootstrap: string | string[], clientId = 'krill-cluster-compat'): Kafka {
  return new Kafka({
    clientId,
    brokers: Array.isArray(bootstrap) ? bootstrap : bootstrap.split(','),
    logLevel: logLevel.NOTHING,
    retry: { retries: 8, initialRetryTime: 100, maxRetryTime: 1000 },
  });
}

/** A connected kafkajs admin; the caller disconnects it. */
export async function adminOf(bootstrap: string | string[]): Promise<Admin> {
  const admin = kafka(bootstrap).admin();
  await admin.connect();
  return admin;
}

export interface BrokerMetadata {
  clusterId: string | null;
  controllerId: number;
  brokers: { nodeId: number; host: string; port: number }[];
  topics: {
    name: string;
    errorCode: number;
    partitions: { partitionIndex: number; errorCode: number; leaderId: number; leaderEpoch: number; replicaNodes: number[]; isrNodes: number[] }[];
  }[];
}

/** Metadata v9 as one broker answers it (topics: null = all of them). Rejects when the broker is unreachable. */
export async function metadataFrom(port: number, topics: string[] | null = null): Promise<BrokerMetadata> {
  const client = await TestClient.connect(port);
  try {
    const body = await client.request(3, 9, {
      topics: topics === null ? null : topics.map((name) => ({ name })),
      allowAutoTopicCreation: false,
      includeClusterAuthorizedOperations: false,
      includeTopicAuthorizedOperations: false,
    });
    return body as unknown as BrokerMetadata;
  } finally {
    client.close();
  }
}

/** The partitions of `topic` in one broker's Metadata, sorted by index. */
export async function partitionsFrom(port: number, topic: string): Promise<BrokerMetadata['topics'][number]['partitions']> {
  const md = await metadataFrom(port, [topic]);
  const t = md.topics.find((x) => x.name === topic);
  return [...(t?.partitions ?? [])].sort((a, b) => a.partitionIndex - b.partitionIndex);
}

export interface ZNode<T = Json> {
  json: T;
  raw: string;
  czxid: bigint;
  ephemeralOwner: string | null;
}

/** Reads znodes of a cluster's chroot as raw JSON. */
export class ZkReader {
  private constructor(private readonly zk: ZkClient) {}

  static async open(zookeeperConnect: string): Promise<ZkReader> {
    const quiet = { info() {}, warn() {} };
    return new ZkReader(await ZkClient.connect({ connect: zookeeperConnect, sessionTimeoutMs: 10_000, connectionTimeoutMs: 10_000, log: quiet }));
  }

  /** The znode's data (JSON-parsed when it parses, else the raw text in `json`), or null when absent. */
  async get<T = Json>(path: string): Promise<ZNode<T> | null> {
    const node = await this.zk.getData(path);
    if (!node) return null;
    const raw = node.data?.toString('utf8') ?? '';
    let json: Json = raw;
    try {
      json = JSON.parse(raw);
    } catch {
      // not JSON (e.g. /controller_epoch is a bare number, which parses anyway)
    }
    return { json, raw, czxid: node.czxid, ephemeralOwner: node.ephemeralOwner };
  }

  children(path: string): Promise<string[]> {
    return this.zk.getChildren(path);
  }

  close(): Promise<void> {
    return this.zk.close();
  }
}

/** Polls until every listed broker names the same controller, other than `not`; returns it. */
export async function agreedController(ports: number[], not?: number, timeoutMs = 30_000): Promise<number> {
  return eventually(
    `one controller${not === undefined ? '' : ` other than ${not}`} on brokers at ${ports.join(', ')}`,
    async () => {
      const seen = await Promise.all(
        ports.map((p) =>
          metadataFrom(p).then(
            (m) => m.controllerId,
            () => -1,
          ),
        ),
      );
      const first = seen[0];
      return first >= 0 && first !== not && seen.every((c) => c === first) ? first : undefined;
    },
    timeoutMs,
    50,
  );
}

/**
 * Waits until every running broker's Metadata shows every partition of `topic` with a leader; returns the
 * first broker's view. On a timeout the error carries the last views, so a failure says who lagged.
 */
export async function settled(cluster: RunningCluster, topic: string, partitions: number): Promise<BrokerMetadata['topics'][number]['partitions']> {
  let last: unknown = null;
  try {
    return await eventually(`${topic}: ${partitions} partitions led, on every broker`, async () => {
      const running = cluster.brokers.filter((b) => b.running);
      const views = await Promise.all(running.map((b) => partitionsFrom(b.port, topic)));
      last = Object.fromEntries(running.map((b, i) => [b.id, views[i]]));
      const ok = views.every((v) => v.length === partitions && v.every((x) => x.errorCode === 0 && x.leaderId >= 0));
      return ok ? views[0] : undefined;
    });
  } catch (err) {
    throw new Error(`${(err as Error).message}; last views by broker: ${JSON.stringify(last)}`);
  }
}

/** Creates `topic` (replication factor 3 unless told) and waits until it is settled; returns settled's view. */
export async function createSettledTopic(
  cluster: RunningCluster,
  topic: string,
  partitions: number,
  replicationFactor = 3,
): Promise<BrokerMetadata['topics'][number]['partitions']> {
  const admin = await adminOf(cluster.bootstrap);
  try {
    await admin.createTopics({ topics: [{ topic, numPartitions: partitions, replicationFactor }], waitForLeaders: true });
  } finally {
    await admin.disconnect();
  }
  return settled(cluster, topic, partitions);
}

/** The files through which a test and a client's driver talk during killUnderLoad. */
export interface LoadFiles {
  /** The driver keeps the count of acknowledged sends here (replaced atomically). */
  progress: string;
  /** The driver stops sending once this exists. */
  stop: string;
}

/**
 * Kills `victim` under a client's load: `start` runs the driver with the files (in `dir`, named by `label`);
 * once `before` sends are acknowledged the victim is killed, and once `after` more are, the driver is told to
 * stop. Returns the driver's result. A driver that fails meanwhile ends the waits at once, and its error is
 * what this throws.
 */
export async function killUnderLoad<T>(
  dir: string,
  label: string,
  victim: { kill(): Promise<void> },
  start: (files: LoadFiles) => Promise<T>,
  counts: { before: number; after: number; beforeTimeoutMs?: number; afterTimeoutMs?: number },
): Promise<T> {
  const files = { progress: path.join(dir, `${label}.progress`), stop: path.join(dir, `${label}.stop`) };
  const acked = () => (fs.existsSync(files.progress) ? Number(fs.readFileSync(files.progress, 'utf8')) : 0);
  const driver = start(files);
  const failed = driver.then(
    () => false,
    () => true,
  );
  const ended = () => Promise.race([failed, Promise.resolve(false)]);
  try {
    await eventually(
      `${label}: ${counts.before} acknowledged before the kill`,
      async () => ((await ended()) || acked() >= counts.before ? true : undefined),
      counts.beforeTimeoutMs ?? 60_000,
    );
    await victim.kill();
    const atKill = acked();
    await eventually(
      `${label}: ${counts.after} more acknowledged after the kill`,
      async () => ((await ended()) || acked() >= atKill + counts.after ? true : undefined),
      counts.afterTimeoutMs ?? 90_000,
    );
  } finally {
    fs.writeFileSync(files.stop, '');
  }
  return driver;
}
