// The client quotas of a cluster, kept in ZooKeeper as Kafka keeps them: the quota keys of
// /config/users/<user>, /config/clients/<client>, /config/users/<user>/clients/<client> ({"version":1,
// "config":{"producer_byte_rate":"1024"}}, values as strings, <default> entities by that name), each write
// followed by a /config/changes notification (entity_path users/alice/clients/app) on which every broker
// reads the entity again (zk-config-changes.ts). A user's znode also holds its SCRAM credentials: only the
// quota keys are ever rewritten here, the others kept.

import type { KafkaZk } from './zk/kafka-zk.js';
import { QUOTA_KEYS, type ClientQuotaPersistence, type QuotaValues } from '../security/quotas/client-quota-store.js';
import { entityPath, parseEntityPath } from '../security/quotas/quota-entity.js';

/** As Kafka writes a quota: a whole number for the byte rates, Java's Double.toString for the others. */
function quotaString(key: string, value: number): string {
  if (QUOTA_KEYS[key] === 'long') return String(Math.round(value));
  return Number.isInteger(value) ? value.toFixed(1) : String(value);
}

/** The quota keys of an entity's configs, as numbers; others (SCRAM credentials) and unreadable values are left out. */
export function quotasOf(configs: Record<string, string> | null): QuotaValues {
  const out: QuotaValues = {};
  for (const [k, v] of Object.entries(configs ?? {})) {
    const n = Number(v);
    if (QUOTA_KEYS[k] !== undefined && v.trim() !== '' && Number.isFinite(n)) out[k] = n;
  }
  return out;
}

export function zkClientQuotas(zk: () => KafkaZk): ClientQuotaPersistence {
  return {
    async write(changed) {
      for (const [path, values] of changed) {
        await zk().updateEntityConfig(path, (configs) => {
          const kept = Object.fromEntries(Object.entries(configs).filter(([k]) => QUOTA_KEYS[k] === undefined));
          for (const [k, v] of Object.entries(values)) kept[k] = quotaString(k, v);
          return kept;
        });
      }
    },
  };
}

/** Every entity with a quota, as ZooKeeper holds them now (read at each registration). */
export async function readAllClientQuotas(zk: KafkaZk): Promise<Map<string, QuotaValues>> {
  const paths: string[] = [];
  for (const client of await zk.getEntityNames('clients')) paths.push(`clients/${client}`);
  for (const user of await zk.getEntityNames('users')) {
    paths.push(`users/${user}`);
    for (const client of await zk.getEntityNames(`users/${user}/clients`)) paths.push(`users/${user}/clients/${client}`);
  }
  const out = new Map<string, QuotaValues>();
  for (const path of paths) {
    const entity = parseEntityPath(path);
    if (entity === null) continue;
    const values = quotasOf(await zk.getEntityConfig(path));
    // Keyed as krill names the entity, whichever way its writer escaped the name.
    if (Object.keys(values).length > 0) out.set(entityPath(entity), values);
  }
  return out;
}

/** The quotas of the entity a change notification names (users/..., clients/...), or null for another kind. */
export async function readChangedClientQuotas(zk: KafkaZk, entityType: string, entityName: string): Promise<{ path: string; values: QuotaValues } | null> {
  if (entityType !== 'users' && entityType !== 'clients') return null;
  const path = `${entityType}/${entityName}`;
  const entity = parseEntityPath(path);
  if (entity === null) return null;
  return { path: entityPath(entity), values: quotasOf(await zk.getEntityConfig(path)) };
}
