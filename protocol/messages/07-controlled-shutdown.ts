// ControlledShutdown (key 7): a broker about to stop asks the controller to move the leadership of its
// partitions elsewhere first; the answer lists the partitions it still leads (the broker retries until none).
// Sent by brokers to the controller (Kafka's `zkBroker` and `controller` listeners; removed in Kafka 4.0).
// v1 changes nothing on the wire, v2 adds the broker epoch, v3 goes flexible.
// Version 0 is sent with request header v0, which has no client id (Kafka's ApiMessageType): a server that
// accepts v0 has to read its header without one.
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const ControlledShutdown = {
  apiKey: 7,
  name: 'ControlledShutdown',
  validVersions: '0-3',
  flexibleVersions: '3+',
  request: [
    { name: 'brokerId', type: 'int32', versions: '0+' },
    { name: 'brokerEpoch', type: 'int64', versions: '2+', default: -1 },
  ],
  response: [
    { name: 'errorCode', type: 'int16', versions: '0+' },
    {
      name: 'remainingPartitions',
      type: '[]RemainingPartition',
      versions: '0+',
      fields: [
        { name: 'topicName', type: 'string', versions: '0+' },
        { name: 'partitionIndex', type: 'int32', versions: '0+' },
      ],
    },
  ],
} as const satisfies MessageDef;

export type ControlledShutdownRequest = RequestOf<typeof ControlledShutdown>;
export type ControlledShutdownResponse = ResponseOf<typeof ControlledShutdown>;
