// StopReplica (key 5): the ZooKeeper-mode controller tells a broker to stop fetching or leading partitions,
// and to delete them when their topic is deleted or the replica moved away. Only a controller sends it
// (Kafka's `zkBroker` listener; removed with ZooKeeper in Kafka 4.0).
// v1 adds the broker epoch and groups partitions by topic, v2 goes flexible, v3 moves deletePartitions into
// each partition's state together with the leader epoch (a stale request cannot stop a newer replica), v4 adds
// isKRaftController (KIP-866).
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const StopReplica = {
  apiKey: 5,
  name: 'StopReplica',
  validVersions: '0-4',
  flexibleVersions: '2+',
  request: [
    { name: 'controllerId', type: 'int32', versions: '0+' },
    { name: 'isKRaftController', type: 'bool', versions: '4+', default: false },
    { name: 'controllerEpoch', type: 'int32', versions: '0+' },
    { name: 'brokerEpoch', type: 'int64', versions: '1+', default: -1 },
    { name: 'deletePartitions', type: 'bool', versions: '0-2' },
    {
      name: 'ungroupedPartitions',
      type: '[]StopReplicaPartitionV0',
      versions: '0',
      fields: [
        { name: 'topicName', type: 'string', versions: '0' },
        { name: 'partitionIndex', type: 'int32', versions: '0' },
      ],
    },
    {
      name: 'topics',
      type: '[]StopReplicaTopicV1',
      versions: '1-2',
      fields: [
        { name: 'name', type: 'string', versions: '1-2' },
        { name: 'partitionIndexes', type: '[]int32', versions: '1-2' },
      ],
    },
    {
      name: 'topicStates',
      type: '[]StopReplicaTopicState',
      versions: '3+',
      fields: [
        { name: 'topicName', type: 'string', versions: '3+' },
        {
          name: 'partitionStates',
          type: '[]StopReplicaPartitionState',
          versions: '3+',
          fields: [
            { name: 'partitionIndex', type: 'int32', versions: '3+' },
            /** -1: no epoch check (Kafka's EpochDuringDelete -2 deletes regardless during topic deletion). */
            { name: 'leaderEpoch', type: 'int32', versions: '3+', default: -1 },
            { name: 'deletePartition', type: 'bool', versions: '3+' },
          ],
        },
      ],
    },
  ],
  response: [
    { name: 'errorCode', type: 'int16', versions: '0+' },
    {
      name: 'partitionErrors',
      type: '[]StopReplicaPartitionError',
      versions: '0+',
      fields: [
        { name: 'topicName', type: 'string', versions: '0+' },
        { name: 'partitionIndex', type: 'int32', versions: '0+' },
        { name: 'errorCode', type: 'int16', versions: '0+' },
      ],
    },
  ],
} as const satisfies MessageDef;

export type StopReplicaRequest = RequestOf<typeof StopReplica>;
export type StopReplicaResponse = ResponseOf<typeof StopReplica>;
