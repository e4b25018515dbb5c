// UpdateMetadata (key 6): the ZooKeeper-mode controller sends every broker the live brokers and the leadership
// of partitions, which each broker caches to answer Metadata requests. Only a controller sends it (Kafka's
// `zkBroker` listener; removed with ZooKeeper in Kafka 4.0).
// v1 replaces the v0 host/port with endpoints, v2 adds the rack, v3 listener names, v4 offline replicas, v5 the
// broker epoch and groups partitions by topic, v6 goes flexible, v7 adds topic ids, v8 isKRaftController and
// the tagged full/incremental type (KIP-866).
// Kafka declares the partition state once as a common struct; it is the same list of fields here, used twice.
import type { FieldDef, MessageDef, RequestOf, ResponseOf } from '../schema.js';

/** Kafka's UpdateMetadataPartitionState: ungrouped in v0-4 (with its topic name), per topic from v5. */
const UpdateMetadataPartitionState = [
  { name: 'topicName', type: 'string', versions: '0-4' },
  { name: 'partitionIndex', type: 'int32', versions: '0+' },
  { name: 'controllerEpoch', type: 'int32', versions: '0+' },
  { name: 'leader', type: 'int32', versions: '0+' },
  { name: 'leaderEpoch', type: 'int32', versions: '0+' },
  { name: 'isr', type: '[]int32', versions: '0+' },
  /** The partition state znode's version. */
  { name: 'zkVersion', type: 'int32', versions: '0+' },
  { name: 'replicas', type: '[]int32', versions: '0+' },
  { name: 'offlineReplicas', type: '[]int32', versions: '4+' },
] as const satisfies readonly FieldDef[];

export const UpdateMetadata = {
  apiKey: 6,
  name: 'UpdateMetadata',
  validVersions: '0-8',
  flexibleVersions: '6+',
  request: [
    { name: 'controllerId', type: 'int32', versions: '0+' },
    { name: 'isKRaftController', type: 'bool', versions: '8+', default: false },
    /** 0 unknown, 1 incremental, 2 full snapshot (KIP-866's migration; a ZooKeeper controller sends 0). */
    { name: 'type', type: 'int8', versions: '8+', tag: 0, taggedVersions: '8+', default: 0 },
    { name: 'controllerEpoch', type: 'int32', versions: '0+' },
    { name: 'brokerEpoch', type: 'int64', versions: '5+', default: -1 },
    { name: 'ungroupedPartitionStates', type: '[]UpdateMetadataPartitionState', versions: '0-4', fields: UpdateMetadataPartitionState },
    {
      name: 'topicStates',
      type: '[]UpdateMetadataTopicState',
      versions: '5+',
      fields: [
        { name: 'topicName', type: 'string', versions: '5+' },
        { name: 'topicId', type: 'uuid', versions: '7+' },
        { name: 'partitionStates', type: '[]UpdateMetadataPartitionState', versions: '5+', fields: UpdateMetadataPartitionState },
      ],
    },
    {
      name: 'liveBrokers',
      type: '[]UpdateMetadataBroker',
      versions: '0+',
      fields: [
        { name: 'id', type: 'int32', versions: '0+' },
        { name: 'v0Host', type: 'string', versions: '0' },
        { name: 'v0Port', type: 'int32', versions: '0' },
        {
          name: 'endpoints',
          type: '[]UpdateMetadataEndpoint',
          versions: '1+',
          fields: [
            { name: 'port', type: 'int32', versions: '1+' },
            { name: 'host', type: 'string', versions: '1+' },
            { name: 'listener', type: 'string', versions: '3+' },
            /** Kafka's SecurityProtocol id: 0 PLAINTEXT, 1 SSL, 2 SASL_PLAINTEXT, 3 SASL_SSL. */
            { name: 'securityProtocol', type: 'int16', versions: '1+' },
          ],
        },
        // Kafka declares it nullable in every version although it exists only from v2.
        { name: 'rack', type: 'string', versions: '2+', nullableVersions: '0+' },
      ],
    },
  ],
  response: [{ name: 'errorCode', type: 'int16', versions: '0+' }],
} as const satisfies MessageDef;

export type UpdateMetadataRequest = RequestOf<typeof UpdateMetadata>;
export type UpdateMetadataResponse = ResponseOf<typeof UpdateMetadata>;
