// The cluster id at start, as Kafka agrees on it: the first broker of a cluster writes its data dir's id to
// /cluster/id, a new data dir takes the one there (and keeps it in meta.properties), and a data dir of
// another cluster refuses to start, naming both ids. Brokers in this process against a real ZooKeeper, one
// chroot per cluster.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startBroker } from '../../src/embedded-broker.js';
import { useTempDirs } from '../helpers.js';
import { useZooKeeper } from './zk-helpers.js';

const zookeeper = useZooKeeper();
const tempDir = useTempDirs('krill-cluster-id-');

function start(dataDir: string, chroot: string, id = 1) {
  return startBroker({ port: 0, dataDir, config: { 'zookeeper.connect': `${zookeeper.server().connect}${chroot}`, 'broker.id': id } });
}

const storedClusterId = (dataDir: string): string | undefined => /cluster\.id=(\S+)/.exec(fs.readFileSync(path.join(dataDir, 'meta.properties'), 'utf8'))?.[1];

describe('the cluster id', () => {
  it("is the first data dir's, taken by new data dirs, and refused to a data dir of another cluster", async () => {
    const first = tempDir();
    const a = await start(first, '/id-a');
    const clusterA = a.clusterId;
    const joiner = tempDir();
    const b = await start(joiner, '/id-a', 2);
    expect(b.clusterId).toBe(clusterA);
    expect(storedClusterId(joiner)).toBe(clusterA);
    await b.close();
    await a.close();

    const other = tempDir();
    const c = await start(other, '/id-b');
    expect(c.clusterId).not.toBe(clusterA);
    await c.close();
    await expect(start(first, '/id-b')).rejects.toThrow(new RegExp(`Cluster ID ${c.clusterId} doesn't match stored clusterId ${clusterA}`));
    expect(storedClusterId(first)).toBe(clusterA);

    // And the first data dir still starts in its own cluster.
    const again = await start(first, '/id-a');
    expect(again.clusterId).toBe(clusterA);
    await again.close();
  }, 90_000);
});
