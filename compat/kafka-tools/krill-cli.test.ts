// The krill CLI against a real Apache Kafka 4.4 broker (KRaft, started from the kafka-tools classpath): its
// commands speak the protocol, not krill's quirks. The effects are checked with kafkajs.
import { createRequire } from 'node:module';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithToolchain } from '../toolchain.js';
import { apacheKafkaMissing, startApacheKafka, type ApacheKafka } from './apache-kafka.js';
import { json, krillAgainst } from '../../test/admin-cli/run.js';

const require = createRequire(import.meta.url);
/* eslint-disable @typescript-eslint/no-explicit-any */
const { Kafka, logLevel } = require('kafkajs');

describeWithToolchain('krill CLI against Apache Kafka 4.4', apacheKafkaMissing, { timeout: 120_000 }, () => {
  let kafka: ApacheKafka;
  let admin: any;
  let client: any;
  const krill = krillAgainst(() => kafka.bootstrap);

  beforeAll(async () => {
    kafka = await startApacheKafka();
    client = new Kafka({ clientId: 'cli-test', brokers: [kafka.bootstrap], logLevel: logLevel.NOTHING });
    admin = client.admin();
    await admin.connect();
  }, 180_000);
  afterAll(async () => {
    await admin?.disconnect();
    await kafka?.stop();
  });

  it('creates, lists, describes, alters and deletes topics', async () => {
    expect(await json(krill, ['topics', 'create', 'k', '--partitions', '2', '--config', 'retention.ms=3600000'])).toMatchObject({
      name: 'k',
      created: true,
      partitions: 2,
      replicationFactor: 1,
    });
    expect(await json(krill, ['topics', 'list'])).toContainEqual({ name: 'k', partitions: 2, replicationFactor: 1, internal: false });
    const [t] = await json(krill, ['topics', 'describe', 'k']);
    expect(t.configs['retention.ms']).toBe('3600000');
    expect(t.partitions.map((p: any) => [p.partition, p.leader, p.isr, p.highWatermark, p.sizeBytes])).toEqual([
      [0, 1, [1], 0, 0],
      [1, 1, [1], 0, 0],
    ]);
    expect((await krill(['topics', 'alter', 'k', '--partitions', '3', '--config', 'retention.ms=7200000'])).code).toBe(0);
    expect((await admin.fetchTopicMetadata({ topics: ['k'] })).topics[0].partitions).toHaveLength(3);
    const again = await krill(['topics', 'create', 'k']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/TOPIC_ALREADY_EXISTS/);
    expect(await json(krill, ['topics', 'delete', 'k'])).toEqual([{ name: 'k', deleted: true }]);
    expect(await admin.listTopics()).not.toContain('k');
  });

  it('produces and consumes, and a group reads, lags and resets', async () => {
    expect((await krill(['topics', 'create', 'r', '--partitions', '1'])).code).toBe(0);
    expect((await krill(['produce', 'r', '--key', 'k', '--header', 'h=v'], 'a\nb\nc\n')).code).toBe(0);
    const lines = (await krill(['consume', 'r', '--format', 'json'])).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((r) => [r.offset, r.key, r.value, r.headers])).toEqual([
      [0, 'k', 'a', { h: 'v' }],
      [1, 'k', 'b', { h: 'v' }],
      [2, 'k', 'c', { h: 'v' }],
    ]);
    const first = await krill(['consume', 'r', '--group', 'g', '--max-messages', '1']);
    expect(first.stderr).toBe('');
    expect(first.stdout).toBe('a\n');
    const d = await json(krill, ['groups', 'describe', 'g']);
    expect(d.state).toBe('Empty');
    expect(d.offsets).toEqual([{ topic: 'r', partition: 0, committedOffset: 1, logEndOffset: 3, lag: 2, memberId: null }]);
    expect(await json(krill, ['groups', 'list'])).toContainEqual(expect.objectContaining({ group: 'g', coordinator: 1 }));
    await json(krill, ['groups', 'reset-offsets', 'g', '--topic', 'r', '--to-latest', '--execute']);
    const [offsets] = await admin.fetchOffsets({ groupId: 'g', topics: ['r'] });
    expect(offsets.partitions[0].offset).toBe('3');
    expect(await json(krill, ['groups', 'delete', 'g'])).toEqual([{ group: 'g', deleted: true }]);
  });

  it("describes a live group's members and assignments", async () => {
    expect((await krill(['topics', 'create', 'live', '--partitions', '2'])).code).toBe(0);
    expect((await krill(['produce', 'live', '--partition', '1', '--value', 'x'])).code).toBe(0);
    const consumer = client.consumer({ groupId: 'live-group', sessionTimeout: 10_000, heartbeatInterval: 500 });
    await consumer.connect();
    await consumer.subscribe({ topic: 'live', fromBeginning: true });
    const got = new Promise<void>((resolve) => void consumer.run({ eachMessage: async () => resolve() }));
    try {
      await got;
      const d = await json(krill, ['groups', 'describe', 'live-group']);
      expect(d).toMatchObject({ group: 'live-group', state: 'Stable', protocolType: 'consumer', coordinator: 1 });
      expect(d.members).toHaveLength(1);
      expect(d.members[0].assignment).toEqual([
        { topic: 'live', partition: 0 },
        { topic: 'live', partition: 1 },
      ]);
    } finally {
      await consumer.disconnect();
    }
  });

  it('describes and alters configs, and shows the cluster', async () => {
    expect((await krill(['topics', 'create', 'c', '--partitions', '1'])).code).toBe(0);
    expect((await krill(['configs', 'alter', '--entity-type', 'topics', '--entity-name', 'c', '--add-config', 'cleanup.policy=compact'])).code).toBe(0);
    expect(await json(krill, ['configs', 'describe', '--entity-type', 'topics', '--entity-name', 'c'])).toContainEqual(
      expect.objectContaining({ name: 'cleanup.policy', value: 'compact', source: 'DYNAMIC_TOPIC_CONFIG' }),
    );
    const broker = await json(krill, ['configs', 'describe', '--entity-type', 'brokers', '--entity-name', '1', '--all']);
    expect(broker.find((c: any) => c.name === 'group.initial.rebalance.delay.ms')).toMatchObject({ value: '0', source: 'STATIC_BROKER_CONFIG' });
    const cluster = await json(krill, ['cluster']);
    expect(cluster).toMatchObject({
      clusterId: kafka.clusterId,
      brokers: [{ nodeId: 1, host: '127.0.0.1', port: kafka.port }],
      underReplicated: [],
      offline: [],
    });
  });

  it('lists, describes and aborts a hanging transaction', async () => {
    expect((await krill(['topics', 'create', 'tx', '--partitions', '1'])).code).toBe(0);
    const producer = client.producer({ transactionalId: 'tid', idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    try {
      const open = await producer.transaction();
      await open.send({ topic: 'tx', messages: [{ value: 'hanging' }] });
      expect(await json(krill, ['transactions', 'list'])).toContainEqual(expect.objectContaining({ transactionalId: 'tid', state: 'Ongoing' }));
      expect(await json(krill, ['transactions', 'describe', 'tid'])).toMatchObject({ state: 'Ongoing', partitions: ['tx-0'] });
      const [p] = await json(krill, ['transactions', 'describe-producers', '--topic', 'tx', '--partition', '0']);
      expect(p.currentTxnStartOffset).toBe(0);
      expect(await json(krill, ['transactions', 'abort', '--topic', 'tx', '--partition', '0', '--start-offset', '0'])).toMatchObject({ aborted: true });
      expect((await krill(['consume', 'tx', '--isolation-level', 'read_committed'])).stdout).toBe('');
      expect(Number((await admin.fetchTopicOffsets('tx'))[0].high)).toBe(2);
    } finally {
      await producer.disconnect();
    }
  });
});
