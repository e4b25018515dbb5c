// The client quotas of a single broker (AlterClientQuotas), kept in its data dir:
//
//   <dataDir>/krill-client-quotas.json   replaced atomically and fsynced:
//       {"version":1,"entities":{"users/alice":{"producer_byte_rate":1048576},"clients/<default>":{...}}}
//     keyed by the entity's ZooKeeper config path (src/security/quotas/quota-entity.ts), as a cluster keeps
//     them under /config.
//
// A missing file is no quota. One that cannot be read stops the start (DataDirError), as a broken
// krill-broker-configs.json does: starting without it would drop the operator's quotas unseen.

import path from 'node:path';
import { readTextIfExists, writeFileAtomic } from './atomic-file.js';
import { DataDirError } from './topics-file.js';
import type { ClientQuotaPersistence, QuotaValues } from '../security/quotas/client-quota-store.js';
import { parseEntityPath } from '../security/quotas/quota-entity.js';

export const CLIENT_QUOTAS_FILE = 'krill-client-quotas.json';

export function readClientQuotasFile(dataDir: string): Map<string, QuotaValues> {
  const file = path.join(dataDir, CLIENT_QUOTAS_FILE);
  const text = readTextIfExists(file);
  const out = new Map<string, QuotaValues>();
  if (text === null) return out;
  const unusable = (why: string) =>
    new DataDirError(`${file} is unusable (${why}). krill will not start on it: fix or restore it, or move it away to start without its client quotas.`);
  let doc: { entities?: unknown };
  try {
    doc = JSON.parse(text) as typeof doc;
  } catch (err) {
    throw unusable((err as Error).message);
  }
  const entities = doc?.entities;
  if (typeof entities !== 'object' || entities === null || Array.isArray(entities)) throw unusable('"entities" is not a map');
  for (const [entity, values] of Object.entries(entities as Record<string, unknown>)) {
    if (parseEntityPath(entity) === null) throw unusable(`"${entity}" names no user or client id`);
    if (typeof values !== 'object' || values === null || !Object.values(values).every((v) => typeof v === 'number')) {
      throw unusable(`the quotas of "${entity}" are not a map of numbers`);
    }
    out.set(entity, values as QuotaValues);
  }
  return out;
}

/** Persistence in the data dir: every change rewrites the whole (small) file. */
export function clientQuotasFile(dataDir: string): ClientQuotaPersistence {
  return {
    write(_changed, all) {
      const entities = Object.fromEntries(all);
      writeFileAtomic(path.join(dataDir, CLIENT_QUOTAS_FILE), JSON.stringify({ version: 1, entities }, null, 2) + '\n');
      return Promise.resolve();
    },
  };
}
