// The authorizer: Kafka's AclAuthorizer (and StandardAuthorizer, which decides the same way) over the ACLs
// this broker knows. A request is allowed when the principal is a super user; else it is denied when any
// DENY binding matches it; else allowed when an ALLOW binding matches; else, when no binding names the
// resource at all, allowed only with allow.everyone.if.no.acl.found. A binding matches a resource when it
// names it literally, is the literal wildcard `*`, or is a PREFIXED pattern the name starts with; it
// matches a request when its principal is the request's or User:*, its host the peer's address or `*`,
// and its operation the one asked, ALL, or (for an ALLOW) one that implies it (allowingOperations).
//
// The bindings are kept indexed by resource type and name, so a check costs a map lookup and a walk of
// the prefixed patterns of that type. Where they live is the AclPersistence's: a file in the data dir on a
// single broker, ZooKeeper's /kafka-acl znodes in a cluster (whose change notifications call replaceAll).
import { principalString, type Session } from './session.js';
import { normaliseAddress } from '../server/connection-registry.js';
import {
  Operation,
  PatternType,
  Permission,
  WILDCARD,
  WILDCARD_PRINCIPAL,
  allowingOperations,
  bindingKey,
  filterMatches,
  type AclBinding,
  type AclFilter,
} from './acl.js';

/**
 * Where the bindings are kept; `save` is given the whole set after every change (and `before`, the set it
 * replaces, for a store that writes only what changed).
 */
export interface AclPersistence {
  load(): AclBinding[];
  save(bindings: readonly AclBinding[], before: readonly AclBinding[]): void | Promise<void>;
}

export interface AuthorizerOptions {
  /** `super.users`: principals (User:alice) allowed everything. */
  superUsers: readonly string[];
  allowEveryoneIfNoAclFound: boolean;
  persistence: AclPersistence;
}

/** The bindings of one resource type. */
interface TypeIndex {
  literal: Map<string, AclBinding[]>;
  prefixed: AclBinding[];
}

export class Authorizer {
  private readonly superUsers: ReadonlySet<string>;
  private readonly allowEveryone: boolean;
  private readonly persistence: AclPersistence;
  private bindings: AclBinding[] = [];
  private index = new Map<number, TypeIndex>();
  private changes: Promise<void> = Promise.resolve();

  constructor(options: AuthorizerOptions) {
    this.superUsers = new Set(options.superUsers);
    this.allowEveryone = options.allowEveryoneIfNoAclFound;
    this.persistence = options.persistence;
    this.replaceAll(this.persistence.load());
  }

  /** Whether `session` may perform `operation` on the resource. */
  authorize(session: Session, operation: number, resourceType: number, name: string): boolean {
    const principal = principalString(session.principal);
    if (this.superUsers.has(principal)) return true;
    const host = normaliseAddress(session.clientAddress);
    const matching = this.matchingResource(resourceType, name);
    if (matching.length === 0) return this.allowEveryone;
    const applies = (b: AclBinding) => (b.principal === principal || b.principal === WILDCARD_PRINCIPAL) && (b.host === host || b.host === WILDCARD);
    const allowing = allowingOperations(operation);
    let allowed = false;
    for (const b of matching) {
      if (!applies(b)) continue;
      if (b.permissionType === Permission.DENY && (b.operation === operation || b.operation === Operation.ALL)) return false;
      if (b.permissionType === Permission.ALLOW && allowing.includes(b.operation)) allowed = true;
    }
    return allowed;
  }

  /**
   * Kafka's authorizeByResourceType: whether `session` may perform `operation` on some resource of the type
   * (InitProducerId's idempotent producer with WRITE on any topic): an ALLOW for it somewhere, and no DENY
   * of the whole type (the literal wildcard or the empty prefix).
   */
  authorizeByResourceType(session: Session, operation: number, resourceType: number): boolean {
    const principal = principalString(session.principal);
    if (this.superUsers.has(principal)) return true;
    const host = normaliseAddress(session.clientAddress);
    const all = this.bindings.filter(
      (b) => b.resourceType === resourceType && (b.principal === principal || b.principal === WILDCARD_PRINCIPAL) && (b.host === host || b.host === WILDCARD),
    );
    const allowing = allowingOperations(operation);
    const deniesAll = (b: AclBinding) =>
      b.permissionType === Permission.DENY &&
      (b.operation === operation || b.operation === Operation.ALL) &&
      ((b.patternType === PatternType.LITERAL && b.resourceName === WILDCARD) || (b.patternType === PatternType.PREFIXED && b.resourceName === ''));
    if (all.some(deniesAll)) return false;
    if (all.some((b) => b.permissionType === Permission.ALLOW && allowing.includes(b.operation))) return true;
    return this.allowEveryone && !this.bindings.some((b) => b.resourceType === resourceType);
  }

  /** The bindings a filter matches. */
  describe(filter: AclFilter): AclBinding[] {
    return this.bindings.filter((b) => filterMatches(filter, b));
  }

  /** Adds bindings (those already present are kept once) and saves the set. */
  create(added: readonly AclBinding[]): Promise<void> {
    return this.change((current) => {
      const keys = new Set(current.map(bindingKey));
      const fresh = added.filter((b) => {
        const key = bindingKey(b);
        if (keys.has(key)) return false;
        keys.add(key);
        return true;
      });
      return { next: fresh.length ? [...current, ...fresh] : null, result: undefined };
    });
  }

  /** Removes what each filter matches; returns, per filter, the bindings it removed. */
  delete(filters: readonly AclFilter[]): Promise<AclBinding[][]> {
    return this.change((current) => {
      const removed = new Set<AclBinding>();
      const perFilter = filters.map((f) => current.filter((b) => filterMatches(f, b) && (removed.add(b), true)));
      return { next: removed.size ? current.filter((b) => !removed.has(b)) : null, result: perFilter };
    });
  }

  /** The bindings as the persistence now holds them (a change notification in a cluster). */
  replaceAll(bindings: readonly AclBinding[]): void {
    this.bindings = [...bindings];
    const index = new Map<number, TypeIndex>();
    for (const b of this.bindings) {
      let t = index.get(b.resourceType);
      if (!t) index.set(b.resourceType, (t = { literal: new Map(), prefixed: [] }));
      if (b.patternType === PatternType.PREFIXED) t.prefixed.push(b);
      else {
        const list = t.literal.get(b.resourceName);
        if (list) list.push(b);
        else t.literal.set(b.resourceName, [b]);
      }
    }
    this.index = index;
  }

  /**
   * One change at a time, each computed from the bindings the one before left (a store that writes to
   * ZooKeeper saves asynchronously). Saved first: a binding the persistence refused is not in force.
   */
  private change<T>(compute: (current: AclBinding[]) => { next: AclBinding[] | null; result: T }): Promise<T> {
    const run = async (): Promise<T> => {
      const before = this.bindings;
      const { next, result } = compute(before);
      if (next) {
        await this.persistence.save(next, before);
        this.replaceAll(next);
      }
      return result;
    };
    const done = this.changes.then(run);
    this.changes = done.then(
      () => undefined,
      () => undefined,
    );
    return done;
  }

  private matchingResource(resourceType: number, name: string): AclBinding[] {
    const t = this.index.get(resourceType);
    if (!t) return [];
    const out = [...(t.literal.get(name) ?? []), ...(name !== WILDCARD ? (t.literal.get(WILDCARD) ?? []) : [])];
    for (const b of t.prefixed) if (name.startsWith(b.resourceName)) out.push(b);
    return out;
  }
}
