// krill's /metrics read as a Prometheus scraper reads it: fetched and parsed by prometheus_client's own
// text-format parser (compat/pypi/prometheus_scrape.py with compat/pypi/.venv), after real kafkajs clients
// produced and consumed. The values are asserted against what the clients did: messages in = records
// produced, bytes in = the batches the log holds, bytes out = what the consumer fetched, lag = what the group
// has not consumed, request counts = requests sent, the purgatory = a long poll waiting; for an embedded broker
// and for a CLI-started one (`--set krill.http.listener=127.0.0.1:0`, the address in its ready line).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { startBroker, type RunningBroker } from '../../src/index.js';
import { TestClient } from '../../test/server/client.js';
import { API, fetchBody, produceOk, values } from '../../test/server/kafka.js';
import { BrokerPool, eventually } from '../util.js';
import { describeWithToolchain } from '../toolchain.js';
import { venvMissing } from './pypi.js';
import { scrape, total, value } from './prometheus.js';

const TEST_TIMEOUT = 90_000;
/** Bytes of the topic's log segments: the batches as produced, which is what BytesIn counts. */
function logBytes(dataDir: string, topic: string, partitions: number): number {
  let bytes = 0;
  for (let p = 0; p < partitions; p++) {
    const dir = path.join(dataDir, `${topic}-${p}`);
    for (const f of fs.readdirSync(dir)) if (f.endsWith('.log')) bytes += fs.statSync(path.join(dir, f)).size;
  }
  return bytes;
}

const kafkaOf = (bootstrap: string) => new Kafka({ clientId: 'krill-metrics', brokers: [bootstrap], logLevel: logLevel.NOTHING });

/** Produces `perPartition[p]` records to each partition p of `topic`, in one send (one Produce request). */
async function produce(kafka: Kafka, topic: string, perPartition: number[], tag: string): Promise<void> {
  const producer = kafka.producer();
  await producer.connect();
  try {
    const messages = perPartition.flatMap((n, partition) =>
      Array.from({ length: n }, (_, i) => ({ partition, key: `k${i}`, value: `${tag}-${partition}-${i}` })),
    );
    await producer.send({ topic, acks: -1, messages });
  } finally {
    await producer.disconnect();
  }
}

/** A kafkajs group member reads until the group has committed `ends` (per partition), then leaves. */
async function consumeAll(kafka: Kafka, admin: Admin, topic: string, groupId: string, ends: number[]): Promise<void> {
  const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 100 });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({ autoCommitInterval: 50, eachMessage: async () => {} });
    await eventually('the group to commit every record', async () => {
      const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
      const committed = offsets.partitions.sort((a, b) => a.partition - b.partition).map((p) => Number(p.offset));
      return committed.join() === ends.join() ? true : undefined;
    });
  } finally {
    await consumer.disconnect();
  }
}

/** The scenario both brokers go through, and what /metrics must then say. */
async function produceConsumeAndScrape(bootstrap: string, http: string, dataDir: string, label: string): Promise<void> {
  const kafka = kafkaOf(bootstrap);
  const admin = kafka.admin();
  await admin.connect();
  const topic = `metrics-${label}`;
  const groupId = `metrics-group-${label}`;
  try {
    await admin.createTopics({ topics: [{ topic, numPartitions: 2 }], waitForLeaders: true });
    await produce(kafka, topic, [10, 5], 'first');
    await produce(kafka, topic, [3, 0], 'second');
    const bytesConsumed = logBytes(dataDir, topic, 2);
    await consumeAll(kafka, admin, topic, groupId, [13, 5]);
    await produce(kafka, topic, [4, 2], 'unread');

    const m = await scrape(http);
    const t = { topic };
    expect(value(m, 'kafka_server_brokertopicmetrics_messagesin', t)).toBe(24);
    expect(value(m, 'kafka_server_brokertopicmetrics_bytesin', t)).toBe(logBytes(dataDir, topic, 2));
    // The consumer read each batch once, all of them produced before it started.
    expect(value(m, 'kafka_server_brokertopicmetrics_bytesout', t)).toBe(bytesConsumed);
    expect(value(m, 'kafka_server_brokertopicmetrics_replicationbytesout', t)).toBe(0);
    // The group committed 13 and 5, and 4 and 2 records came after.
    const g = { consumergroup: groupId, topic };
    expect([value(m, 'kafka_consumergroup_lag', { ...g, partition: '0' }), value(m, 'kafka_consumergroup_lag', { ...g, partition: '1' })]).toEqual([4, 2]);
    expect([
      value(m, 'kafka_consumergroup_current_offset', { ...g, partition: '0' }),
      value(m, 'kafka_consumergroup_current_offset', { ...g, partition: '1' }),
    ]).toEqual([13, 5]);
    expect(value(m, 'kafka_consumergroup_members', { consumergroup: groupId })).toBe(0);

    // Every partition (the topic's, __consumer_offsets') is held and led here, all fully replicated.
    const metadata = await admin.fetchTopicMetadata({ topics: await admin.listTopics() });
    const partitions = metadata.topics.reduce((s, x) => s + x.partitions.length, 0);
    expect(partitions).toBeGreaterThan(2);
    expect(value(m, 'kafka_server_replicamanager_partitioncount')).toBe(partitions);
    expect(value(m, 'kafka_server_replicamanager_leadercount')).toBe(partitions);
    expect(value(m, 'kafka_server_replicamanager_underreplicatedpartitions')).toBe(0);
    expect(value(m, 'kafka_server_replicamanager_underminisrpartitioncount')).toBe(0);
    expect(value(m, 'kafka_controller_kafkacontroller_offlinepartitionscount')).toBe(0);
    expect(value(m, 'kafka_controller_kafkacontroller_activecontrollercount')).toBe(1);
    expect([value(m, 'kafka_server_replicamanager_isrshrinks'), value(m, 'kafka_server_replicamanager_isrexpands')]).toEqual([0, 0]);

    // Three sends, three Produce requests; each request timed once; consumers' fetches are FetchConsumer.
    const requests = 'kafka_network_requestmetrics_requests';
    const produceRequests = total(m, requests, { request: 'Produce' }, `${requests}_total`);
    expect(produceRequests).toBe(3);
    expect(m['kafka_network_requestmetrics_totaltimems'].type).toBe('histogram');
    for (const request of ['Produce', 'FetchConsumer', 'Metadata', 'JoinGroup', 'OffsetCommit']) {
      const count = total(m, requests, { request }, `${requests}_total`);
      expect(count, request).toBeGreaterThan(0);
      expect(value(m, 'kafka_network_requestmetrics_totaltimems', { request }, 'kafka_network_requestmetrics_totaltimems_count'), request).toBe(count);
      expect(value(m, 'kafka_network_requestmetrics_totaltimems', { request, le: '+Inf' }, 'kafka_network_requestmetrics_totaltimems_bucket')).toBe(count);
    }
    expect(total(m, requests, { request: 'FetchFollower' }, `${requests}_total`)).toBe(0);
  } finally {
    await admin.disconnect();
  }
}

/**
 * A long-poll Fetch waits in the fetch purgatory, counted once as an operation and once per partition it
 * watches, until a produce to one of them completes it; and the connections open are counted.
 */
async function purgatoryAndConnections(port: number, http: string, topic: string): Promise<void> {
  const poller = await TestClient.connect(port);
  const producer = await TestClient.connect(port);
  const idle = await TestClient.connect(port);
  const connections = async (n: number) =>
    eventually(`${n} connections`, async () => {
      const s = await scrape(http);
      return value(s, 'kafka_server_socket_server_metrics_connection_count', { listener: 'PLAINTEXT' }) === n ? s : undefined;
    });
  try {
    await connections(3);
    const ends = [
      { partition: 0, fetchOffset: 17 },
      { partition: 1, fetchOffset: 7 },
    ];
    const pending = poller.request(API.Fetch, 12, fetchBody(12, topic, ends, { maxWaitMs: 60_000, minBytes: 1 }));
    const m = await eventually('the fetch to wait in the purgatory', async () => {
      const s = await scrape(http);
      return value(s, 'kafka_server_delayedoperationpurgatory_numdelayedoperations', { delayedOperation: 'Fetch' }) === 1 ? s : undefined;
    });
    expect(value(m, 'kafka_server_delayedoperationpurgatory_purgatorysize', { delayedOperation: 'Fetch' })).toBe(2);
    expect(value(m, 'kafka_server_delayedoperationpurgatory_numdelayedoperations', { delayedOperation: 'Produce' })).toBe(0);
    await produceOk(producer, topic, 1, values(1));
    await pending; // the test's timeout is far below maxWaitMs
    const after = await scrape(http);
    expect(value(after, 'kafka_server_delayedoperationpurgatory_numdelayedoperations', { delayedOperation: 'Fetch' })).toBe(0);
    expect(value(after, 'kafka_server_delayedoperationpurgatory_purgatorysize', { delayedOperation: 'Fetch' })).toBe(0);
    expect(value(after, 'kafka_server_brokertopicmetrics_messagesin', { topic })).toBe(25);
    idle.close();
    await connections(2);
  } finally {
    poller.close();
    producer.close();
    idle.close();
  }
}

describeWithToolchain('/metrics parsed by prometheus_client (PyPI) after kafkajs traffic', venvMissing, { timeout: TEST_TIMEOUT }, () => {
  let broker: RunningBroker;
  const pool = new BrokerPool();
  beforeAll(async () => {
    broker = await startBroker({ port: 0, host: '127.0.0.1', config: { 'krill.http.listener': '127.0.0.1:0' } });
  });
  afterAll(async () => {
    await broker?.close();
    await pool.cleanup();
  });

  it('an embedded broker: messages, bytes, lag, partitions, requests as the clients made them', async () => {
    await produceConsumeAndScrape(broker.bootstrap, broker.http!, broker.dataDir, 'embedded');
  });

  it('an embedded broker: a waiting fetch in the purgatory, open connections', async () => {
    await eventually('the clients of the previous test to disconnect', async () =>
      value(await scrape(broker.http!), 'kafka_server_socket_server_metrics_connection_count', { listener: 'PLAINTEXT' }) === 0 ? true : undefined,
    );
    await purgatoryAndConnections(broker.port, broker.http!, 'metrics-embedded');
  });

  it('a CLI broker: the HTTP address in the ready line, the same figures', async () => {
    const dataDir = pool.dir('krill-metrics-');
    const cli = await pool.start(['--data-dir', dataDir, '--set', 'krill.http.listener=127.0.0.1:0']);
    const http = /, http: (127\.0\.0\.1:\d+)\)$/.exec(cli.readyLine)?.[1];
    expect(http, cli.readyLine).toBeDefined();
    const ready = await fetch(`http://${http}/ready`);
    expect([ready.status, await ready.json()]).toEqual([200, { status: 'ready' }]);
    await produceConsumeAndScrape(cli.bootstrap, http!, dataDir, 'cli');
  });
});
