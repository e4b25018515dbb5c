// The consumer protocol (protocolType "consumer"): what a consumer puts in JoinGroup's protocol metadata (its
// subscription) and what the leader hands each member through SyncGroup (its assignment). The broker treats both
// as opaque bytes except to learn which topics a group consumes. Each starts with an int16 version; a newer
// version than these only appends fields, so Kafka reads it as the newest it knows (see versioned.ts).
import type { DataDef, DataOf } from '../schema.js';

// v1 adds the partitions a member owns (KIP-429 cooperative rebalancing), v2 its generation (KIP-792), v3
// its rack (KIP-881).
export const ConsumerProtocolSubscription = {
  name: 'ConsumerProtocolSubscription',
  validVersions: '0-3',
  flexibleVersions: 'none',
  fields: [
    { name: 'topics', type: '[]string', versions: '0+' },
    { name: 'userData', type: 'bytes', versions: '0+', nullableVersions: '0+', default: null },
    {
      name: 'ownedPartitions',
      type: '[]TopicPartition',
      versions: '1+',
      fields: [
        { name: 'topic', type: 'string', versions: '1+' },
        { name: 'partitions', type: '[]int32', versions: '1+' },
      ],
    },
    { name: 'generationId', type: 'int32', versions: '2+', default: -1 },
    { name: 'rackId', type: 'string', versions: '3+', nullableVersions: '3+', default: null },
  ],
} as const satisfies DataDef;

export const ConsumerProtocolAssignment = {
  name: 'ConsumerProtocolAssignment',
  validVersions: '0-3',
  flexibleVersions: 'none',
  fields: [
    {
      name: 'assignedPartitions',
      type: '[]TopicPartition',
      versions: '0+',
      fields: [
        { name: 'topic', type: 'string', versions: '0+' },
        { name: 'partitions', type: '[]int32', versions: '0+' },
      ],
    },
    { name: 'userData', type: 'bytes', versions: '0+', nullableVersions: '0+', default: null },
  ],
} as const satisfies DataDef;

export type ConsumerProtocolSubscriptionData = DataOf<typeof ConsumerProtocolSubscription>;
export type ConsumerProtocolAssignmentData = DataOf<typeof ConsumerProtocolAssignment>;
