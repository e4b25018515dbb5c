// The krill CLI (dist/src/bin/krill.cjs) refusing to join a cluster it must not join, as a Kafka broker in
// ZooKeeper mode refuses: no ZooKeeper at zookeeper.connect within zookeeper.connection.timeout.ms, a
// broker.id another live broker has registered (NODE_EXISTS on /brokers/ids/<id>), and a data dir whose
// meta.properties names another cluster than /cluster/id. Each exits non-zero with a message naming the
// culprit, and leaves the running cluster as it was.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningCluster } from '../../src/embedded-cluster.js';
import { randomKafkaUuid } from '../../src/storage/meta-properties.js';
import { runCli, tempDir } from '../../test/helpers.js';
import { describeCluster, formCluster, metadataFrom, ZkReader } from './cluster-util.js';

const TEST_TIMEOUT = 60_000;
const EXIT_TIMEOUT_MS = 20_000;

let cluster: RunningCluster;
let zk: ZkReader;
const dirs: string[] = [];

function dataDir(): string {
  const d = tempDir('krill-cluster-bad-');
  dirs.push(d);
  return d;
}

/** A loopback port nobody listens on (bound, then closed). */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

const brokerArgs = (dir: string, configs: Record<string, string | number>) => [
  '--host',
  '127.0.0.1',
  '--port',
  '0',
  '--data-dir',
  dir,
  ...Object.entries(configs).flatMap(([k, v]) => ['--set', `${k}=${v}`]),
];

describeCluster('the krill CLI refusing to join a ZooKeeper cluster', { timeout: TEST_TIMEOUT }, () => {
  beforeAll(async () => {
    cluster = await formCluster('bad-input', { brokers: 1, processes: true });
    zk = await ZkReader.open(cluster.zookeeperConnect);
  }, TEST_TIMEOUT);
  afterAll(async () => {
    await zk?.close();
    await cluster?.close();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('no ZooKeeper at zookeeper.connect: exits non-zero naming the connect string', async () => {
    const port = await closedPort();
    const connect = `127.0.0.1:${port}`;
    const t0 = performance.now();
    const r = await runCli(brokerArgs(dataDir(), { 'broker.id': 7, 'zookeeper.connect': connect, 'zookeeper.connection.timeout.ms': 1500 }), EXIT_TIMEOUT_MS);
    console.log(`[measure] bad-input: exit after an unreachable ZooKeeper (connection timeout 1500 ms): ${Math.round(performance.now() - t0)} ms`);
    expect(r.code, r.stderr).not.toBe(0);
    expect(r.stderr).toContain(connect);
    expect(r.stderr).toMatch(/ZooKeeper/i);
    expect(r.stdout).not.toContain('krill ready');
  });

  it('a broker.id already registered: refuses to start with NODE_EXISTS; the registered broker is untouched', async () => {
    const before = await zk.get('/brokers/ids/1');
    expect(before).not.toBeNull();
    const r = await runCli(brokerArgs(dataDir(), { 'broker.id': 1, 'zookeeper.connect': cluster.zookeeperConnect }), EXIT_TIMEOUT_MS);
    expect(r.code, r.stderr).not.toBe(0);
    expect(r.stderr).toMatch(/NODE_EXISTS|already registered/);
    expect(r.stderr).toContain('/brokers/ids/1');
    expect(r.stdout).not.toContain('krill ready');
    const after = await zk.get('/brokers/ids/1');
    expect(after?.czxid).toBe(before!.czxid);
    expect(after?.json).toEqual(before!.json);
    expect((await metadataFrom(cluster.brokers[0].port)).brokers.map((b) => b.nodeId)).toEqual([1]);
  });

  it('a data dir of another cluster (meta.properties cluster.id differs from /cluster/id): refuses naming both ids', async () => {
    const clusterId = (await zk.get('/cluster/id'))!.json.id as string;
    const foreign = randomKafkaUuid().text;
    const dir = dataDir();
    // As a Kafka broker in ZooKeeper mode writes it (version 0, broker.id).
    fs.writeFileSync(path.join(dir, 'meta.properties'), `#\n#Sat Dec 05 00:00:00 UTC 2026\nversion=0\nbroker.id=5\ncluster.id=${foreign}\n`);
    const r = await runCli(brokerArgs(dir, { 'broker.id': 5, 'zookeeper.connect': cluster.zookeeperConnect }), EXIT_TIMEOUT_MS);
    expect(r.code, r.stderr).not.toBe(0);
    expect(r.stderr).toContain(clusterId);
    expect(r.stderr).toContain(foreign);
    expect(r.stdout).not.toContain('krill ready');
    expect(await zk.get('/brokers/ids/5')).toBeNull();
    expect((await zk.get('/cluster/id'))!.json.id).toBe(clusterId);
    expect(fs.readFileSync(path.join(dir, 'meta.properties'), 'utf8')).toContain(`cluster.id=${foreign}`);
  });
});
