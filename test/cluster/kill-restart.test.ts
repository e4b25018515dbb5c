// A broker killed (SIGKILL) and started again through startCluster: meanwhile the partitions it leads are
// offline (their ISR is their leader alone until replication exists), the others stay served; start() waits
// for ZooKeeper to let the killed broker's registration go, and then the broker leads its partitions again
// with every acknowledged record.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type RunningCluster } from '../../src/embedded-cluster.js';
import { ErrorCode } from '../../protocol/errors.js';
import { TestClient } from '../server/client.js';
import { fetchOne, produceOk, recordsOf, values } from '../server/kafka.js';
import { createTopicOk, leaderOf, metadata, zkState } from './cluster-probe.js';
import { waitFor } from './zk-helpers.js';

let cluster: RunningCluster;

beforeAll(async () => {
  cluster = await startCluster({ brokers: 2, processes: true });
}, 120_000);

afterAll(async () => {
  await cluster?.close();
}, 60_000);

describe('kill and start a broker of the cluster', () => {
  it('its partitions are offline while it is gone and back with their records after start()', async () => {
    const one = await TestClient.connect(cluster.brokers[0].port);
    try {
      await createTopicOk(one, 'survivor', -1, [
        { partitionIndex: 0, brokerIds: [1] },
        { partitionIndex: 1, brokerIds: [2] },
      ]);
      expect(await leaderOf(one, 'survivor', 1)).toBe(2);
      let two = await TestClient.connect(cluster.brokers[1].port);
      await produceOk(two, 'survivor', 1, values(4));
      two.close();
      const epochBefore = (await zkState(cluster.zookeeperConnect)).brokerEpochs.get(2);

      await cluster.brokers[1].kill();
      await waitFor(
        async () => {
          const p = (await metadata(one, ['survivor'])).topics[0].partitions.find((x: { partitionIndex: number }) => x.partitionIndex === 1);
          return p.errorCode === ErrorCode.LEADER_NOT_AVAILABLE && p.leaderId === -1;
        },
        'partition 1 offline',
        60_000,
      );
      await produceOk(one, 'survivor', 0, values(1));

      await cluster.brokers[1].start();
      expect((await zkState(cluster.zookeeperConnect)).brokerEpochs.get(2)).toBeGreaterThan(epochBefore!);
      expect(await leaderOf(one, 'survivor', 1)).toBe(2);
      two = await TestClient.connect(cluster.brokers[1].port);
      try {
        await waitFor(async () => (await fetchOne(two, 'survivor', 1, 0)).errorCode === 0, 'broker 2 leading partition 1 again');
        expect(recordsOf((await fetchOne(two, 'survivor', 1, 0)).records).map((r) => r.value)).toEqual(['v0', 'v1', 'v2', 'v3']);
      } finally {
        two.close();
      }
    } finally {
      one.close();
    }
  }, 120_000);
});
