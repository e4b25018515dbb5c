// Retention by time with confluent-kafka-python 1.7.0 (librdkafka 2.0.2) against a krill CLI process:
// records produced with old timestamps into one-batch segments leave the disk once retention.ms has
// passed, the watermarks show it (low moved, high unchanged), and group consumers whose committed offset
// fell below the new log start offset reset per auto.offset.reset: 'earliest' to the log start offset,
// 'error' to librdkafka's _AUTO_OFFSET_RESET error. (1.7.0 has no AdminClient.delete_records: DeleteRecords
// through librdkafka is in compat/confluent-js/retention.test.ts.)
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliBroker } from '../../test/helpers.js';
import { BrokerPool, eventually } from '../util.js';
import { encodeRecord, py } from './py.js';
import type { Json } from '../util.js';

const ck = <T = Json>(command: string, args: object) => py<T>('ck_client.py', command, args);
const rc = <T = Json>(command: string, args: object) => py<T>('retention_client.py', command, args, 60_000);

const pool = new BrokerPool();
let broker: CliBroker;
let dataDir: string;

beforeAll(async () => {
  dataDir = pool.dir('krill-py-retention-');
  broker = await pool.start([
    '--data-dir',
    dataDir,
    '--set',
    'log.retention.check.interval.ms=100',
    '--set',
    'log.segment.delete.delay.ms=100',
    '--set',
    'group.initial.rebalance.delay.ms=0',
  ]);
});
afterAll(() => pool.cleanup());

describe('confluent-kafka-python: retention by time', () => {
  const topic = `py-retention-${process.pid}`;

  beforeAll(async () => {
    const created = await ck('create_topics', {
      bootstrap: broker.bootstrap,
      topics: [{ name: topic, partitions: 1, config: { 'segment.bytes': '100', 'retention.ms': '600000', 'file.delete.delay.ms': '100' } }],
    });
    expect(created.results[topic]).toEqual({ ok: true });
    const hourAgo = Date.now() - 3_600_000;
    const records = [
      ...Array.from({ length: 5 }, (_, i) => ({ key: null, value: `old-${i}`, timestamp: hourAgo + i })),
      ...Array.from({ length: 3 }, (_, i) => ({ key: null, value: `new-${i}`, timestamp: Date.now() })),
    ].map(encodeRecord);
    // One record per batch, so one batch per segment (segment.bytes 100).
    const produced = await ck('produce', { bootstrap: broker.bootstrap, topic, records, conf: { 'batch.num.messages': 1, 'linger.ms': 0 } });
    expect(produced.reports.map((r: Json) => r.offset)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  }, 90_000);

  it('the expired segments leave the disk; low watermark 5, high 8', async () => {
    const marks = await eventually('the low watermark to reach 5', async () => {
      const w = await ck('offsets', { bootstrap: broker.bootstrap, topic, partition: 0 });
      return w.low === 5 ? w : undefined;
    });
    expect(marks.high).toBe(8);
    const dir = path.join(dataDir, `${topic}-0`);
    await eventually('the .deleted files to go', async () => (fs.readdirSync(dir).some((n) => n.endsWith('.deleted')) ? undefined : true));
    const bases = fs
      .readdirSync(dir)
      .filter((n) => n.endsWith('.log'))
      .map((n) => Number(n.slice(0, 20)));
    expect(Math.min(...bases)).toBe(5);
  }, 60_000);

  it('a group whose committed offset fell below the log start: auto.offset.reset=earliest resumes at it', async () => {
    const group = `${topic}-earliest`;
    expect(await rc('commit', { bootstrap: broker.bootstrap, topic, group, offset: 2 })).toEqual({ committed: 2 });
    const res = await rc('group_consume', { bootstrap: broker.bootstrap, topic, group, reset: 'earliest', count: 3 });
    expect(res.offsets).toEqual([5, 6, 7]);
  }, 90_000);

  it('auto.offset.reset=error reports the out-of-range offset instead', async () => {
    const group = `${topic}-error`;
    await rc('commit', { bootstrap: broker.bootstrap, topic, group, offset: 1 });
    const res = await rc('group_consume', { bootstrap: broker.bootstrap, topic, group, reset: 'error', count: 1, stop_on_error: true });
    expect(res.offsets).toEqual([]);
    expect(res.errors).toContain('_AUTO_OFFSET_RESET');
  }, 90_000);
});
