// The ZooKeeper-era inter-broker messages (LeaderAndIsr, StopReplica, UpdateMetadata, ControlledShutdown)
// through the codec, at their oldest and newest versions: nested partition states survive the round trip,
// fields a version lacks decode as their Kafka defaults, and UpdateMetadata v8's tagged `type` is written as
// a tagged field only when it differs from its default. (codec-roundtrip.test.ts also covers every version
// with generated values; here the values are the ones a controller sends.)
import { describe, expect, it } from 'vitest';
import { decodeMessage, encodeMessage, type Side } from '../../protocol/codec.js';
import { Reader } from '../../protocol/primitives.js';
import type { MessageDef } from '../../protocol/schema.js';
import { MESSAGES_BY_KEY } from '../../protocol/messages/index.js';
import { LeaderAndIsr, type LeaderAndIsrResponse } from '../../protocol/messages/04-leader-and-isr.js';
import { StopReplica, type StopReplicaResponse } from '../../protocol/messages/05-stop-replica.js';
import { UpdateMetadata, type UpdateMetadataResponse } from '../../protocol/messages/06-update-metadata.js';
import { ControlledShutdown, type ControlledShutdownResponse } from '../../protocol/messages/07-controlled-shutdown.js';
import type { Message } from '../../protocol/codec.js';

const TOPIC_ID = Buffer.from('8f1c2a7e5b3d4e6f9a0b1c2d3e4f5a6b', 'hex');

/** Encodes, decodes and re-encodes; the decoded message contains what was given and re-encodes to the same bytes. */
function roundTrip(def: MessageDef, side: Side, version: number, msg: Record<string, unknown>): { bytes: Buffer; decoded: Message } {
  const bytes = encodeMessage(def, side, version, msg).toBuffer();
  const r = new Reader(bytes);
  const decoded = decodeMessage(def, side, version, r);
  expect(r.remaining).toBe(0);
  expect(decoded).toMatchObject(msg);
  expect(encodeMessage(def, side, version, decoded).toBuffer().equals(bytes)).toBe(true);
  return { bytes, decoded };
}

describe('the definitions are registered by API key', () => {
  it('4-7', () => {
    expect(MESSAGES_BY_KEY.get(4)).toBe(LeaderAndIsr);
    expect(MESSAGES_BY_KEY.get(5)).toBe(StopReplica);
    expect(MESSAGES_BY_KEY.get(6)).toBe(UpdateMetadata);
    expect(MESSAGES_BY_KEY.get(7)).toBe(ControlledShutdown);
  });
});

describe('LeaderAndIsr', () => {
  const state = { partitionIndex: 2, controllerEpoch: 4, leader: 1, leaderEpoch: 7, isr: [1, 3], partitionEpoch: 12, replicas: [1, 2, 3] };

  it('request v0: ungrouped partition states with their topic name, no broker epoch', () => {
    const { decoded } = roundTrip(LeaderAndIsr, 'request', 0, {
      controllerId: 1,
      controllerEpoch: 4,
      ungroupedPartitionStates: [{ topicName: 'orders', ...state }],
      liveLeaders: [{ brokerId: 1, hostName: 'b1', port: 9092 }],
    });
    expect(decoded.brokerEpoch).toBe(-1);
    expect(decoded.topicStates).toEqual([]);
    expect(decoded.ungroupedPartitionStates[0]).toMatchObject({ isNew: false, addingReplicas: [], leaderRecoveryState: 0 });
  });

  it('request v7: per-topic states with topic ids, adding/removing replicas, recovery state, KRaft flag', () => {
    const { decoded } = roundTrip(LeaderAndIsr, 'request', 7, {
      controllerId: 1,
      isKRaftController: false,
      controllerEpoch: 4,
      brokerEpoch: 4294967296 + 5,
      type: 0,
      topicStates: [
        {
          topicName: 'orders',
          topicId: TOPIC_ID,
          partitionStates: [
            { ...state, addingReplicas: [3], removingReplicas: [2], isNew: true, leaderRecoveryState: 1 },
            { ...state, partitionIndex: 3, addingReplicas: [], removingReplicas: [], isNew: false, leaderRecoveryState: 0 },
          ],
        },
      ],
      liveLeaders: [{ brokerId: 1, hostName: 'b1', port: 9092 }],
    });
    expect(decoded.ungroupedPartitionStates).toEqual([]);
    expect(decoded.topicStates[0].partitionStates[0].topicName).toBe(''); // only in v0-1
  });

  it('response v0 by topic name, v7 by topic id', () => {
    const v0: LeaderAndIsrResponse = { errorCode: 0, partitionErrors: [{ topicName: 'orders', partitionIndex: 2, errorCode: 6 }] };
    roundTrip(LeaderAndIsr, 'response', 0, v0);
    const v7: LeaderAndIsrResponse = { errorCode: 0, topics: [{ topicId: TOPIC_ID, partitionErrors: [{ partitionIndex: 2, errorCode: 0 }] }] };
    const { decoded } = roundTrip(LeaderAndIsr, 'response', 7, v7);
    expect(decoded.partitionErrors).toEqual([]);
  });
});

describe('StopReplica', () => {
  it('request v0: ungrouped partitions and one delete flag', () => {
    const { decoded } = roundTrip(StopReplica, 'request', 0, {
      controllerId: 1,
      controllerEpoch: 4,
      deletePartitions: true,
      ungroupedPartitions: [
        { topicName: 'orders', partitionIndex: 0 },
        { topicName: 'orders', partitionIndex: 1 },
      ],
    });
    expect(decoded.brokerEpoch).toBe(-1);
    expect(decoded.topicStates).toEqual([]);
  });

  it('request v4: per-partition leader epoch and delete flag', () => {
    roundTrip(StopReplica, 'request', 4, {
      controllerId: 1,
      isKRaftController: false,
      controllerEpoch: 4,
      brokerEpoch: 99,
      topicStates: [
        {
          topicName: 'orders',
          partitionStates: [
            { partitionIndex: 0, leaderEpoch: -2, deletePartition: true },
            { partitionIndex: 1, leaderEpoch: 8, deletePartition: false },
          ],
        },
      ],
    });
  });

  it('a partition state without a leader epoch decodes it as -1', () => {
    const bytes = encodeMessage(StopReplica, 'request', 3, {
      controllerId: 1,
      controllerEpoch: 4,
      topicStates: [{ topicName: 't', partitionStates: [{ partitionIndex: 0, deletePartition: false }] }],
    }).toBuffer();
    expect(decodeMessage(StopReplica, 'request', 3, new Reader(bytes)).topicStates[0].partitionStates[0].leaderEpoch).toBe(-1);
  });

  it('responses v0 and v4', () => {
    const res: StopReplicaResponse = { errorCode: 0, partitionErrors: [{ topicName: 'orders', partitionIndex: 1, errorCode: 0 }] };
    roundTrip(StopReplica, 'response', 0, res);
    roundTrip(StopReplica, 'response', 4, res);
  });
});

describe('UpdateMetadata', () => {
  const state = { partitionIndex: 0, controllerEpoch: 4, leader: 2, leaderEpoch: 3, isr: [2], zkVersion: 5, replicas: [1, 2] };

  it('request v0: v0 host and port, ungrouped states', () => {
    const { decoded } = roundTrip(UpdateMetadata, 'request', 0, {
      controllerId: 1,
      controllerEpoch: 4,
      ungroupedPartitionStates: [{ topicName: 'orders', ...state }],
      liveBrokers: [
        { id: 1, v0Host: 'b1', v0Port: 9092 },
        { id: 2, v0Host: 'b2', v0Port: 9093 },
      ],
    });
    expect(decoded.liveBrokers[0].endpoints).toEqual([]);
    expect(decoded.ungroupedPartitionStates[0].offlineReplicas).toEqual([]);
  });

  it('request v8: topic ids, endpoints with listener names, racks, offline replicas, the tagged type', () => {
    roundTrip(UpdateMetadata, 'request', 8, {
      controllerId: 1,
      isKRaftController: false,
      type: 2,
      controllerEpoch: 4,
      brokerEpoch: 21,
      topicStates: [{ topicName: 'orders', topicId: TOPIC_ID, partitionStates: [{ ...state, offlineReplicas: [1] }] }],
      liveBrokers: [
        { id: 1, endpoints: [{ port: 9092, host: 'b1', listener: 'PLAINTEXT', securityProtocol: 0 }], rack: 'r1' },
        { id: 2, endpoints: [{ port: 9093, host: 'b2', listener: 'INTERNAL', securityProtocol: 2 }], rack: null },
      ],
    });
  });

  it('v8 writes the type as a tagged field only when it is not the default 0', () => {
    const base = { controllerId: 1, controllerEpoch: 4, brokerEpoch: 21, topicStates: [], liveBrokers: [] };
    const unknown = encodeMessage(UpdateMetadata, 'request', 8, base).toBuffer();
    const full = encodeMessage(UpdateMetadata, 'request', 8, { ...base, type: 2 }).toBuffer();
    // tag 0, size 1, the int8 value: three bytes more, and the tagged-field count goes from 0 to 1 in place.
    expect(full.length).toBe(unknown.length + 3);
    expect(full.subarray(-4)).toEqual(Buffer.from([1, 0, 1, 2]));
    expect(unknown.at(-1)).toBe(0);
    expect(decodeMessage(UpdateMetadata, 'request', 8, new Reader(unknown)).type).toBe(0);
    expect(decodeMessage(UpdateMetadata, 'request', 8, new Reader(full)).type).toBe(2);
  });

  it('responses v0 and v8', () => {
    const res: UpdateMetadataResponse = { errorCode: 0 };
    expect(roundTrip(UpdateMetadata, 'response', 0, res).bytes).toEqual(Buffer.from([0, 0]));
    expect(roundTrip(UpdateMetadata, 'response', 8, res).bytes).toEqual(Buffer.from([0, 0, 0])); // + no tagged fields
  });
});

describe('ControlledShutdown', () => {
  it('request v0 is the broker id alone; v3 adds the broker epoch and tagged fields', () => {
    expect(roundTrip(ControlledShutdown, 'request', 0, { brokerId: 2 }).bytes).toEqual(Buffer.from([0, 0, 0, 2]));
    expect(roundTrip(ControlledShutdown, 'request', 3, { brokerId: 2, brokerEpoch: 258 }).bytes).toEqual(Buffer.from([0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 1, 2, 0]));
  });

  it('responses v0 and v3 list the partitions still led', () => {
    const res: ControlledShutdownResponse = {
      errorCode: 0,
      remainingPartitions: [
        { topicName: 'orders', partitionIndex: 1 },
        { topicName: 'audit', partitionIndex: 0 },
      ],
    };
    roundTrip(ControlledShutdown, 'response', 0, res);
    roundTrip(ControlledShutdown, 'response', 3, res);
  });
});
