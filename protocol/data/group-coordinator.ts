// The classic group coordinator's records in __consumer_offsets (Kafka's coordinator-records schemas).
// A record's key and value each start with an int16 version, written by whoever stores them; the key's version
// also says what the record is: 0 and 1 an offset commit, 2 a group's metadata (higher numbers are KIP-848's
// record types). A null value is a tombstone.
import type { DataDef, DataInput, DataOf } from '../schema.js';

export const OffsetCommitKey = {
  name: 'OffsetCommitKey',
  validVersions: '0-1',
  flexibleVersions: 'none',
  fields: [
    { name: 'group', type: 'string', versions: '0-1' },
    { name: 'topic', type: 'string', versions: '0-1' },
    { name: 'partition', type: 'int32', versions: '0-1' },
  ],
} as const satisfies DataDef;

// v1 is the only version with a per-offset expiry (OffsetCommit v2-4 retentionTimeMs); v3 adds the leader
// epoch; v4 is the flexible form of v3 (KIP-915).
export const OffsetCommitValue = {
  name: 'OffsetCommitValue',
  validVersions: '0-4',
  flexibleVersions: '4+',
  fields: [
    { name: 'offset', type: 'int64', versions: '0+' },
    { name: 'leaderEpoch', type: 'int32', versions: '3+', default: -1 },
    { name: 'metadata', type: 'string', versions: '0+' },
    { name: 'commitTimestamp', type: 'int64', versions: '0+' },
    { name: 'expireTimestamp', type: 'int64', versions: '1', default: -1 },
  ],
} as const satisfies DataDef;

export const GroupMetadataKey = {
  name: 'GroupMetadataKey',
  validVersions: '2',
  flexibleVersions: 'none',
  fields: [{ name: 'group', type: 'string', versions: '2' }],
} as const satisfies DataDef;

// v1 adds each member's rebalance timeout, v2 the time of the last state change, v3 static membership (KIP-345),
// v4 is the flexible form of v3 (KIP-915). Subscription and assignment are the members' protocol metadata, kept as bytes.
export const GroupMetadataValue = {
  name: 'GroupMetadataValue',
  validVersions: '0-4',
  flexibleVersions: '4+',
  fields: [
    { name: 'protocolType', type: 'string', versions: '0+' },
    { name: 'generation', type: 'int32', versions: '0+' },
    { name: 'protocol', type: 'string', versions: '0+', nullableVersions: '0+' },
    { name: 'leader', type: 'string', versions: '0+', nullableVersions: '0+' },
    { name: 'currentStateTimestamp', type: 'int64', versions: '2+', default: -1 },
    {
      name: 'members',
      type: '[]MemberMetadata',
      versions: '0+',
      fields: [
        { name: 'memberId', type: 'string', versions: '0+' },
        { name: 'groupInstanceId', type: 'string', versions: '3+', nullableVersions: '3+', default: null },
        { name: 'clientId', type: 'string', versions: '0+' },
        { name: 'clientHost', type: 'string', versions: '0+' },
        { name: 'rebalanceTimeout', type: 'int32', versions: '1+', default: -1 },
        { name: 'sessionTimeout', type: 'int32', versions: '0+' },
        { name: 'subscription', type: 'bytes', versions: '0+' },
        { name: 'assignment', type: 'bytes', versions: '0+' },
      ],
    },
  ],
} as const satisfies DataDef;

export type OffsetCommitKeyData = DataOf<typeof OffsetCommitKey>;
export type OffsetCommitValueData = DataOf<typeof OffsetCommitValue>;
export type OffsetCommitValueInput = DataInput<typeof OffsetCommitValue>;
export type GroupMetadataValueData = DataOf<typeof GroupMetadataValue>;
export type GroupMetadataValueInput = DataInput<typeof GroupMetadataValue>;
