// ElectLeaders (API 43) on a three-broker cluster with a real ZooKeeper, by raw requests (none of the clients
// installed here sends it: kafkajs has no such call, python3-confluent-kafka 1.7 predates elect_leaders).
// Partitions are put in the state each case needs the way a tool could: the test rewrites the state znode
// and starts a new controller term, so the controller reads it. Each state is one replication keeps (every
// replica named in the ISR is alive and following), and a preferred replica kept out of the ISR is a stopped
// broker, so no leader's ISR change can undo a case before the request. The automatic leader balance is off
// here, so that only the requests move leaders.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningCluster } from '../../src/index.js';
import type { KafkaZk } from '../../src/cluster/zk/kafka-zk.js';
import { zookeeperInstalled } from '../../src/cluster/zookeeper-server.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { Message } from '../../protocol/codec.js';
import { partitionsFrom } from '../../compat/cluster/cluster-util.js';
import { controllerOf, newControllerTerm, requestTo, rewriteState, startWithTopics } from './controller-requests.js';
import { waitFor } from './zk-helpers.js';

const skip = !zookeeperInstalled() && process.env.CI !== 'true';
const ELECT_LEADERS = 43;
const PREFERRED = 0;
const UNCLEAN = 1;

/** The response's results as topic → partition → error code. */
function codes(res: Message): Record<string, Record<number, number>> {
  const out: Record<string, Record<number, number>> = {};
  for (const t of res.replicaElectionResults) {
    out[t.topic] = Object.fromEntries(t.partitionResult.map((p: Message) => [p.partitionId, p.errorCode]));
  }
  return out;
}

describe.skipIf(skip)('ElectLeaders', () => {
  let cluster: RunningCluster;
  let zk: KafkaZk;
  beforeAll(async () => {
    ({ cluster, zk } = await startWithTopics(
      { 'auto.leader.rebalance.enable': false },
      {
        electing: [
          [1, 2],
          [2, 3],
          [3, 1],
        ],
        unclean: [[3, 1]],
        lonely: [[3]],
      },
    ));
  }, 120_000);
  afterAll(async () => {
    await zk?.zk.close();
    await cluster?.close();
  }, 60_000);

  it('is answered by the controller only: NOT_CONTROLLER for each partition elsewhere', async () => {
    const { id } = await controllerOf(cluster, zk);
    const other = cluster.brokers.find((b) => b.id !== id)!;
    const res = await requestTo(other.port, ELECT_LEADERS, 2, {
      electionType: PREFERRED,
      topicPartitions: [{ topic: 'electing', partitions: [0] }],
      timeoutMs: 10_000,
    });
    expect(res.errorCode).toBe(ErrorCode.NONE);
    expect(codes(res)).toEqual({ electing: { 0: ErrorCode.NOT_CONTROLLER } });
  }, 30_000);

  it('hands leadership back to the preferred replica when it is alive and in the ISR, and says why not elsewhere', async () => {
    // electing-0 led by 2, with its preferred replica 1 in the ISR.
    const before = await rewriteState(zk, 'electing', 0, (s) => ({ leader: 2, isr: [1, 2], leaderEpoch: s.leaderEpoch + 1 }));
    await newControllerTerm(zk);
    const { port } = await controllerOf(cluster, zk);

    const res = await requestTo(port, ELECT_LEADERS, 2, {
      electionType: PREFERRED,
      topicPartitions: [
        { topic: 'electing', partitions: [0, 1, 2, 2] },
        { topic: 'no-such-topic', partitions: [0] },
      ],
      timeoutMs: 20_000,
    });
    expect(res.errorCode).toBe(ErrorCode.NONE);
    expect(codes(res)).toEqual({
      electing: { 0: ErrorCode.NONE, 1: ErrorCode.ELECTION_NOT_NEEDED, 2: ErrorCode.ELECTION_NOT_NEEDED },
      'no-such-topic': { 0: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION },
    });
    const states = await zk.getPartitionStates('electing');
    expect(states.get(0)).toMatchObject({ leader: 1, leaderEpoch: before.leaderEpoch + 1 });
    expect(states.get(0)!.isr).toEqual(expect.arrayContaining([1, 2]));
    expect(states.get(1)).toMatchObject({ leader: 2 });
    // The answer waited for the controller's own metadata; the other brokers follow.
    for (const b of cluster.brokers) {
      await waitFor(async () => (await partitionsFrom(b.port, 'electing'))[0]?.leaderId === 1, `broker ${b.id} to see broker 1 lead electing-0`);
    }
  }, 60_000);

  it('with every partition asked for (null), answers only those that needed an election; v0 is a preferred election', async () => {
    await rewriteState(zk, 'electing', 1, (s) => ({ leader: 3, isr: [2, 3], leaderEpoch: s.leaderEpoch + 1 }));
    await newControllerTerm(zk);
    const { port } = await controllerOf(cluster, zk);
    const all = await requestTo(port, ELECT_LEADERS, 1, { electionType: PREFERRED, topicPartitions: null, timeoutMs: 20_000 });
    expect(codes(all)).toEqual({ electing: { 1: ErrorCode.NONE } });
    expect((await zk.getPartitionStates('electing')).get(1)?.leader).toBe(2);
    const v0 = await requestTo(port, ELECT_LEADERS, 0, { topicPartitions: [{ topic: 'electing', partitions: [0] }], timeoutMs: 20_000 });
    expect(codes(v0)).toEqual({ electing: { 0: ErrorCode.ELECTION_NOT_NEEDED } });
  }, 30_000);

  it('elects any live replica of a partition whose leader is gone when asked for an unclean election; a preferred replica that is gone cannot lead', async () => {
    await cluster.brokers[2].stop();
    await waitFor(async () => !(await zk.getBrokers()).some((b) => b.id === 3), 'broker 3 to be gone');
    // unclean-0's ISR is broker 3 alone (whatever a controlled shutdown made of it): no clean leader is left.
    await rewriteState(zk, 'unclean', 0, (s) => ({ leader: -1, isr: [3], leaderEpoch: s.leaderEpoch + 1 }));
    await newControllerTerm(zk);
    const { port } = await controllerOf(cluster, zk);
    await waitFor(async () => (await zk.getPartitionStates('unclean')).get(0)?.leader === -1, 'unclean-0 to stay offline');

    const before = (await zk.getPartitionStates('unclean')).get(0)!;
    const res = await requestTo(port, ELECT_LEADERS, 2, {
      electionType: UNCLEAN,
      topicPartitions: [
        { topic: 'unclean', partitions: [0] },
        { topic: 'lonely', partitions: [0] },
        { topic: 'electing', partitions: [0] },
      ],
      timeoutMs: 20_000,
    });
    expect(codes(res)).toEqual({
      unclean: { 0: ErrorCode.NONE },
      lonely: { 0: ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE },
      electing: { 0: ErrorCode.ELECTION_NOT_NEEDED },
    });
    // (The new controller may have written the state once more meanwhile, taking broker 3 out of ISRs.)
    const after = (await zk.getPartitionStates('unclean')).get(0)!;
    expect(after).toMatchObject({ leader: 1, isr: [1] });
    expect(after.leaderEpoch).toBeGreaterThan(before.leaderEpoch);
    await waitFor(async () => (await partitionsFrom(cluster.brokers[1].port, 'unclean'))[0]?.leaderId === 1, 'broker 2 to see broker 1 lead unclean-0');

    // electing-2 prefers broker 3, which is gone (whoever leads it now).
    const preferred = await requestTo(port, ELECT_LEADERS, 2, {
      electionType: PREFERRED,
      topicPartitions: [{ topic: 'electing', partitions: [2] }],
      timeoutMs: 20_000,
    });
    expect(codes(preferred)).toEqual({ electing: { 2: ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE } });
    expect(preferred.replicaElectionResults[0].partitionResult[0].errorMessage).toBe(
      'Failed to elect leader for partition electing-2 under strategy PreferredReplicaPartitionLeaderElectionStrategy',
    );
  }, 90_000);
});
