// Request builders and record helpers shared by the integration tests (test/server, test/handlers, test/cli).
import { expect } from 'vitest';
import { buildBatch, decodeBatch, readBatchHeader, type SimpleRecord } from '../../protocol/record-batch.js';
import type { Message } from '../../protocol/codec.js';
import { TestClient } from './client.js';
import { API_KEYS } from '../../protocol/messages/index.js';

/** API keys by name, from the protocol's definitions. */
export const API = API_KEYS;

import { ZERO_UUID } from '../../protocol/sentinels.js';

export { ZERO_UUID };

export function values(n: number, prefix = 'v'): SimpleRecord[] {
  return Array.from({ length: n }, (_, i) => ({ key: `k${i}`, value: `${prefix}${i}` }));
}

export function produceBody(topic: string, partition: number, records: Buffer | null, acks = 1): Message {
  return { transactionalId: null, acks, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: partition, records }] }] };
}

/** Produces one batch and returns the partition response (expects exactly one). */
export async function produce(client: TestClient, topic: string, partition: number, batch: Buffer, version = 9): Promise<Message> {
  const res = await client.request(API.Produce, version, produceBody(topic, partition, batch));
  expect(res.responses).toHaveLength(1);
  expect(res.responses[0].partitionResponses).toHaveLength(1);
  return res.responses[0].partitionResponses[0];
}

export async function produceOk(client: TestClient, topic: string, partition: number, records: SimpleRecord[], version = 9): Promise<number> {
  const p = await produce(client, topic, partition, buildBatch(records), version);
  expect(p.errorCode).toBe(0);
  return p.baseOffset;
}

/** InitProducerId for an idempotent producer (no transactional id); returns the whole response. */
export async function initProducerId(client: TestClient, version = 4): Promise<Message> {
  return client.request(API.InitProducerId, version, { transactionalId: null, transactionTimeoutMs: 60_000, producerId: -1, producerEpoch: -1 });
}

/** Where an idempotent batch sits in its producer's sequence on one partition. */
export interface ProducerSeq {
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
}

/** An idempotent batch of `records` (their sequences run from baseSequence); same arguments, same bytes bar timestamps. */
export function idempotentBatch(seq: ProducerSeq, records: SimpleRecord[]): Buffer {
  return buildBatch(
    records.map((r) => ({ timestamp: 1_700_000_000_000, ...r })),
    seq,
  );
}

export interface FetchPart {
  partition: number;
  fetchOffset: number;
  partitionMaxBytes?: number;
}

export function fetchBody(
  version: number,
  topic: string | Buffer,
  parts: FetchPart[],
  opts: { maxWaitMs?: number; minBytes?: number; maxBytes?: number; sessionId?: number } = {},
): Message {
  const byId = version >= 13;
  return {
    replicaId: -1,
    maxWaitMs: opts.maxWaitMs ?? 0,
    minBytes: opts.minBytes ?? 0,
    maxBytes: opts.maxBytes ?? 0x7fffffff,
    isolationLevel: 0,
    sessionId: opts.sessionId ?? 0,
    sessionEpoch: -1,
    topics: [
      {
        topic: byId ? undefined : topic,
        topicId: byId ? topic : undefined,
        partitions: parts.map((p) => ({
          partition: p.partition,
          currentLeaderEpoch: -1,
          fetchOffset: p.fetchOffset,
          lastFetchedEpoch: -1,
          logStartOffset: -1,
          partitionMaxBytes: p.partitionMaxBytes ?? 1 << 20,
        })),
      },
    ],
    forgottenTopicsData: [],
    rackId: '',
  };
}

/** Fetch of one partition; returns that partition's response. */
export async function fetchOne(
  client: TestClient,
  topic: string | Buffer,
  partition: number,
  fetchOffset: number,
  version = 11,
  opts: { maxWaitMs?: number; minBytes?: number; maxBytes?: number; partitionMaxBytes?: number } = {},
): Promise<Message> {
  const res = await client.request(
    API.Fetch,
    version,
    fetchBody(version, topic, [{ partition, fetchOffset, partitionMaxBytes: opts.partitionMaxBytes }], opts),
  );
  expect(res.errorCode ?? 0).toBe(0);
  expect(res.responses).toHaveLength(1);
  return res.responses[0].partitions[0];
}

export interface FetchedRecord {
  offset: number;
  key: string | null;
  value: string | null;
  timestamp: number;
}

/** Every batch in a records blob, in order (the blob must end on a batch boundary). */
export function batchesOf(records: Buffer | null): ReturnType<typeof decodeBatch>[] {
  const out = [];
  if (!records) return [];
  let pos = 0;
  while (pos < records.length) {
    const h = readBatchHeader(records, pos);
    out.push(decodeBatch(records, pos));
    pos += h.size;
  }
  return out;
}

export function recordsOf(records: Buffer | null): FetchedRecord[] {
  const out: FetchedRecord[] = [];
  for (const b of batchesOf(records)) {
    for (const r of b.records) {
      out.push({
        offset: b.baseOffset + r.offsetDelta,
        key: r.key ? r.key.toString() : null,
        value: r.value ? r.value.toString() : null,
        timestamp: b.timestampType === 1 ? b.maxTimestamp : b.baseTimestamp + r.timestampDelta,
      });
    }
  }
  return out;
}

export async function createTopic(client: TestClient, name: string, numPartitions = 1, configs: Record<string, string> = {}): Promise<Message> {
  const res = await client.request(API.CreateTopics, 7, {
    topics: [{ name, numPartitions, replicationFactor: 1, assignments: [], configs: Object.entries(configs).map(([n, value]) => ({ name: n, value })) }],
    timeoutMs: 5000,
    validateOnly: false,
  });
  expect(res.topics[0].errorCode, res.topics[0].errorMessage).toBe(0);
  return res.topics[0];
}

/** Commits `offset` for a group with no members (generation -1, as an admin tool commits), on a connection of its own. */
export async function commitOffset(port: number, groupId: string, topic: string, offset: number, partition = 0): Promise<void> {
  const client = await TestClient.connect(port);
  try {
    const res = await client.request(API.OffsetCommit, 9, {
      groupId,
      generationIdOrMemberEpoch: -1,
      memberId: '',
      groupInstanceId: null,
      topics: [{ name: topic, partitions: [{ partitionIndex: partition, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: '' }] }],
    });
    expect(res.topics[0].partitions[0].errorCode).toBe(0);
  } finally {
    client.close();
  }
}

export function metadataBody(names: (string | null)[] | null, allowAutoTopicCreation = true): Message {
  return {
    topics: names === null ? null : names.map((name) => ({ name, topicId: ZERO_UUID })),
    allowAutoTopicCreation,
    includeClusterAuthorizedOperations: false,
    includeTopicAuthorizedOperations: false,
  };
}

export function listOffsetsBody(topic: string, partition: number, timestamp: number): Message {
  return {
    replicaId: -1,
    isolationLevel: 0,
    topics: [{ name: topic, partitions: [{ partitionIndex: partition, currentLeaderEpoch: -1, timestamp }] }],
    timeoutMs: 5000,
  };
}

let counter = 0;
/** A topic name unique within the process. */
export function uniqueTopic(prefix = 't'): string {
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${counter++}`;
}
