// What the SASL tests share: a SASL_PLAINTEXT broker's configs, and logins and SCRAM users made over
// krill's own test client (SaslHandshake v1 + SaslAuthenticate, AlterUserScramCredentials).
import { pbkdf2Sync, randomBytes } from 'node:crypto';
import { startBroker, type RunningBroker } from '../../src/index.js';
import { TestClient } from '../server/client.js';
import type { Pki } from './certs.js';

export const PLAIN_JAAS =
  'org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret" user_admin="admin-secret" user_alice="alice-secret";';

/** A broker with one SASL_PLAINTEXT listener offering every mechanism krill has. */
export function saslConfig(extra: Record<string, string | number> = {}): Record<string, string | number> {
  return {
    listeners: 'SASL_PLAINTEXT://127.0.0.1:0',
    'sasl.enabled.mechanisms': 'PLAIN,SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER',
    'listener.name.sasl_plaintext.plain.sasl.jaas.config': PLAIN_JAAS,
    'connection.failed.authentication.delay.ms': 0,
    ...extra,
  };
}

/**
 * A broker with a SASL_PLAINTEXT and a SASL_SSL listener, both offering every mechanism with the same PLAIN users,
 * the SASL_SSL one presenting `pki`'s broker certificate.
 */
export function saslBothConfig(pki: Pki, extra: Record<string, string | number> = {}): Record<string, string | number> {
  return saslConfig({
    listeners: 'SASL_PLAINTEXT://127.0.0.1:0,SASL_SSL://127.0.0.1:0',
    'listener.name.sasl_ssl.plain.sasl.jaas.config': PLAIN_JAAS,
    'ssl.keystore.type': 'PEM',
    'ssl.keystore.location': pki.brokerPem,
    ...extra,
  });
}

export type SaslProtocol = 'SASL_PLAINTEXT' | 'SASL_SSL';
export const SASL_PROTOCOLS: readonly SaslProtocol[] = ['SASL_PLAINTEXT', 'SASL_SSL'];

/** host:port of the broker's listener with `protocol`. */
export function endpointOf(broker: { listeners: readonly { listener: string; host: string; port: number }[] }, protocol: SaslProtocol): string {
  const endpoint = broker.listeners.find((l) => l.listener === protocol);
  if (!endpoint) throw new Error(`no ${protocol} listener`);
  return `${endpoint.host}:${endpoint.port}`;
}

/** A broker with saslBothConfig(pki) on in-memory storage, and `user` a SCRAM-SHA-256 and SCRAM-SHA-512 user with `password`. */
export async function startSaslBothBroker(pki: Pki, user: string, password: string): Promise<RunningBroker> {
  const broker = await startBroker({ port: 0, storage: 'memory', config: saslBothConfig(pki) });
  const admin = await plainClient(broker.port);
  await admin.request(51, 0, { deletions: [], upsertions: [upsertion(user, 'SCRAM-SHA-256', password), upsertion(user, 'SCRAM-SHA-512', password)] });
  admin.close();
  return broker;
}

/** A TestClient logged in with PLAIN; throws when the login fails. */
export async function plainClient(port: number, user = 'admin', password = 'admin-secret'): Promise<TestClient> {
  const client = await TestClient.connect(port);
  const hs = await client.request(17, 1, { mechanism: 'PLAIN' });
  if (hs.errorCode !== 0) throw new Error(`SaslHandshake: error ${String(hs.errorCode)}`);
  const auth = await client.request(36, 2, { authBytes: Buffer.from(`\0${user}\0${password}`) });
  if (auth.errorCode !== 0) throw new Error(`SaslAuthenticate: ${String(auth.errorMessage)}`);
  return client;
}

const MECHANISM_TYPES = { 'SCRAM-SHA-256': [1, 'sha256', 32], 'SCRAM-SHA-512': [2, 'sha512', 64] } as const;

/** A SCRAM upsertion as a client's admin builds it: a fresh salt and SaltedPassword = Hi(password, salt, i). */
export function upsertion(name: string, mechanism: keyof typeof MECHANISM_TYPES, password: string, iterations = 4096) {
  const [type, hash, length] = MECHANISM_TYPES[mechanism];
  const salt = randomBytes(16);
  return { name, mechanism: type, iterations, salt, saltedPassword: pbkdf2Sync(password, salt, iterations, length, hash) };
}
