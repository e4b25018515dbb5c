// Every API krill speaks, by key. Handlers in src/handlers/ are checked against these ranges. The inter-broker
// APIs of ZooKeeper mode (4-7) are defined for every broker but served only by one in a cluster.
import type { MessageDef } from '../schema.js';
import { Produce } from './00-produce.js';
import { Fetch } from './01-fetch.js';
import { ListOffsets } from './02-list-offsets.js';
import { Metadata } from './03-metadata.js';
import { LeaderAndIsr } from './04-leader-and-isr.js';
import { StopReplica } from './05-stop-replica.js';
import { UpdateMetadata } from './06-update-metadata.js';
import { ControlledShutdown } from './07-controlled-shutdown.js';
import { OffsetCommit } from './08-offset-commit.js';
import { OffsetFetch } from './09-offset-fetch.js';
import { FindCoordinator } from './10-find-coordinator.js';
import { JoinGroup } from './11-join-group.js';
import { Heartbeat } from './12-heartbeat.js';
import { LeaveGroup } from './13-leave-group.js';
import { SyncGroup } from './14-sync-group.js';
import { DescribeGroups } from './15-describe-groups.js';
import { ListGroups } from './16-list-groups.js';
import { SaslHandshake } from './17-sasl-handshake.js';
import { ApiVersions } from './18-api-versions.js';
import { CreateTopics } from './19-create-topics.js';
import { DeleteTopics } from './20-delete-topics.js';
import { DeleteRecords } from './21-delete-records.js';
import { InitProducerId } from './22-init-producer-id.js';
import { OffsetForLeaderEpoch } from './23-offset-for-leader-epoch.js';
import { AddPartitionsToTxn } from './24-add-partitions-to-txn.js';
import { AddOffsetsToTxn } from './25-add-offsets-to-txn.js';
import { EndTxn } from './26-end-txn.js';
import { WriteTxnMarkers } from './27-write-txn-markers.js';
import { TxnOffsetCommit } from './28-txn-offset-commit.js';
import { DescribeAcls } from './29-describe-acls.js';
import { CreateAcls } from './30-create-acls.js';
import { DeleteAcls } from './31-delete-acls.js';
import { DescribeConfigs } from './32-describe-configs.js';
import { AlterConfigs } from './33-alter-configs.js';
import { DescribeLogDirs } from './35-describe-log-dirs.js';
import { SaslAuthenticate } from './36-sasl-authenticate.js';
import { CreatePartitions } from './37-create-partitions.js';
import { DeleteGroups } from './42-delete-groups.js';
import { ElectLeaders } from './43-elect-leaders.js';
import { IncrementalAlterConfigs } from './44-incremental-alter-configs.js';
import { AlterPartitionReassignments } from './45-alter-partition-reassignments.js';
import { ListPartitionReassignments } from './46-list-partition-reassignments.js';
import { DescribeClientQuotas } from './48-describe-client-quotas.js';
import { AlterClientQuotas } from './49-alter-client-quotas.js';
import { OffsetDelete } from './47-offset-delete.js';
import { DescribeUserScramCredentials } from './50-describe-user-scram-credentials.js';
import { AlterUserScramCredentials } from './51-alter-user-scram-credentials.js';
import { AlterPartition } from './56-alter-partition.js';
import { DescribeCluster } from './60-describe-cluster.js';
import { DescribeProducers } from './61-describe-producers.js';
import { DescribeTransactions } from './65-describe-transactions.js';
import { ListTransactions } from './66-list-transactions.js';
import { DescribeTopicPartitions } from './75-describe-topic-partitions.js';

export const MESSAGES = [
  Produce,
  Fetch,
  ListOffsets,
  Metadata,
  LeaderAndIsr,
  StopReplica,
  UpdateMetadata,
  ControlledShutdown,
  OffsetCommit,
  OffsetFetch,
  FindCoordinator,
  JoinGroup,
  Heartbeat,
  LeaveGroup,
  SyncGroup,
  DescribeGroups,
  ListGroups,
  SaslHandshake,
  ApiVersions,
  CreateTopics,
  DeleteTopics,
  DeleteRecords,
  InitProducerId,
  OffsetForLeaderEpoch,
  AddPartitionsToTxn,
  AddOffsetsToTxn,
  EndTxn,
  WriteTxnMarkers,
  TxnOffsetCommit,
  DescribeAcls,
  CreateAcls,
  DeleteAcls,
  DescribeConfigs,
  AlterConfigs,
  DescribeLogDirs,
  SaslAuthenticate,
  CreatePartitions,
  DeleteGroups,
  ElectLeaders,
  IncrementalAlterConfigs,
  AlterPartitionReassignments,
  ListPartitionReassignments,
  OffsetDelete,
  DescribeClientQuotas,
  AlterClientQuotas,
  DescribeUserScramCredentials,
  AlterUserScramCredentials,
  AlterPartition,
  DescribeCluster,
  DescribeProducers,
  DescribeTransactions,
  ListTransactions,
  DescribeTopicPartitions,
] as const satisfies readonly MessageDef[];

/** Each definition with its literal types, for typing code by API key (the handlers). */
export type KnownMessage = (typeof MESSAGES)[number];
export type ApiKey = KnownMessage['apiKey'];
export type MessageFor<K extends ApiKey> = Extract<KnownMessage, { apiKey: K }>;

export type ApiName = KnownMessage['name'];
export type MessageNamed<N extends ApiName> = Extract<KnownMessage, { name: N }>;

/** Each API's key by its name (`API_KEYS.Fetch` is 1), from the definitions: the one place the numbers live. */
export const API_KEYS = Object.fromEntries(MESSAGES.map((m) => [m.name, m.apiKey])) as { readonly [M in KnownMessage as M['name']]: M['apiKey'] };

export const MESSAGES_BY_KEY: ReadonlyMap<number, MessageDef> = new Map(MESSAGES.map((m): [number, MessageDef] => [m.apiKey, m]));
