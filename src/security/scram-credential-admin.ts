// AlterUserScramCredentials and DescribeUserScramCredentials with Kafka's checks and error codes
// (ZkAdminManager's): an empty user name or out-of-bounds iterations are UNACCEPTABLE_CREDENTIAL, an
// unknown mechanism UNSUPPORTED_SASL_MECHANISM, a user's mechanism named twice in one request
// DUPLICATE_RESOURCE for that user, and deleting or describing what does not exist RESOURCE_NOT_FOUND. A user's
// changes are applied only when all of that user's entries pass.
import { ErrorCode } from '../../protocol/errors.js';
import {
  SCRAM_MAX_ITERATIONS,
  SCRAM_MECHANISMS,
  credentialFromSaltedPassword,
  scramMechanismOfType,
  type ScramCredential,
  type ScramMechanism,
} from './scram.js';
import type { ScramCredentialStore } from './scram-credential-store.js';

export interface UserResult {
  user: string;
  errorCode: number;
  errorMessage: string | null;
}

interface Deletion {
  name: string;
  mechanism: number;
}
interface Upsertion extends Deletion {
  iterations: number;
  salt: Buffer;
  saltedPassword: Buffer;
}

type Change = { user: string; mechanism: ScramMechanism; credential: ScramCredential | null };

/** The first problem of one entry, or its change. */
function check(store: ScramCredentialStore, entry: Deletion | Upsertion): Change | [number, string] {
  if (entry.name === '') return [ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Username must not be empty'];
  const mechanism = scramMechanismOfType(entry.mechanism);
  if (mechanism === null) return [ErrorCode.UNSUPPORTED_SASL_MECHANISM, 'Unknown SCRAM mechanism'];
  if (!('iterations' in entry)) {
    if (!store.get(entry.name, mechanism)) return [ErrorCode.RESOURCE_NOT_FOUND, 'Attempt to delete a user credential that does not exist'];
    return { user: entry.name, mechanism, credential: null };
  }
  if (entry.iterations < SCRAM_MECHANISMS[mechanism].minIterations) return [ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Too few iterations'];
  if (entry.iterations > SCRAM_MAX_ITERATIONS) return [ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Too many iterations'];
  const keyBytes = SCRAM_MECHANISMS[mechanism].hash === 'sha256' ? 32 : 64;
  if (entry.salt.length === 0) return [ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Salt must not be empty'];
  if (entry.saltedPassword.length !== keyBytes) return [ErrorCode.UNACCEPTABLE_CREDENTIAL, `The salted password of ${mechanism} is ${keyBytes} bytes`];
  const credential = credentialFromSaltedPassword(mechanism, Buffer.from(entry.saltedPassword), Buffer.from(entry.salt), entry.iterations);
  return { user: entry.name, mechanism, credential };
}

export async function alterScramCredentials(
  store: ScramCredentialStore,
  deletions: readonly Deletion[],
  upsertions: readonly Upsertion[],
): Promise<UserResult[]> {
  const byUser = new Map<string, (Deletion | Upsertion)[]>();
  for (const e of [...deletions, ...upsertions]) byUser.set(e.name, [...(byUser.get(e.name) ?? []), e]);
  const results: UserResult[] = [];
  const changes: Change[] = [];
  for (const [user, entries] of byUser) {
    const fail = (errorCode: number, errorMessage: string) => results.push({ user, errorCode, errorMessage });
    const mechanisms = entries.map((e) => e.mechanism);
    if (user !== '' && new Set(mechanisms).size < mechanisms.length) {
      fail(ErrorCode.DUPLICATE_RESOURCE, 'A user credential cannot be altered twice in the same request');
      continue;
    }
    const outcomes = entries.map((e) => check(store, e));
    const problem = outcomes.find((o): o is [number, string] => Array.isArray(o));
    if (problem) fail(...problem);
    else {
      results.push({ user, errorCode: ErrorCode.NONE, errorMessage: null });
      changes.push(...(outcomes as Change[]));
    }
  }
  await store.apply(changes);
  return results;
}

export interface DescribedUser extends UserResult {
  credentialInfos: { mechanism: number; iterations: number }[];
}

export function describeScramCredentials(store: ScramCredentialStore, users: readonly string[] | null): DescribedUser[] {
  const describe = (user: string): DescribedUser => {
    const creds = store.describe(user);
    if (!creds)
      return { user, errorCode: ErrorCode.RESOURCE_NOT_FOUND, errorMessage: 'Attempt to describe a user credential that does not exist', credentialInfos: [] };
    const credentialInfos = [...creds].map(([m, c]) => ({ mechanism: SCRAM_MECHANISMS[m].type, iterations: c.iterations }));
    return { user, errorCode: ErrorCode.NONE, errorMessage: null, credentialInfos };
  };
  if (users === null || users.length === 0) return store.userNames().map(describe);
  const counts = new Map<string, number>();
  for (const u of users) counts.set(u, (counts.get(u) ?? 0) + 1);
  return [...counts].map(([user, n]) =>
    n > 1
      ? {
          user,
          errorCode: ErrorCode.DUPLICATE_RESOURCE,
          errorMessage: 'Cannot describe SCRAM credentials for the same user twice in a single request',
          credentialInfos: [],
        }
      : describe(user),
  );
}
