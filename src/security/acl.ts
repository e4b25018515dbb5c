// Kafka's ACL model (org.apache.kafka.common.acl and .resource): the codes the wire carries for resource
// types, pattern types, operations and permissions, an ACL binding (a resource pattern and an access control
// entry), the filters DescribeAcls and DeleteAcls send, and the checks Kafka makes of both before it
// stores or matches them. Everything here is pure: the authorizer keeps the bindings.

export const ResourceType = { UNKNOWN: 0, ANY: 1, TOPIC: 2, GROUP: 3, CLUSTER: 4, TRANSACTIONAL_ID: 5, DELEGATION_TOKEN: 6, USER: 7 } as const;
export const PatternType = { UNKNOWN: 0, ANY: 1, MATCH: 2, LITERAL: 3, PREFIXED: 4 } as const;
export const Operation = {
  UNKNOWN: 0,
  ANY: 1,
  ALL: 2,
  READ: 3,
  WRITE: 4,
  CREATE: 5,
  DELETE: 6,
  ALTER: 7,
  DESCRIBE: 8,
  CLUSTER_ACTION: 9,
  DESCRIBE_CONFIGS: 10,
  ALTER_CONFIGS: 11,
  IDEMPOTENT_WRITE: 12,
  CREATE_TOKENS: 13,
  DESCRIBE_TOKENS: 14,
} as const;
export const Permission = { UNKNOWN: 0, ANY: 1, DENY: 2, ALLOW: 3 } as const;

export type ResourceTypeCode = (typeof ResourceType)[keyof typeof ResourceType];
export type OperationCode = (typeof Operation)[keyof typeof Operation];

/** Kafka's names for its authorizers; krill's is each of them. */
export const AUTHORIZER_CLASS_NAMES: readonly string[] = [
  'kafka.security.authorizer.AclAuthorizer',
  'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
  'kafka.security.auth.SimpleAclAuthorizer',
];

/** The one name a CLUSTER resource has (Kafka's CLUSTER_NAME). */
export const CLUSTER_NAME = 'kafka-cluster';
/** A literal resource name, principal or host matching every one. */
export const WILDCARD = '*';
export const WILDCARD_PRINCIPAL = 'User:*';

/** The resource types krill serves ACLs for: Kafka's, but for delegation tokens and users, which krill has none of. */
export const SERVED_RESOURCE_TYPES: ReadonlySet<number> = new Set([
  ResourceType.TOPIC,
  ResourceType.GROUP,
  ResourceType.CLUSTER,
  ResourceType.TRANSACTIONAL_ID,
]);

/** A stored ACL: what Kafka's AclBinding holds, flat. */
export interface AclBinding {
  resourceType: number;
  resourceName: string;
  patternType: number;
  principal: string;
  host: string;
  operation: number;
  permissionType: number;
}

/** DescribeAcls' and DeleteAcls' filter: null names, principals and hosts match any. */
export interface AclFilter {
  resourceType: number;
  resourceName: string | null;
  patternType: number;
  principal: string | null;
  host: string | null;
  operation: number;
  permissionType: number;
}

/** A code as an enum's name, for messages. */
function nameOf(table: Record<string, number>, code: number): string {
  return Object.keys(table).find((k) => table[k] === code) ?? String(code);
}

export const resourceTypeName = (code: number) => nameOf(ResourceType, code);

const known = (table: Record<string, number>, code: number) => Object.values(table).includes(code) && code !== 0;

/**
 * Why Kafka refuses to create `b` (CreateAclsRequest's validation, KafkaApis' and the authorizer's), or
 * null when it is sound. Filters' codes (ANY, MATCH) are no binding's.
 */
export function bindingProblem(b: AclBinding): string | null {
  if (!known(ResourceType, b.resourceType) || b.resourceType === ResourceType.ANY) return `invalid resource type ${b.resourceType}`;
  if (b.patternType !== PatternType.LITERAL && b.patternType !== PatternType.PREFIXED) return 'creations must use only LITERAL or PREFIXED patterns';
  if (!known(Operation, b.operation) || b.operation === Operation.ANY) return `invalid operation ${b.operation}`;
  if (b.permissionType !== Permission.ALLOW && b.permissionType !== Permission.DENY) return `invalid permission type ${b.permissionType}`;
  if (!SERVED_RESOURCE_TYPES.has(b.resourceType)) return `ACLs on ${resourceTypeName(b.resourceType)} resources are not supported: krill has none`;
  if (b.resourceName === '') return 'Invalid empty resource name specified';
  if (b.resourceType === ResourceType.CLUSTER && b.resourceName !== CLUSTER_NAME) return `The only valid name for the CLUSTER resource is ${CLUSTER_NAME}`;
  if (principalProblem(b.principal)) return principalProblem(b.principal);
  return null;
}

function principalProblem(principal: string): string | null {
  const colon = principal.indexOf(':');
  return colon <= 0 || colon === principal.length - 1 ? `invalid principal '${principal}': expected <type>:<name>, as User:alice` : null;
}

/** Why a filter is unusable (it holds UNKNOWN codes), or null. */
export function filterProblem(f: AclFilter): string | null {
  if (!known(ResourceType, f.resourceType)) return `invalid resource type filter ${f.resourceType}`;
  if (!known(PatternType, f.patternType)) return `invalid pattern type filter ${f.patternType}`;
  if (!known(Operation, f.operation)) return `invalid operation filter ${f.operation}`;
  if (!known(Permission, f.permissionType)) return `invalid permission type filter ${f.permissionType}`;
  return null;
}

/** Kafka's ResourcePatternFilter.matches and AccessControlEntryFilter.matches. */
export function filterMatches(f: AclFilter, b: AclBinding): boolean {
  if (f.resourceType !== ResourceType.ANY && f.resourceType !== b.resourceType) return false;
  if (f.patternType !== PatternType.ANY && f.patternType !== PatternType.MATCH && f.patternType !== b.patternType) return false;
  if (f.principal !== null && f.principal !== b.principal) return false;
  if (f.host !== null && f.host !== b.host) return false;
  if (f.operation !== Operation.ANY && f.operation !== b.operation) return false;
  if (f.permissionType !== Permission.ANY && f.permissionType !== b.permissionType) return false;
  if (f.resourceName === null) return true;
  // MATCH: the bindings that would apply to a resource of that name (literal, wildcard, or a prefix of it).
  if (f.patternType !== PatternType.MATCH) return f.resourceName === b.resourceName;
  if (b.patternType === PatternType.PREFIXED) return f.resourceName.startsWith(b.resourceName);
  return f.resourceName === b.resourceName || b.resourceName === WILDCARD;
}

/**
 * The operations whose ALLOW grants `op` (Kafka's AclAuthorizer): READ, WRITE, DELETE and ALTER each allow
 * DESCRIBE, ALTER_CONFIGS allows DESCRIBE_CONFIGS; ALL allows everything. A DENY denies its own operation
 * (and ALL every one) only.
 */
export function allowingOperations(op: number): readonly number[] {
  const O = Operation;
  if (op === O.DESCRIBE) return [O.DESCRIBE, O.READ, O.WRITE, O.DELETE, O.ALTER, O.ALL];
  if (op === O.DESCRIBE_CONFIGS) return [O.DESCRIBE_CONFIGS, O.ALTER_CONFIGS, O.ALL];
  return [op, O.ALL];
}

/** A binding's identity, for sets and for the persisted form's order. */
export function bindingKey(b: AclBinding): string {
  return JSON.stringify([b.resourceType, b.patternType, b.resourceName, b.principal, b.host, b.operation, b.permissionType]);
}
