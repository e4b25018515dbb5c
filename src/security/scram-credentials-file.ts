// A single broker's SCRAM credentials, kept in its data dir (Kafka keeps them in ZooKeeper or its metadata
// log; a single krill broker has neither):
//
//   <dataDir>/krill-scram-credentials.json   replaced atomically and fsynced:
//       {"version":1,"users":{"alice":{"SCRAM-SHA-256":"salt=...,stored_key=...,server_key=...,iterations=8192"}}}
//
// each credential in Kafka's own text form (ScramCredentialUtils), the one ZooKeeper's /config/users holds.
// With krill.storage=memory the data dir is the broker's in-memory volume, so they last as long as it does.
// A file that cannot be read stops the start, as a broken krill-broker-configs.json does.
import path from 'node:path';
import { readTextIfExists, writeFileAtomic } from '../storage/atomic-file.js';
import { DataDirError } from '../storage/topics-file.js';
import { formatCredential, isScramMechanism, parseCredential, type ScramCredential, type ScramMechanism } from './scram.js';
import type { CredentialPersistence, UserCredentials } from './scram-credential-store.js';

export const SCRAM_CREDENTIALS_FILE = 'krill-scram-credentials.json';

/** One user's credentials from their Kafka text form, by mechanism name; unknown keys (quotas) are skipped. */
export function credentialsFromConfig(config: Record<string, unknown>): Map<ScramMechanism, ScramCredential> {
  const out = new Map<ScramMechanism, ScramCredential>();
  for (const [key, value] of Object.entries(config)) {
    if (isScramMechanism(key) && typeof value === 'string') out.set(key, parseCredential(value));
  }
  return out;
}

export function credentialsToConfig(credentials: UserCredentials): Record<string, string> {
  return Object.fromEntries([...credentials].map(([m, c]) => [m, formatCredential(c)]));
}

export class ScramCredentialsFile implements CredentialPersistence {
  private readonly file: string;

  constructor(dataDir: string) {
    this.file = path.join(dataDir, SCRAM_CREDENTIALS_FILE);
  }

  load(): Map<string, Map<ScramMechanism, ScramCredential>> {
    const text = readTextIfExists(this.file);
    const users = new Map<string, Map<ScramMechanism, ScramCredential>>();
    if (text === null) return users;
    try {
      const doc = JSON.parse(text) as { users?: Record<string, Record<string, unknown>> };
      for (const [user, config] of Object.entries(doc.users ?? {})) users.set(user, credentialsFromConfig(config));
    } catch (err) {
      throw new DataDirError(`${this.file} is unusable (${(err as Error).message}). krill will not start on it: fix or restore it, or move it away.`);
    }
    return users;
  }

  save(_user: string, _credentials: UserCredentials, all: ReadonlyMap<string, UserCredentials>): void {
    const users = Object.fromEntries([...all].map(([u, c]) => [u, credentialsToConfig(c)]));
    writeFileAtomic(this.file, JSON.stringify({ version: 1, users }, null, 2) + '\n');
  }
}
