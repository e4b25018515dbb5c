// aiokafka 0.14 (PyPI, pure Python asyncio client) against one real krill CLI process, via
// compat/pypi/aiokafka_client.py run with compat/pypi/.venv: AIOKafkaProducer (acks=all, idempotent, every
// codec it has), AIOKafkaConsumer in a group with commits and a resume, two members rebalancing, transactions with
// send_offsets_to_transaction, and AIOKafkaAdminClient. Records are read back with aiokafka itself and, for
// transactions, also with confluent-kafka 2.x's read_committed consumer.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CliBroker } from '../../test/helpers.js';
import { describeWithToolchain } from '../toolchain.js';
import { BrokerPool, readBatchHeaders } from '../util.js';
import type { Json } from '../util.js';
import path from 'node:path';
import { pypiDriver, venvMissing, venvPy } from './pypi.js';

const TEST_TIMEOUT = 90_000;
const CODEC_ID: Record<string, number> = { none: 0, gzip: 1, snappy: 2, lz4: 3, zstd: 4 };
const aio = <T = Json>(command: string, args: object) => venvPy<T>(pypiDriver('aiokafka_client.py'), command, args, 60_000);

interface Msg {
  topic: string;
  partition: number;
  offset: number;
  key: string | null;
  value: string | null;
  headers: [string, string | null][];
  timestamp: number;
  extra?: boolean;
}
interface Consumed {
  messages: Msg[];
  committed: Record<string, number>;
}

const pool = new BrokerPool();
let broker: CliBroker;
let dataDir: string;
let clusterId: string;
let seq = 0;
const unique = (label: string) => `aio-${label}-${++seq}`;
const bootstrap = () => broker.bootstrap;

async function createTopic(name: string, partitions: number) {
  const res = await venvPy('ck_client.py', 'create_topics', { bootstrap: bootstrap(), topics: [{ name, partitions, config: {} }] });
  expect(res.results[name], JSON.stringify(res)).toEqual({ ok: true });
}

describeWithToolchain('aiokafka 0.14 (PyPI), one broker', venvMissing, { timeout: TEST_TIMEOUT }, () => {
  beforeAll(async () => {
    dataDir = pool.dir('krill-aio-');
    broker = await pool.start(['--data-dir', dataDir, '--set', 'group.initial.rebalance.delay.ms=0']);
    clusterId = /cluster: ([^,]+),/.exec(broker.readyLine)![1];
  });
  afterAll(() => pool.cleanup());

  for (const codec of ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const) {
    it(`AIOKafkaProducer acks=all, idempotent, ${codec}: keys, headers and timestamps read back by AIOKafkaConsumer`, async () => {
      const topic = unique(codec);
      await createTopic(topic, 1);
      const records = Array.from({ length: 30 }, (_, i) => ({
        key: i % 5 === 2 ? null : `k${i % 4}`,
        value: `${codec}-${i}-${'payload '.repeat(10)}`,
        headers: i % 3 === 0 ? [] : [['trace', `t${i}`]],
        timestamp: 1_700_000_000_000 + i,
        partition: 0,
      }));
      const conf = { acks: 'all', enable_idempotence: true, ...(codec === 'none' ? {} : { compression_type: codec }), linger_ms: 20 };
      const res = await aio<{ acks: [number, number][] }>('produce', { bootstrap: bootstrap(), topic, records, conf });
      expect(res.acks).toEqual(records.map((_, i) => [0, i]));
      const got = await aio<Consumed>('consume', { bootstrap: bootstrap(), topic, partitions: [0], count: records.length });
      expect(got.messages.filter((m) => m.extra)).toEqual([]);
      expect(got.messages.map((m) => [m.key, m.value, m.headers, m.timestamp])).toEqual(records.map((r) => [r.key, r.value, r.headers, r.timestamp]));
      const batches = readBatchHeaders(path.join(dataDir, `${topic}-0`, '00000000000000000000.log'));
      expect(batches.reduce((s, b) => s + b.records, 0)).toBe(records.length);
      for (const b of batches) {
        expect(b.codec).toBe(CODEC_ID[codec]);
        expect(b.producerId >= 0n).toBe(true);
      }
    });
  }

  it('AIOKafkaConsumer in a group: reads everything, commit(); the next member resumes at the committed offsets', async () => {
    const topic = unique('group');
    const group = unique('g');
    await createTopic(topic, 3);
    const first = Array.from({ length: 12 }, (_, i) => ({ key: null, value: `one-${i}`, partition: i % 3 }));
    await aio('produce', { bootstrap: bootstrap(), topic, records: first });
    const r1 = await aio<Consumed>('consume', { bootstrap: bootstrap(), topic, group, count: 12 });
    expect(r1.messages.map((m) => m.value).sort()).toEqual(first.map((r) => r.value).sort());
    expect(r1.committed).toEqual({ 0: 4, 1: 4, 2: 4 });
    const second = Array.from({ length: 6 }, (_, i) => ({ key: null, value: `two-${i}`, partition: i % 3 }));
    await aio('produce', { bootstrap: bootstrap(), topic, records: second });
    const r2 = await aio<Consumed>('consume', { bootstrap: bootstrap(), topic, group, count: 6 });
    expect(r2.messages.filter((m) => m.extra)).toEqual([]);
    expect(r2.messages.map((m) => m.value).sort()).toEqual(second.map((r) => r.value).sort());
    expect(r2.messages.map((m) => m.offset).sort()).toEqual([4, 4, 4, 5, 5, 5]);
    expect(r2.committed).toEqual({ 0: 6, 1: 6, 2: 6 });
  });

  it('two members of one group: a rebalance shares the partitions, a LeaveGroup gives them back', async () => {
    const topic = unique('rebalance');
    await createTopic(topic, 4);
    const r = await aio('group_rebalance', { bootstrap: bootstrap(), topic, group: unique('g'), partitions: 4, count: 40, timeout_s: 50 });
    expect(r.alone).toEqual([0, 1, 2, 3]);
    const [one, two] = r.shares as number[][];
    expect(one.length).toBeGreaterThan(0);
    expect(two.length).toBeGreaterThan(0);
    expect([...one, ...two].sort()).toEqual([0, 1, 2, 3]);
    // Each member read only its own partitions, and the two together every record once.
    expect(r.read).toEqual([one, two]);
    expect(r.values).toEqual(Array.from({ length: 40 }, (_, i) => `shared-${i}`).sort());
    expect(r.after_leave).toEqual([0, 1, 2, 3]);
    expect(r.after_values).toEqual(['after-0', 'after-1', 'after-2', 'after-3']);
  });

  it('transactions: commit and abort with send_offsets_to_transaction; read_committed sees only committed records', async () => {
    const topic = unique('txn');
    const input = unique('txn-in');
    const group = unique('txn-g');
    await createTopic(topic, 2);
    await createTopic(input, 2);
    const res = await aio<{ acks: [number, number][][] }>('transactions', {
      bootstrap: bootstrap(),
      id: unique('txn-id'),
      topic,
      input,
      group,
      transactions: [
        { records: [0, 1, 0].map((partition, i) => ({ value: `c1-${i}`, partition })), offsets: { 0: 5, 1: 7 }, end: 'commit' },
        { records: [0, 1].map((partition, i) => ({ value: `ab-${i}`, partition })), offsets: { 0: 9 }, end: 'abort' },
        { records: [{ value: 'c2-0', partition: 1 }], offsets: { 1: 11 }, end: 'commit' },
      ],
    });
    // markers take offsets too: c1 (0,1 / 0), marker, ab, marker, c2 after them
    expect(res.acks).toEqual([
      [
        [0, 0],
        [1, 0],
        [0, 1],
      ],
      [
        [0, 3],
        [1, 2],
      ],
      [[1, 4]],
    ]);
    const committed = await aio<Consumed>('consume', {
      bootstrap: bootstrap(),
      topic,
      partitions: [0, 1],
      count: 4,
      conf: { isolation_level: 'read_committed' },
    });
    expect(committed.messages.filter((m) => m.extra)).toEqual([]);
    expect(committed.messages.map((m) => m.value).sort()).toEqual(['c1-0', 'c1-1', 'c1-2', 'c2-0']);
    const all = await aio<Consumed>('consume', { bootstrap: bootstrap(), topic, partitions: [0, 1], count: 6, conf: { isolation_level: 'read_uncommitted' } });
    expect(all.messages.map((m) => m.value).sort()).toEqual(['ab-0', 'ab-1', 'c1-0', 'c1-1', 'c1-2', 'c2-0']);
    // confluent-kafka 2.x's read_committed consumer agrees
    const ck = await venvPy<{ messages: { value: string }[]; errors: string[] }>('ck_client.py', 'consume', {
      bootstrap: bootstrap(),
      topic,
      partitions: [0, 1],
      count: 4,
    });
    expect(ck.errors).toEqual([]);
    expect(ck.messages.map((m) => Buffer.from(m.value, 'base64').toString()).sort()).toEqual(['c1-0', 'c1-1', 'c1-2', 'c2-0']);
    const offsets = await venvPy('groups_client.py', 'ck_committed', { bootstrap: bootstrap(), group, topic: input, partitions: 2 });
    expect(offsets).toEqual({ committed: { 0: 5, 1: 11 }, errors: [] });
  });

  it('AIOKafkaAdminClient: topics, partitions, configs, cluster, groups, group offsets, delete_records', async () => {
    const group = unique('admin-g');
    const groupTopic = unique('admin-src');
    await createTopic(groupTopic, 2);
    await aio('produce', { bootstrap: bootstrap(), topic: groupTopic, records: [0, 1, 0].map((partition, i) => ({ key: null, value: `v${i}`, partition })) });
    await aio('consume', { bootstrap: bootstrap(), topic: groupTopic, group, count: 3 });
    const topic = unique('admin');
    const r = await aio('admin_tour', { bootstrap: bootstrap(), topic, groups: [group], delete_records: [groupTopic, 0, 1] });
    expect(r.create).toEqual([[topic, 0]]);
    expect(r.listed).toBe(true);
    const parts = (n: number) => Array.from({ length: n }, (_, p) => [p, 1, [1], [1]]);
    expect(r.describe).toEqual([{ topic, error_code: 0, partitions: parts(2) }]);
    expect(r.create_partitions).toEqual([[topic, 0]]);
    expect(r.describe_after).toEqual([parts(3)]);
    expect(r.configs).toEqual({ error_code: 0, configs: { 'retention.ms': '3600000', 'max.message.bytes': '1048588' } });
    expect(r.alter).toEqual([[0, null]]);
    expect(r.configs_after).toEqual({ error_code: 0, configs: { 'retention.ms': '604800000', 'max.message.bytes': '222222' } });
    expect(r.cluster).toEqual({ cluster_id: clusterId, controller_id: 1, brokers: [[1, '127.0.0.1', broker.port]] });
    expect(r.groups).toEqual([[group, 'consumer']]);
    expect(r.describe_group).toEqual([[group, 'Empty', 'consumer', 0]]);
    expect(r.group_offsets).toEqual([
      [groupTopic, 0, 2],
      [groupTopic, 1, 1],
    ]);
    expect(r.delete_records).toEqual({ 0: 1 });
    expect(r.delete).toEqual([[topic, 0]]);
    expect(r.listed_after).toBe(false);
  });
});
