// The one record of a control batch (a transaction marker, KIP-98), as Kafka's EndTransactionMarker:
//   key    int16 version (0)   int16 type (0 = ABORT, 1 = COMMIT)
//   value  int16 version (0)   int32 coordinatorEpoch
// The batch carries the transaction's producer id and epoch, the control and transactional attribute bits,
// and no sequence.
import { ProtocolError } from './primitives.js';
import { buildBatch, decodeBatch, type BatchInfo } from './record-batch.js';

export const CONTROL_TYPE_ABORT = 0;
export const CONTROL_TYPE_COMMIT = 1;

export interface TransactionMarker {
  commit: boolean;
  coordinatorEpoch: number;
}

export function encodeMarkerKey(commit: boolean): Buffer {
  const key = Buffer.alloc(4);
  key.writeInt16BE(0, 0);
  key.writeInt16BE(commit ? CONTROL_TYPE_COMMIT : CONTROL_TYPE_ABORT, 2);
  return key;
}

export function encodeMarkerValue(coordinatorEpoch: number): Buffer {
  const value = Buffer.alloc(6);
  value.writeInt16BE(0, 0);
  value.writeInt32BE(coordinatorEpoch, 2);
  return value;
}

/** A control batch ending (commit or abort) the producer's ongoing transaction on one partition. */
export function buildMarkerBatch(producerId: number, producerEpoch: number, marker: TransactionMarker, timestamp = Date.now()): Buffer {
  return buildBatch([{ key: encodeMarkerKey(marker.commit), value: encodeMarkerValue(marker.coordinatorEpoch), timestamp }], {
    producerId,
    producerEpoch,
    isControl: true,
    isTransactional: true,
  });
}

/** The marker of the control batch at `info` in `buf`; a control record of another type is null. */
export function readMarker(buf: Buffer, info: BatchInfo): TransactionMarker | null {
  const record = decodeBatch(buf, info.position).records[0];
  if (!record?.key || record.key.length < 4) throw new ProtocolError('control record without a key');
  const type = record.key.readInt16BE(2);
  if (type !== CONTROL_TYPE_ABORT && type !== CONTROL_TYPE_COMMIT) return null;
  const coordinatorEpoch = record.value && record.value.length >= 6 ? record.value.readInt32BE(2) : -1;
  return { commit: type === CONTROL_TYPE_COMMIT, coordinatorEpoch };
}
