// Kafka's client quota entities (KIP-55): a user, a client id, or a user with a client id, each name
// either given or the <default> of its type. An entity is named by its ZooKeeper config path, as Kafka's
// ConfigEntityName and Sanitizer write it: `users/alice`, `clients/<default>`, `users/alice/clients/app`.
// That path is also the key of the quotas file, so both stores name an entity the same way.
//
// Which entity's quota applies to a request, for one quota type, is Kafka's DefaultQuotaCallback order:
//   users/<u>/clients/<c>, users/<u>/clients/<default>, users/<u>,
//   users/<default>/clients/<c>, users/<default>/clients/<default>, users/<default>,
//   clients/<c>, clients/<default>
// and the matched entity decides the metric tags, so that clients sharing it share one rate.

export const USER = 'user';
export const CLIENT_ID = 'client-id';

/** Kafka's ConfigEntityName.Default. */
export const DEFAULT_ENTITY = '<default>';

/** One component of an entity: undefined when the entity has no such component, null for the default. */
export interface QuotaEntity {
  user?: string | null;
  clientId?: string | null;
}

/** Kafka's Sanitizer.sanitize: URL encoding, with '*' encoded and ' ' as %20, so any name is one znode. */
export function sanitize(name: string): string {
  return encodeURIComponent(name).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

export function desanitize(name: string): string {
  return decodeURIComponent(name);
}

const part = (name: string | null): string => (name === null ? DEFAULT_ENTITY : sanitize(name));
const unpart = (seg: string): string | null => (seg === DEFAULT_ENTITY ? null : desanitize(seg));

/** The entity's config path (see the head of this file); the entity must have a component. */
export function entityPath(e: QuotaEntity): string {
  const user = e.user === undefined ? null : `users/${part(e.user)}`;
  const client = e.clientId === undefined ? null : `clients/${part(e.clientId)}`;
  return user && client ? `${user}/${client}` : (user ?? client)!;
}

/** The entity a config path names, or null if it names none. */
export function parseEntityPath(path: string): QuotaEntity | null {
  const segs = path.split('/');
  if (segs.length === 2 && segs[0] === 'users') return { user: unpart(segs[1]) };
  if (segs.length === 2 && segs[0] === 'clients') return { clientId: unpart(segs[1]) };
  if (segs.length === 4 && segs[0] === 'users' && segs[2] === 'clients') return { user: unpart(segs[1]), clientId: unpart(segs[3]) };
  return null;
}

/** The quota that applies to a (user, client id), and the metric tags of the rate it is measured by. */
export interface ResolvedQuota {
  bound: number;
  /** Kafka's quota metric tags: the user and client id the rate is kept for ('' when not part of it). */
  userTag: string;
  clientTag: string;
}

/**
 * The quota of `key` for `user` and `clientId`, by Kafka's precedence, or null when no entity sets one.
 * `quotaOf` reads one entity's value of `key` by its config path.
 */
export function resolveQuota(user: string, clientId: string, quotaOf: (path: string) => number | undefined): ResolvedQuota | null {
  const u = `users/${sanitize(user)}`;
  const du = `users/${DEFAULT_ENTITY}`;
  const c = `clients/${sanitize(clientId)}`;
  const dc = `clients/${DEFAULT_ENTITY}`;
  // [path, whether the rate is per user, per client id]
  const order: [string, boolean, boolean][] = [
    [`${u}/${c}`, true, true],
    [`${u}/${dc}`, true, true],
    [u, true, false],
    [`${du}/${c}`, true, true],
    [`${du}/${dc}`, true, true],
    [du, true, false],
    [c, false, true],
    [dc, false, true],
  ];
  for (const [path, byUser, byClient] of order) {
    const bound = quotaOf(path);
    if (bound !== undefined) return { bound, userTag: byUser ? user : '', clientTag: byClient ? clientId : '' };
  }
  return null;
}
