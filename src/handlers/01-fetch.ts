// Fetch: v4-17.
// Behaviour: long-polls up to maxWaitMs until minBytes are available, waiting in the replica manager's fetch
// purgatory and woken at once by an append to any partition in the request. The response respects maxBytes and each partitionMaxBytes, except that the
// first batch of the first partition with data is always returned whole (KIP-74). Returned bytes may
// start with a batch whose baseOffset is below fetchOffset; clients skip those records, as with Kafka.
// Fetch sessions (KIP-227) are declined: every response says sessionId 0, which tells clients to keep
// sending full requests; a request naming a session gets FETCH_SESSION_ID_NOT_FOUND.
// read_committed (isolationLevel 1) stops at the last stable offset and lists the aborted transactions in what
// it returns (from the segments' .txnindex); read_uncommitted answers abortedTransactions null.
// currentLeaderEpoch (v9+) is checked as Kafka does: older than the partition's is FENCED_LEADER_EPOCH, newer
// UNKNOWN_LEADER_EPOCH. Consumers read up to the high watermark. A follower (replicaId, or replicaState from
// v15, >= 0) reads up to the log end offset, waits for the log end to move rather than the high watermark,
// and its fetch offset tells the leader how far it has copied (ReplicaManager.recordFollowerFetch).
// Version notes: topic ids replace names from v13 (KIP-516); lastStableOffset is the partition's;
// preferredReadReplica is always -1 (no KIP-392 rack-aware reads); divergingEpoch is never set: followers
// truncate through OffsetForLeaderEpoch before fetching (KIP-101), not from fetch responses (KIP-595).
import { ErrorCode } from '../../protocol/errors.js';
import { asKafkaError } from './error-result.js';
import { defineHandler } from './registry.js';
import { lastOfEach } from './repeated-entries.js';
import type { FetchRequest, FetchResponse } from '../../protocol/messages/01-fetch.js';
import type { Partition } from '../partition/partition.js';
import type { ReplicaManager } from '../partition/replica-manager.js';
import type { TopicAdmin } from '../topics.js';
import type { BrokerMetrics } from '../metrics/broker-metrics.js';

const EMPTY = Buffer.alloc(0);
const READ_COMMITTED = 1;

type FetchTopic = FetchRequest['topics'][number];
type PartitionData = FetchResponse['responses'][number]['partitions'][number];

interface Target {
  topic: FetchTopic;
  partition: FetchTopic['partitions'][number];
  replica: Partition | undefined;
  errorCode: number;
  /** The partition's leader epoch when the request was resolved. */
  leaderEpoch: number;
}

function resolveTargets(replicas: ReplicaManager, topics: TopicAdmin, req: FetchRequest, byId: boolean): Target[] {
  const targets: Target[] = [];
  for (const t of req.topics) {
    const topic = byId ? topics.getTopicById(t.topicId) : topics.getTopic(t.topic);
    for (const p of t.partitions) {
      const found = topic ? replicas.leaderPartition(topic.name, p.partition) : undefined;
      let replica = typeof found === 'object' ? found : undefined;
      let errorCode = replica
        ? ErrorCode.NONE
        : byId && !topic
          ? ErrorCode.UNKNOWN_TOPIC_ID
          : typeof found === 'number'
            ? found
            : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
      const fenced = replica?.checkLeaderEpoch(p.currentLeaderEpoch);
      if (fenced) {
        replica = undefined;
        errorCode = ErrorCode[fenced];
      }
      targets.push({ topic: t, partition: p, replica, errorCode, leaderEpoch: replica?.leaderEpoch ?? -1 });
    }
  }
  return targets;
}

/**
 * A follower's fetch offsets are how far it has copied: recorded at each read, as the leader's Partition does;
 * an offset outside the leader's log (the read answers OFFSET_OUT_OF_RANGE) says nothing of the follower.
 */
function recordFollowerFetches(replicas: ReplicaManager, targets: Target[], replicaId: number): void {
  const now = Date.now();
  for (const { replica, partition } of targets) {
    if (!replica || partition.fetchOffset > replica.logEndOffset || partition.fetchOffset < replica.logStartOffset) continue;
    replicas.recordFollowerFetch(replica, replicaId, partition.fetchOffset, now);
  }
}

/**
 * After a wait: a partition this broker stopped leading is NOT_LEADER_OR_FOLLOWER, one led in another epoch
 * FENCED_LEADER_EPOCH, rather than read (or recorded) under a term the request was not resolved in.
 */
function revalidate(targets: Target[]): void {
  for (const t of targets) {
    if (!t.replica) continue;
    if (!t.replica.isLeader) t.errorCode = ErrorCode.NOT_LEADER_OR_FOLLOWER;
    else if (t.replica.leaderEpoch !== t.leaderEpoch) t.errorCode = ErrorCode.FENCED_LEADER_EPOCH;
    else continue;
    t.replica = undefined;
  }
}

function readAll(targets: Target[], maxBytes: number, readCommitted: boolean, follower: boolean) {
  let total = 0;
  let errors = false;
  const results = targets.map(({ partition: p, replica, errorCode }) => {
    const base: PartitionData = {
      partitionIndex: p.partition,
      errorCode,
      highWatermark: -1,
      lastStableOffset: -1,
      logStartOffset: -1,
      abortedTransactions: null,
      preferredReadReplica: -1,
      records: EMPTY,
    };
    if (!replica) {
      // Kafka answers a partition it does not know before reading, with an empty list here; a refused read
      // (a fenced leader epoch) has the null of a read without aborted transactions.
      errors = true;
      if (errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION || errorCode === ErrorCode.UNKNOWN_TOPIC_ID) base.abortedTransactions = [];
      return base;
    }
    base.highWatermark = replica.highWatermark;
    base.lastStableOffset = replica.lastStableOffset;
    base.logStartOffset = replica.logStartOffset;
    const budget = Math.min(p.partitionMaxBytes, maxBytes - total);
    if (budget <= 0 && total > 0) return base;
    try {
      const read = replica.read(p.fetchOffset, Math.max(budget, 0), total === 0, readCommitted, follower);
      let size = 0;
      for (const b of read.records) size += b.length;
      total += size;
      base.records = read.records;
      base.highWatermark = read.highWatermark;
      base.lastStableOffset = read.lastStableOffset;
      base.logStartOffset = read.logStartOffset;
      base.abortedTransactions = read.abortedTransactions;
    } catch (err) {
      // A failed read (OFFSET_OUT_OF_RANGE) tells nothing of the log, as Kafka's: every offset is -1.
      base.errorCode = asKafkaError(err).code;
      base.highWatermark = base.lastStableOffset = base.logStartOffset = -1;
      errors = true;
    }
    return base;
  });
  return { results, total, errors };
}

/** The bytes of each partition's records the response carries, per topic (one count per partition). */
function countBytesOut(metrics: BrokerMetrics, targets: Target[], results: PartitionData[], follower: boolean): void {
  for (let i = 0; i < targets.length; i++) {
    const { replica } = targets[i];
    if (!replica) continue;
    const records = results[i].records;
    let size = 0;
    if (Buffer.isBuffer(records)) size = records.length;
    else for (const b of records ?? []) size += b.length;
    if (size > 0) metrics.fetched(replica.topic, size, follower);
  }
}

function respond(req: FetchRequest, results: PartitionData[]): FetchResponse {
  const responses: FetchResponse['responses'][number][] = [];
  let i = 0;
  for (const t of req.topics) {
    const partitions = results.slice(i, i + t.partitions.length);
    i += t.partitions.length;
    responses.push({ topic: t.topic, topicId: t.topicId, partitions });
  }
  return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, sessionId: 0, responses };
}

export default defineHandler({
  apiKey: 1,
  minVersion: 4,
  maxVersion: 17,
  errorResponse(_req, code): FetchResponse {
    return { throttleTimeMs: 0, errorCode: code, sessionId: 0, responses: [] };
  },
  async handle({ replicas, topics, metrics, apiVersion, signal, clientQuotas, session, header }, req): Promise<FetchResponse> {
    if (req.sessionId !== 0) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.FETCH_SESSION_ID_NOT_FOUND, sessionId: 0, responses: [] };
    }
    // Only a request that names a partition twice is copied: every other fetch keeps its decoded objects.
    const deduped = req.topics.map((t) => {
      const partitions = lastOfEach(t.partitions, (p) => p.partition);
      return partitions === t.partitions ? t : { ...t, partitions };
    });
    if (deduped.some((t, i) => t !== req.topics[i])) req = { ...req, topics: deduped };
    const byId = apiVersion >= 13;
    const replicaId = apiVersion >= 15 ? (req.replicaState?.replicaId ?? -1) : req.replicaId;
    const follower = replicaId >= 0;
    const targets = resolveTargets(replicas, topics, req, byId);
    const deadline = Date.now() + Math.max(0, req.maxWaitMs);
    // A consumer with a byte-rate quota gets at most what the quota allows in one window, as in Kafka.
    const quotaBytes = follower ? Infinity : clientQuotas.fetchBytesLimit(session.principal.name, header.clientId ?? '');
    const maxBytes = Math.min(req.maxBytes > 0 ? req.maxBytes : 0x7fffffff, quotaBytes);
    for (;;) {
      if (follower) recordFollowerFetches(replicas, targets, replicaId);
      const { results, total, errors } = readAll(targets, maxBytes, !follower && req.isolationLevel === READ_COMMITTED, follower);
      const remaining = deadline - Date.now();
      if (total >= req.minBytes || errors || remaining <= 0 || signal.aborted || targets.length === 0) {
        if (metrics) countBytesOut(metrics, targets, results, follower);
        return respond(req, results);
      }
      await replicas.awaitChange(
        targets.map((t) => t.replica!),
        remaining,
        signal,
        follower,
      );
      revalidate(targets);
    }
  },
});
