// Helpers for the replication suites (compat/cluster/*): confluent-kafka-python clients that keep running
// while a test kills, pauses or restarts brokers (compat/python/replication_client.py, steered through a
// stop file and read through a progress file), the record-by-record loss check, and the partition state
// ZooKeeper holds (leader, leader epoch, ISR) as the controller writes it.
//
// - startLoad / startGroupConsumer: the client runs in the background; progress() reads its latest
//   snapshot, finish() creates the stop file and returns its full report.
// - readAll: every record up to the high watermarks, through a fresh consumer.
// - lossCheck: every acknowledged record is in the log at the offset its delivery report gave, and no value
//   is in the log twice (idempotence).
// - zkState / waitState / fullIsr: /brokers/topics/<t>/partitions/<p>/state.
// - useProcessCluster: the file's one cluster (brokers as child processes, for kill/pause) and its ZkReader.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { ConfigValue } from '../../src/config.js';
import type { RunningCluster } from '../../src/embedded-cluster.js';
import { py, type PyRunner } from '../python/py.js';
import { eventually, formCluster, kafka, ZkReader } from './cluster-util.js';

const SCRIPT = 'replication_client.py';

export interface ProcessCluster {
  readonly cluster: RunningCluster;
  readonly zk: ZkReader;
}

/**
 * Registers (call it inside the suite) the start of a 3-broker cluster of child processes with `config`, and a
 * ZooKeeper reader, before the suite's tests; after them a paused broker is resumed and everything closed.
 */
export function useProcessCluster(label: string, config: Record<string, ConfigValue>, startTimeoutMs: number): ProcessCluster {
  let cluster: RunningCluster | undefined;
  let zk: ZkReader | undefined;
  beforeAll(async () => {
    cluster = await formCluster(label, { brokers: 3, processes: true, config });
    zk = await ZkReader.open(cluster.zookeeperConnect);
  }, startTimeoutMs);
  afterAll(async () => {
    for (const b of cluster?.brokers ?? []) b.resume();
    await zk?.close();
    await cluster?.close();
  }, 60_000);
  const started = <T>(x: T | undefined): T => {
    if (x === undefined) throw new Error(`${label}: the cluster has not started`);
    return x;
  };
  return {
    get cluster() {
      return started(cluster);
    },
    get zk() {
      return started(zk);
    },
  };
}

/** kafkajs, to partition 0 of `topic` with `acks`; resolves to the base offset the leader gave. */
export async function produceToPartition0(bootstrap: string, topic: string, values: string[], acks: -1 | 1): Promise<string> {
  const producer = kafka(bootstrap).producer();
  await producer.connect();
  try {
    const [meta] = await producer.send({ topic, acks, messages: values.map((value) => ({ partition: 0, value })) });
    return meta.baseOffset!;
  } finally {
    await producer.disconnect();
  }
}

export interface DeliveryReport {
  value: string;
  partition?: number;
  offset?: number;
  /** ms since the epoch, when the report arrived. */
  at?: number;
  error?: string;
}

export interface LoadResult {
  reports: DeliveryReport[];
  undelivered: number;
  client_errors: { error: string; fatal: boolean; message: string; at: number }[];
  /** The error that stopped produce() (a fatal one), or null. */
  produce_error: string | null;
}

export interface LoadProgress {
  sent: number;
  acked: number;
  failed: number;
  last_ack_by_partition: Record<string, { at: number; offset: number }>;
  errors: number;
}

export interface GroupResult {
  consumed: [number, number, string][];
  commits: { at: number; offsets: Record<string, number>; error: string | null }[];
  assignments: { at: number; assigned?: number[]; revoked?: number[] }[];
  errors: string[];
}

export interface GroupProgress {
  consumed: number;
  commits_ok: number;
  last_commit_ok_at: number | null;
  last_commit_error: string | null;
  errors: string[];
}

/** A python client running in the background until finish(). */
export class Background<P, R> {
  private constructor(
    private readonly dir: string,
    private readonly result: Promise<R>,
  ) {
    // Surfaces through finish(); an unobserved rejection must not fail the run before that.
    result.catch(() => undefined);
  }

  /** `runner`: the interpreter (Debian's python by default; compat/pypi's venv runs librdkafka 2.x). */
  static start<P, R>(command: string, args: object, maxSeconds: number, runner: PyRunner = py): Background<P, R> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'krill-repl-'));
    const files = { stop_file: path.join(dir, 'stop'), progress_file: path.join(dir, 'progress.json'), max_seconds: maxSeconds };
    // The driver's own bound (max_seconds) plus its final flush, then py's hard kill.
    const result = runner<R>(SCRIPT, command, { ...args, ...files }, (maxSeconds + 90) * 1000);
    return new Background<P, R>(dir, result);
  }

  /** The latest snapshot, or null before the first. */
  progress(): P | null {
    try {
      return JSON.parse(fs.readFileSync(path.join(this.dir, 'progress.json'), 'utf8')) as P;
    } catch {
      return null;
    }
  }

  /** Polls progress() until `ready` accepts it; returns that snapshot. */
  until(what: string, ready: (p: P) => boolean, timeoutMs = 60_000): Promise<P> {
    return eventually(
      what,
      () => {
        const p = this.progress();
        return p !== null && ready(p) ? p : undefined;
      },
      timeoutMs,
      50,
    );
  }

  /** Asks the client to stop and returns its report. */
  async finish(): Promise<R> {
    fs.writeFileSync(path.join(this.dir, 'stop'), '');
    try {
      return await this.result;
    } finally {
      fs.rmSync(this.dir, { recursive: true, force: true });
    }
  }
}

export type Load = Background<LoadProgress, LoadResult>;

/** An idempotent acks=all producer (`conf` overrides) sending `<prefix>-<n>` round robin over `partitions` partitions at `rate`/s. */
export function startLoad(
  bootstrap: string,
  topic: string,
  opts: { prefix: string; partitions: number; rate?: number; maxSeconds?: number; conf?: Record<string, unknown>; runner?: PyRunner },
): Load {
  return Background.start(
    'produce_load',
    { bootstrap, topic, prefix: opts.prefix, partitions: opts.partitions, rate: opts.rate ?? 100, conf: opts.conf ?? {} },
    opts.maxSeconds ?? 150,
    opts.runner,
  );
}

export type GroupConsumer = Background<GroupProgress, GroupResult>;

/** A group member committing synchronously every `commitEvery` records; finish() closes it without a last commit. */
export function startGroupConsumer(
  bootstrap: string,
  topic: string,
  group: string,
  opts: { commitEvery?: number; rate?: number; maxSeconds?: number } = {},
): GroupConsumer {
  return Background.start('group_consume', { bootstrap, topic, group, commit_every: opts.commitEvery ?? 20, rate: opts.rate ?? 200 }, opts.maxSeconds ?? 150);
}

export type LogRecord = [partition: number, offset: number, value: string];

/** Every record of `topic` (partitions 0..n-1) up to the high watermarks, read by a fresh consumer. */
export async function readAll(bootstrap: string, topic: string, partitions: number, runner: PyRunner = py): Promise<LogRecord[]> {
  const r = await runner<{ records: LogRecord[]; highs: Record<string, number>; next: Record<string, number>; errors: string[] }>(
    SCRIPT,
    'read_all',
    { bootstrap, topic, partitions: Array.from({ length: partitions }, (_, i) => i), timeout: 40 },
    60_000,
  );
  for (const [p, high] of Object.entries(r.highs)) {
    if (r.next[p] < high) throw new Error(`read_all ${topic}: partition ${p} read to ${r.next[p]} of ${high} (errors: ${r.errors.join(', ')})`);
  }
  return r.records;
}

export interface LossReport {
  acked: number;
  /** Acknowledged records not at their reported offset (missing or another value there). */
  lost: string[];
  /** Values found more than once in the log. */
  duplicated: string[];
  /** Delivery reports with an error (not acknowledged: the client knows they may be lost). */
  failed: DeliveryReport[];
}

/** Compares a producer's delivery reports with the log, record by record. */
export function lossCheck(reports: DeliveryReport[], log: LogRecord[]): LossReport {
  const at = new Map(log.map(([p, o, v]) => [`${p}:${o}`, v]));
  const seen = new Map<string, number>();
  for (const [, , v] of log) seen.set(v, (seen.get(v) ?? 0) + 1);
  const acked = reports.filter((r) => r.error === undefined && r.offset !== undefined);
  const lost = acked
    .filter((r) => at.get(`${r.partition}:${r.offset}`) !== r.value)
    .map((r) => `${r.value}@${r.partition}:${r.offset} (log has ${at.get(`${r.partition}:${r.offset}`) ?? 'nothing'})`);
  const duplicated = [...seen].filter(([, n]) => n > 1).map(([v, n]) => `${v} x${n}`);
  return { acked: acked.length, lost, duplicated, failed: reports.filter((r) => r.error !== undefined || r.offset === undefined) };
}

/**
 * When `partitions` acknowledged records again after an outage that began at `since` (ms since the epoch): per
 * partition, the first acknowledgement after `since` that follows a silence of more than `gapMs` (responses in
 * flight when the leader stopped arrive just after `since`); the latest of those over the partitions.
 */
export function firstAckAfterOutage(reports: DeliveryReport[], partitions: number[], since: number, gapMs = 1000): number {
  let latest = -1;
  for (const p of partitions) {
    const times = reports
      .filter((r) => r.partition === p && r.error === undefined && r.at !== undefined)
      .map((r) => r.at!)
      .sort((a, b) => a - b);
    let previous = -Infinity;
    let found = -1;
    for (const t of times) {
      if (t > since && t - Math.max(previous, since) > gapMs) {
        found = t;
        break;
      }
      previous = t;
    }
    if (found < 0) throw new Error(`partition ${p}: no acknowledgement after a silence since ${since}`);
    latest = Math.max(latest, found);
  }
  return latest;
}

export interface PartitionState {
  controller_epoch: number;
  leader: number;
  version: number;
  leader_epoch: number;
  isr: number[];
}

export async function zkState(zk: ZkReader, topic: string, p: number): Promise<PartitionState> {
  const node = await zk.get<PartitionState>(`/brokers/topics/${topic}/partitions/${p}/state`);
  if (!node) throw new Error(`no state znode for ${topic}-${p}`);
  return node.json;
}

/** Polls the state znode of `topic`-`p` until `ok` accepts it; returns it. */
export function waitState(
  zk: ZkReader,
  topic: string,
  p: number,
  what: string,
  ok: (s: PartitionState) => boolean,
  timeoutMs = 30_000,
): Promise<PartitionState> {
  let last: PartitionState | null = null;
  return eventually(
    `${topic}-${p}: ${what}`,
    async () => {
      last = await zkState(zk, topic, p);
      return ok(last) ? last : undefined;
    },
    timeoutMs,
    50,
  ).catch((err: Error) => {
    throw new Error(`${err.message}; last state ${JSON.stringify(last)}`);
  });
}

/** Waits until every partition of `topic` has a leader and all `replicas` brokers in its ISR. */
export async function fullIsr(zk: ZkReader, topic: string, partitions: number, replicas = 3, timeoutMs = 45_000): Promise<PartitionState[]> {
  const out: PartitionState[] = [];
  for (let p = 0; p < partitions; p++)
    out.push(await waitState(zk, topic, p, `leader and ${replicas} in the ISR`, (s) => s.leader > 0 && s.isr.length === replicas, timeoutMs));
  return out;
}

/**
 * Longer than replica.fetch.wait.max.ms (500 ms), the longest a follower's fetch waits at its leader: after
 * pausing a follower this long, the fetch it sent just before has been answered (its answer waiting in the
 * frozen follower's socket), so records written from then on cannot reach it at resume().
 */
export const FETCH_DRAIN_MS = 1500;

/** `n` ms of waiting that is no assertion (letting a long poll in flight run out, e.g.). */
export const pauseFor = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
