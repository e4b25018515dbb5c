// The authorizer's decisions, as Kafka's AclAuthorizer makes them, and the filters DescribeAcls and
// DeleteAcls match with: one case per rule, over bindings held in memory.
import { describe, expect, it } from 'vitest';
import { Authorizer, type AclPersistence } from '../../src/security/authorizer.js';
import {
  Operation as Op,
  PatternType,
  Permission,
  ResourceType as R,
  bindingProblem,
  filterMatches,
  type AclBinding,
  type AclFilter,
} from '../../src/security/acl.js';
import type { Session } from '../../src/security/session.js';

const session = (name: string, clientAddress = '10.0.0.1'): Session => ({
  listener: { name: 'PLAINTEXT', securityProtocol: 'PLAINTEXT' },
  clientAddress,
  principal: { type: 'User', name },
});
const alice = session('alice');

const binding = (over: Partial<AclBinding> = {}): AclBinding => ({
  resourceType: R.TOPIC,
  resourceName: 'orders',
  patternType: PatternType.LITERAL,
  principal: 'User:alice',
  host: '*',
  operation: Op.READ,
  permissionType: Permission.ALLOW,
  ...over,
});

function authorizer(bindings: AclBinding[], options: { superUsers?: string[]; allowEveryone?: boolean } = {}) {
  const saved: AclBinding[][] = [];
  const persistence: AclPersistence = { load: () => bindings, save: (b) => void saved.push([...b]) };
  const a = new Authorizer({ superUsers: options.superUsers ?? [], allowEveryoneIfNoAclFound: options.allowEveryone ?? false, persistence });
  return { a, saved };
}

describe('authorize', () => {
  it('allows what an ALLOW names, and nothing else', () => {
    const { a } = authorizer([binding()]);
    expect(a.authorize(alice, Op.READ, R.TOPIC, 'orders')).toBe(true);
    expect(a.authorize(alice, Op.WRITE, R.TOPIC, 'orders')).toBe(false);
    expect(a.authorize(session('bob'), Op.READ, R.TOPIC, 'orders')).toBe(false);
    expect(a.authorize(alice, Op.READ, R.TOPIC, 'payments')).toBe(false);
  });

  it('READ, WRITE, DELETE and ALTER imply DESCRIBE; ALTER_CONFIGS implies DESCRIBE_CONFIGS; ALL implies all', () => {
    for (const op of [Op.READ, Op.WRITE, Op.DELETE, Op.ALTER])
      expect(authorizer([binding({ operation: op })]).a.authorize(alice, Op.DESCRIBE, R.TOPIC, 'orders')).toBe(true);
    expect(authorizer([binding({ operation: Op.CREATE })]).a.authorize(alice, Op.DESCRIBE, R.TOPIC, 'orders')).toBe(false);
    expect(authorizer([binding({ operation: Op.ALTER_CONFIGS })]).a.authorize(alice, Op.DESCRIBE_CONFIGS, R.TOPIC, 'orders')).toBe(true);
    expect(authorizer([binding({ operation: Op.DESCRIBE })]).a.authorize(alice, Op.READ, R.TOPIC, 'orders')).toBe(false);
    expect(authorizer([binding({ operation: Op.ALL })]).a.authorize(alice, Op.ALTER_CONFIGS, R.TOPIC, 'orders')).toBe(true);
  });

  it('DENY wins over ALLOW; a DENY of READ does not deny DESCRIBE, a DENY of ALL does', () => {
    const allowAll = binding({ operation: Op.ALL });
    const { a } = authorizer([allowAll, binding({ permissionType: Permission.DENY })]);
    expect(a.authorize(alice, Op.READ, R.TOPIC, 'orders')).toBe(false);
    expect(a.authorize(alice, Op.DESCRIBE, R.TOPIC, 'orders')).toBe(true);
    const denyAll = authorizer([allowAll, binding({ operation: Op.ALL, permissionType: Permission.DENY })]).a;
    expect(denyAll.authorize(alice, Op.DESCRIBE, R.TOPIC, 'orders')).toBe(false);
  });

  it('matches the literal wildcard, prefixes, User:* and hosts', () => {
    const { a } = authorizer([
      binding({ resourceName: '*', operation: Op.DESCRIBE }),
      binding({ resourceName: 'ord', patternType: PatternType.PREFIXED, principal: 'User:*', operation: Op.WRITE }),
      binding({ resourceName: 'logs', host: '10.0.0.2' }),
    ]);
    expect(a.authorize(alice, Op.DESCRIBE, R.TOPIC, 'anything')).toBe(true);
    expect(a.authorize(session('bob'), Op.WRITE, R.TOPIC, 'orders-eu')).toBe(true);
    expect(a.authorize(session('bob'), Op.WRITE, R.TOPIC, 'payments')).toBe(false);
    expect(a.authorize(alice, Op.READ, R.TOPIC, 'logs')).toBe(false);
    expect(a.authorize(session('alice', '::ffff:10.0.0.2'), Op.READ, R.TOPIC, 'logs')).toBe(true);
  });

  it('super users are allowed everything; allow.everyone.if.no.acl.found opens only resources no ACL names', () => {
    const { a } = authorizer([binding({ principal: 'User:bob' })], { superUsers: ['User:admin'], allowEveryone: true });
    expect(a.authorize(session('admin'), Op.ALTER, R.CLUSTER, 'kafka-cluster')).toBe(true);
    expect(a.authorize(alice, Op.WRITE, R.TOPIC, 'unnamed')).toBe(true);
    expect(a.authorize(alice, Op.READ, R.TOPIC, 'orders')).toBe(false);
    expect(authorizer([]).a.authorize(alice, Op.READ, R.TOPIC, 'unnamed')).toBe(false);
  });

  it('authorizeByResourceType: an ALLOW on some resource of the type, unless the whole type is denied', () => {
    expect(authorizer([binding({ operation: Op.WRITE })]).a.authorizeByResourceType(alice, Op.WRITE, R.TOPIC)).toBe(true);
    expect(authorizer([binding({ operation: Op.READ })]).a.authorizeByResourceType(alice, Op.WRITE, R.TOPIC)).toBe(false);
    const denied = [
      binding({ operation: Op.WRITE }),
      binding({ resourceName: '', patternType: PatternType.PREFIXED, operation: Op.WRITE, permissionType: Permission.DENY }),
    ];
    expect(authorizer(denied).a.authorizeByResourceType(alice, Op.WRITE, R.TOPIC)).toBe(false);
  });
});

describe('create and delete', () => {
  it('keeps a binding once, saves before it takes effect, and reports what each filter removed', async () => {
    const { a, saved } = authorizer([]);
    await a.create([binding(), binding()]);
    expect(saved).toEqual([[binding()]]);
    await a.create([binding()]);
    expect(saved).toHaveLength(1);
    await a.create([binding({ operation: Op.WRITE })]);
    const any: AclFilter = {
      resourceType: R.ANY,
      resourceName: null,
      patternType: PatternType.ANY,
      principal: null,
      host: null,
      operation: Op.ANY,
      permissionType: Permission.ANY,
    };
    const removed = await a.delete([{ ...any, operation: Op.WRITE }, any]);
    expect(removed.map((r) => r.map((b) => b.operation))).toEqual([[Op.WRITE], [Op.READ, Op.WRITE]]);
    expect(a.describe(any)).toEqual([]);
  });

  it('a persistence that fails leaves the bindings as they were', async () => {
    const a = new Authorizer({
      superUsers: [],
      allowEveryoneIfNoAclFound: false,
      persistence: {
        load: () => [],
        save: () => {
          throw new Error('disk full');
        },
      },
    });
    await expect(a.create([binding()])).rejects.toThrow('disk full');
    expect(a.authorize(alice, Op.READ, R.TOPIC, 'orders')).toBe(false);
  });
});

describe('filters and validation', () => {
  const filter = (over: Partial<AclFilter>): AclFilter => ({
    resourceType: R.TOPIC,
    resourceName: 'orders-eu',
    patternType: PatternType.MATCH,
    principal: null,
    host: null,
    operation: Op.ANY,
    permissionType: Permission.ANY,
    ...over,
  });

  it('MATCH finds the literal, the wildcard and the prefixes that apply to a name; LITERAL only the name', () => {
    expect(filterMatches(filter({}), binding({ resourceName: 'orders-eu' }))).toBe(true);
    expect(filterMatches(filter({}), binding({ resourceName: '*' }))).toBe(true);
    expect(filterMatches(filter({}), binding({ resourceName: 'ord', patternType: PatternType.PREFIXED }))).toBe(true);
    expect(filterMatches(filter({}), binding({ resourceName: 'pay', patternType: PatternType.PREFIXED }))).toBe(false);
    expect(filterMatches(filter({ patternType: PatternType.LITERAL }), binding({ resourceName: '*' }))).toBe(false);
  });

  it('refuses what Kafka refuses to store, and ACLs on resources krill has none of', () => {
    expect(bindingProblem(binding())).toBeNull();
    expect(bindingProblem(binding({ resourceType: R.CLUSTER, resourceName: 'other', operation: Op.ALTER }))).toMatch(/kafka-cluster/);
    expect(bindingProblem(binding({ resourceName: '' }))).toMatch(/empty resource name/);
    expect(bindingProblem(binding({ patternType: PatternType.MATCH }))).toMatch(/LITERAL or PREFIXED/);
    expect(bindingProblem(binding({ operation: Op.ANY }))).toMatch(/invalid operation/);
    expect(bindingProblem(binding({ principal: 'alice' }))).toMatch(/invalid principal/);
    expect(bindingProblem(binding({ resourceType: R.DELEGATION_TOKEN }))).toMatch(/not supported/);
    // As Kafka's brokers (kafka-acls checks it, the broker does not): an operation the type has no use for is stored.
    expect(bindingProblem(binding({ resourceType: R.GROUP, operation: Op.WRITE }))).toBeNull();
  });
});
