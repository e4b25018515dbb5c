// Fetch: v4-17.
// Behaviour: long-polls up to maxWaitMs until minBytes are available, woken at once by an append to any
// partition in the request. The response respects maxBytes and each partitionMaxBytes, except that the
// first batch of the first partition with data is always returned whole (KIP-74). Returned bytes may
// start with a batch whose baseOffset is below fetchOffset; clients skip those records, as with Kafka.
// Fetch sessions (KIP-227) are declined: every response says sessionId 0, which tells clients to keep
// sending full requests; a request naming a session gets FETCH_SESSION_ID_NOT_FOUND.
// Version notes: topic ids replace names from v13 (KIP-516); lastStableOffset equals the high
// watermark until transactions exist; preferredReadReplica is always -1 (one broker, no KIP-392).
import { ErrorCode, KafkaError, errorCodeOf } from '../../protocol/errors.js';
import { defineHandler } from './registry.js';
import type { Message } from '../../protocol/codec.js';
import type { Broker } from '../broker.js';
import type { PartitionLog } from '../storage/partition-log.js';

const EMPTY = Buffer.alloc(0);

interface Target {
  topic: Message;
  partition: Message;
  log: PartitionLog | undefined;
  errorCode: number;
}

function resolveTargets(broker: Broker, req: Message, byId: boolean): Target[] {
  const targets: Target[] = [];
  for (const t of req.topics) {
    const topic = byId ? broker.logs.getTopicById(t.topicId) : broker.logs.getTopic(t.topic);
    for (const p of t.partitions) {
      const log = topic ? broker.logs.partition(topic.name, p.partition) : undefined;
      const errorCode = log ? ErrorCode.NONE : byId && !topic ? ErrorCode.UNKNOWN_TOPIC_ID : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
      targets.push({ topic: t, partition: p, log, errorCode });
    }
  }
  return targets;
}

function readAll(targets: Target[], maxBytes: number) {
  let total = 0;
  let errors = false;
  const results = targets.map(({ partition: p, log, errorCode }) => {
    const base = {
      partitionIndex: p.partition,
      errorCode,
      highWatermark: -1,
      lastStableOffset: -1,
      logStartOffset: -1,
      abortedTransactions: null,
      preferredReadReplica: -1,
      records: EMPTY as Buffer | Buffer[],
    };
    if (!log) {
      errors = true;
      return base;
    }
    base.highWatermark = log.highWatermark;
    base.lastStableOffset = log.highWatermark;
    base.logStartOffset = log.logStartOffset;
    const budget = Math.min(p.partitionMaxBytes, maxBytes - total);
    if (budget <= 0 && total > 0) return base;
    try {
      const read = log.read(p.fetchOffset, Math.max(budget, 0), total === 0);
      let size = 0;
      for (const b of read.records) size += b.length;
      total += size;
      base.records = read.records;
      base.highWatermark = read.highWatermark;
      base.lastStableOffset = read.highWatermark;
      base.logStartOffset = read.logStartOffset;
    } catch (err) {
      if (!(err instanceof KafkaError)) throw err;
      errors = true;
      base.errorCode = errorCodeOf(err);
    }
    return base;
  });
  return { results, total, errors };
}

function waitForAppend(logs: PartitionLog[], ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const wake = () => {
      clearTimeout(timer);
      for (const l of logs) l.waiters.delete(wake);
      signal.removeEventListener('abort', wake);
      resolve();
    };
    const timer = setTimeout(wake, ms);
    for (const l of logs) l.waiters.add(wake);
    signal.addEventListener('abort', wake);
  });
}

function respond(req: Message, results: Message[]) {
  const responses: Message[] = [];
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
  errorResponse(req, code) {
    return { throttleTimeMs: 0, errorCode: code, sessionId: 0, responses: [] };
  },
  async handle({ broker, apiVersion, signal }, req) {
    if (req.sessionId !== 0) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.FETCH_SESSION_ID_NOT_FOUND, sessionId: 0, responses: [] };
    }
    const byId = apiVersion >= 13;
    const targets = resolveTargets(broker, req, byId);
    const deadline = Date.now() + Math.max(0, req.maxWaitMs);
    const maxBytes = req.maxBytes > 0 ? req.maxBytes : 0x7fffffff;
    for (;;) {
      const { results, total, errors } = readAll(targets, maxBytes);
      const remaining = deadline - Date.now();
      if (total >= req.minBytes || errors || remaining <= 0 || signal.aborted || targets.length === 0) {
        return respond(req, results);
      }
      await waitForAppend(targets.map((t) => t.log!), remaining, signal);
    }
  },
});
