// The automatic leader balance (auto.leader.rebalance.enable, on by default) on a three-broker cluster with a
// real ZooKeeper: a partition led by another broker while its preferred replica is alive and in the ISR goes
// back to the preferred replica without anyone asking, at the controller's first check (5 s after it takes
// over, then every leader.imbalance.check.interval.seconds, here 1). The test puts the partition in that state
// by rewriting its state znode and starting a new controller term, as a tool could.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningCluster } from '../../src/index.js';
import type { KafkaZk } from '../../src/cluster/zk/kafka-zk.js';
import { zookeeperInstalled } from '../../src/cluster/zookeeper-server.js';
import { partitionsFrom } from '../../compat/cluster/cluster-util.js';
import { newControllerTerm, rewriteState, startWithTopics } from './controller-requests.js';
import { waitFor } from './zk-helpers.js';

const skip = !zookeeperInstalled() && process.env.CI !== 'true';

describe.skipIf(skip)('automatic leader balance', () => {
  let cluster: RunningCluster;
  let zk: KafkaZk;
  beforeAll(async () => {
    ({ cluster, zk } = await startWithTopics(
      { 'leader.imbalance.check.interval.seconds': 1 },
      {
        balance: [
          [1, 2],
          [2, 3],
        ],
      },
    ));
  }, 120_000);
  afterAll(async () => {
    await zk?.zk.close();
    await cluster?.close();
  }, 60_000);

  it('moves leadership back to the preferred replica once it is in the ISR', async () => {
    const moved = await rewriteState(zk, 'balance', 0, (s) => ({ leader: 2, isr: [2, 1], leaderEpoch: s.leaderEpoch + 1 }));
    await newControllerTerm(zk);
    await waitFor(async () => (await zk.getPartitionStates('balance')).get(0)?.leader === 1, 'the controller to hand balance-0 back to broker 1', 30_000);
    const state = (await zk.getPartitionStates('balance')).get(0)!;
    expect(state.leaderEpoch).toBe(moved.leaderEpoch + 1);
    expect(state.isr).toEqual(expect.arrayContaining([1, 2]));
    expect((await zk.getPartitionStates('balance')).get(1)?.leader).toBe(2);
    for (const b of cluster.brokers) {
      await waitFor(async () => (await partitionsFrom(b.port, 'balance'))[0]?.leaderId === 1, `broker ${b.id} to see broker 1 lead balance-0`);
    }
  }, 60_000);
});
