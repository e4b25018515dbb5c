// The field-by-field comparison of two decoded responses. Every field must be equal except those in ALLOWED,
// the short list of what two correct brokers may legitimately answer differently. Record batches are
// compared decoded, record by record, since their bytes embed the producer id and CRC of each broker's own.
import { LOG_OVERHEAD, BATCH_LENGTH_OFFSET, decodeBatch } from '../../protocol/record-batch.js';
import type { Message } from '../../protocol/codec.js';

export interface Difference {
  label: string;
  path: string;
  kafka: unknown;
  krill: unknown;
}

/** How a field may differ: ignored entirely, or compared only for being set (non-zero, non-null, non-empty). */
type Allowance = 'ignore' | 'presence';

/**
 * Fields by name (at any depth) that may differ between two correct brokers.
 * Each broker generates its own identities, so ids are compared only for being set.
 */
const ALLOWED: Record<string, Allowance> = {
  // Each cluster's own identity: a random cluster id, and the ports (hosts are both 127.0.0.1).
  clusterId: 'ignore',
  port: 'ignore',
  // Quotas are off on both; a throttle time is a measurement, not behaviour.
  throttleTimeMs: 'ignore',
  // Free text; the code beside it is what a client acts on.
  errorMessage: 'ignore',
  batchIndexErrorMessage: 'ignore',
  // A wall-clock time each broker takes when the transaction starts.
  transactionStartTimeMs: 'ignore',
  // Generated ids: each broker makes its own.
  topicId: 'presence',
  producerId: 'presence',
  memberId: 'presence',
  leader: 'presence', // JoinGroup's leader: a member id
};

/**
 * Kafka answers many lists (DeleteTopics, DescribeGroups, DescribeLogDirs' partitions) in the order of its
 * hash maps, not the request's; no client reads meaning into it. Lists of entries named by one of these
 * fields are compared sorted by it.
 */
const ENTRY_KEYS = ['name', 'topic', 'topicName', 'groupId', 'transactionalId', 'user', 'partitionIndex', 'partition', 'index', 'resourceName'];

function sortedEntries(list: unknown[]): unknown[] {
  const first = list[0];
  if (!isObject(first)) return list;
  const key = ENTRY_KEYS.find((k) => k in first && (typeof first[k] === 'string' || typeof first[k] === 'number'));
  if (key === undefined) return list;
  return [...list].sort((a, b) => {
    const [x, y] = [(a as Record<string, string | number>)[key], (b as Record<string, string | number>)[key]];
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

/** A record batch section as the fields a client reads, without what each broker generates (producer id, CRC). */
function decodeRecords(buf: Buffer): Message {
  const batches: Message[] = [];
  let pos = 0;
  while (buf.length - pos >= LOG_OVERHEAD) {
    const size = LOG_OVERHEAD + buf.readInt32BE(pos + BATCH_LENGTH_OFFSET);
    if (pos + size > buf.length) break;
    const b = decodeBatch(buf, pos);
    batches.push({
      baseOffset: b.baseOffset,
      lastOffsetDelta: b.lastOffsetDelta,
      partitionLeaderEpoch: b.partitionLeaderEpoch,
      attributes: b.attributes,
      // A transaction marker is stamped with its broker's clock when the transaction ends.
      baseTimestamp: b.isControl ? 'marker time' : b.baseTimestamp,
      maxTimestamp: b.isControl ? 'marker time' : b.maxTimestamp,
      producerIdSet: b.producerId >= 0,
      producerEpoch: b.producerEpoch,
      baseSequence: b.baseSequence,
      records: b.records,
    });
    pos += size;
  }
  return { batches, partialTrailingBatch: pos < buf.length };
}

function isSet(v: unknown): boolean {
  if (v === null || v === undefined) return false;
  if (Buffer.isBuffer(v)) return v.some((b) => b !== 0);
  if (typeof v === 'bigint') return v >= 0n;
  if (typeof v === 'number') return v >= 0;
  if (typeof v === 'string') return v !== '';
  return true;
}

function show(v: unknown): unknown {
  if (Buffer.isBuffer(v)) return `<${v.length} bytes ${v.subarray(0, 16).toString('hex')}>`;
  if (typeof v === 'bigint') return `${v}n`;
  return v;
}

/** Every difference between two values, with its path. */
export function compareValues(label: string, kafka: unknown, krill: unknown, path = ''): Difference[] {
  const key = path.slice(path.lastIndexOf('.') + 1).replace(/\[\d+\]$/, '');
  const allowance = ALLOWED[key];
  if (allowance === 'ignore') return [];
  if (allowance === 'presence') return isSet(kafka) === isSet(krill) ? [] : [{ label, path, kafka: show(kafka), krill: show(krill) }];
  if (key === 'records' && Buffer.isBuffer(kafka) && Buffer.isBuffer(krill)) {
    return compareValues(label, decodeRecords(kafka), decodeRecords(krill), `${path}(decoded)`);
  }
  if (Buffer.isBuffer(kafka) && Buffer.isBuffer(krill)) return kafka.equals(krill) ? [] : [{ label, path, kafka: show(kafka), krill: show(krill) }];
  if (Array.isArray(kafka) && Array.isArray(krill)) {
    if (kafka.length !== krill.length) return [{ label, path: `${path}.length`, kafka: kafka.length, krill: krill.length }];
    const [k, r] = [sortedEntries(kafka), sortedEntries(krill)];
    return k.flatMap((e, i) => compareValues(label, e, r[i], `${path}[${i}]`));
  }
  if (isObject(kafka) && isObject(krill)) {
    const keys = [...new Set([...Object.keys(kafka), ...Object.keys(krill)])];
    return keys.flatMap((k) => compareValues(label, kafka[k], krill[k], path ? `${path}.${k}` : k));
  }
  return Object.is(kafka, krill) || kafka === krill ? [] : [{ label, path, kafka: show(kafka), krill: show(krill) }];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Buffer.isBuffer(v) && !Array.isArray(v);
}

export function formatDifference(d: Difference): string {
  return `${d.label}: ${d.path}: kafka ${JSON.stringify(d.kafka, jsonSafe)}, krill ${JSON.stringify(d.krill, jsonSafe)}`;
}

function jsonSafe(_key: string, v: unknown): unknown {
  if (typeof v === 'bigint') return `${v}n`;
  if (isObject(v) && (v as { type?: string }).type === 'Buffer') return show(Buffer.from((v as unknown as { data: number[] }).data));
  return v;
}
