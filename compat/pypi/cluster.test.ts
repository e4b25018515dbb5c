// confluent-kafka 2.x (librdkafka 2.x) and aiokafka from PyPI against a 3-broker krill cluster of child
// processes (a real ZooKeeper): RF 3 topics produced and consumed by both, and a partition leader killed with
// SIGKILL under an idempotent acks=all confluent-kafka load: every acknowledged record is read back exactly
// once at the offset its delivery report named (compat/python/replication_client.py run with the venv); the
// same kill under an idempotent aiokafka producer: no send fails, and the log holds each acknowledged value
// once, at the offset its acknowledgement named.
import fs from 'node:fs';
import { expect, it } from 'vitest';
import { tempDir } from '../../test/helpers.js';
import { describeToolchainCluster } from './cluster-guard.js';
import { adminOf, agreedController, killUnderLoad, settled, unique } from '../cluster/cluster-util.js';
import { fullIsr, lossCheck, readAll, startLoad, useProcessCluster, waitState, zkState, type LoadResult } from '../cluster/replication-util.js';
import { encodeRecord } from '../python/py.js';
import { pypiDriver, venvPy } from './pypi.js';

const TEST_TIMEOUT = 150_000;
const SESSION_TIMEOUT_MS = 6000;
const PARTITIONS = 3;
const WARM_UP = 150;

describeToolchainCluster('confluent-kafka 2.x and aiokafka (PyPI) against a 3-broker krill cluster, RF 3', { timeout: TEST_TIMEOUT }, () => {
  const env = useProcessCluster('pypi', { 'zookeeper.session.timeout.ms': SESSION_TIMEOUT_MS, 'auto.leader.rebalance.enable': false }, TEST_TIMEOUT);

  async function createTopic(label: string): Promise<string> {
    const topic = unique(label);
    const admin = await adminOf(env.cluster.bootstrap);
    try {
      await admin.createTopics({
        topics: [{ topic, numPartitions: PARTITIONS, replicationFactor: 3, configEntries: [{ name: 'min.insync.replicas', value: '2' }] }],
        waitForLeaders: true,
      });
    } finally {
      await admin.disconnect();
    }
    await settled(env.cluster, topic, PARTITIONS);
    await fullIsr(env.zk, topic, PARTITIONS);
    return topic;
  }

  it('both clients produce to an RF 3 topic (idempotent, acks=all) and each reads back everything the other wrote', async () => {
    const topic = await createTopic('both');
    const bootstrap = env.cluster.bootstrap;
    const ckRecords = Array.from({ length: 30 }, (_, i) => ({ key: null, value: `ck-${i}`, partition: i % PARTITIONS }));
    const ck = await venvPy('ck_client.py', 'produce', { bootstrap, topic, records: ckRecords.map(encodeRecord), conf: { 'enable.idempotence': true } });
    expect(ck.undelivered).toBe(0);
    expect(ck.reports.filter((r: { error?: string }) => r.error)).toEqual([]);
    const aioRecords = Array.from({ length: 30 }, (_, i) => ({ key: null, value: `aio-${i}`, partition: i % PARTITIONS }));
    const aio = await venvPy(pypiDriver('aiokafka_client.py'), 'produce', {
      bootstrap,
      topic,
      records: aioRecords,
      conf: { acks: 'all', enable_idempotence: true },
    });
    expect(aio.acks).toHaveLength(30);
    const expected = [...ckRecords, ...aioRecords].map((r) => r.value).sort();
    const viaCk = await readAll(bootstrap, topic, PARTITIONS, venvPy);
    expect(viaCk.map(([, , v]) => v).sort()).toEqual(expected);
    const viaAio = await venvPy(pypiDriver('aiokafka_client.py'), 'consume', { bootstrap, topic, group: unique('g'), count: 60 });
    expect(viaAio.messages.map((m: { value: string }) => m.value).sort()).toEqual(expected);
    expect(viaAio.committed).toEqual({ 0: 20, 1: 20, 2: 20 });
  });

  it('kill -9 of a partition leader under an idempotent confluent-kafka 2.x load: every acknowledged record read back exactly once', async () => {
    const topic = await createTopic('kill');
    const controller = await agreedController(env.cluster.brokers.map((b) => b.port));
    const victim = env.cluster.brokers.find((b) => b.id !== controller)!;
    const before = await Promise.all(Array.from({ length: PARTITIONS }, (_, p) => zkState(env.zk, topic, p)));
    const led = before.map((s, p) => (s.leader === victim.id ? p : -1)).filter((p) => p >= 0);
    expect(led.length, JSON.stringify(before)).toBeGreaterThan(0);

    const load = startLoad(env.cluster.bootstrap, topic, { prefix: 'kill', partitions: PARTITIONS, rate: 150, runner: venvPy });
    let result: LoadResult;
    try {
      await load.until(`${WARM_UP} acknowledged records before the kill`, (p) => p.acked >= WARM_UP);
      const killedAt = Date.now();
      await victim.kill();
      const moved = await load.until(
        `records acknowledged on partitions ${led} after the kill`,
        (p) => led.every((x) => (p.last_ack_by_partition[x]?.at ?? 0) > killedAt),
        90_000,
      );
      await load.until(`${WARM_UP} more records acknowledged`, (p) => p.acked >= moved.acked + WARM_UP);
    } finally {
      result = await load.finish();
    }
    for (const p of led) await waitState(env.zk, topic, p, `led by a broker other than ${victim.id}`, (x) => x.leader > 0 && x.leader !== victim.id);
    expect(result.client_errors.filter((e) => e.fatal)).toEqual([]);
    expect(result.produce_error).toBeNull();
    expect(result.undelivered).toBe(0);
    await victim.start();
    await fullIsr(env.zk, topic, PARTITIONS);
    const log = await readAll(env.cluster.bootstrap, topic, PARTITIONS, venvPy);
    const check = lossCheck(result.reports, log);
    expect(check.lost, `acknowledged records lost (of ${check.acked})`).toEqual([]);
    expect(check.duplicated, 'values read twice').toEqual([]);
    expect(check.failed.slice(0, 10), `${check.failed.length} failed deliveries`).toEqual([]);
    expect(check.acked).toBe(result.reports.length);
    expect(log).toHaveLength(result.reports.length);
  });

  it('kill -9 of a partition leader under an idempotent aiokafka producer: no failed send, every acknowledged value once', async () => {
    const topic = await createTopic('aio-kill');
    const controller = await agreedController(env.cluster.brokers.map((b) => b.port));
    const victim = env.cluster.brokers.find((b) => b.id !== controller)!;
    const work = tempDir('krill-aio-kill-');
    const res = await killUnderLoad(
      work,
      'aiokafka',
      victim,
      ({ progress, stop }) =>
        venvPy(
          pypiDriver('aiokafka_client.py'),
          'produce_until_stopped',
          { bootstrap: env.cluster.bootstrap, topic, partitions: PARTITIONS, progress, stop, max: 200_000, timeout_s: 120 },
          130_000,
        ),
      { before: WARM_UP, after: 1000 },
    );
    fs.rmSync(work, { recursive: true, force: true });
    expect(res.errors).toEqual([]);
    expect(Object.keys(res.acked)).toHaveLength(res.sent);
    await victim.start();
    await fullIsr(env.zk, topic, PARTITIONS);
    const log = await readAll(env.cluster.bootstrap, topic, PARTITIONS, venvPy);
    // Exactly the acknowledged values, each once, where its acknowledgement said.
    expect(log).toHaveLength(res.sent);
    const wrong = log.filter(([p, offset, value]) => res.acked[value]?.[0] !== p || res.acked[value]?.[1] !== offset);
    expect(wrong.slice(0, 10)).toEqual([]);
  });
});
