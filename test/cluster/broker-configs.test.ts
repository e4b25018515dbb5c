// The cluster-wide dynamic broker configs (the "" BROKER resource) in a cluster: written to ZooKeeper's
// /config/brokers/<default> with a change notification, as Kafka's AdminZkClient writes them, and applied
// by every broker: those running (notification) and one started later (read at start).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type RunningCluster } from '../../src/index.js';
import { ZkClient } from '../../src/cluster/zk/zk-client.js';
import { zookeeperInstalled } from '../../src/cluster/zookeeper-server.js';
import { TestClient } from '../server/client.js';
import { quietLog, waitFor } from './zk-helpers.js';

const skip = !zookeeperInstalled() && process.env.CI !== 'true';
const DESCRIBE_CONFIGS = 32;
const INCREMENTAL_ALTER_CONFIGS = 44;
const BROKER = 4;
const DYNAMIC_DEFAULT_BROKER_CONFIG = 3;

async function retentionOf(port: number, brokerId: number): Promise<{ value: string; configSource: number }> {
  const client = await TestClient.connect(port);
  try {
    const res = await client.request(DESCRIBE_CONFIGS, 4, {
      resources: [{ resourceType: BROKER, resourceName: String(brokerId), configurationKeys: ['log.retention.ms'] }],
      includeSynonyms: false,
      includeDocumentation: false,
    });
    const { value, configSource } = res.results[0].configs[0];
    return { value, configSource };
  } finally {
    client.close();
  }
}

describe.skipIf(skip)('cluster-wide dynamic broker configs', () => {
  let cluster: RunningCluster;
  beforeAll(async () => {
    cluster = await startCluster({ brokers: 3, logLevel: 'silent' });
    await cluster.brokers[2].stop(); // started again below, after the change
  }, 90_000);
  afterAll(async () => {
    await cluster?.close();
  }, 60_000);

  it('a change through one broker reaches the others, and a broker started later', async () => {
    const client = await TestClient.connect(cluster.brokers[0].port);
    try {
      const res = await client.request(INCREMENTAL_ALTER_CONFIGS, 1, {
        resources: [{ resourceType: BROKER, resourceName: '', configs: [{ name: 'log.retention.ms', configOperation: 0, value: '123456789' }] }],
        validateOnly: false,
      });
      expect(res.responses[0].errorCode).toBe(0);
    } finally {
      client.close();
    }
    const zk = await ZkClient.connect({ connect: cluster.zookeeperConnect, sessionTimeoutMs: 10_000, connectionTimeoutMs: 10_000, log: quietLog });
    try {
      const node = await zk.getData('/config/brokers/<default>');
      expect(JSON.parse(node!.data!.toString())).toEqual({ version: 1, config: { 'log.retention.ms': '123456789' } });
    } finally {
      await zk.close();
    }
    const expected = { value: '123456789', configSource: DYNAMIC_DEFAULT_BROKER_CONFIG };
    expect(await retentionOf(cluster.brokers[0].port, 1)).toEqual(expected);
    await waitFor(async () => (await retentionOf(cluster.brokers[1].port, 2)).value === '123456789', 'broker 2 to apply the change');
    expect(await retentionOf(cluster.brokers[1].port, 2)).toEqual(expected);
    await cluster.brokers[2].start();
    expect(await retentionOf(cluster.brokers[2].port, 3)).toEqual(expected);
  }, 90_000);
});
