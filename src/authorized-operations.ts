// KIP-430: the operations a client may perform on a resource, reported as Kafka's responses carry them, a bit
// field with bit n set for AclOperation code n. Handlers fill it as Kafka without an authorizer does: every
// operation the resource type supports. With an authorizer, the check point (src/security/) rewrites the
// fields a response carries with what the authorizer allows (grantedOperations).
import { AUTHORIZED_OPERATIONS_OMITTED } from '../protocol/sentinels.js';

/** Kafka's AclOperation codes (0 UNKNOWN, 1 ANY and 2 ALL are filters, never granted one by one). */
const READ = 3;
const WRITE = 4;
const CREATE = 5;
const DELETE = 6;
const ALTER = 7;
const DESCRIBE = 8;
const CLUSTER_ACTION = 9;
const DESCRIBE_CONFIGS = 10;
const ALTER_CONFIGS = 11;
const IDEMPOTENT_WRITE = 12;

/** The operations each resource type supports (Kafka's AclEntry.supportedOperations). */
const SUPPORTED = {
  topic: [READ, WRITE, CREATE, DESCRIBE, DELETE, ALTER, DESCRIBE_CONFIGS, ALTER_CONFIGS],
  // Kafka 4 has group configs (KIP-848's group.* topic-like configs), and with them their two operations.
  group: [READ, DESCRIBE, DELETE, DESCRIBE_CONFIGS, ALTER_CONFIGS],
  cluster: [CREATE, CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS, IDEMPOTENT_WRITE, ALTER, DESCRIBE],
} as const;

export type AclResourceType = keyof typeof SUPPORTED;

const GRANTED: Record<AclResourceType, number> = {
  topic: bitField(SUPPORTED.topic),
  group: bitField(SUPPORTED.group),
  cluster: bitField(SUPPORTED.cluster),
};

function bitField(codes: readonly number[]): number {
  return codes.reduce((acc, code) => acc | (1 << code), 0);
}

/** The authorizedOperations field for a resource of this type: its granted operations when the client asked
 * for them, Integer.MIN_VALUE ("not requested") when it did not. */
export function authorizedOperations(type: AclResourceType, requested: boolean): number {
  return requested ? GRANTED[type] : AUTHORIZED_OPERATIONS_OMITTED;
}

/** The bit field of the operations `type` supports that `allowed` grants. */
export function grantedOperations(type: AclResourceType, allowed: (operation: number) => boolean): number {
  return bitField(SUPPORTED[type].filter((op) => allowed(op)));
}
