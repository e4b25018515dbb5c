// Crash safety of the built CLI: every acked record survives SIGKILL, and a torn tail write (the log file
// cut mid-batch while the broker is down) is truncated back to the last whole batch on restart.
import { afterAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { spawnCli, tempDir, type CliBroker } from '../helpers.js';
import { TestClient } from '../server/client.js';
import { API, batchesOf, createTopic, fetchOne, produce, recordsOf, uniqueTopic, type FetchedRecord } from '../server/kafka.js';
import { buildBatch } from '../../protocol/record-batch.js';
import { CODEC_GZIP, CODEC_NONE } from '../../protocol/compression/index.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

async function kill(b: CliBroker, signal: NodeJS.Signals): Promise<void> {
  b.kill(signal);
  const code = await b.exited;
  expect(code).toBe(signal === 'SIGKILL' ? 'SIGKILL' : 0);
}

/** Everything in the partition, fetched in rounds from offset 0. */
async function readAll(
  client: TestClient,
  topic: string,
  partition: number,
): Promise<{ records: FetchedRecord[]; highWatermark: number; lastBatchEnd: number }> {
  const records: FetchedRecord[] = [];
  let offset = 0;
  let hwm = 0;
  let lastBatchEnd = 0;
  for (let round = 0; round < 100; round++) {
    const p = await fetchOne(client, topic, partition, offset, 12, { partitionMaxBytes: 64 * 1024 });
    expect(p.errorCode).toBe(0);
    hwm = p.highWatermark;
    const batches = batchesOf(p.records);
    if (batches.length === 0) break;
    for (const r of recordsOf(p.records)) if (r.offset >= offset) records.push(r);
    const last = batches[batches.length - 1];
    lastBatchEnd = last.baseOffset + last.lastOffsetDelta + 1;
    offset = lastBatchEnd;
    if (offset >= hwm) break;
  }
  return { records, highWatermark: hwm, lastBatchEnd };
}

interface Acked {
  partition: number;
  baseOffset: number;
  count: number;
}

async function produceMany(
  client: TestClient,
  topic: string,
  partitions: number,
  batches: number,
): Promise<{ acked: Map<number, FetchedRecord[]>; log: Acked[] }> {
  const acked = new Map<number, FetchedRecord[]>();
  const log: Acked[] = [];
  for (let i = 0; i < batches; i++) {
    const partition = i % partitions;
    const n = 1 + (i % 4);
    const ts = 1_700_000_000_000 + i * 10;
    const recs = Array.from({ length: n }, (_, j) => ({ key: `k-${i}-${j}`, value: `value-${i}-${j}-${'x'.repeat((i * 7) % 50)}`, timestamp: ts + j }));
    const p = await produce(client, topic, partition, buildBatch(recs, { compression: i % 3 === 0 ? CODEC_GZIP : CODEC_NONE }));
    expect(p.errorCode).toBe(0);
    const list = acked.get(partition) ?? [];
    expect(p.baseOffset).toBe(list.length);
    recs.forEach((r, j) => list.push({ offset: p.baseOffset + j, key: r.key, value: r.value, timestamp: r.timestamp }));
    acked.set(partition, list);
    log.push({ partition, baseOffset: p.baseOffset, count: n });
  }
  return { acked, log };
}

function segmentLog(dataDir: string, topic: string, partition: number): string {
  const dir = path.join(dataDir, `${topic}-${partition}`);
  const logs = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.log'))
    .sort();
  return path.join(dir, logs[logs.length - 1]);
}

async function tornTailRoundTrip(stopBeforeTruncate: NodeJS.Signals) {
  const d = tempDir('krill-dur-');
  dirs.push(d);
  const topic = uniqueTopic('dur');

  // 1. produce with acks=1, then crash
  let b = await spawnCli(['--port', '0', '--data-dir', d], { npx: true });
  let c = await TestClient.connect(b.port);
  await createTopic(c, topic, 2);
  const { acked, log } = await produceMany(c, topic, 2, 40);
  c.close();
  await kill(b, 'SIGKILL');

  // 2. restart: every acked record is there
  b = await spawnCli(['--port', '0', '--data-dir', d], { npx: true });
  c = await TestClient.connect(b.port);
  for (const partition of [0, 1]) {
    const got = await readAll(c, topic, partition);
    expect(got.records).toEqual(acked.get(partition));
    expect(got.highWatermark).toBe(acked.get(partition)!.length);
  }
  c.close();
  await kill(b, stopBeforeTruncate);

  // 3. tear the last batch of partition 0: a few bytes short of its end
  const file = segmentLog(d, topic, 0);
  const size = fs.statSync(file).size;
  fs.truncateSync(file, size - 5);
  const lastP0 = log.filter((a) => a.partition === 0).at(-1)!;
  const survivors = acked.get(0)!.filter((r) => r.offset < lastP0.baseOffset);

  // 4. restart: served up to the last whole batch, and a produce continues right after it
  b = await spawnCli(['--port', '0', '--data-dir', d], { npx: true });
  c = await TestClient.connect(b.port);
  try {
    const torn = await readAll(c, topic, 0);
    expect(torn.records).toEqual(survivors);
    expect(torn.highWatermark).toBe(lastP0.baseOffset);
    expect(torn.lastBatchEnd).toBe(lastP0.baseOffset);
    const lo = await c.request(API.ListOffsets, 7, {
      replicaId: -1,
      isolationLevel: 0,
      topics: [{ name: topic, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1 }] }],
    });
    expect(lo.topics[0].partitions[0].offset).toBe(lastP0.baseOffset);
    // partition 1 is untouched
    const p1 = await readAll(c, topic, 1);
    expect(p1.records).toEqual(acked.get(1));

    const after = await produce(c, topic, 0, buildBatch([{ key: 'after', value: 'the-tear', timestamp: 1_800_000_000_000 }]));
    expect(after.errorCode).toBe(0);
    expect(after.baseOffset).toBe(lastP0.baseOffset);
    const again = await readAll(c, topic, 0);
    expect(again.records).toEqual([...survivors, { offset: lastP0.baseOffset, key: 'after', value: 'the-tear', timestamp: 1_800_000_000_000 }]);
    expect(again.highWatermark).toBe(lastP0.baseOffset + 1);
  } finally {
    c.close();
    await kill(b, 'SIGTERM');
  }

  // 5. and that survives one more restart
  b = await spawnCli(['--port', '0', '--data-dir', d], { npx: true });
  c = await TestClient.connect(b.port);
  try {
    const final = await readAll(c, topic, 0);
    expect(final.highWatermark).toBe(lastP0.baseOffset + 1);
    expect(final.records.at(-1)).toMatchObject({ offset: lastP0.baseOffset, value: 'the-tear' });
  } finally {
    c.close();
    await kill(b, 'SIGTERM');
  }
}

describe('durability of the CLI broker', () => {
  it('acked records survive SIGKILL; a torn tail after a crash is cut back to the last whole batch', async () => {
    await tornTailRoundTrip('SIGKILL');
  }, 30_000);

  it('a torn tail is also found after a clean shutdown', async () => {
    await tornTailRoundTrip('SIGTERM');
  }, 30_000);
});
