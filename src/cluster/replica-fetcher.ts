// The follower side of replication (Kafka's ReplicaFetcherManager and ReplicaFetcherThread): for each broker
// this one follows partitions of, one loop on one connection that copies the leader's log.
//
// A partition joins its leader's loop in the truncating state (KIP-101/279): the follower asks the leader
// (OffsetForLeaderEpoch, with its replica id) where the follower's latest leader epoch ends in the leader's
// log, and truncates its own log there, so that records a deposed leader appended but never committed do
// not survive; when the leader does not know that epoch, the answer names the leader's largest epoch below
// it and the follower truncates to where that epoch ends in its own log, then asks again. Then it fetches:
// Fetch requests with the follower's replica id and current leader epoch, from its log end offset, whose
// record batches are appended as they are (PartitionLog.appendAsFollower: the leader's offsets, epochs and
// bytes). Each response also carries the leader's high watermark (the follower's is the smaller of it and
// its own log end) and log start offset (the follower's moves up to it). A fetch out of the leader's log
// (OFFSET_OUT_OF_RANGE) truncates the follower to the leader's log end when it is past it (after an unclean
// election), or empties its log and restarts it at the leader's log start offset when it is below that
// (the leader deleted what the follower lacks).
// Errors that a leadership change explains (NOT_LEADER_OR_FOLLOWER, FENCED/UNKNOWN_LEADER_EPOCH: the
// controller's LeaderAndIsr is on its way) and unreachable leaders hold the partition back for
// replica.fetch.backoff.ms, then it is retried. The loop stops when it has no partition left.

import type tls from 'node:tls';
import type { SaslClientLogin } from '../security/sasl-client.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../logger.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { Partition } from '../partition/partition.js';
import type { ReplicaManager } from '../partition/replica-manager.js';
import { BrokerClient, INTER_BROKER_VERSIONS } from './broker-client.js';
import { API_KEYS } from '../../protocol/messages/index.js';
import type { DecodedResponseOf, ElementOf } from '../../protocol/schema.js';
import type { MessageFor } from '../../protocol/messages/index.js';

/** One partition of the leader's answer to a replica Fetch. */
type FetchedPartition = ElementOf<ElementOf<DecodedResponseOf<MessageFor<typeof API_KEYS.Fetch>>['responses']>['partitions']>;
const EARLIEST_TIMESTAMP = -2;
const LATEST_TIMESTAMP = -1;

export interface ReplicaFetchConfig {
  /** replica.fetch.wait.max.ms */
  maxWaitMs: number;
  /** replica.fetch.min.bytes */
  minBytes: number;
  /** replica.fetch.max.bytes */
  partitionMaxBytes: number;
  /** replica.fetch.response.max.bytes */
  maxBytes: number;
  /** replica.fetch.backoff.ms */
  backoffMs: number;
  /** replica.socket.timeout.ms */
  socketTimeoutMs: number;
}

export interface ReplicaFetcherOptions {
  localId: number;
  replicas: ReplicaManager;
  log: Logger;
  config: ReplicaFetchConfig;
  /** Where broker `id` listens, when known. */
  endpoint(id: number): { host: string; port: number } | undefined;
  /** TLS settings of the inter-broker listener, when it is SSL. */
  tls?: tls.ConnectionOptions;
  /** The SASL login of the inter-broker listener, when it is SASL. */
  sasl?: SaslClientLogin;
}

interface Followed {
  partition: Partition;
  /** The leader epoch this broker follows in: a newer LeaderAndIsr restarts truncation. */
  leaderEpoch: number;
  state: 'truncating' | 'fetching';
  /** Held back until then (Date.now() ms) after an error. */
  delayedUntil: number;
}

/** Every partition this broker follows, grouped by leader. */
export class ReplicaFetcherManager {
  private readonly fetchers = new Map<number, LeaderFetcher>();
  private closed = false;

  constructor(private readonly options: ReplicaFetcherOptions) {}

  /**
   * This broker follows `partition` (whose LeaderAndIsr was just applied) under its leader. A new leader or
   * leader epoch restarts the partition with truncation; the same one changes nothing.
   */
  follow(partition: Partition): void {
    if (this.closed) return;
    const leaderId = partition.leaderId;
    for (const [id, fetcher] of this.fetchers) if (id !== leaderId) fetcher.remove(partition);
    let fetcher = this.fetchers.get(leaderId);
    if (!fetcher) {
      fetcher = new LeaderFetcher(leaderId, this.options, () => {
        if (this.fetchers.get(leaderId) === fetcher) this.fetchers.delete(leaderId);
      });
      this.fetchers.set(leaderId, fetcher);
    }
    fetcher.add(partition);
  }

  /** This broker stops following `partition` (it leads it now, or is no replica of it). */
  unfollow(partition: Partition): void {
    for (const fetcher of this.fetchers.values()) fetcher.remove(partition);
  }

  /** The leader `partition` is fetched from, or -1 (for tests and DescribeLogDirs). */
  leaderOf(partition: Partition): number {
    for (const [id, fetcher] of this.fetchers) if (fetcher.has(partition)) return id;
    return -1;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.fetchers.values()].map((f) => f.close()));
    this.fetchers.clear();
  }
}

/** The loop that copies, from one leader, every partition this broker follows under it. */
class LeaderFetcher {
  private readonly partitions = new Map<Partition, Followed>();
  private client: BrokerClient | null = null;
  private clientAddress = '';
  private running: Promise<void> | null = null;
  private stopped = false;
  private readonly log: Logger;

  constructor(
    readonly leaderId: number,
    private readonly options: ReplicaFetcherOptions,
    private readonly onIdle: () => void,
  ) {
    this.log = options.log.child({ fetcher: leaderId });
  }

  has(partition: Partition): boolean {
    return this.partitions.has(partition);
  }

  add(partition: Partition): void {
    const current = this.partitions.get(partition);
    if (current && current.leaderEpoch === partition.leaderEpoch) return;
    this.partitions.set(partition, { partition, leaderEpoch: partition.leaderEpoch, state: 'truncating', delayedUntil: 0 });
    this.running ??= this.run().finally(() => {
      this.running = null;
      // A partition added while the loop was ending starts it again.
      if (this.partitions.size > 0 && !this.stopped) this.running = this.run();
    });
  }

  remove(partition: Partition): void {
    this.partitions.delete(partition);
  }

  async close(): Promise<void> {
    this.stopped = true;
    this.partitions.clear();
    this.client?.close();
    await this.running;
  }

  private connection(): BrokerClient | null {
    const endpoint = this.options.endpoint(this.leaderId);
    if (!endpoint) return null;
    const address = `${endpoint.host}:${endpoint.port}`;
    if (!this.client || this.clientAddress !== address) {
      this.client?.close();
      this.clientAddress = address;
      this.client = new BrokerClient({
        host: endpoint.host,
        port: endpoint.port,
        clientId: `krill-replica-fetcher-${this.options.localId}`,
        tls: this.options.tls,
        sasl: this.options.sasl,
        requestTimeoutMs: this.options.config.socketTimeoutMs + this.options.config.maxWaitMs,
        // The client's default bound (100 MiB): a response may exceed replica.fetch.response.max.bytes by a
        // first batch as large as a topic's max.message.bytes allows.
        log: this.log,
      });
    }
    return this.client;
  }

  private async run(): Promise<void> {
    const { backoffMs } = this.options.config;
    while (!this.stopped && this.partitions.size > 0) {
      const now = Date.now();
      const ready = [...this.partitions.values()].filter((f) => f.delayedUntil <= now && this.current(f));
      const client = this.connection();
      if (ready.length === 0 || !client) {
        await sleep(Math.min(backoffMs, 100));
        continue;
      }
      try {
        const truncating = ready.filter((f) => f.state === 'truncating');
        if (truncating.length > 0) await this.truncate(client, truncating);
        const fetching = ready.filter((f) => f.state === 'fetching' && this.current(f));
        if (fetching.length > 0) await this.fetch(client, fetching);
        else if (truncating.length === 0) await sleep(Math.min(backoffMs, 100));
      } catch (err) {
        if (this.stopped) return;
        this.log.warn({ leader: this.leaderId, err: (err as Error).message }, 'replica fetch from the leader failed; retrying');
        for (const f of ready) f.delayedUntil = Date.now() + backoffMs;
      }
    }
    this.client?.close();
    this.client = null;
    if (this.partitions.size === 0) this.onIdle();
  }

  /** Whether `f` is still followed as it was (no newer LeaderAndIsr replaced it, and its log is open). */
  private current(f: Followed): boolean {
    const p = f.partition;
    return this.partitions.get(p) === f && p.leaderId === this.leaderId && p.leaderEpoch === f.leaderEpoch && !p.log.isClosed;
  }

  private hold(f: Followed, why: string, errorCode?: number): void {
    f.delayedUntil = Date.now() + this.options.config.backoffMs;
    this.log.debug({ topic: f.partition.topic, partition: f.partition.index, errorCode }, why);
  }

  // --- truncation (KIP-101/279) --------------------------------------------------------------------------

  private async truncate(client: BrokerClient, list: Followed[]): Promise<void> {
    // A follower with no epoch (an empty log) has nothing that can diverge.
    const asking = list.filter((f) => {
      if (f.partition.log.leaderEpochs.latestEpoch >= 0) return true;
      f.state = 'fetching';
      return false;
    });
    if (asking.length === 0) return;
    const response = await client.send(API_KEYS.OffsetForLeaderEpoch, INTER_BROKER_VERSIONS.OffsetForLeaderEpoch, {
      replicaId: this.options.localId,
      topics: byTopic(asking).map(([topic, fs]) => ({
        topic,
        partitions: fs.map((f) => ({ partition: f.partition.index, currentLeaderEpoch: f.leaderEpoch, leaderEpoch: f.partition.log.leaderEpochs.latestEpoch })),
      })),
    });
    for (const t of response.topics) {
      for (const r of t.partitions) {
        const f = asking.find((x) => x.partition.topic === t.topic && x.partition.index === r.partition);
        if (!f || !this.current(f)) continue;
        if (r.errorCode !== ErrorCode.NONE) {
          this.hold(f, 'the leader cannot say where the epoch ends yet', r.errorCode);
          continue;
        }
        this.truncateTo(f, r.leaderEpoch, Number(r.endOffset));
      }
    }
  }

  /**
   * The leader says its largest epoch up to the one asked about is `leaderEpoch`, ending at `leaderEnd`.
   * As Kafka's AbstractFetcherThread: when this log has that epoch too, everything past the smaller end goes
   * and fetching starts; when it does not, its records from its next epoch on go and the question is asked
   * again with its new latest epoch.
   */
  private truncateTo(f: Followed, leaderEpoch: number, leaderEnd: number): void {
    const { partition } = f;
    const log = partition.log;
    let target: number;
    let done = true;
    if (leaderEnd < 0) {
      // The leader has no epoch at or below ours: keep what is certainly committed.
      target = Math.min(partition.highWatermark, log.logEndOffset);
    } else if (leaderEpoch < 0) {
      target = Math.min(leaderEnd, log.logEndOffset);
    } else {
      const mine = log.endOffsetForEpoch(leaderEpoch);
      if (mine.leaderEpoch < 0) target = Math.min(leaderEnd, log.logEndOffset);
      else if (mine.leaderEpoch === leaderEpoch) target = Math.min(leaderEnd, mine.endOffset);
      else {
        target = mine.endOffset;
        done = false;
      }
    }
    if (target < log.logEndOffset) {
      this.log.info(
        { topic: partition.topic, partition: partition.index, from: log.logEndOffset, to: target, leaderEpoch },
        "truncating the follower's log to the leader's",
      );
      log.truncateTo(target);
      partition.updateFollowerHighWatermark(partition.highWatermark);
    }
    f.state = done ? 'fetching' : 'truncating';
  }

  // --- fetching -------------------------------------------------------------------------------------------

  private async fetch(client: BrokerClient, list: Followed[]): Promise<void> {
    const { config, localId } = this.options;
    const response = await client.send(API_KEYS.Fetch, INTER_BROKER_VERSIONS.Fetch, {
      replicaId: localId,
      maxWaitMs: config.maxWaitMs,
      minBytes: config.minBytes,
      maxBytes: config.maxBytes,
      isolationLevel: 0,
      sessionId: 0,
      sessionEpoch: -1,
      topics: byTopic(list).map(([topic, fs]) => ({
        topic,
        partitions: fs.map((f) => ({
          partition: f.partition.index,
          currentLeaderEpoch: f.leaderEpoch,
          fetchOffset: f.partition.log.logEndOffset,
          lastFetchedEpoch: -1,
          logStartOffset: f.partition.log.logStartOffset,
          partitionMaxBytes: config.partitionMaxBytes,
        })),
      })),
      forgottenTopicsData: [],
      rackId: '',
    });
    if (response.errorCode) throw new Error(`the leader refused the fetch with error ${response.errorCode}`);
    for (const t of response.responses) {
      for (const r of t.partitions) {
        const f = list.find((x) => x.partition.topic === t.topic && x.partition.index === r.partitionIndex);
        if (!f || !this.current(f)) continue;
        await this.handlePartition(client, f, r);
      }
    }
  }

  private async handlePartition(client: BrokerClient, f: Followed, r: FetchedPartition): Promise<void> {
    const { partition } = f;
    const log = partition.log;
    switch (r.errorCode) {
      case ErrorCode.NONE: {
        const records = recordsBuffer(r.records);
        if (records.length > 0) {
          // To the back of the list, as Kafka's fetcher does: the leader may give the first partitions of a
          // request the whole response, and the others must get their turn.
          this.partitions.delete(partition);
          this.partitions.set(partition, f);
          log.appendAsFollower(records);
          // Nothing reads a follower's log as it grows, but a coordinator loading it may wait.
          this.options.replicas.fetchPurgatory.checkAndComplete(partition);
        }
        const leaderStart = Number(r.logStartOffset);
        if (leaderStart > log.logStartOffset) log.deleteRecordsBefore(Math.min(leaderStart, log.logEndOffset));
        partition.updateFollowerHighWatermark(Number(r.highWatermark));
        return;
      }
      case ErrorCode.OFFSET_OUT_OF_RANGE:
        await this.handleOutOfRange(client, f);
        return;
      case ErrorCode.FENCED_LEADER_EPOCH:
      case ErrorCode.UNKNOWN_LEADER_EPOCH:
      case ErrorCode.NOT_LEADER_OR_FOLLOWER:
      case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
      case ErrorCode.UNKNOWN_TOPIC_ID:
        this.hold(f, 'the leader does not serve this partition in this epoch yet', r.errorCode);
        return;
      default:
        this.log.warn({ topic: partition.topic, partition: partition.index, errorCode: r.errorCode }, 'the leader refused a replica fetch');
        this.hold(f, 'fetch error', r.errorCode);
    }
  }

  /**
   * The follower's log end is outside the leader's log, as Kafka's fetcher handles it: past the leader's log
   * end (a leader elected uncleanly has less than this follower had), the follower truncates to that end; below
   * the leader's log start (the leader deleted what the follower lacks: retention, DeleteRecords), it starts
   * over at the leader's log start offset.
   */
  private async handleOutOfRange(client: BrokerClient, f: Followed): Promise<void> {
    const { partition } = f;
    const leaderEnd = await this.leaderOffset(client, f, LATEST_TIMESTAMP);
    if (leaderEnd === null || !this.current(f)) return;
    const log = partition.log;
    if (log.logEndOffset > leaderEnd) {
      this.log.warn(
        { topic: partition.topic, partition: partition.index, from: log.logEndOffset, to: leaderEnd },
        "this follower has more than its leader: truncating to the leader's log end",
      );
      log.truncateTo(leaderEnd);
      partition.updateFollowerHighWatermark(partition.highWatermark);
      return;
    }
    const leaderStart = await this.leaderOffset(client, f, EARLIEST_TIMESTAMP);
    if (leaderStart === null || !this.current(f)) return;
    if (log.logEndOffset < leaderStart) {
      this.log.warn(
        { topic: partition.topic, partition: partition.index, from: log.logEndOffset, leaderStart },
        "the leader deleted records this follower lacks: starting its log over at the leader's log start",
      );
      log.truncateFullyAndStartAt(leaderStart);
      partition.updateFollowerHighWatermark(leaderStart);
    } else {
      this.hold(f, "the fetch offset was out of range but is within the leader's log now");
    }
  }

  /** The leader's earliest (-2) or latest (-1: its log end, for a replica) offset of `f`, or null. */
  private async leaderOffset(client: BrokerClient, f: Followed, timestamp: number): Promise<number | null> {
    const { partition } = f;
    const response = await client.send(API_KEYS.ListOffsets, INTER_BROKER_VERSIONS.ListOffsets, {
      replicaId: this.options.localId,
      isolationLevel: 0,
      topics: [{ name: partition.topic, partitions: [{ partitionIndex: partition.index, currentLeaderEpoch: f.leaderEpoch, timestamp }] }],
    });
    const r = response.topics[0]?.partitions[0];
    if (!r || r.errorCode !== ErrorCode.NONE) {
      this.hold(f, 'the leader did not give its offsets', r?.errorCode);
      return null;
    }
    return Number(r.offset);
  }
}

function byTopic(list: Followed[]): [string, Followed[]][] {
  const grouped = new Map<string, Followed[]>();
  for (const f of list) {
    const fs = grouped.get(f.partition.topic) ?? [];
    fs.push(f);
    grouped.set(f.partition.topic, fs);
  }
  return [...grouped];
}

/** The records field of a decoded fetch response: null, bytes, or (from krill's own encoder) chunks. */
function recordsBuffer(records: unknown): Buffer {
  if (!records) return Buffer.alloc(0);
  if (Buffer.isBuffer(records)) return records;
  if (Array.isArray(records)) return Buffer.concat(records as Buffer[]);
  return Buffer.alloc(0);
}
