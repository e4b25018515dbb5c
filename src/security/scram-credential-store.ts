// The SCRAM credentials this broker checks logins against: user → mechanism → salted credential, as Kafka's
// CredentialCache. AlterUserScramCredentials changes them; where they are kept is a CredentialPersistence
// (the data dir's krill-scram-credentials.json on a single broker, ZooKeeper's /config/users in a cluster).
import { type ScramCredential, type ScramMechanism } from './scram.js';

export type UserCredentials = ReadonlyMap<ScramMechanism, ScramCredential>;

/** Where the credentials live between starts; told of each user whose credentials changed. */
export interface CredentialPersistence {
  load(): Map<string, Map<ScramMechanism, ScramCredential>>;
  /** The file writes at once; ZooKeeper's is awaited before AlterUserScramCredentials answers. */
  save(user: string, credentials: UserCredentials, all: ReadonlyMap<string, UserCredentials>): void | Promise<void>;
}

export class ScramCredentialStore {
  private readonly users: Map<string, Map<ScramMechanism, ScramCredential>>;

  constructor(private readonly persistence: CredentialPersistence | null = null) {
    this.users = persistence?.load() ?? new Map();
  }

  get(user: string, mechanism: ScramMechanism): ScramCredential | undefined {
    return this.users.get(user)?.get(mechanism);
  }

  /** The mechanisms and iteration counts of a user, or undefined when the user has none. */
  describe(user: string): UserCredentials | undefined {
    return this.users.get(user);
  }

  userNames(): string[] {
    return [...this.users.keys()].sort();
  }

  /** Applies one request's changes, then persists each user touched. */
  async apply(changes: readonly { user: string; mechanism: ScramMechanism; credential: ScramCredential | null }[]): Promise<void> {
    const touched = new Set<string>();
    for (const { user, mechanism, credential } of changes) {
      let mine = this.users.get(user);
      if (credential === null) mine?.delete(mechanism);
      else {
        if (!mine) this.users.set(user, (mine = new Map()));
        mine.set(mechanism, credential);
      }
      if (mine?.size === 0) this.users.delete(user);
      touched.add(user);
    }
    for (const user of touched) await this.persistence?.save(user, this.users.get(user) ?? new Map(), this.users);
  }

  /** Replaces one user's credentials with what another broker wrote (a cluster's change notification). */
  replaceUser(user: string, credentials: Map<ScramMechanism, ScramCredential>): void {
    if (credentials.size === 0) this.users.delete(user);
    else this.users.set(user, credentials);
  }

  /** Replaces them all with what ZooKeeper holds (at each registration of a cluster member). */
  replaceAll(users: ReadonlyMap<string, Map<ScramMechanism, ScramCredential>>): void {
    this.users.clear();
    for (const [user, credentials] of users) this.replaceUser(user, credentials);
  }
}
