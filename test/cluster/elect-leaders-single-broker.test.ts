// ElectLeaders on a single broker (no ZooKeeper): it is the only, so the preferred, replica and the leader of
// every partition, so nothing ever needs electing, as a one-broker Kafka cluster answers: every partition it
// has is ELECTION_NOT_NEEDED (left out when every partition is asked for), an unknown one
// UNKNOWN_TOPIC_OR_PARTITION; an election type Kafka does not know is INVALID_REQUEST.
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../protocol/errors.js';
import { useBrokerAndClient } from '../helpers.js';
import { createTopicOk } from './cluster-probe.js';

const ELECT_LEADERS = 43;

describe('ElectLeaders on a single broker', () => {
  const live = useBrokerAndClient();

  it('finds nothing to elect', async () => {
    await createTopicOk(live.client, 'single', 2);
    for (const electionType of [0, 1]) {
      const res = await live.client.request(ELECT_LEADERS, 2, {
        electionType,
        topicPartitions: [
          { topic: 'single', partitions: [0, 1, 7] },
          { topic: 'nope', partitions: [0] },
        ],
        timeoutMs: 1000,
      });
      expect(res).toEqual({
        throttleTimeMs: 0,
        errorCode: ErrorCode.NONE,
        replicaElectionResults: [
          {
            topic: 'single',
            partitionResult: [
              { partitionId: 0, errorCode: ErrorCode.ELECTION_NOT_NEEDED, errorMessage: null },
              { partitionId: 1, errorCode: ErrorCode.ELECTION_NOT_NEEDED, errorMessage: null },
              { partitionId: 7, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: 'The partition does not exist.' },
            ],
          },
          {
            topic: 'nope',
            partitionResult: [{ partitionId: 0, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: 'The partition does not exist.' }],
          },
        ],
      });
    }
    const all = await live.client.request(ELECT_LEADERS, 1, { electionType: 0, topicPartitions: null, timeoutMs: 1000 });
    expect(all).toEqual({ throttleTimeMs: 0, errorCode: ErrorCode.NONE, replicaElectionResults: [] });
    const v0 = await live.client.request(ELECT_LEADERS, 0, { topicPartitions: [{ topic: 'single', partitions: [1] }], timeoutMs: 1000 });
    expect(v0.replicaElectionResults).toEqual([
      { topic: 'single', partitionResult: [{ partitionId: 1, errorCode: ErrorCode.ELECTION_NOT_NEEDED, errorMessage: null }] },
    ]);
    const odd = await live.client.request(ELECT_LEADERS, 2, { electionType: 5, topicPartitions: [{ topic: 'single', partitions: [0] }], timeoutMs: 1000 });
    expect(odd.replicaElectionResults[0].partitionResult[0].errorCode).toBe(ErrorCode.INVALID_REQUEST);
  });
});
