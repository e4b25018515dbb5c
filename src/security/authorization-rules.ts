// What each API needs of the authorizer, by API key: Kafka's KafkaApis checks, one entry per API, read by
// the one check point (request-authorization.ts). A rule looks at the decoded request and answers with a
// plan: nothing (allowed), the whole request denied with a code, some entries of one of its lists denied
// (each with its code: those come back with it, the rest is served), and what to change in the response: the
// topics, groups, transactions a listing would show a principal who may not describe them hidden, and the
// KIP-430 operations fields set to what the authorizer grants.
// An API without a rule needs nothing (ApiVersions, SASL), as in Kafka.
import { ErrorCode } from '../../protocol/errors.js';
import type { Message } from '../../protocol/codec.js';
import { CLUSTER_NAME, Operation as Op, ResourceType as R } from './acl.js';
import { grantedOperations } from '../authorized-operations.js';
import { AUTHORIZED_OPERATIONS_OMITTED } from '../../protocol/sentinels.js';

/** The questions a rule may ask of the authorizer and the broker, for the request's principal. */
export interface Ask {
  can(operation: number, resourceType: number, name: string): boolean;
  /** Allowed `operation` on some resource of the type (Kafka's authorizeByResourceType). */
  canOnSomeOfType(operation: number, resourceType: number): boolean;
  /** A request entry's topic: by name, or by id where the request names it so, or the entry itself, a bare name. */
  topicOf(entry: Message | string): string | undefined;
  topicExists(name: string): boolean;
  /** auto.create.topics.enable. */
  readonly autoCreateTopics: boolean;
}

export interface Plan {
  /** The whole request is refused with this code. */
  deny?: { code: number; message: string };
  /** Entries of request[field] refused, by index, with their codes. */
  field?: string;
  denied?: Map<number, number>;
  /** Removes from the response what the principal may not see, and says what it may do (KIP-430). */
  adjust?: (response: Message) => void;
}

export type Rule = (ask: Ask, request: Message, version: number) => Plan | null;

const cluster = (ask: Ask, op: number) => ask.can(op, R.CLUSTER, CLUSTER_NAME);
const denyAll = (code: number, what: string): Plan => ({ deny: { code, message: `Not authorized to ${what}` } });

/** Whole-request checks, in order; the first that fails denies. */
function require(...checks: ([boolean, number, string] | null)[]): Plan | null {
  for (const check of checks) if (check && !check[0]) return denyAll(check[1], check[2]);
  return null;
}

const clusterCheck = (ask: Ask, op: number): [boolean, number, string] => [cluster(ask, op), ErrorCode.CLUSTER_AUTHORIZATION_FAILED, 'access the cluster'];
const groupCheck = (ask: Ask, op: number, group: unknown): [boolean, number, string] => [
  ask.can(op, R.GROUP, String(group)),
  ErrorCode.GROUP_AUTHORIZATION_FAILED,
  `access group ${String(group)}`,
];
const txnCheck = (ask: Ask, op: number, id: unknown): [boolean, number, string] | null =>
  id === null || id === undefined
    ? null
    : [ask.can(op, R.TRANSACTIONAL_ID, String(id)), ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, `use transactional id ${String(id)}`];

/** The entries of request[field] for which `allowed` is false, each with `code`. */
function entries(field: string, list: unknown, code: number, allowed: (entry: never) => boolean): Plan | null {
  if (!Array.isArray(list)) return null;
  const denied = new Map<number, number>();
  list.forEach((e, i) => {
    if (!allowed(e as never)) denied.set(i, code);
  });
  return denied.size ? { field, denied } : null;
}

/** Per topic entry of request[field], `op` on the topic. */
const topics = (ask: Ask, request: Message, field: string, op: number): Plan | null =>
  entries(field, request[field], ErrorCode.TOPIC_AUTHORIZATION_FAILED, (t: Message | string) => {
    const name = ask.topicOf(t);
    return name !== undefined && ask.can(op, R.TOPIC, name);
  });

/**
 * Hides the entries of response[field] whose `key` the principal may not DESCRIBE as `resourceType`. An
 * entry without one (Metadata's answer to an unknown topic id) names nothing to hide.
 */
const hiding =
  (ask: Ask, field: string, resourceType: number, key: (e: Message) => string | null | undefined) =>
  (response: Message): void => {
    const list = response[field];
    if (!Array.isArray(list)) return;
    response[field] = list.filter((e: Message) => {
      const name = key(e);
      return name === null || name === undefined || ask.can(Op.DESCRIBE, resourceType, name);
    });
  };

/** KIP-430: each listed entry's operations field, where the client asked for it, as the authorizer grants them. */
const granting =
  (ask: Ask, field: string, opsField: string, type: 'topic' | 'group', key: (e: Message) => string) =>
  (response: Message): void => {
    const resourceType = type === 'topic' ? R.TOPIC : R.GROUP;
    for (const e of (response[field] as Message[] | undefined) ?? []) {
      if (e[opsField] !== AUTHORIZED_OPERATIONS_OMITTED) e[opsField] = grantedOperations(type, (op) => ask.can(op, resourceType, key(e)));
    }
  };

const grantingCluster = (ask: Ask) => (response: Message) => {
  const field = 'clusterAuthorizedOperations';
  if (response[field] !== undefined && response[field] !== AUTHORIZED_OPERATIONS_OMITTED)
    response[field] = grantedOperations('cluster', (op) => cluster(ask, op));
};

const all =
  (...steps: ((response: Message) => void)[]) =>
  (response: Message): void => {
    for (const step of steps) step(response);
  };

/** DescribeConfigs and the two AlterConfigs: a topic's configs need `op` on it, a broker's on the cluster. */
const TOPIC_RESOURCE = 2;
const configResources = (op: number) => (ask: Ask, req: Message) => {
  const list = req.resources as Message[];
  const denied = new Map<number, number>();
  list.forEach((r, i) => {
    if (r.resourceType === TOPIC_RESOURCE) {
      if (!ask.can(op, R.TOPIC, r.resourceName as string)) denied.set(i, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
    } else if (!cluster(ask, op)) denied.set(i, ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
  });
  return denied.size ? { field: 'resources', denied } : null;
};

/** Both plans' denials of one request: the whole-request one first. */
const both = (first: Plan | null, then: () => Plan | null): Plan | null => first ?? then();

const isFollower = (req: Message) => ((req.replicaId as number | undefined) ?? (req.replicaState as Message | undefined)?.replicaId ?? -1) >= 0;
const interBroker: Rule = (ask) => require(clusterCheck(ask, Op.CLUSTER_ACTION));

export const RULES: ReadonlyMap<number, Rule> = new Map<number, Rule>([
  [0, (ask, req) => both(require(txnCheck(ask, Op.WRITE, req.transactionalId)), () => topics(ask, req, 'topicData', Op.WRITE))],
  [
    1,
    (ask, req) =>
      isFollower(req)
        ? require([cluster(ask, Op.CLUSTER_ACTION), ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'fetch as a follower'])
        : topics(ask, req, 'topics', Op.READ),
  ],
  [2, (ask, req) => topics(ask, req, 'topics', Op.DESCRIBE)],
  [3, metadata],
  [4, interBroker],
  [5, interBroker],
  [6, interBroker],
  [7, interBroker],
  [8, (ask, req) => both(require(groupCheck(ask, Op.READ, req.groupId)), () => topics(ask, req, 'topics', Op.READ))],
  [9, offsetFetch],
  [10, findCoordinator],
  [11, (ask, req) => require(groupCheck(ask, Op.READ, req.groupId))],
  [12, (ask, req) => require(groupCheck(ask, Op.READ, req.groupId))],
  [13, (ask, req) => require(groupCheck(ask, Op.READ, req.groupId))],
  [14, (ask, req) => require(groupCheck(ask, Op.READ, req.groupId))],
  [
    15,
    (ask, req) => ({
      ...entries('groups', req.groups, ErrorCode.GROUP_AUTHORIZATION_FAILED, (g: string) => ask.can(Op.DESCRIBE, R.GROUP, g)),
      adjust: granting(ask, 'groups', 'authorizedOperations', 'group', (g) => g.groupId as string),
    }),
  ],
  [16, (ask) => (cluster(ask, Op.DESCRIBE) ? null : { adjust: hiding(ask, 'groups', R.GROUP, (g) => g.groupId as string) })],
  [19, (ask, req) => (cluster(ask, Op.CREATE) ? null : topics(ask, req, 'topics', Op.CREATE))],
  [20, (ask, req, v) => topics(ask, req, v >= 6 ? 'topics' : 'topicNames', Op.DELETE)],
  [21, (ask, req) => topics(ask, req, 'topics', Op.DELETE)],
  [22, initProducerId],
  [23, (ask, req) => (isFollower(req) ? require(clusterCheck(ask, Op.CLUSTER_ACTION)) : topics(ask, req, 'topics', Op.DESCRIBE))],
  [24, addPartitionsToTxn],
  [25, (ask, req) => require(txnCheck(ask, Op.WRITE, req.transactionalId), groupCheck(ask, Op.READ, req.groupId))],
  [26, (ask, req) => require(txnCheck(ask, Op.WRITE, req.transactionalId))],
  [27, interBroker],
  [
    28,
    (ask, req) => both(require(txnCheck(ask, Op.WRITE, req.transactionalId), groupCheck(ask, Op.READ, req.groupId)), () => topics(ask, req, 'topics', Op.READ)),
  ],
  [29, (ask) => require(clusterCheck(ask, Op.DESCRIBE))],
  [30, (ask) => require(clusterCheck(ask, Op.ALTER))],
  [31, (ask) => require(clusterCheck(ask, Op.ALTER))],
  [32, configResources(Op.DESCRIBE_CONFIGS)],
  [33, configResources(Op.ALTER_CONFIGS)],
  [35, (ask) => require(clusterCheck(ask, Op.DESCRIBE))],
  [37, (ask, req) => topics(ask, req, 'topics', Op.ALTER)],
  [42, (ask, req) => entries('groupsNames', req.groupsNames, ErrorCode.GROUP_AUTHORIZATION_FAILED, (g: string) => ask.can(Op.DELETE, R.GROUP, g))],
  [43, (ask) => require(clusterCheck(ask, Op.ALTER))],
  [44, configResources(Op.ALTER_CONFIGS)],
  [45, (ask) => require(clusterCheck(ask, Op.ALTER))],
  [46, (ask) => require(clusterCheck(ask, Op.DESCRIBE))],
  [47, (ask, req) => both(require(groupCheck(ask, Op.DELETE, req.groupId)), () => topics(ask, req, 'topics', Op.READ))],
  // Kafka: a user's or client's quotas are cluster configs.
  [48, (ask) => require(clusterCheck(ask, Op.DESCRIBE_CONFIGS))],
  [49, (ask) => require(clusterCheck(ask, Op.ALTER_CONFIGS))],
  // Kafka: SCRAM credentials are the cluster's to describe and alter.
  [50, (ask) => require(clusterCheck(ask, Op.DESCRIBE))],
  [51, (ask) => require(clusterCheck(ask, Op.ALTER))],
  [56, interBroker],
  [60, (ask) => ({ adjust: grantingCluster(ask) })],
  [61, (ask, req) => topics(ask, req, 'topics', Op.READ)],
  [
    65,
    (ask, req) =>
      entries('transactionalIds', req.transactionalIds, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, (id: string) =>
        ask.can(Op.DESCRIBE, R.TRANSACTIONAL_ID, id),
      ),
  ],
  [66, (ask) => ({ adjust: hiding(ask, 'transactionStates', R.TRANSACTIONAL_ID, (t) => t.transactionalId as string) })],
  [
    75,
    (ask, req) => ({
      ...topics(ask, req, 'topics', Op.DESCRIBE),
      adjust: all(
        hiding(ask, 'topics', R.TOPIC, (t) => t.name as string),
        granting(ask, 'topics', 'topicAuthorizedOperations', 'topic', (t) => t.name as string),
      ),
    }),
  ],
]);

/**
 * Metadata: a topic named that the principal may not DESCRIBE is TOPIC_AUTHORIZATION_FAILED, one it may
 * describe but that does not exist and would be auto-created needs CREATE (on the cluster or the topic),
 * else it is TOPIC_AUTHORIZATION_FAILED too; a listing of all topics shows only those it may describe.
 */
function metadata(ask: Ask, req: Message, version: number): Plan {
  const adjust = all(
    hiding(ask, 'topics', R.TOPIC, (t) => t.name as string),
    granting(ask, 'topics', 'topicAuthorizedOperations', 'topic', (t) => t.name as string),
    grantingCluster(ask),
  );
  const autoCreate = ask.autoCreateTopics && (version < 4 || req.allowAutoTopicCreation === true) && !cluster(ask, Op.CREATE);
  const plan = entries('topics', req.topics, ErrorCode.TOPIC_AUTHORIZATION_FAILED, (t: Message) => {
    const name = ask.topicOf(t);
    if (name === undefined) return true; // an unknown topic id: the handler says so
    if (!ask.can(Op.DESCRIBE, R.TOPIC, name)) return false;
    return !autoCreate || ask.topicExists(name) || ask.can(Op.CREATE, R.TOPIC, name);
  });
  return { ...plan, adjust };
}

/**
 * OffsetFetch: DESCRIBE on the group (each group from v8), and on each topic: one named that may not be
 * described answers TOPIC_AUTHORIZATION_FAILED, and a fetch of all of a group's topics leaves it out.
 */
function offsetFetch(ask: Ask, req: Message, version: number): Plan | null {
  if (version >= 8) {
    const groups = entries('groups', req.groups, ErrorCode.GROUP_AUTHORIZATION_FAILED, (g: Message) => ask.can(Op.DESCRIBE, R.GROUP, g.groupId as string));
    const named = new Set((req.groups as Message[]).filter((g) => g.topics !== null).map((g) => g.groupId as string));
    return { ...groups, adjust: (response) => groupTopics(ask, response, named) };
  }
  const group = require(groupCheck(ask, Op.DESCRIBE, req.groupId));
  if (group) return group;
  if (req.topics === null) return { adjust: hiding(ask, 'topics', R.TOPIC, (t) => t.name as string) };
  return topics(ask, req, 'topics', Op.DESCRIBE);
}

/** FindCoordinator: DESCRIBE on the group (key type 0) or the transactional id (1) whose coordinator is sought. */
function findCoordinator(ask: Ask, req: Message, version: number): Plan | null {
  const txn = req.keyType === 1;
  const [type, code] = txn ? [R.TRANSACTIONAL_ID, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED] : [R.GROUP, ErrorCode.GROUP_AUTHORIZATION_FAILED];
  if (version >= 4) return entries('coordinatorKeys', req.coordinatorKeys, code, (k: string) => ask.can(Op.DESCRIBE, type, k));
  return require([ask.can(Op.DESCRIBE, type, req.key as string), code, `describe ${String(req.key)}`]);
}

/** InitProducerId: WRITE on the transactional id; without one, IDEMPOTENT_WRITE on the cluster or WRITE on some topic. */
function initProducerId(ask: Ask, req: Message): Plan | null {
  if (req.transactionalId !== null) return require(txnCheck(ask, Op.WRITE, req.transactionalId));
  const idempotent = cluster(ask, Op.IDEMPOTENT_WRITE) || ask.canOnSomeOfType(Op.WRITE, R.TOPIC);
  return require([idempotent, ErrorCode.CLUSTER_AUTHORIZATION_FAILED, 'write idempotently']);
}

/**
 * AddPartitionsToTxn: from a producer (v0-3), WRITE on its transactional id and on every topic; Kafka adds
 * none of the partitions when one topic is refused, and so neither does krill (all get the code). From a
 * broker verifying (v4+), CLUSTER_ACTION.
 */
function addPartitionsToTxn(ask: Ask, req: Message, version: number): Plan | null {
  if (version >= 4) return require(clusterCheck(ask, Op.CLUSTER_ACTION));
  const txn = require(txnCheck(ask, Op.WRITE, req.v3AndBelowTransactionalId));
  if (txn) return txn;
  const refused = topics(ask, req, 'v3AndBelowTopics', Op.WRITE);
  return refused ? denyAll(ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'write to every topic of the transaction') : null;
}

/** OffsetFetch v8+: each served group's topics the principal may not DESCRIBE, refused where named, else left out. */
function groupTopics(ask: Ask, response: Message, named: ReadonlySet<string>): void {
  for (const group of response.groups as Message[]) {
    const allowed = (t: Message) => ask.can(Op.DESCRIBE, R.TOPIC, t.name as string);
    const topics = group.topics as Message[];
    if (!named.has(group.groupId as string)) {
      group.topics = topics.filter(allowed);
      continue;
    }
    for (const t of topics) {
      if (allowed(t)) continue;
      t.partitions = (t.partitions as Message[]).map((p) => ({
        ...p,
        committedOffset: -1,
        committedLeaderEpoch: -1,
        metadata: '',
        errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
      }));
    }
  }
}
