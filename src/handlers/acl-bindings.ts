// What the three ACL handlers share: a request's binding or filter as the authorizer takes it, and the
// refusal Kafka answers with when no authorizer is configured.
import type { AclBinding, AclFilter } from '../security/acl.js';

/** Kafka's answer to an ACL request on a broker without authorizer.class.name. */
export const NO_AUTHORIZER = 'No Authorizer is configured on the broker';

interface FilterFields {
  resourceTypeFilter: number;
  resourceNameFilter: string | null;
  patternTypeFilter: number;
  principalFilter: string | null;
  hostFilter: string | null;
  operation: number;
  permissionType: number;
}

export function filterOf(f: FilterFields): AclFilter {
  return {
    resourceType: f.resourceTypeFilter,
    resourceName: f.resourceNameFilter,
    patternType: f.patternTypeFilter,
    principal: f.principalFilter,
    host: f.hostFilter,
    operation: f.operation,
    permissionType: f.permissionType,
  };
}

/** A binding grouped as DescribeAcls answers: resource pattern, then its entries. */
export function byResource(bindings: readonly AclBinding[]) {
  const groups = new Map<
    string,
    { resourceType: number; resourceName: string; patternType: number; acls: { principal: string; host: string; operation: number; permissionType: number }[] }
  >();
  for (const b of bindings) {
    const key = JSON.stringify([b.resourceType, b.patternType, b.resourceName]);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { resourceType: b.resourceType, resourceName: b.resourceName, patternType: b.patternType, acls: [] }));
    g.acls.push({ principal: b.principal, host: b.host, operation: b.operation, permissionType: b.permissionType });
  }
  return [...groups.values()];
}
