// SCRAM's arithmetic (RFC 5802, with SHA-256 and SHA-512 as RFC 7677 and Kafka name them), and the stored
// form of a credential. The broker keeps only what RFC 5802 §3 lets a server keep: the salt, the iteration
// count, StoredKey = H(HMAC(SaltedPassword, "Client Key")) and ServerKey = HMAC(SaltedPassword, "Server Key");
// never the password or SaltedPassword.
import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';

export type ScramMechanism = 'SCRAM-SHA-256' | 'SCRAM-SHA-512';

interface MechanismInfo {
  hash: 'sha256' | 'sha512';
  /** The type AlterUserScramCredentials and DescribeUserScramCredentials use (Kafka's ScramMechanism). */
  type: number;
  /** Kafka's ScramMechanism.minIterations; 16384 is its maxIterations for every mechanism. */
  minIterations: number;
}

export const SCRAM_MECHANISMS: Readonly<Record<ScramMechanism, MechanismInfo>> = Object.freeze({
  'SCRAM-SHA-256': { hash: 'sha256', type: 1, minIterations: 4096 },
  'SCRAM-SHA-512': { hash: 'sha512', type: 2, minIterations: 4096 },
});
export const SCRAM_MAX_ITERATIONS = 16384;

export function isScramMechanism(name: string): name is ScramMechanism {
  return Object.hasOwn(SCRAM_MECHANISMS, name);
}

export function scramMechanismOfType(type: number): ScramMechanism | null {
  for (const [name, info] of Object.entries(SCRAM_MECHANISMS)) if (info.type === type) return name as ScramMechanism;
  return null;
}

export interface ScramCredential {
  salt: Buffer;
  storedKey: Buffer;
  serverKey: Buffer;
  iterations: number;
}

export function hmac(mechanism: ScramMechanism, key: Buffer, text: string | Buffer): Buffer {
  return createHmac(SCRAM_MECHANISMS[mechanism].hash, key).update(text).digest();
}

export function hash(mechanism: ScramMechanism, data: Buffer): Buffer {
  return createHash(SCRAM_MECHANISMS[mechanism].hash).update(data).digest();
}

/** Hi() of RFC 5802: PBKDF2 with HMAC of the mechanism's hash, one output block. */
export function saltedPassword(mechanism: ScramMechanism, password: string, salt: Buffer, iterations: number): Buffer {
  const { hash: h } = SCRAM_MECHANISMS[mechanism];
  return pbkdf2Sync(Buffer.from(password.normalize('NFKC'), 'utf8'), salt, iterations, h === 'sha256' ? 32 : 64, h);
}

/** What the broker stores, from a SaltedPassword (AlterUserScramCredentials sends that, not the password). */
export function credentialFromSaltedPassword(mechanism: ScramMechanism, salted: Buffer, salt: Buffer, iterations: number): ScramCredential {
  const clientKey = hmac(mechanism, salted, 'Client Key');
  return { salt, iterations, storedKey: hash(mechanism, clientKey), serverKey: hmac(mechanism, salted, 'Server Key') };
}

/** A credential for a password given in configuration (a JAAS option, a test), with a fresh salt. */
export function credentialFromPassword(mechanism: ScramMechanism, password: string, iterations = SCRAM_MECHANISMS[mechanism].minIterations): ScramCredential {
  const salt = randomBytes(32);
  return credentialFromSaltedPassword(mechanism, saltedPassword(mechanism, password, salt, iterations), salt, iterations);
}

export function xor(a: Buffer, b: Buffer): Buffer {
  const out = Buffer.alloc(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i] ^ b[i];
  return out;
}

export function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Kafka's ScramCredentialUtils form, as kept in ZooKeeper's /config/users and krill's credentials file. */
export function formatCredential(c: ScramCredential): string {
  return `salt=${c.salt.toString('base64')},stored_key=${c.storedKey.toString('base64')},server_key=${c.serverKey.toString('base64')},iterations=${c.iterations}`;
}

export function parseCredential(text: string): ScramCredential {
  const fields = new Map<string, string>();
  for (const part of text.split(',')) {
    const eq = part.indexOf('=');
    if (eq > 0) fields.set(part.slice(0, eq), part.slice(eq + 1));
  }
  const [salt, storedKey, serverKey, iterations] = ['salt', 'stored_key', 'server_key', 'iterations'].map((k) => fields.get(k));
  if (!salt || !storedKey || !serverKey || !iterations || !/^\d+$/.test(iterations)) throw new Error(`not a SCRAM credential: '${text}'`);
  return {
    salt: Buffer.from(salt, 'base64'),
    storedKey: Buffer.from(storedKey, 'base64'),
    serverKey: Buffer.from(serverKey, 'base64'),
    iterations: Number(iterations),
  };
}
