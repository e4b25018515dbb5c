// The SCRAM credentials of a cluster, kept in ZooKeeper as Kafka (ZooKeeper mode) keeps them: the SCRAM-*
// keys of /config/users/<sanitized user> ({"version":1,"config":{"SCRAM-SHA-256":"salt=...,stored_key=...,
// server_key=...,iterations=4096"}}), each write followed by a /config/changes notification (entity_path
// users/<user>) on which every broker reads the user again (zk-config-changes.ts). The znode also holds the
// user's quotas: only the SCRAM keys are ever rewritten here, the others kept (zk-client-quotas.ts does the same
// the other way round).

import type { Logger } from '../logger.js';
import type { KafkaZk } from './zk/kafka-zk.js';
import { isScramMechanism, type ScramCredential, type ScramMechanism } from '../security/scram.js';
import type { CredentialPersistence } from '../security/scram-credential-store.js';
import { credentialsFromConfig, credentialsToConfig } from '../security/scram-credentials-file.js';
import { DEFAULT_ENTITY, desanitize, sanitize } from '../security/quotas/quota-entity.js';

type Credentials = Map<ScramMechanism, ScramCredential>;

/** Writes through `zk`; nothing is loaded at start: the broker reads them all when it registers. */
export function zkScramCredentials(zk: () => KafkaZk): CredentialPersistence {
  return {
    load: () => new Map(),
    async save(user, credentials) {
      await zk().updateEntityConfig(`users/${sanitize(user)}`, (configs) => {
        const kept = Object.fromEntries(Object.entries(configs).filter(([k]) => !isScramMechanism(k)));
        return { ...kept, ...credentialsToConfig(credentials) };
      });
    },
  };
}

/** A user's credentials from its znode; a credential another writer left unreadable is logged and skipped. */
async function readUser(zk: KafkaZk, sanitized: string, log: Logger): Promise<Credentials> {
  const configs = await zk.getEntityConfig(`users/${sanitized}`);
  try {
    return credentialsFromConfig(configs ?? {});
  } catch (err) {
    log.warn({ user: desanitize(sanitized), err: (err as Error).message }, 'ignoring the unreadable SCRAM credentials of a user in ZooKeeper');
    return new Map();
  }
}

/** Every user's credentials as ZooKeeper holds them now (read at each registration). */
export async function readAllScramCredentials(zk: KafkaZk, log: Logger): Promise<Map<string, Credentials>> {
  const out = new Map<string, Credentials>();
  for (const sanitized of await zk.getEntityNames('users')) {
    const credentials = await readUser(zk, sanitized, log);
    if (credentials.size > 0) out.set(desanitize(sanitized), credentials);
  }
  return out;
}

/** The credentials of the user a change notification names, or null for another entity (a client, users/u/clients/c). */
export async function readChangedScramCredentials(
  zk: KafkaZk,
  entityType: string,
  entityName: string,
  log: Logger,
): Promise<{ user: string; credentials: Credentials } | null> {
  if (entityType !== 'users' || entityName.includes('/') || entityName === DEFAULT_ENTITY) return null;
  return { user: desanitize(entityName), credentials: await readUser(zk, entityName, log) };
}
