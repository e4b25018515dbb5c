// The classic group coordinator's records in __consumer_offsets, read and written with the definitions in
// protocol/data/group-coordinator.ts: an int16 version, then the struct. What krill writes:
//   key   OffsetCommitKey v1 (group, topic, partition)   value OffsetCommitValue v3, or v1 for a commit with an
//                                                              explicit expire timestamp, as Kafka does
//   key   GroupMetadataKey v2 (group)                    value GroupMetadataValue v3, members included
// Every value version Kafka has written (0-4) is read. The key's version says what the record is (0/1 offset
// commit, 2 group metadata); other keys (transactions, KIP-848 groups) are not ours.
import { decodeData } from '../../protocol/codec.js';
import {
  GroupMetadataKey,
  GroupMetadataValue as GroupMetadataValueDef,
  OffsetCommitKey as OffsetCommitKeyDef,
  OffsetCommitValue as OffsetCommitValueDef,
  type GroupMetadataValueData,
  type OffsetCommitKeyData,
  type OffsetCommitValueData,
  type OffsetCommitValueInput,
} from '../../protocol/data/group-coordinator.js';
import { readVersioned, writeVersioned } from '../../protocol/data/versioned.js';
import { Reader } from '../../protocol/primitives.js';
import type { Group } from './group.js';
import type { StoreRecord } from './store.js';

export type OffsetCommitKey = OffsetCommitKeyData;
export type OffsetCommitValue = OffsetCommitValueData;
export type GroupMetadataValue = GroupMetadataValueData;

export type CoordinatorRecordKey = { type: 'offset'; key: OffsetCommitKey } | { type: 'group'; group: string };

export function encodeOffsetCommitKey(k: OffsetCommitKey): Buffer {
  return writeVersioned(OffsetCommitKeyDef, 1, k);
}

export function encodeOffsetCommitValue(v: OffsetCommitValueInput): Buffer {
  // An explicit expiry (OffsetCommit v2-4 retentionTimeMs) needs v1, the only version that carries it, as in Kafka.
  const withExpiry = v.expireTimestamp !== undefined && v.expireTimestamp >= 0;
  return writeVersioned(OffsetCommitValueDef, withExpiry ? 1 : 3, v);
}

export function encodeGroupMetadataKey(group: string): Buffer {
  return writeVersioned(GroupMetadataKey, 2, { group });
}

export function encodeGroupMetadataValue(v: GroupMetadataValue): Buffer {
  return writeVersioned(GroupMetadataValueDef, 3, v);
}

export function decodeKey(buf: Buffer): CoordinatorRecordKey | null {
  const r = new Reader(buf);
  const version = r.int16();
  if (version === 0 || version === 1) return { type: 'offset', key: decodeData(OffsetCommitKeyDef, version, r) };
  if (version === 2) return { type: 'group', group: decodeData(GroupMetadataKey, version, r).group };
  return null;
}

export function decodeOffsetCommitValue(buf: Buffer): OffsetCommitValue {
  return readVersioned(OffsetCommitValueDef, buf);
}

export function decodeGroupMetadataValue(buf: Buffer): GroupMetadataValue {
  return readVersioned(GroupMetadataValueDef, buf);
}

/** Java's String.hashCode over UTF-16 code units. */
export function javaStringHashCode(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

/** Kafka's partitionFor: Utils.abs(groupId.hashCode) % numPartitions, with Utils.abs = h & 0x7fffffff. */
export function partitionForGroup(groupId: string, numPartitions: number): number {
  return (javaStringHashCode(groupId) & 0x7fffffff) % numPartitions;
}

/** The GroupMetadata record of a group as it stands, members included (Kafka's GroupMetadataManager.storeGroup). */
export function groupMetadataRecord(group: Group): StoreRecord {
  const value: GroupMetadataValue = {
    protocolType: group.protocolType ?? '',
    generation: group.generationId,
    protocol: group.protocolName,
    leader: group.leaderId,
    currentStateTimestamp: group.currentStateTimestamp,
    members: [...group.members.values()].map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      rebalanceTimeout: m.rebalanceTimeoutMs,
      sessionTimeout: m.sessionTimeoutMs,
      subscription: group.protocolName ? m.metadataFor(group.protocolName) : Buffer.alloc(0),
      assignment: m.assignment,
    })),
  };
  return { key: encodeGroupMetadataKey(group.groupId), value: encodeGroupMetadataValue(value) };
}
