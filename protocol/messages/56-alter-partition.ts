// AlterPartition (key 56, formerly AlterIsr, KIP-497): a partition's leader asks the controller to change its
// in-sync replica set; the controller writes it (with the partition epoch, ZooKeeper's version of the state
// znode, checked and bumped) and answers with the partition's state as it now is. Sent by brokers only.
// v1 adds the leader recovery state (KIP-704), v2 names topics by id, v3 gives each new ISR member with its
// broker epoch (KIP-903).
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const AlterPartition = {
  apiKey: 56,
  name: 'AlterPartition',
  validVersions: '0-3',
  flexibleVersions: '0+',
  request: [
    { name: 'brokerId', type: 'int32', versions: '0+' },
    { name: 'brokerEpoch', type: 'int64', versions: '0+', default: -1 },
    {
      name: 'topics',
      type: '[]TopicData',
      versions: '0+',
      fields: [
        { name: 'topicName', type: 'string', versions: '0-1' },
        { name: 'topicId', type: 'uuid', versions: '2+' },
        {
          name: 'partitions',
          type: '[]PartitionData',
          versions: '0+',
          fields: [
            { name: 'partitionIndex', type: 'int32', versions: '0+' },
            { name: 'leaderEpoch', type: 'int32', versions: '0+' },
            { name: 'newIsr', type: '[]int32', versions: '0-2' },
            {
              name: 'newIsrWithEpochs',
              type: '[]BrokerState',
              versions: '3+',
              fields: [
                { name: 'brokerId', type: 'int32', versions: '3+' },
                { name: 'brokerEpoch', type: 'int64', versions: '3+', default: -1 },
              ],
            },
            { name: 'leaderRecoveryState', type: 'int8', versions: '1+', default: 0 },
            { name: 'partitionEpoch', type: 'int32', versions: '0+' },
          ],
        },
      ],
    },
  ],
  response: [
    { name: 'throttleTimeMs', type: 'int32', versions: '0+' },
    { name: 'errorCode', type: 'int16', versions: '0+' },
    {
      name: 'topics',
      type: '[]TopicData',
      versions: '0+',
      fields: [
        { name: 'topicName', type: 'string', versions: '0-1' },
        { name: 'topicId', type: 'uuid', versions: '2+' },
        {
          name: 'partitions',
          type: '[]PartitionData',
          versions: '0+',
          fields: [
            { name: 'partitionIndex', type: 'int32', versions: '0+' },
            { name: 'errorCode', type: 'int16', versions: '0+' },
            { name: 'leaderId', type: 'int32', versions: '0+' },
            { name: 'leaderEpoch', type: 'int32', versions: '0+' },
            { name: 'isr', type: '[]int32', versions: '0+' },
            { name: 'leaderRecoveryState', type: 'int8', versions: '1+', default: 0 },
            { name: 'partitionEpoch', type: 'int32', versions: '0+' },
          ],
        },
      ],
    },
  ],
} as const satisfies MessageDef;

export type AlterPartitionRequest = RequestOf<typeof AlterPartition>;
export type AlterPartitionResponse = ResponseOf<typeof AlterPartition>;
