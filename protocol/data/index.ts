// Every standalone struct krill reads or writes (Kafka's "data" schemas), for the tests that check them all.
import type { DataDef } from '../schema.js';
import { ConsumerProtocolAssignment, ConsumerProtocolSubscription } from './consumer-protocol.js';
import { GroupMetadataKey, GroupMetadataValue, OffsetCommitKey, OffsetCommitValue } from './group-coordinator.js';
import { TransactionLogKey, TransactionLogValue } from './transaction-log.js';

export const DATA: readonly DataDef[] = [
  OffsetCommitKey,
  OffsetCommitValue,
  GroupMetadataKey,
  GroupMetadataValue,
  TransactionLogKey,
  TransactionLogValue,
  ConsumerProtocolSubscription,
  ConsumerProtocolAssignment,
];
