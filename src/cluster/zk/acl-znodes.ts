// Kafka's ACL znodes (ZooKeeper mode: AclAuthorizer's ZkAclStore and ZkAclChangeStore), byte-compatible
// with what Kafka writes:
//
//   /kafka-acl/<ResourceType>/<name>                     LITERAL patterns
//   /kafka-acl-extended/prefixed/<ResourceType>/<name>   PREFIXED patterns
//       {"version":1,"acls":[{"principal":"User:alice","permissionType":"Allow","operation":"Read","host":"*"}]}
//   /kafka-acl-changes/acl_changes_<seq>                 "Topic:orders" (a LITERAL pattern changed)
//   /kafka-acl-extended-changes/acl_changes_<seq>        {"version":1,"resourceType":"Topic","name":"ord","patternType":"Prefixed"}
//
// Resource types and operations in Pascal case (TransactionalId, IdempotentWrite), as Kafka's SecurityUtils
// writes them. A pattern with no ACL left has no znode.
import type { ZkClient } from './zk-client.js';
import { Operation, PatternType, Permission, ResourceType, type AclBinding } from '../../security/acl.js';

const LITERAL_ROOT = '/kafka-acl';
const PREFIXED_ROOT = '/kafka-acl-extended/prefixed';
export const ACL_CHANGE_PATHS = ['/kafka-acl-changes', '/kafka-acl-extended-changes'] as const;
const CHANGE_PREFIX = 'acl_changes_';

/** TRANSACTIONAL_ID → TransactionalId. */
const pascal = (name: string) =>
  name
    .toLowerCase()
    .split('_')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');

function codes(table: Record<string, number>): { name: (code: number) => string; code: (name: string) => number | undefined } {
  const byCode = new Map(Object.entries(table).map(([k, v]) => [v, pascal(k)]));
  const byName = new Map(Object.entries(table).map(([k, v]) => [pascal(k), v]));
  return { name: (c) => byCode.get(c)!, code: (n) => byName.get(n) };
}

const TYPES = codes(ResourceType);
const OPERATIONS = codes(Operation);
const PERMISSIONS = codes(Permission);
/** The resource types krill keeps ACLs for, as their znodes name them. */
const SERVED = [ResourceType.TOPIC, ResourceType.GROUP, ResourceType.CLUSTER, ResourceType.TRANSACTIONAL_ID];

const root = (patternType: number) => (patternType === PatternType.PREFIXED ? PREFIXED_ROOT : LITERAL_ROOT);
const resourcePath = (b: Pick<AclBinding, 'resourceType' | 'resourceName' | 'patternType'>) =>
  `${root(b.patternType)}/${TYPES.name(b.resourceType)}/${b.resourceName}`;

/** The paths Kafka's AclAuthorizer creates at start. */
export const ACL_PERSISTENT_PATHS = [
  ...SERVED.map((t) => `${LITERAL_ROOT}/${TYPES.name(t)}`),
  ...SERVED.map((t) => `${PREFIXED_ROOT}/${TYPES.name(t)}`),
  ...ACL_CHANGE_PATHS,
];

/** Every ACL ZooKeeper holds for the resource types krill serves; entries it cannot read are skipped. */
export async function readAllAcls(zk: ZkClient): Promise<AclBinding[]> {
  const out: AclBinding[] = [];
  for (const patternType of [PatternType.LITERAL, PatternType.PREFIXED]) {
    for (const resourceType of SERVED) {
      const dir = `${root(patternType)}/${TYPES.name(resourceType)}`;
      for (const resourceName of await zk.getChildren(dir)) {
        const node = await zk.getData(`${dir}/${resourceName}`);
        if (!node?.data) continue;
        const doc = JSON.parse(node.data.toString('utf8')) as { acls?: Record<string, string>[] };
        for (const e of doc.acls ?? []) {
          const operation = OPERATIONS.code(e.operation);
          const permissionType = PERMISSIONS.code(e.permissionType);
          if (operation === undefined || permissionType === undefined || typeof e.principal !== 'string' || typeof e.host !== 'string') continue;
          out.push({ resourceType, resourceName, patternType, principal: e.principal, host: e.host, operation, permissionType });
        }
      }
    }
  }
  return out;
}

/** Writes one resource pattern's ACLs (removing its znode when none are left), then the change notification. */
export async function writeResourceAcls(zk: ZkClient, pattern: AclBinding, acls: readonly AclBinding[]): Promise<void> {
  const path = resourcePath(pattern);
  if (acls.length === 0) {
    await zk.delete(path).catch((err: { code?: string }) => {
      if (err.code !== 'NO_NODE') throw err;
    });
  } else {
    const entries = acls.map((b) => ({
      principal: b.principal,
      permissionType: PERMISSIONS.name(b.permissionType),
      operation: OPERATIONS.name(b.operation),
      host: b.host,
    }));
    const data = Buffer.from(JSON.stringify({ version: 1, acls: entries }));
    if ((await zk.getData(path)) === null) await zk.createIfMissing(path, data);
    else await zk.setData(path, data);
  }
  const literal = pattern.patternType === PatternType.LITERAL;
  const note = literal
    ? `${TYPES.name(pattern.resourceType)}:${pattern.resourceName}`
    : JSON.stringify({ version: 1, resourceType: TYPES.name(pattern.resourceType), name: pattern.resourceName, patternType: 'Prefixed' });
  await zk.create(`${ACL_CHANGE_PATHS[literal ? 0 : 1]}/${CHANGE_PREFIX}`, Buffer.from(note), 'persistent_sequential');
}
