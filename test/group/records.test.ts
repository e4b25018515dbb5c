// __consumer_offsets records now go through the generic codec (protocol/data/group-coordinator.ts). The hex
// below is what krill's earlier hand-written encoder wrote for the same values, so a data directory written
// before keeps reading back the same, and new records have the same bytes. Kafka's flexible v4 forms, which
// krill never writes but a data directory copied from Kafka may hold, are decoded from bytes laid out by hand.
import { describe, expect, it } from 'vitest';
import {
  decodeGroupMetadataValue,
  decodeKey,
  decodeOffsetCommitValue,
  encodeGroupMetadataKey,
  encodeGroupMetadataValue,
  encodeOffsetCommitKey,
  encodeOffsetCommitValue,
  type GroupMetadataValue,
} from '../../src/group/records.js';

const hex = (s: string): Buffer => Buffer.from(s, 'hex');

const OFFSET_KEY = '00010003677270000674c3b370696300000007';
const OFFSET_VALUE_V3 = '000300000100000000050000000300046d6574610000018bcfe5687b';
const OFFSET_VALUE_V1 = '0001000000000000002a00000000018bcfe5687b0000018bcfe5a313';
const GROUP_KEY = '00020003677270';
const GROUP_VALUE_V3 =
  '00030008636f6e73756d657200000004000572616e676500036d2d310000018bcfe56be70000000200036d2d31ffff00026331000a2f313237' +
  '2e302e302e310000ea600000afc80000000e00010000000100017400000000000000000301020300036d2d320006696e73742d320002633200' +
  '0a2f3132372e302e302e3200007530000027100000000000000000';
const EMPTY_GROUP_VALUE_V3 = '0003000000000001ffffffffffffffffffffffff00000000';

const GROUP: GroupMetadataValue = {
  protocolType: 'consumer',
  generation: 4,
  protocol: 'range',
  leader: 'm-1',
  currentStateTimestamp: 1700000000999,
  members: [
    {
      memberId: 'm-1',
      groupInstanceId: null,
      clientId: 'c1',
      clientHost: '/127.0.0.1',
      rebalanceTimeout: 60000,
      sessionTimeout: 45000,
      subscription: hex('0001000000010001740000000000'),
      assignment: Buffer.from([1, 2, 3]),
    },
    {
      memberId: 'm-2',
      groupInstanceId: 'inst-2',
      clientId: 'c2',
      clientHost: '/127.0.0.2',
      rebalanceTimeout: 30000,
      sessionTimeout: 10000,
      subscription: Buffer.alloc(0),
      assignment: Buffer.alloc(0),
    },
  ],
};

describe('__consumer_offsets records', () => {
  it('offset commit key: same bytes as before, read back (multi-byte topic name)', () => {
    expect(encodeOffsetCommitKey({ group: 'grp', topic: 'tópic', partition: 7 }).toString('hex')).toBe(OFFSET_KEY);
    expect(decodeKey(hex(OFFSET_KEY))).toEqual({ type: 'offset', key: { group: 'grp', topic: 'tópic', partition: 7 } });
  });

  it('offset commit value v3: same bytes as before, read back', () => {
    const value = { offset: 2 ** 40 + 5, leaderEpoch: 3, metadata: 'meta', commitTimestamp: 1700000000123 };
    expect(encodeOffsetCommitValue(value).toString('hex')).toBe(OFFSET_VALUE_V3);
    expect(decodeOffsetCommitValue(hex(OFFSET_VALUE_V3))).toEqual({ ...value, expireTimestamp: -1 });
  });

  it('offset commit value with an expiry: v1, same bytes as before, read back without a leader epoch', () => {
    const value = { offset: 42, leaderEpoch: 3, metadata: '', commitTimestamp: 1700000000123, expireTimestamp: 1700000015123 };
    expect(encodeOffsetCommitValue(value).toString('hex')).toBe(OFFSET_VALUE_V1);
    expect(decodeOffsetCommitValue(hex(OFFSET_VALUE_V1))).toEqual({ ...value, leaderEpoch: -1 });
  });

  it('group metadata key and value v3: same bytes as before, read back', () => {
    expect(encodeGroupMetadataKey('grp').toString('hex')).toBe(GROUP_KEY);
    expect(decodeKey(hex(GROUP_KEY))).toEqual({ type: 'group', group: 'grp' });
    expect(encodeGroupMetadataValue(GROUP).toString('hex')).toBe(GROUP_VALUE_V3);
    expect(decodeGroupMetadataValue(hex(GROUP_VALUE_V3))).toEqual(GROUP);
  });

  it('group metadata value v3 of an empty group (null protocol and leader)', () => {
    const empty: GroupMetadataValue = { protocolType: '', generation: 1, protocol: null, leader: null, currentStateTimestamp: -1, members: [] };
    expect(encodeGroupMetadataValue(empty).toString('hex')).toBe(EMPTY_GROUP_VALUE_V3);
    expect(decodeGroupMetadataValue(hex(EMPTY_GROUP_VALUE_V3))).toEqual(empty);
  });

  it('reads the flexible v4 values Kafka writes, skipping unknown tagged fields', () => {
    // offset 9, leaderEpoch 2, metadata "m" (compact: length + 1), commitTimestamp 5, one unknown tag (7, 1 byte).
    const offsetV4 = hex('0004' + '0000000000000009' + '00000002' + '026d' + '0000000000000005' + '01' + '0701ff');
    expect(decodeOffsetCommitValue(offsetV4)).toEqual({ offset: 9, leaderEpoch: 2, metadata: 'm', commitTimestamp: 5, expireTimestamp: -1 });
    // protocolType "c", generation 1, protocol "r", leader null, currentStateTimestamp 6, one member whose
    // struct ends in an unknown tagged field, then the value's own (empty) tagged fields.
    const member = '026d' + '00' + '0263' + '0268' + '00000003' + '00000004' + '0201' + '0202' + '01' + '0900';
    const groupV4 = hex('0004' + '0263' + '00000001' + '0272' + '00' + '0000000000000006' + '02' + member + '00');
    expect(decodeGroupMetadataValue(groupV4)).toEqual({
      protocolType: 'c',
      generation: 1,
      protocol: 'r',
      leader: null,
      currentStateTimestamp: 6,
      members: [
        {
          memberId: 'm',
          groupInstanceId: null,
          clientId: 'c',
          clientHost: 'h',
          rebalanceTimeout: 3,
          sessionTimeout: 4,
          subscription: Buffer.from([1]),
          assignment: Buffer.from([2]),
        },
      ],
    });
  });

  it('other record types in the topic are not ours', () => {
    expect(decodeKey(hex('00030001' + '67'))).toBeNull();
  });
});
