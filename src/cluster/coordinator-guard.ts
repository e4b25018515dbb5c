// In a cluster, a group's coordinator is the leader of the group's __consumer_offsets partition, and a
// transactional id's the leader of its __transaction_state partition (FindCoordinator names it). A request
// for a group or transactional id that this broker does not coordinate is refused with NOT_COORDINATOR, so
// the client looks its coordinator up again, as Kafka's coordinators answer; one whose partition this broker
// was just elected for, and is still loading, with COORDINATOR_LOAD_IN_PROGRESS (FindCoordinator already
// names this broker: the client retries here). One table says where each coordinator API carries its keys,
// rather than a check in every handler.
import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import type { Message } from '../../protocol/codec.js';

interface CoordinatorKeys {
  groups?: readonly string[];
  transactionalIds?: readonly string[];
}

const one = (id: string | null | undefined): string[] => (id === null || id === undefined ? [] : [id]);

/** API key → the group ids and transactional ids a request of it names. */
const KEYS: ReadonlyMap<number, (req: Message) => CoordinatorKeys> = new Map<number, (req: Message) => CoordinatorKeys>([
  [8, (r) => ({ groups: one(r.groupId) })], // OffsetCommit
  // OffsetFetch v8+, DescribeGroups and DeleteGroups name several groups: their handlers answer each one
  // (NOT_COORDINATOR for those coordinated elsewhere), as Kafka's do.
  [9, (r) => ({ groups: r.groups ? [] : one(r.groupId) })], // OffsetFetch before v8
  [11, (r) => ({ groups: one(r.groupId) })], // JoinGroup
  [12, (r) => ({ groups: one(r.groupId) })], // Heartbeat
  [13, (r) => ({ groups: one(r.groupId) })], // LeaveGroup
  [14, (r) => ({ groups: one(r.groupId) })], // SyncGroup
  [22, (r) => ({ transactionalIds: one(r.transactionalId) })], // InitProducerId (none: an idempotent producer, any broker)
  [
    24,
    (r) => ({
      transactionalIds: r.transactions ? r.transactions.map((t: { transactionalId: string }) => t.transactionalId) : one(r.v3AndBelowTransactionalId),
    }),
  ], // AddPartitionsToTxn
  [25, (r) => ({ transactionalIds: one(r.transactionalId) })], // AddOffsetsToTxn
  [26, (r) => ({ transactionalIds: one(r.transactionalId) })], // EndTxn
  [28, (r) => ({ groups: one(r.groupId) })], // TxnOffsetCommit: the group's coordinator writes the offsets
  [47, (r) => ({ groups: one(r.groupId) })], // OffsetDelete
]);

export interface CoordinatorOwnership {
  coordinatesGroup(groupId: string): boolean;
  coordinatesTransactionalId(transactionalId: string): boolean;
  /** Whether the group's coordinator here is still loading its partition. */
  groupLoading(groupId: string): boolean;
  transactionalIdLoading(transactionalId: string): boolean;
}

/**
 * How the coordinators follow the leadership of their partitions (Kafka's onLeadershipChange): the cluster
 * membership calls elected/resigned as the controller's LeaderAndIsr and StopReplica move a partition of
 * __consumer_offsets or __transaction_state to or away from this broker.
 */
export interface CoordinatorElections {
  /** This broker now leads the partition, in `leaderEpoch`: its coordinator loads it (again a no-op if it serves it already). */
  elected(topic: string, partition: number, leaderEpoch: number): void;
  /** This broker no longer leads the partition: its coordinator unloads it. */
  resigned(topic: string, partition: number): void;
  groupLoading(groupId: string): boolean;
  transactionalIdLoading(transactionalId: string): boolean;
}

/**
 * Throws NOT_COORDINATOR when a coordinator request names a key this broker does not coordinate, and
 * COORDINATOR_LOAD_IN_PROGRESS when it does but is still loading it.
 */
export function checkCoordinator(apiKey: number, request: Message, owner: CoordinatorOwnership): void {
  const keysOf = KEYS.get(apiKey);
  if (!keysOf) return;
  const { groups = [], transactionalIds = [] } = keysOf(request);
  for (const g of groups) {
    // An empty group id is refused as INVALID_GROUP_ID by the coordinator on any broker, before Kafka's
    // GroupCoordinatorService looks for the group's coordinator: it is nobody's to route.
    if (g === '') continue;
    if (!owner.coordinatesGroup(g)) throw new KafkaError('NOT_COORDINATOR', `This broker is not the coordinator of group ${g}.`);
    if (owner.groupLoading(g)) throw new KafkaError('COORDINATOR_LOAD_IN_PROGRESS', `The coordinator is loading group ${g}.`);
  }
  for (const t of transactionalIds) {
    if (!owner.coordinatesTransactionalId(t)) throw new KafkaError('NOT_COORDINATOR', `This broker is not the coordinator of transactional id ${t}.`);
    if (owner.transactionalIdLoading(t)) throw new KafkaError('COORDINATOR_LOAD_IN_PROGRESS', `The coordinator is loading transactional id ${t}.`);
  }
}

/** The error a request for one group gets here (the handlers naming several groups): NONE, NOT_COORDINATOR or COORDINATOR_LOAD_IN_PROGRESS. */
export function groupCoordinatorError(owner: CoordinatorOwnership, groupId: string): number {
  if (!owner.coordinatesGroup(groupId)) return ErrorCode.NOT_COORDINATOR;
  return owner.groupLoading(groupId) ? ErrorCode.COORDINATOR_LOAD_IN_PROGRESS : ErrorCode.NONE;
}

/** As groupCoordinatorError, for a transactional id. */
export function transactionCoordinatorError(owner: CoordinatorOwnership, transactionalId: string): number {
  if (!owner.coordinatesTransactionalId(transactionalId)) return ErrorCode.NOT_COORDINATOR;
  return owner.transactionalIdLoading(transactionalId) ? ErrorCode.COORDINATOR_LOAD_IN_PROGRESS : ErrorCode.NONE;
}
