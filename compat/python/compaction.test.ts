// confluent-kafka-python (librdkafka) against the log cleaner of a real krill CLI process: keyed records in
// lz4 batches on a compacted topic with small segments come back, once cleaned, as the latest record of each
// key at its original offset; and a broker killed with SIGKILL while it swaps cleaned segments in loses
// nothing: after a restart every key's latest value is still there, at its offset, once.
import { afterAll, describe, expect, it } from 'vitest';
import type { CliBroker } from '../../test/helpers.js';
import { cleanedUpTo, latestPerKey, swapFiles, waitFor, type KeyedRecord } from '../compaction-util.js';
import { BrokerPool } from '../util.js';
import { encodeRecord, py, unb64, type PyRecord } from './py.js';
import type { Json } from '../util.js';

const ck = <T = Json>(command: string, args: object, timeoutMs?: number) => py<T>('ck_client.py', command, args, timeoutMs);
const CLEANER = ['--set', 'log.cleaner.backoff.ms=50', '--set', 'log.cleaner.min.cleanable.ratio=0.01'];

const pool = new BrokerPool();
afterAll(() => pool.cleanup());

async function createTopic(broker: CliBroker, name: string, config: Record<string, string>) {
  const res = await ck('create_topics', { bootstrap: broker.bootstrap, topics: [{ name, partitions: 1, config: { 'cleanup.policy': 'compact', ...config } }] });
  expect(res.results[name], JSON.stringify(res)).toEqual({ ok: true });
}

async function produce(broker: CliBroker, topic: string, records: PyRecord[], codec = 'none'): Promise<KeyedRecord[]> {
  const res = await ck<{ reports: { offset: number; error?: string }[]; undelivered: number }>(
    'produce',
    { bootstrap: broker.bootstrap, topic, codec, records: records.map(encodeRecord), linger_ms: 10 },
    120_000,
  );
  expect(res.undelivered).toBe(0);
  return res.reports.map((r, i) => {
    expect(r.error).toBeUndefined();
    return { offset: r.offset, key: records[i].key, value: records[i].value };
  });
}

async function consumeAll(broker: CliBroker, topic: string, count: number, timeout = 20): Promise<KeyedRecord[]> {
  const res = await ck<{ messages: { offset: number; key: string | null; value: string | null; extra?: boolean }[]; errors: string[] }>(
    'consume',
    { bootstrap: broker.bootstrap, topic, partitions: [0], count, timeout },
    120_000,
  );
  expect(res.errors).toEqual([]);
  return res.messages.map((m) => ({ offset: m.offset, key: m.extra ? 'EXTRA' : unb64(m.key), value: m.extra ? null : unb64(m.value) }));
}

const keyed = (keys: number, rounds: number): PyRecord[] =>
  Array.from({ length: keys * rounds }, (_, i) => ({ key: `key-${i % keys}`, value: `value-${Math.floor(i / keys)}-${i % keys}` }));
const filler = (n: number): PyRecord[] => Array.from({ length: n }, () => ({ key: 'filler', value: 'f'.repeat(3000) }));
const byOffset = (m: Map<string, KeyedRecord>) => [...m.values()].sort((a, b) => a.offset - b.offset);

describe('confluent-kafka-python: compaction', () => {
  it('reads back the latest record of each key at its original offset (lz4 batches)', async () => {
    const dataDir = pool.dir('krill-ck-compaction-');
    const broker = await pool.start(['--data-dir', dataDir, ...CLEANER]);
    const topic = 'ck-compacted';
    await createTopic(broker, topic, { 'segment.bytes': '4096' });
    const produced = await produce(broker, topic, keyed(50, 10), 'lz4');
    const fill = await produce(broker, topic, filler(3));
    await waitFor(() => cleanedUpTo(dataDir, topic, 0) > produced.at(-1)!.offset, 30_000, 'the cleaner');
    const seen = await consumeAll(broker, topic, 50 + 3);
    expect(seen.filter((r) => r.key !== 'filler')).toEqual(byOffset(latestPerKey(produced)));
    expect(seen.filter((r) => r.key === 'filler').at(-1)!.offset).toBe(fill.at(-1)!.offset);
  }, 120_000);

  it('loses nothing when the broker is killed (SIGKILL) while it swaps cleaned segments in', async () => {
    const dataDir = pool.dir('krill-ck-compaction-kill-');
    const topic = 'ck-compacted-large';
    let broker = await pool.start(['--data-dir', dataDir, ...CLEANER]);
    await createTopic(broker, topic, { 'segment.bytes': '262144' });
    const produced = await produce(broker, topic, keyed(1000, 100)); // 100k records, 1k keys
    const fill = await produce(broker, topic, filler(100));
    const expected = byOffset(latestPerKey([...produced, ...fill]));

    // Each pass rewrites the log from its start: wait for one to be swapping segments in, then kill.
    let caught = false;
    const end = Date.now() + 30_000;
    while (!caught && Date.now() < end) {
      if (swapFiles(dataDir, topic, 0).length > 0) caught = true;
      else if (cleanedUpTo(dataDir, topic, 0) > fill.at(-1)!.offset) break;
    }
    await pool.stop(broker, 'SIGKILL');
    console.log(`killed ${caught ? 'with cleaned segments on disk (.cleaned/.swap)' : 'after the cleaner had finished'}`);

    // Reopened with the cleaner off: what recovery left holds every key's latest value, at its offset, once.
    broker = await pool.start(['--data-dir', dataDir, '--set', 'log.cleaner.enable=false']);
    const recovered = await consumeAll(broker, topic, produced.length + fill.length, 8);
    const offsets = recovered.map((r) => r.offset);
    expect(offsets).toEqual([...new Set(offsets)].sort((a, b) => a - b));
    expect(byOffset(latestPerKey(recovered))).toEqual(expected);
    await pool.stop(broker);

    // With the cleaner back, the log ends up as one record per key.
    broker = await pool.start(['--data-dir', dataDir, ...CLEANER]);
    await waitFor(() => cleanedUpTo(dataDir, topic, 0) > produced.at(-1)!.offset, 60_000, 'the cleaner after the restart');
    const cleaned = await consumeAll(broker, topic, 1000 + 1);
    expect(latestPerKey(cleaned)).toEqual(latestPerKey(expected));
    expect(cleaned.filter((r) => r.key !== 'filler')).toEqual(expected.filter((r) => r.key !== 'filler'));
  }, 240_000);
});
