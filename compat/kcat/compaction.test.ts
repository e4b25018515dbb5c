// kcat (librdkafka) against a krill CLI process whose topics are compacted by default
// (log.cleanup.policy=compact): keyed records and tombstones produced with kcat -K: -Z, the quiet active
// segment rolled after log.roll.ms by the retention pass, the log cleaner run every log.cleaner.backoff.ms.
// `kcat -C -o beginning` then reads the latest record of each key at its original offset, the tombstones
// among them (delete.retention.ms has not passed), before and after a restart.
import { afterAll, expect, it } from 'vitest';
import { BrokerPool, describeRun, partitionFiles, run } from '../util.js';
import { cleanedUpTo, latestPerKey, waitFor } from '../compaction-util.js';
import type { CliBroker } from '../../test/helpers.js';

const pool = new BrokerPool();
afterAll(() => pool.cleanup());

const ARGS = [
  '--set',
  'log.cleanup.policy=compact',
  '--set',
  'log.segment.bytes=2048',
  '--set',
  'log.roll.ms=300',
  '--set',
  'log.retention.check.interval.ms=100',
  '--set',
  'log.cleaner.backoff.ms=100',
  '--set',
  'log.cleaner.min.cleanable.ratio=0.01',
  '--set',
  'log.segment.delete.delay.ms=100',
];

async function kcat(b: CliBroker, args: string[], input?: string): Promise<string> {
  const all = [...args, '-b', b.bootstrap, '-X', 'socket.timeout.ms=10000', '-X', 'broker.address.family=v4'];
  const r = await run('kcat', all, { input, timeoutMs: 30_000 });
  expect(r.code, `kcat ${all.join(' ')}\n${describeRun(r)}`).toBe(0);
  return r.stdout;
}

interface Consumed {
  offset: number;
  key: string | null;
  value: string | null;
}

async function consume(b: CliBroker, topic: string): Promise<Consumed[]> {
  const out = await kcat(b, ['-C', '-t', topic, '-e', '-o', 'beginning', '-J', '-q']);
  return out
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const m = JSON.parse(l) as { offset: number; key: string | null; payload: string | null };
      return { offset: m.offset, key: m.key, value: m.payload };
    });
}

it('kcat reads the latest record of each key, tombstones included, at their original offsets', async () => {
  const dataDir = pool.dir('krill-kcat-compaction-');
  let broker = await pool.start(['--data-dir', dataDir, ...ARGS]);
  const topic = 'compacted';
  const produced: Consumed[] = [];
  const lines: string[] = [];
  for (let round = 0; round < 10; round++) {
    for (let k = 0; k < 20; k++) {
      const value = `v${round}-${'x'.repeat(20)}`;
      lines.push(`key-${k}:${value}`);
      produced.push({ offset: produced.length, key: `key-${k}`, value });
    }
  }
  for (let k = 0; k < 5; k++) {
    lines.push(`key-${k}:`); // -Z: an empty value is a null one, a tombstone
    produced.push({ offset: produced.length, key: `key-${k}`, value: null });
  }
  await kcat(
    broker,
    ['-P', '-t', topic, '-K:', '-Z', '-X', 'acks=all', '-X', 'batch.num.messages=20', '-X', 'linger.ms=5'],
    lines.map((l) => `${l}\n`).join(''),
  );

  // The quiet active segment rolls after log.roll.ms; then the cleaner takes the whole log.
  await waitFor(() => cleanedUpTo(dataDir, topic, 0) === produced.length, 30_000, 'the cleaner to clean the whole log');
  const expected = [...latestPerKey(produced).values()].sort((a, b) => a.offset - b.offset);
  expect(expected).toHaveLength(20);

  const check = async () => expect(await consume(broker, topic)).toEqual(expected);
  await check();
  // The replaced segments leave the disk log.segment.delete.delay.ms after the swap.
  await waitFor(() => !partitionFiles(dataDir, topic, 0).some((f) => f.endsWith('.deleted')), 10_000, 'the replaced segments to be removed');

  expect(await pool.stop(broker, 'SIGTERM')).toBe(0);
  broker = await pool.start(['--data-dir', dataDir, ...ARGS]);
  await check();
}, 90_000);
