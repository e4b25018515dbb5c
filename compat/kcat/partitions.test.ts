// kcat (librdkafka 2.0.2) against a krill CLI process after CreatePartitions: -L lists the new partitions,
// -P spreads keyed records over them and -C reads them all back; -P without a key to a compacted topic
// fails with librdkafka's report of INVALID_RECORD, as librdkafka's own test suite expects.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrokerPool, describeRun, run } from '../util.js';
import type { CliBroker } from '../../test/helpers.js';
import { TestClient } from '../../test/server/client.js';
import { createTopic } from '../../test/server/kafka.js';

const KCAT = 'kcat';
const TEST_TIMEOUT = 60_000;
const CREATE_PARTITIONS = 37;

const common = (b: CliBroker) => ['-b', b.bootstrap, '-X', 'socket.timeout.ms=10000', '-X', 'broker.address.family=v4'];

const pool = new BrokerPool();
let broker: CliBroker;
let admin: TestClient;

beforeAll(async () => {
  broker = await pool.start(['--data-dir', pool.dir('krill-kcat-partitions-')]);
  admin = await TestClient.connect(broker.port);
});
afterAll(async () => {
  admin?.close();
  await pool.cleanup();
});

let seq = 0;
const unique = (label: string) => `kcat-${label}-${process.pid}-${++seq}`;

async function grow(topic: string, count: number): Promise<void> {
  const res = await admin.request(CREATE_PARTITIONS, 3, { topics: [{ name: topic, count, assignments: null }], timeoutMs: 5000, validateOnly: false });
  expect(res.results[0].errorCode, res.results[0].errorMessage).toBe(0);
}

describe('kcat after CreatePartitions', () => {
  it(
    '-L lists every partition; keyed records spread over them; -C reads each back',
    async () => {
      const topic = unique('grown');
      await createTopic(admin, topic, 1);
      await grow(topic, 4);
      const md = await run(KCAT, ['-L', ...common(broker), '-t', topic], { timeoutMs: 20_000 });
      expect(md.code, describeRun(md)).toBe(0);
      expect(md.stdout).toContain(`topic "${topic}" with 4 partitions:`);
      for (let p = 0; p < 4; p++) expect(md.stdout).toContain(`partition ${p}, leader 1, replicas: 1, isrs: 1`);

      const lines = Array.from({ length: 40 }, (_, i) => `key-${i}:value-${i}`);
      const produced = await run(KCAT, ['-P', ...common(broker), '-t', topic, '-K', ':', '-X', 'acks=all', '-X', 'message.timeout.ms=20000'], {
        input: lines.join('\n') + '\n',
        timeoutMs: 30_000,
      });
      expect(produced.code, describeRun(produced)).toBe(0);

      const consumed = await run(KCAT, ['-C', ...common(broker), '-t', topic, '-e', '-o', 'beginning', '-q', '-f', '%p %k %s\n'], { timeoutMs: 30_000 });
      expect(consumed.code, describeRun(consumed)).toBe(0);
      const got = consumed.stdout
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => l.split(' '));
      expect(got.map(([, k, v]) => `${k}:${v}`).sort()).toEqual([...lines].sort());
      expect(new Set(got.map(([p]) => p)).size).toBe(4);
    },
    TEST_TIMEOUT,
  );

  it(
    '-P without a key to a compacted topic: INVALID_RECORD, nothing stored; with a key it is stored',
    async () => {
      const topic = unique('compact');
      await createTopic(admin, topic, 1, { 'cleanup.policy': 'compact' });
      const keyless = await run(KCAT, ['-P', ...common(broker), '-t', topic, '-X', 'message.timeout.ms=10000'], { input: 'no key\n', timeoutMs: 30_000 });
      expect(keyless.code, describeRun(keyless)).not.toBe(0);
      expect(keyless.stderr).toContain('Delivery failed for message: Broker: Broker failed to validate record'); // librdkafka names INVALID_RECORD so;

      const keyed = await run(KCAT, ['-P', ...common(broker), '-t', topic, '-K', ':'], { input: 'k:v\n', timeoutMs: 30_000 });
      expect(keyed.code, describeRun(keyed)).toBe(0);
      const consumed = await run(KCAT, ['-C', ...common(broker), '-t', topic, '-e', '-o', 'beginning', '-q', '-f', '%o %k %s\n'], { timeoutMs: 30_000 });
      expect(consumed.stdout.trim()).toBe('0 k v');
    },
    TEST_TIMEOUT,
  );
});
