// LeaderAndIsr (key 4): the ZooKeeper-mode controller tells a broker, partition by partition, who leads, who is
// in sync and which replicas it hosts; the broker becomes leader or follower accordingly and answers per
// partition. Only a controller sends it (Kafka's `zkBroker` listener; removed with ZooKeeper in Kafka 4.0).
// v1 adds isNew, v2 the broker epoch (a request meant for an earlier incarnation of the broker is refused) and
// groups partitions by topic, v3 adding/removing replicas, v4 goes flexible, v5 adds topic ids and the
// full/incremental type (and answers by topic id), v6 the leader recovery state, v7 isKRaftController (KIP-866).
// Kafka declares the partition state once as a common struct; it is the same list of fields here, used twice.
import type { FieldDef, MessageDef, RequestOf, ResponseOf } from '../schema.js';

/** Kafka's LeaderAndIsrPartitionState: ungrouped in v0-1 (with its topic name), per topic from v2. */
const LeaderAndIsrPartitionState = [
  { name: 'topicName', type: 'string', versions: '0-1' },
  { name: 'partitionIndex', type: 'int32', versions: '0+' },
  { name: 'controllerEpoch', type: 'int32', versions: '0+' },
  { name: 'leader', type: 'int32', versions: '0+' },
  { name: 'leaderEpoch', type: 'int32', versions: '0+' },
  { name: 'isr', type: '[]int32', versions: '0+' },
  /** The partition state znode's version (zkVersion) in ZooKeeper mode. */
  { name: 'partitionEpoch', type: 'int32', versions: '0+' },
  { name: 'replicas', type: '[]int32', versions: '0+' },
  { name: 'addingReplicas', type: '[]int32', versions: '3+' },
  { name: 'removingReplicas', type: '[]int32', versions: '3+' },
  { name: 'isNew', type: 'bool', versions: '1+', default: false },
  { name: 'leaderRecoveryState', type: 'int8', versions: '6+', default: 0 },
] as const satisfies readonly FieldDef[];

/** Kafka's LeaderAndIsrPartitionError: ungrouped with a topic name in v0-4, under a topic id from v5. */
const LeaderAndIsrPartitionError = [
  { name: 'topicName', type: 'string', versions: '0-4' },
  { name: 'partitionIndex', type: 'int32', versions: '0+' },
  { name: 'errorCode', type: 'int16', versions: '0+' },
] as const satisfies readonly FieldDef[];

export const LeaderAndIsr = {
  apiKey: 4,
  name: 'LeaderAndIsr',
  validVersions: '0-7',
  flexibleVersions: '4+',
  request: [
    { name: 'controllerId', type: 'int32', versions: '0+' },
    { name: 'isKRaftController', type: 'bool', versions: '7+', default: false },
    { name: 'controllerEpoch', type: 'int32', versions: '0+' },
    { name: 'brokerEpoch', type: 'int64', versions: '2+', default: -1 },
    /** 0 unknown, 1 incremental, 2 full (KIP-866's migration; a ZooKeeper controller sends 0). */
    { name: 'type', type: 'int8', versions: '5+' },
    { name: 'ungroupedPartitionStates', type: '[]LeaderAndIsrPartitionState', versions: '0-1', fields: LeaderAndIsrPartitionState },
    {
      name: 'topicStates',
      type: '[]LeaderAndIsrTopicState',
      versions: '2+',
      fields: [
        { name: 'topicName', type: 'string', versions: '2+' },
        { name: 'topicId', type: 'uuid', versions: '5+' },
        { name: 'partitionStates', type: '[]LeaderAndIsrPartitionState', versions: '2+', fields: LeaderAndIsrPartitionState },
      ],
    },
    {
      name: 'liveLeaders',
      type: '[]LeaderAndIsrLiveLeader',
      versions: '0+',
      fields: [
        { name: 'brokerId', type: 'int32', versions: '0+' },
        { name: 'hostName', type: 'string', versions: '0+' },
        { name: 'port', type: 'int32', versions: '0+' },
      ],
    },
  ],
  response: [
    { name: 'errorCode', type: 'int16', versions: '0+' },
    { name: 'partitionErrors', type: '[]LeaderAndIsrPartitionError', versions: '0-4', fields: LeaderAndIsrPartitionError },
    {
      name: 'topics',
      type: '[]LeaderAndIsrTopicError',
      versions: '5+',
      fields: [
        { name: 'topicId', type: 'uuid', versions: '5+' },
        { name: 'partitionErrors', type: '[]LeaderAndIsrPartitionError', versions: '5+', fields: LeaderAndIsrPartitionError },
      ],
    },
  ],
} as const satisfies MessageDef;

export type LeaderAndIsrRequest = RequestOf<typeof LeaderAndIsr>;
export type LeaderAndIsrResponse = ResponseOf<typeof LeaderAndIsr>;
