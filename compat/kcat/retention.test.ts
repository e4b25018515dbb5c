// kcat (librdkafka) against a krill CLI process whose broker-wide retention deletes segments: with small
// log.segment.bytes and log.retention.bytes and a fast log.retention.check.interval.ms, the first segments
// of an auto-created topic leave the disk (renamed .deleted, removed after log.segment.delete.delay.ms);
// `kcat -C -o beginning` then reads exactly the records from the new log start offset on, with their
// original offsets, before and after a restart.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { BrokerPool, describeRun, partitionFiles, run } from '../util.js';
import type { CliBroker } from '../../test/helpers.js';

const pool = new BrokerPool();
afterAll(() => pool.cleanup());

const RETENTION_BYTES = 4096;
const ARGS = [
  '--set',
  'log.segment.bytes=1024',
  '--set',
  `log.retention.bytes=${RETENTION_BYTES}`,
  '--set',
  'log.retention.check.interval.ms=100',
  '--set',
  'log.segment.delete.delay.ms=100',
];

async function kcat(b: CliBroker, args: string[], input?: string): Promise<string> {
  const all = [...args, '-b', b.bootstrap, '-X', 'socket.timeout.ms=10000', '-X', 'broker.address.family=v4'];
  const r = await run('kcat', all, { input, timeoutMs: 30_000 });
  expect(r.code, `kcat ${all.join(' ')}\n${describeRun(r)}`).toBe(0);
  return r.stdout;
}

/** Segments on disk once retention has finished: no .deleted left, and one more deletion would go below the limit. */
async function settledSegments(dataDir: string, topic: string): Promise<{ base: number; size: number }[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const files = partitionFiles(dataDir, topic, 0);
    // A segment listed may be renamed .deleted by the time it is looked at: then look again.
    const sizes = files
      .filter((f) => f.endsWith('.log'))
      .map((f) => ({ base: Number(f.slice(0, 20)), size: fs.statSync(path.join(dataDir, `${topic}-0`, f), { throwIfNoEntry: false })?.size }));
    const segments = sizes.filter((s): s is { base: number; size: number } => s.size !== undefined);
    const total = segments.reduce((s, x) => s + x.size, 0);
    if (segments.length === sizes.length && !files.some((f) => f.endsWith('.deleted')) && segments[0].base > 0 && total - segments[0].size < RETENTION_BYTES)
      return segments;
    if (Date.now() > deadline) throw new Error(`retention did not settle: ${files.join(' ')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

it('kcat -o beginning reads from the log start offset that retention moved, before and after a restart', async () => {
  const dataDir = pool.dir('krill-kcat-retention-');
  let broker = await pool.start(['--data-dir', dataDir, ...ARGS]);
  const topic = 'retained';
  const N = 200;
  const lines = Array.from({ length: N }, (_, i) => `payload-${i}-${'x'.repeat(24)}`);
  await kcat(broker, ['-P', '-t', topic, '-X', 'acks=all', '-X', 'batch.num.messages=10', '-X', 'linger.ms=5'], lines.map((l) => `${l}\n`).join(''));

  const segments = await settledSegments(dataDir, topic);
  const start = segments[0].base;
  expect(segments.reduce((s, x) => s + x.size, 0)).toBeGreaterThanOrEqual(RETENTION_BYTES);

  const check = async () => {
    const out = await kcat(broker, ['-C', '-t', topic, '-e', '-o', 'beginning', '-J', '-q']);
    const msgs = out
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as { offset: number; payload: string });
    expect(msgs.length).toBe(N - start);
    expect(msgs.map((m) => m.offset)).toEqual(Array.from({ length: N - start }, (_, i) => start + i));
    expect(msgs.map((m) => m.payload)).toEqual(lines.slice(start));
  };
  await check();

  expect(await pool.stop(broker, 'SIGTERM')).toBe(0);
  const checkpoint = fs.readFileSync(path.join(dataDir, 'log-start-offset-checkpoint'), 'utf8');
  expect(checkpoint).toContain(`${topic} 0 ${start}\n`);
  broker = await pool.start(['--data-dir', dataDir, ...ARGS]);
  await check();
}, 90_000);
