// The transaction coordinator's records in __transaction_state (Kafka's coordinator-records schemas): the key is
// the transactional id, the value its producer and current transaction. Both start with an int16 version written
// by whoever stores them; a null value is a tombstone. transactionStatus is Kafka's TransactionState byte
// (0 Empty, 1 Ongoing, 2 PrepareCommit, 3 PrepareAbort, 4 CompleteCommit, 5 CompleteAbort, 6 Dead,
// 7 PrepareEpochFence).
import type { DataDef, DataInput, DataOf } from '../schema.js';

export const TransactionLogKey = {
  name: 'TransactionLogKey',
  validVersions: '0',
  flexibleVersions: 'none',
  fields: [{ name: 'transactionalId', type: 'string', versions: '0' }],
} as const satisfies DataDef;

// v1 is the flexible form (KIP-915); its tagged fields carry KIP-890's producer id bookkeeping across an epoch
// bump and the client's transaction version.
export const TransactionLogValue = {
  name: 'TransactionLogValue',
  validVersions: '0-1',
  flexibleVersions: '1+',
  fields: [
    { name: 'producerId', type: 'int64', versions: '0+' },
    { name: 'previousProducerId', type: 'int64', versions: '1+', tag: 0, taggedVersions: '1+', default: -1 },
    { name: 'nextProducerId', type: 'int64', versions: '1+', tag: 1, taggedVersions: '1+', default: -1 },
    { name: 'producerEpoch', type: 'int16', versions: '0+' },
    { name: 'transactionTimeoutMs', type: 'int32', versions: '0+' },
    { name: 'transactionStatus', type: 'int8', versions: '0+' },
    {
      name: 'transactionPartitions',
      type: '[]PartitionsSchema',
      versions: '0+',
      nullableVersions: '0+',
      fields: [
        { name: 'topic', type: 'string', versions: '0+' },
        { name: 'partitionIds', type: '[]int32', versions: '0+' },
      ],
    },
    { name: 'transactionLastUpdateTimestampMs', type: 'int64', versions: '0+' },
    { name: 'transactionStartTimestampMs', type: 'int64', versions: '0+' },
    { name: 'clientTransactionVersion', type: 'int16', versions: '1+', tag: 2, taggedVersions: '1+', default: 0 },
  ],
} as const satisfies DataDef;

export type TransactionLogKeyData = DataOf<typeof TransactionLogKey>;
export type TransactionLogValueData = DataOf<typeof TransactionLogValue>;
export type TransactionLogValueInput = DataInput<typeof TransactionLogValue>;
