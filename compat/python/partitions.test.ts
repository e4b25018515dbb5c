// CreatePartitions through confluent-kafka-python's AdminClient (librdkafka) and kafka-python's
// KafkaAdminClient against a krill CLI process: errors with Kafka's codes, the new partitions in each
// client's metadata and writable; and librdkafka's view of a keyless record sent to a compacted topic.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliBroker } from '../../test/helpers.js';
import { BrokerPool } from '../util.js';
import { py } from './py.js';
import type { Json } from '../util.js';

const TEST_TIMEOUT = 60_000;
const drive = <T = Json>(command: string, args: object) => py<T>('partitions_client.py', command, args);
const ck = <T = Json>(command: string, args: object) => py<T>('ck_client.py', command, args);

const pool = new BrokerPool();
let broker: CliBroker;

beforeAll(async () => {
  broker = await pool.start(['--data-dir', pool.dir('krill-py-partitions-')]);
});
afterAll(() => pool.cleanup());

let seq = 0;
const unique = (label: string) => `py-${label}-${process.pid}-${++seq}`;

async function createTopic(name: string, partitions: number, config: Record<string, string> = {}) {
  const res = await ck('create_topics', { bootstrap: broker.bootstrap, topics: [{ name, partitions, config }] });
  expect(res.results[name], JSON.stringify(res)).toEqual({ ok: true });
}

describe('confluent-kafka-python AdminClient.create_partitions', () => {
  it(
    'grows a topic; list_topics shows the partitions led by this broker; records go to the new ones',
    async () => {
      const topic = unique('ck-grow');
      await createTopic(topic, 1);
      const res = await drive('ck_create_partitions', { bootstrap: broker.bootstrap, topics: [{ topic, count: 3 }] });
      expect(res.results).toEqual({ [topic]: { ok: true } });
      expect(await drive('ck_partitions', { bootstrap: broker.bootstrap, topic })).toEqual({
        error: null,
        partitions: [
          [0, 1],
          [1, 1],
          [2, 1],
        ],
      });
      const produced = await drive('ck_produce', { bootstrap: broker.bootstrap, topic, records: [{ key: 'a', value: 'x', partition: 2 }] });
      expect(produced.reports).toEqual([{ partition: 2, offset: 0 }]);
    },
    TEST_TIMEOUT,
  );

  it(
    'validate_only, a shrink, an unknown topic and a foreign broker in the assignment',
    async () => {
      const topic = unique('ck-errors');
      await createTopic(topic, 2);
      const dry = await drive('ck_create_partitions', { bootstrap: broker.bootstrap, validate_only: true, topics: [{ topic, count: 4 }] });
      expect(dry.results[topic]).toEqual({ ok: true });
      const absent = unique('missing');
      const res = await drive('ck_create_partitions', {
        bootstrap: broker.bootstrap,
        topics: [
          { topic, count: 1 },
          { topic: absent, count: 2 },
        ],
      });
      const [shrink, missing] = [res.results[topic], res.results[absent]];
      expect(shrink).toMatchObject({ ok: false, error: 'INVALID_PARTITIONS' });
      expect(shrink.message).toContain('would not be an increase');
      expect(missing).toMatchObject({ ok: false, error: 'UNKNOWN_TOPIC_OR_PART' });
      const foreign = await drive('ck_create_partitions', { bootstrap: broker.bootstrap, topics: [{ topic, count: 3, assignment: [[7]] }] });
      expect(foreign.results[topic]).toMatchObject({ ok: false, error: 'INVALID_REPLICA_ASSIGNMENT' });
      expect((await drive('ck_partitions', { bootstrap: broker.bootstrap, topic })).partitions).toHaveLength(2);
    },
    TEST_TIMEOUT,
  );
});

describe('kafka-python KafkaAdminClient.create_partitions', () => {
  it(
    'grows a topic, seen by describe_topics; refuses a count that is not an increase',
    async () => {
      const topic = unique('kp-grow');
      await createTopic(topic, 1);
      const res = await drive('kp_create_partitions', { bootstrap: broker.bootstrap, topics: [{ topic, count: 4 }] });
      expect(res.results[topic]).toEqual({ ok: true, response: [[topic, 0, null]] });
      expect((await drive('kp_describe_topics', { bootstrap: broker.bootstrap, topics: [topic] })).topics[topic]).toEqual({
        error_code: 0,
        partitions: [0, 1, 2, 3],
      });
      const again = await drive('kp_create_partitions', { bootstrap: broker.bootstrap, topics: [{ topic, count: 4 }] });
      expect(again.results[topic]).toMatchObject({ ok: false, error: 'InvalidPartitionsError' });
    },
    TEST_TIMEOUT,
  );
});

describe('librdkafka and a compacted topic', () => {
  it(
    'a record without a key fails delivery with INVALID_RECORD; keyed records of the same topic are stored',
    async () => {
      const topic = unique('ck-compact');
      await createTopic(topic, 1, { 'cleanup.policy': 'compact' });
      const res = await drive('ck_produce', { bootstrap: broker.bootstrap, topic, records: [{ key: null, value: 'keyless' }] });
      expect(res.undelivered).toBe(0);
      expect(res.reports[0]).toMatchObject({ error: 'INVALID_RECORD' });
      const keyed = await drive('ck_produce', { bootstrap: broker.bootstrap, topic, records: [{ key: 'k', value: 'v' }] });
      expect(keyed.reports).toEqual([{ partition: 0, offset: 0 }]);
    },
    TEST_TIMEOUT,
  );
});
