// Kafka's own record formats in __consumer_offsets (coordinator-records schemas):
//   OffsetCommitKey  v1: int16 version, string group, string topic, int32 partition
//   OffsetCommitValue v3: int16 version, int64 offset, int32 leaderEpoch, string metadata, int64 commitTimestamp
//   GroupMetadataKey v2: int16 version, string group
//   GroupMetadataValue v3: int16 version, string protocolType, int32 generation, nullable string protocol,
//     nullable string leader, int64 currentStateTimestamp, [MemberMetadata] members (v4 is the flexible form)
// Keys of version 0/1 are offset commits and version 2 group metadata, as Kafka distinguishes them.
// Readers accept every value version (0-4); writers use OffsetCommitValue v3 (v1 for a commit with an explicit
// expire timestamp, as Kafka does) and GroupMetadataValue v3.
import { Reader, Writer } from '../../protocol/primitives.js';

export interface OffsetCommitKey { group: string; topic: string; partition: number }
export interface OffsetCommitValue { offset: number; leaderEpoch: number; metadata: string; commitTimestamp: number; expireTimestamp?: number }
export interface StoredMember {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  rebalanceTimeout: number;
  sessionTimeout: number;
  subscription: Buffer;
  assignment: Buffer;
}
export interface GroupMetadataValue {
  protocolType: string;
  generation: number;
  protocol: string | null;
  leader: string | null;
  currentStateTimestamp: number;
  members: StoredMember[];
}

export type CoordinatorRecordKey =
  | { type: 'offset'; key: OffsetCommitKey }
  | { type: 'group'; group: string };

export function encodeOffsetCommitKey(k: OffsetCommitKey): Buffer {
  return new Writer().int16(1).string(k.group, false).string(k.topic, false).int32(k.partition).toBuffer();
}

export function encodeOffsetCommitValue(v: OffsetCommitValue): Buffer {
  if (v.expireTimestamp !== undefined && v.expireTimestamp >= 0) {
    // An explicit expiry (OffsetCommit v2-4 retentionTimeMs) needs v1, the only version that carries it, as in Kafka.
    return new Writer().int16(1).int64(v.offset).string(v.metadata, false).int64(v.commitTimestamp).int64(v.expireTimestamp).toBuffer();
  }
  return new Writer().int16(3).int64(v.offset).int32(v.leaderEpoch).string(v.metadata, false).int64(v.commitTimestamp).toBuffer();
}

export function encodeGroupMetadataKey(group: string): Buffer {
  return new Writer().int16(2).string(group, false).toBuffer();
}

export function encodeGroupMetadataValue(v: GroupMetadataValue): Buffer {
  const w = new Writer().int16(3).string(v.protocolType, false).int32(v.generation).string(v.protocol, false).string(v.leader, false);
  w.int64(v.currentStateTimestamp).arrayLength(v.members.length, false);
  for (const m of v.members) {
    w.string(m.memberId, false).string(m.groupInstanceId, false).string(m.clientId, false).string(m.clientHost, false);
    w.int32(m.rebalanceTimeout).int32(m.sessionTimeout).bytes(m.subscription, false).bytes(m.assignment, false);
  }
  return w.toBuffer();
}

export function decodeKey(buf: Buffer): CoordinatorRecordKey | null {
  const r = new Reader(buf);
  const version = r.int16();
  if (version === 0 || version === 1) {
    const group = r.string(false) ?? '';
    const topic = r.string(false) ?? '';
    return { type: 'offset', key: { group, topic, partition: r.int32() } };
  }
  if (version === 2) return { type: 'group', group: r.string(false) ?? '' };
  return null; // transaction or KIP-848 records: not ours
}

function skipTagged(r: Reader): void {
  const n = r.uvarint();
  for (let i = 0; i < n; i++) {
    r.uvarint();
    r.raw(r.uvarint());
  }
}

export function decodeOffsetCommitValue(buf: Buffer): OffsetCommitValue {
  const r = new Reader(buf);
  const version = r.int16();
  const flexible = version >= 4;
  const offset = r.int64();
  const leaderEpoch = version >= 3 ? r.int32() : -1;
  const metadata = r.string(flexible) ?? '';
  const commitTimestamp = r.int64();
  const expireTimestamp = version === 1 ? r.int64() : -1;
  return { offset, leaderEpoch, metadata, commitTimestamp, expireTimestamp };
}

export function decodeGroupMetadataValue(buf: Buffer): GroupMetadataValue {
  const r = new Reader(buf);
  const version = r.int16();
  const flex = version >= 4;
  const protocolType = r.string(flex) ?? '';
  const generation = r.int32();
  const protocol = r.string(flex);
  const leader = r.string(flex);
  const currentStateTimestamp = version >= 2 ? r.int64() : -1;
  const n = r.arrayLength(flex);
  const members: StoredMember[] = [];
  for (let i = 0; i < n; i++) {
    const memberId = r.string(flex) ?? '';
    const groupInstanceId = version >= 3 ? r.string(flex) : null;
    const clientId = r.string(flex) ?? '';
    const clientHost = r.string(flex) ?? '';
    const rebalanceTimeout = version >= 1 ? r.int32() : -1;
    const sessionTimeout = r.int32();
    const subscription = r.bytes(flex) ?? Buffer.alloc(0);
    const assignment = r.bytes(flex) ?? Buffer.alloc(0);
    if (flex) skipTagged(r);
    members.push({ memberId, groupInstanceId, clientId, clientHost, rebalanceTimeout, sessionTimeout, subscription, assignment });
  }
  return { protocolType, generation, protocol, leader, currentStateTimestamp, members };
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
