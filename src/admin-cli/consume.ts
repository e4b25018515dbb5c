// krill consume: reads partitions of one topic from their leaders with Fetch, from a start (earliest, latest,
// an offset, a time, or a group's committed offsets) to an end (by default the end each partition had when the
// run began; --follow: none), as text or JSON lines.
//
// --group G starts where G committed and commits what was read, as a consumer that assigns itself partitions
// (Kafka's KafkaConsumer.assign() with commitSync): it is no member of G, so G must have no active members.
import { decodeBatch, LOG_OVERHEAD, BATCH_LENGTH_OFFSET, RECORD_BATCH_OVERHEAD, type RecordBatch } from '../../protocol/record-batch.js';
import { CONTROL_TYPE_ABORT } from '../../protocol/control-record.js';
import { ErrorCode } from '../../protocol/errors.js';
import { UsageError, intOption, listOption, onePositional, stringOption, type Command, type Context } from './command.js';
import { COORDINATOR_GROUP, check, type KafkaClient, type TopicMetadata } from './kafka-client.js';
import { commitOffsets, offsetFetchErrors } from './groups.js';
import { EARLIEST, LATEST, key, listOffsets, type PartitionRef } from './offsets.js';
import { parseTimestamp } from './time.js';
import { Progress } from './progress.js';

/** What the leader of a partition answers that a fresh look at the metadata mends. */
const LEADER_MOVED = new Set<number>([
  ErrorCode.NOT_LEADER_OR_FOLLOWER,
  ErrorCode.LEADER_NOT_AVAILABLE,
  ErrorCode.FENCED_LEADER_EPOCH,
  ErrorCode.UNKNOWN_LEADER_EPOCH,
]);
const COMMIT_INTERVAL_MS = 5000;

interface Position {
  ref: PartitionRef;
  offset: number;
  /** Exclusive; Infinity when following. */
  end: number;
}

/** `earliest`, `latest`, an offset, `@ms` or a datetime: the offset of each partition it means. */
async function offsetsFor(client: KafkaClient, parts: PartitionRef[], spec: string, isolation: number): Promise<Map<string, number>> {
  if (spec === 'earliest') return listOffsets(client, parts, EARLIEST, isolation);
  if (spec === 'latest') return listOffsets(client, parts, LATEST, isolation);
  if (/^\d+$/.test(spec)) return new Map(parts.map((p) => [key(p.topic, p.partition), Number(spec)]));
  const ts = spec.startsWith('@') ? parseTimestamp(spec.slice(1)) : parseTimestamp(spec);
  const [found, latest] = await Promise.all([listOffsets(client, parts, ts, isolation), listOffsets(client, parts, LATEST, isolation)]);
  // No record at or after the time: the partition's end.
  return new Map(
    parts.map((p) => [
      key(p.topic, p.partition),
      found.get(key(p.topic, p.partition))! < 0 ? latest.get(key(p.topic, p.partition))! : found.get(key(p.topic, p.partition))!,
    ]),
  );
}

async function committedOffsets(client: KafkaClient, group: string, topic: string, parts: PartitionRef[]): Promise<Map<string, number>> {
  const body = { groupId: group, topics: [{ name: topic, partitionIndexes: parts.map((p) => p.partition) }], requireStable: true };
  const { response: res } = await client.sendToCoordinator(group, COORDINATOR_GROUP, 9, body, offsetFetchErrors, 7);
  check(res.errorCode, `fetching the offsets of group '${group}'`);
  const out = new Map<string, number>();
  for (const t of res.topics) {
    for (const p of t.partitions) {
      check(p.errorCode, `the committed offset of ${key(t.name, p.partitionIndex)} for group '${group}'`);
      if (p.committedOffset >= 0) out.set(key(t.name, p.partitionIndex), p.committedOffset);
    }
  }
  return out;
}

/** The whole batches of a Fetch's records (a leader may end them with part of one). */
function* batches(records: Buffer | null): Generator<RecordBatch> {
  if (!records) return;
  for (let pos = 0; records.length - pos >= RECORD_BATCH_OVERHEAD;) {
    const size = LOG_OVERHEAD + records.readInt32BE(pos + BATCH_LENGTH_OFFSET);
    if (size > records.length - pos) return;
    yield decodeBatch(records, pos);
    pos += size;
  }
}

interface Printed {
  topic: string;
  partition: number;
  offset: number;
  timestamp: number;
  key: string | null;
  value: string | null;
  headers: Record<string, string | null>;
}

function formatter(ctx: Context): (r: Printed) => string {
  if (ctx.json || stringOption(ctx.values, 'format') === 'json') return (r) => `${JSON.stringify(r)}\n`;
  const printKey = ctx.values['print-key'] === true;
  return (r) => `${printKey ? `${r.key ?? 'null'}\t` : ''}${r.value ?? 'null'}\n`;
}

async function write(text: string): Promise<void> {
  if (!process.stdout.write(text)) await new Promise((resolve) => process.stdout.once('drain', resolve));
}

const consume: Command = {
  name: 'consume',
  summary: 'read records of a topic, as text or JSON lines',
  usage: `<topic> [--partition N]... [--from F] [--to T | --follow] [--max-messages N] [--group G] [--format text|json] [--print-key]
  --partition N                 a partition to read (repeatable; default all)
  --from F                      earliest (default), latest, an offset, @ms since the epoch or a datetime (2026-01-31T12:00:00Z)
  --to T                        where to stop (exclusive), as --from (default: the end when the run began)
  --follow                      keep waiting for new records (stop with Ctrl-C)
  --max-messages N              stop after N records
  --group G                     start at G's committed offsets (unless --from) and commit what was read
  --isolation-level L           read_uncommitted (default) or read_committed
  --format text|json            values, one a line (default), or JSON lines with topic, partition, offset, timestamp, key, value, headers
  --print-key                   text: key, a tab, then the value`,
  options: {
    partition: { type: 'string', multiple: true },
    from: { type: 'string' },
    to: { type: 'string' },
    follow: { type: 'boolean', default: false },
    'max-messages': { type: 'string' },
    group: { type: 'string' },
    'isolation-level': { type: 'string', default: 'read_uncommitted' },
    format: { type: 'string', default: 'text' },
    'print-key': { type: 'boolean', default: false },
  },
  async run(ctx) {
    const topicName = onePositional(ctx, 'topic');
    const level = stringOption(ctx.values, 'isolation-level');
    if (level !== 'read_uncommitted' && level !== 'read_committed')
      throw new UsageError(`--isolation-level must be read_uncommitted or read_committed, got '${level}'`);
    const isolation = level === 'read_committed' ? 1 : 0;
    if (!['text', 'json'].includes(stringOption(ctx.values, 'format')!)) throw new UsageError(`--format must be text or json, got '${ctx.values.format}'`);
    const follow = ctx.values.follow === true;
    const to = stringOption(ctx.values, 'to');
    if (follow && to !== undefined) throw new UsageError('give --to or --follow, not both');
    const max = intOption(ctx.values, 'max-messages', 1) ?? Infinity;
    const group = stringOption(ctx.values, 'group');
    const wanted = listOption(ctx.values, 'partition').map((p) => {
      if (!/^\d+$/.test(p)) throw new UsageError(`--partition must be a partition number, got '${p}'`);
      return Number(p);
    });
    const client = await ctx.client();
    let [topic] = await client.topics([topicName], true);
    for (const p of wanted)
      if (p >= topic.partitions.length) throw new UsageError(`--partition ${p}: topic '${topicName}' has ${topic.partitions.length} partitions`);
    const refs = (t: TopicMetadata) =>
      t.partitions.filter((p) => wanted.length === 0 || wanted.includes(p.partition)).map((p) => ({ topic: t.name, partition: p.partition, leader: p.leader }));
    let parts = refs(topic);
    const from = stringOption(ctx.values, 'from');
    const starts = from !== undefined || group === undefined ? await offsetsFor(client, parts, from ?? 'earliest', isolation) : new Map<string, number>();
    if (from === undefined && group !== undefined) {
      const committed = await committedOffsets(client, group, topicName, parts);
      const earliest = await listOffsets(client, parts, EARLIEST, isolation);
      for (const p of parts) starts.set(key(p.topic, p.partition), committed.get(key(p.topic, p.partition)) ?? earliest.get(key(p.topic, p.partition))!);
    }
    const ends = follow ? null : await offsetsFor(client, parts, to ?? 'latest', isolation);
    const positions: Position[] = parts.map((ref) => ({
      ref,
      offset: starts.get(key(ref.topic, ref.partition))!,
      end: ends?.get(key(ref.topic, ref.partition)) ?? Infinity,
    }));
    const format = formatter(ctx);
    const progress = new Progress('consumed');
    let printed = 0;
    let bytes = 0;
    let stopping = false;
    const stop = () => (stopping = true);
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    let lastCommit = Date.now();
    try {
      while (!stopping && printed < max) {
        const active = positions.filter((p) => p.offset < p.end);
        if (active.length === 0) break;
        const leaders = new Map<number, Position[]>();
        for (const p of active) leaders.set(p.ref.leader, [...(leaders.get(p.ref.leader) ?? []), p]);
        let moved = false;
        await Promise.all(
          [...leaders].map(async ([leader, ps]) => {
            const res = await client.sendTo(
              leader,
              1,
              {
                replicaId: -1,
                maxWaitMs: 500,
                minBytes: 1,
                maxBytes: 16 * 1024 * 1024,
                isolationLevel: isolation,
                sessionId: 0,
                sessionEpoch: -1,
                topics: [
                  {
                    topic: topicName,
                    partitions: ps.map((p) => ({
                      partition: p.ref.partition,
                      currentLeaderEpoch: -1,
                      fetchOffset: p.offset,
                      lastFetchedEpoch: -1,
                      logStartOffset: -1,
                      partitionMaxBytes: 1024 * 1024,
                    })),
                  },
                ],
                forgottenTopicsData: [],
                rackId: '',
              },
              12,
            );
            check(res.errorCode, `fetching from broker ${leader}`);
            for (const pd of res.responses[0]?.partitions ?? []) {
              const pos = ps.find((p) => p.ref.partition === pd.partitionIndex)!;
              if (LEADER_MOVED.has(pd.errorCode)) {
                moved = true;
                continue;
              }
              check(pd.errorCode, `fetching ${key(topicName, pd.partitionIndex)} at offset ${pos.offset}`);
              const aborted = (pd.abortedTransactions ?? []).slice().sort((a, b) => a.firstOffset - b.firstOffset);
              const abortedProducers = new Set<number>();
              for (const batch of batches(pd.records)) {
                const next = batch.baseOffset + batch.lastOffsetDelta + 1;
                // read_committed: a transactional batch is dropped from the first offset of its aborted transaction to the abort marker.
                while (aborted.length > 0 && aborted[0].firstOffset <= batch.baseOffset + batch.lastOffsetDelta)
                  abortedProducers.add(aborted.shift()!.producerId);
                if (batch.isControl) {
                  if (batch.records[0]?.key && batch.records[0].key.length >= 4 && batch.records[0].key.readInt16BE(2) === CONTROL_TYPE_ABORT)
                    abortedProducers.delete(batch.producerId);
                } else if (!(isolation === 1 && batch.isTransactional && abortedProducers.has(batch.producerId))) {
                  for (const rec of batch.records) {
                    const offset = batch.baseOffset + rec.offsetDelta;
                    if (offset < pos.offset || offset >= pos.end || printed >= max) continue;
                    printed++;
                    bytes += (rec.value?.length ?? 0) + (rec.key?.length ?? 0);
                    await write(
                      format({
                        topic: topicName,
                        partition: pd.partitionIndex,
                        offset,
                        timestamp: batch.baseTimestamp + rec.timestampDelta,
                        key: rec.key?.toString('utf8') ?? null,
                        value: rec.value?.toString('utf8') ?? null,
                        headers: Object.fromEntries(rec.headers.map((h) => [h.key, h.value?.toString('utf8') ?? null])),
                      }),
                    );
                    pos.offset = offset + 1;
                  }
                }
                if (printed >= max) break;
                pos.offset = Math.max(pos.offset, Math.min(next, pos.end));
              }
            }
          }),
        );
        progress.update(printed, bytes);
        if (moved) {
          [topic] = await client.topics([topicName], true);
          parts = refs(topic);
          for (const p of positions) p.ref = parts.find((r) => r.partition === p.ref.partition)!;
        }
        if (group !== undefined && Date.now() - lastCommit >= COMMIT_INTERVAL_MS) {
          await commitOffsets(
            client,
            group,
            positions.map((p) => ({ topic: p.ref.topic, partition: p.ref.partition, offset: p.offset })),
          );
          lastCommit = Date.now();
        }
      }
      if (group !== undefined)
        await commitOffsets(
          client,
          group,
          positions.map((p) => ({ topic: p.ref.topic, partition: p.ref.partition, offset: p.offset })),
        );
    } finally {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      progress.done();
    }
  },
};

export const CONSUME_COMMANDS = [consume];
