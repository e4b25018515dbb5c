// Fetch (key 1): read record batches from partitions, with optional incremental fetch sessions (v7+, KIP-227).
// v4 is the KIP-896 baseline (isolation level, aborted transactions). v12 goes flexible and adds epoch
// divergence and leader hints as tagged fields; v13 switches topic names to topic ids (KIP-516); v15 moves the
// follower identity into the tagged ReplicaState (KIP-903); v16 adds NodeEndpoints (KIP-951); v17 adds the
// replica directory id (KIP-853).
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const Fetch = {
  apiKey: 1,
  name: 'Fetch',
  validVersions: '4-17',
  flexibleVersions: '12+',
  request: [
    { name: 'clusterId', type: 'string', versions: '12+', nullableVersions: '12+', tag: 0, taggedVersions: '12+', default: null },
    { name: 'replicaId', type: 'int32', versions: '0-14', default: -1 },
    {
      name: 'replicaState',
      type: 'ReplicaState',
      versions: '15+',
      tag: 1,
      taggedVersions: '15+',
      fields: [
        { name: 'replicaId', type: 'int32', versions: '15+', default: -1 },
        { name: 'replicaEpoch', type: 'int64', versions: '15+', default: -1 },
      ],
    },
    { name: 'maxWaitMs', type: 'int32', versions: '0+' },
    { name: 'minBytes', type: 'int32', versions: '0+' },
    { name: 'maxBytes', type: 'int32', versions: '3+', default: 2147483647 },
    { name: 'isolationLevel', type: 'int8', versions: '4+', default: 0 },
    { name: 'sessionId', type: 'int32', versions: '7+', default: 0 },
    { name: 'sessionEpoch', type: 'int32', versions: '7+', default: -1 },
    {
      name: 'topics',
      type: '[]FetchTopic',
      versions: '0+',
      fields: [
        { name: 'topic', type: 'string', versions: '0-12' },
        { name: 'topicId', type: 'uuid', versions: '13+' },
        {
          name: 'partitions',
          type: '[]FetchPartition',
          versions: '0+',
          fields: [
            { name: 'partition', type: 'int32', versions: '0+' },
            { name: 'currentLeaderEpoch', type: 'int32', versions: '9+', default: -1 },
            { name: 'fetchOffset', type: 'int64', versions: '0+' },
            { name: 'lastFetchedEpoch', type: 'int32', versions: '12+', default: -1 },
            { name: 'logStartOffset', type: 'int64', versions: '5+', default: -1 },
            { name: 'partitionMaxBytes', type: 'int32', versions: '0+' },
            { name: 'replicaDirectoryId', type: 'uuid', versions: '17+', tag: 0, taggedVersions: '17+' },
          ],
        },
      ],
    },
    {
      name: 'forgottenTopicsData',
      type: '[]ForgottenTopic',
      versions: '7+',
      fields: [
        { name: 'topic', type: 'string', versions: '7-12' },
        { name: 'topicId', type: 'uuid', versions: '13+' },
        { name: 'partitions', type: '[]int32', versions: '7+' },
      ],
    },
    { name: 'rackId', type: 'string', versions: '11+', default: '' },
  ],
  response: [
    { name: 'throttleTimeMs', type: 'int32', versions: '1+' },
    { name: 'errorCode', type: 'int16', versions: '7+' },
    { name: 'sessionId', type: 'int32', versions: '7+', default: 0 },
    {
      name: 'responses',
      type: '[]FetchableTopicResponse',
      versions: '0+',
      fields: [
        { name: 'topic', type: 'string', versions: '0-12' },
        { name: 'topicId', type: 'uuid', versions: '13+' },
        {
          name: 'partitions',
          type: '[]PartitionData',
          versions: '0+',
          fields: [
            { name: 'partitionIndex', type: 'int32', versions: '0+' },
            { name: 'errorCode', type: 'int16', versions: '0+' },
            { name: 'highWatermark', type: 'int64', versions: '0+' },
            { name: 'lastStableOffset', type: 'int64', versions: '4+', default: -1 },
            { name: 'logStartOffset', type: 'int64', versions: '5+', default: -1 },
            {
              name: 'divergingEpoch',
              type: 'EpochEndOffset',
              versions: '12+',
              tag: 0,
              taggedVersions: '12+',
              fields: [
                { name: 'epoch', type: 'int32', versions: '12+', default: -1 },
                { name: 'endOffset', type: 'int64', versions: '12+', default: -1 },
              ],
            },
            {
              name: 'currentLeader',
              type: 'LeaderIdAndEpoch',
              versions: '12+',
              tag: 1,
              taggedVersions: '12+',
              fields: [
                { name: 'leaderId', type: 'int32', versions: '12+', default: -1 },
                { name: 'leaderEpoch', type: 'int32', versions: '12+', default: -1 },
              ],
            },
            {
              name: 'snapshotId',
              type: 'SnapshotId',
              versions: '12+',
              tag: 2,
              taggedVersions: '12+',
              fields: [
                { name: 'endOffset', type: 'int64', versions: '0+', default: -1 },
                { name: 'epoch', type: 'int32', versions: '0+', default: -1 },
              ],
            },
            {
              name: 'abortedTransactions',
              type: '[]AbortedTransaction',
              versions: '4+',
              nullableVersions: '4+',
              fields: [
                { name: 'producerId', type: 'int64', versions: '4+' },
                { name: 'firstOffset', type: 'int64', versions: '4+' },
              ],
            },
            { name: 'preferredReadReplica', type: 'int32', versions: '11+', default: -1 },
            { name: 'records', type: 'records', versions: '0+', nullableVersions: '0+' },
          ],
        },
      ],
    },
    {
      name: 'nodeEndpoints',
      type: '[]NodeEndpoint',
      versions: '16+',
      tag: 0,
      taggedVersions: '16+',
      fields: [
        { name: 'nodeId', type: 'int32', versions: '16+' },
        { name: 'host', type: 'string', versions: '16+' },
        { name: 'port', type: 'int32', versions: '16+' },
        { name: 'rack', type: 'string', versions: '16+', nullableVersions: '16+', default: null },
      ],
    },
  ],
} as const satisfies MessageDef;

export type FetchRequest = RequestOf<typeof Fetch>;
export type FetchResponse = ResponseOf<typeof Fetch>;
