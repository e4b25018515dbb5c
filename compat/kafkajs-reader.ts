// Reads partitions back through kafkajs's own protocol layer (its Cluster, Broker and Fetch/record-batch
// decoders), without a consumer group: krill does not serve FindCoordinator/JoinGroup yet, so kafkajs's
// group consumer cannot run, but its Fetch client code is the same unmodified code the consumer uses.
// Shared by the compat suites that need an independent reader.

import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/* eslint-disable @typescript-eslint/no-explicit-any */
const kafkajs = require('kafkajs');
const Cluster = require('kafkajs/src/cluster');
const { createLogger } = require('kafkajs/src/loggers');
const LoggerConsole = require('kafkajs/src/loggers/console');
const defaultSocketFactory = require('kafkajs/src/network/socketFactory');

/** One record as kafkajs's decoder returns it. */
export interface KafkajsRecord {
  offset: string;
  timestamp: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: Record<string, Buffer | Buffer[]>;
}

export interface PartitionRead {
  records: KafkajsRecord[];
  highWatermark: bigint;
  logStartOffset: bigint;
}

/** A record with Buffers turned into utf-8 strings, for exact comparisons. */
export interface SimpleRecord {
  offset: number;
  timestamp: string;
  key: string | null;
  value: string | null;
  headers: Record<string, string | string[]>;
}

export function simplify(r: KafkajsRecord): SimpleRecord {
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(r.headers ?? {})) {
    headers[k] = Array.isArray(v) ? v.map((b) => b.toString('utf8')) : v.toString('utf8');
  }
  return {
    offset: Number(r.offset),
    timestamp: r.timestamp,
    key: r.key === null ? null : r.key.toString('utf8'),
    value: r.value === null ? null : r.value.toString('utf8'),
    headers,
  };
}

export class KafkajsReader {
  private readonly cluster: any;
  private connected = false;

  constructor(bootstrap: string, opts: { requestTimeout?: number } = {}) {
    this.cluster = new Cluster({
      logger: createLogger({ level: kafkajs.logLevel.NOTHING, logCreator: LoggerConsole }),
      socketFactory: defaultSocketFactory(),
      brokers: [bootstrap],
      clientId: 'krill-compat-reader',
      connectionTimeout: 3000,
      requestTimeout: opts.requestTimeout ?? 10_000,
      enforceRequestTimeout: true,
      metadataMaxAge: 300_000,
      retry: { retries: 3, initialRetryTime: 100, maxRetryTime: 1000 },
      allowAutoTopicCreation: false,
    });
  }

  async connect(): Promise<void> {
    if (!this.connected) {
      await this.cluster.connect();
      this.connected = true;
    }
  }

  /** kafkajs's Broker object for the controller (its typed request methods, e.g. createTopics). */
  async controllerBroker(): Promise<any> {
    await this.connect();
    await this.cluster.refreshMetadata();
    return this.cluster.findControllerBroker();
  }

  /** The API keys the broker advertises in ApiVersions, as kafkajs reads them. */
  async advertisedApiKeys(): Promise<Set<number>> {
    const broker = await this.controllerBroker();
    const versions = await broker.apiVersions();
    return new Set(Object.keys(versions).map(Number));
  }

  /**
   * Fetches one partition from `fromOffset` until the high watermark, waiting (bounded by timeoutMs)
   * until at least `minCount` records have arrived. Records before fromOffset that come back as part of
   * a batch are dropped, as a consumer would.
   */
  async readPartition(
    topic: string,
    partition: number,
    opts: { fromOffset?: bigint; minCount?: number; timeoutMs?: number; partitionMaxBytes?: number } = {},
  ): Promise<PartitionRead> {
    await this.connect();
    await this.cluster.addTargetTopic(topic);
    await this.cluster.refreshMetadata();
    const byLeader = this.cluster.findLeaderForPartitions(topic, [partition]);
    const nodeId = Object.keys(byLeader)[0];
    if (nodeId === undefined) throw new Error(`no leader for ${topic}-${partition}`);
    const broker = await this.cluster.findBroker({ nodeId });

    const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
    const minCount = opts.minCount ?? 0;
    let offset = opts.fromOffset ?? 0n;
    const records: KafkajsRecord[] = [];
    let highWatermark = -1n;
    let logStartOffset = -1n;
    for (;;) {
      const response = await broker.fetch({
        maxWaitTime: 100,
        minBytes: 1,
        maxBytes: 10 * 1024 * 1024,
        isolationLevel: 0,
        topics: [{ topic, partitions: [{ partition, fetchOffset: offset.toString(), maxBytes: opts.partitionMaxBytes ?? 4 * 1024 * 1024 }] }],
      });
      const p = response.responses.find((t: any) => t.topicName === topic)?.partitions.find((x: any) => x.partition === partition);
      if (!p) throw new Error(`fetch response lacks ${topic}-${partition}`);
      if (p.errorCode !== 0) throw new Error(`fetch ${topic}-${partition} failed with error code ${p.errorCode}`);
      highWatermark = BigInt(p.highWatermark);
      logStartOffset = BigInt(p.lastStartOffset);
      for (const m of p.messages as any[]) {
        if (m.isControlRecord) continue;
        if (BigInt(m.offset) < offset) continue;
        records.push({ offset: m.offset, timestamp: m.timestamp, key: m.key, value: m.value, headers: m.headers });
        offset = BigInt(m.offset) + 1n;
      }
      if (offset >= highWatermark && records.length >= minCount) break;
      if (Date.now() > deadline) {
        throw new Error(
          `timed out reading ${topic}-${partition}: have ${records.length} records (wanted ${minCount}), next offset ${offset}, high watermark ${highWatermark}`,
        );
      }
      if (offset >= highWatermark) await new Promise((r) => setTimeout(r, 50));
    }
    return { records, highWatermark, logStartOffset };
  }

  /** One raw Fetch (kafkajs Broker.fetch, decoded by kafkajs) for a single partition; returns that partition's response. */
  async fetchOnce(topic: string, partition: number, fetchOffset: bigint, partitionMaxBytes = 1024 * 1024): Promise<any> {
    await this.connect();
    await this.cluster.addTargetTopic(topic);
    const nodeId = Object.keys(this.cluster.findLeaderForPartitions(topic, [partition]))[0];
    const broker = await this.cluster.findBroker({ nodeId });
    const response = await broker.fetch({
      maxWaitTime: 100,
      minBytes: 1,
      isolationLevel: 0,
      topics: [{ topic, partitions: [{ partition, fetchOffset: fetchOffset.toString(), maxBytes: partitionMaxBytes }] }],
    });
    return response.responses.find((t: any) => t.topicName === topic).partitions.find((x: any) => x.partition === partition);
  }

  async close(): Promise<void> {
    if (this.connected) await this.cluster.disconnect();
    this.connected = false;
  }
}
