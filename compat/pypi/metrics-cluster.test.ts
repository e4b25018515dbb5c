// Health and metrics of cluster brokers, /metrics parsed by prometheus_client (compat/pypi/prometheus.ts):
// - a CLI broker whose ZooKeeper is unreachable: /health 200 and /ready 503 with its reason while it waits,
//   then /ready 200 once ZooKeeper lets it in (a gate in front of a real ZooKeeper, refusing then forwarding);
// - a 3-broker cluster of child processes: a broker killed with SIGKILL, then records produced, leaves every
//   RF 3 partition under-replicated on the leaders (an ISR shrink by each leader that had it as a follower),
//   its RF 1 partition offline on the controller; restarted, the ISRs expand and both counts return to 0.
import net from 'node:net';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect, it } from 'vitest';
import { CLI, tempDir } from '../../test/helpers.js';
import { startZooKeeper, type ZooKeeperServer } from '../../src/cluster/zookeeper-server.js';
import { adminOf, createSettledTopic, eventually, kafka, settled, unique } from '../cluster/cluster-util.js';
import { useProcessCluster } from '../cluster/replication-util.js';
import { describeToolchainCluster } from './cluster-guard.js';
import { scrape, value, type Families } from './prometheus.js';

const TEST_TIMEOUT = 150_000;
// Long enough that the leaders shrink their ISRs (after replica.lag.time.max.ms) before the controller, told of
// the expired session, takes the dead broker out of them itself.
const SESSION_TIMEOUT_MS = 10_000;
const PARTITIONS = 3;

/** A TCP port in front of a ZooKeeper that resets every connection until forward(), then pipes them through. */
class ZooKeeperGate {
  refused = 0;
  private forwarding = false;
  private readonly sockets = new Set<net.Socket>();
  private constructor(
    private readonly server: net.Server,
    readonly port: number,
  ) {}

  static async open(zookeeperPort: number): Promise<ZooKeeperGate> {
    let gate: ZooKeeperGate | null = null;
    const server = net.createServer((socket) => gate!.accept(socket, zookeeperPort));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    gate = new ZooKeeperGate(server, (server.address() as net.AddressInfo).port);
    return gate;
  }

  private accept(socket: net.Socket, zookeeperPort: number): void {
    socket.on('error', () => {});
    if (!this.forwarding) {
      this.refused++;
      socket.resetAndDestroy();
      return;
    }
    const upstream = net.connect(zookeeperPort, '127.0.0.1');
    upstream.on('error', () => socket.destroy());
    socket.on('close', () => upstream.destroy());
    upstream.on('close', () => socket.destroy());
    socket.pipe(upstream).pipe(socket);
    this.sockets.add(socket).add(upstream);
  }

  forward(): void {
    this.forwarding = true;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

async function getJson(url: string): Promise<[number, unknown]> {
  const res = await fetch(url);
  return [res.status, await res.json()];
}

describeToolchainCluster('health and metrics of cluster brokers (prometheus_client from PyPI)', { timeout: TEST_TIMEOUT }, () => {
  it('/ready is 503 while ZooKeeper is unreachable, 200 once the broker joined; /health is 200 throughout', async () => {
    const zookeeper: ZooKeeperServer = await startZooKeeper();
    const gate = await ZooKeeperGate.open(zookeeper.port);
    const dir = tempDir('krill-ready-');
    const args = ['--port', '0', '--data-dir', path.join(dir, 'data'), '--log-level', 'info'];
    for (const set of [`zookeeper.connect=127.0.0.1:${gate.port}/ready-test`, 'zookeeper.connection.timeout.ms=120000', 'krill.http.listener=127.0.0.1:0']) {
      args.push('--set', set);
    }
    const proc = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d) => (stdout += d));
    proc.stderr.on('data', (d) => (stderr += d));
    try {
      // The listener logs its address before the broker joins the cluster (the ready line comes after).
      const http = await eventually('the HTTP listener', () => /"http":"(127\.0\.0\.1:\d+)","msg":"HTTP listener started"/.exec(stderr)?.[1]);
      await eventually('a connection to ZooKeeper refused', () => (gate.refused > 0 ? true : undefined));
      expect(await getJson(`http://${http}/health`)).toEqual([200, { status: 'alive' }]);
      expect(await getJson(`http://${http}/ready`)).toEqual([503, { status: 'not ready', reason: 'joining the cluster through ZooKeeper' }]);
      expect(stdout).toBe('');
      const before = await scrape(http);
      expect(value(before, 'kafka_controller_kafkacontroller_activecontrollercount')).toBe(0);

      gate.forward();
      await eventually('the ready line', () => (stdout.includes('krill ready on') ? true : undefined), 60_000);
      expect(stdout).toContain(`, http: ${http})`);
      await eventually('/ready to answer 200', async () => ((await fetch(`http://${http}/ready`)).status === 200 ? true : undefined));
      expect(await getJson(`http://${http}/ready`)).toEqual([200, { status: 'ready' }]);
      // Alone in its cluster, it is the controller.
      expect(value(await scrape(http), 'kafka_controller_kafkacontroller_activecontrollercount')).toBe(1);
      proc.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      proc.kill('SIGKILL');
      await gate.close();
      await zookeeper.stop();
    }
  });

  const env = useProcessCluster(
    'metrics',
    {
      'krill.http.listener': '127.0.0.1:0',
      'zookeeper.session.timeout.ms': SESSION_TIMEOUT_MS,
      // Leaders drop a silent follower from the ISR well before its session expires.
      'replica.lag.time.max.ms': 2000,
      'auto.leader.rebalance.enable': false,
    },
    TEST_TIMEOUT,
  );

  /** Every running broker's /metrics, by broker id. */
  const scrapeAll = async (): Promise<Map<number, Families>> => {
    const running = env.cluster.brokers.filter((b) => b.running);
    return new Map(await Promise.all(running.map(async (b) => [b.id, await scrape(b.http!)] as const)));
  };
  const sum = (all: Map<number, Families>, family: string) => [...all.values()].reduce((s, m) => s + value(m, family)!, 0);
  /** Polls every broker's /metrics until `done` holds of them; returns that scrape. */
  const until = (what: string, done: (all: Map<number, Families>) => boolean) =>
    eventually(
      what,
      async () => {
        const all = await scrapeAll();
        return done(all) ? all : undefined;
      },
      60_000,
      200,
    );

  it('a killed broker: under-replicated partitions and ISR shrinks on the leaders, its RF 1 partition offline; back, the ISRs expand', async () => {
    const { cluster } = env;
    const topic = unique('urp');
    const single = unique('rf1');
    const placed = await createSettledTopic(cluster, topic, PARTITIONS);
    const admin = await adminOf(cluster.bootstrap);
    try {
      await admin.createTopics({ topics: [{ topic: single, replicaAssignment: [{ partition: 0, replicas: [3] }] }], waitForLeaders: true });
    } finally {
      await admin.disconnect();
    }
    await settled(cluster, single, 1);
    const healthy = await until('every ISR full', (all) => sum(all, 'kafka_server_replicamanager_underreplicatedpartitions') === 0);
    expect(sum(healthy, 'kafka_controller_kafkacontroller_activecontrollercount')).toBe(1);
    expect(sum(healthy, 'kafka_controller_kafkacontroller_offlinepartitionscount')).toBe(0);
    for (const b of cluster.brokers) expect(await getJson(`http://${b.http}/ready`)).toEqual([200, { status: 'ready' }]);
    const shrinksBefore = sum(healthy, 'kafka_server_replicamanager_isrshrinks');
    const expandsBefore = sum(healthy, 'kafka_server_replicamanager_isrexpands');

    const victim = cluster.brokers[2];
    await victim.kill();
    // Records the dead follower cannot copy, to the partitions the live brokers lead: a follower with the
    // leader's log end stays in sync however long ago it fetched (Kafka's isCaughtUp), so without them the
    // leaders would not shrink their ISRs.
    const ledByLive = placed.filter((p) => p.leaderId !== victim.id).map((p) => p.partitionIndex);
    expect(ledByLive.length).toBeGreaterThan(0);
    const producer = kafka(cluster.brokers.filter((b) => b !== victim).map((b) => b.bootstrap)).producer();
    await producer.connect();
    try {
      await producer.send({ topic, acks: 1, messages: ledByLive.map((partition) => ({ partition, value: `after-kill-${partition}` })) });
    } finally {
      await producer.disconnect();
    }
    // Every RF 3 partition had broker 3 as a replica; the RF 1 one had only broker 3, and is offline.
    const degraded = await until(
      'the RF 3 partitions under-replicated after ISR shrinks, and the RF 1 partition offline',
      (all) =>
        sum(all, 'kafka_server_replicamanager_underreplicatedpartitions') === PARTITIONS &&
        sum(all, 'kafka_server_replicamanager_isrshrinks') > shrinksBefore &&
        sum(all, 'kafka_controller_kafkacontroller_offlinepartitionscount') === 1,
    );
    expect(sum(degraded, 'kafka_controller_kafkacontroller_activecontrollercount')).toBe(1);

    await victim.start();
    const recovered = await until(
      'the ISRs full again and nothing offline',
      (all) =>
        all.size === 3 &&
        sum(all, 'kafka_server_replicamanager_underreplicatedpartitions') === 0 &&
        sum(all, 'kafka_server_replicamanager_isrexpands') > expandsBefore &&
        sum(all, 'kafka_controller_kafkacontroller_offlinepartitionscount') === 0,
    );
    expect(sum(recovered, 'kafka_controller_kafkacontroller_activecontrollercount')).toBe(1);
    expect(await getJson(`http://${victim.http}/ready`)).toEqual([200, { status: 'ready' }]);
  });
});
