// Compatibility: kafkajs 2.2.4 over SASL_PLAINTEXT and SASL_SSL (a CA and broker certificate made by
// test/security/certs.ts) with every mechanism krill has: PLAIN (users from the listener's JAAS config),
// SCRAM-SHA-256 and SCRAM-SHA-512 (users made with AlterUserScramCredentials, kept across a restart),
// OAUTHBEARER with unsecured JWS tokens (principal claim and required scope from the
// OAuthBearerLoginModule's options); a wrong password fails the client's connect, a rejected token its
// first request.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type RunningBroker } from '../../src/index.js';
import { tempDir } from '../../test/helpers.js';
import { makePki, type Pki } from '../../test/security/certs.js';
import { endpointOf, plainClient, saslBothConfig, SASL_PROTOCOLS, upsertion, type SaslProtocol } from '../../test/security/sasl-client.js';
import { tokenFor } from '../../test/security/unsecured-jws.js';

const require = createRequire(import.meta.url);
/* eslint-disable @typescript-eslint/no-explicit-any */
const { Kafka, logLevel } = require('kafkajs');

const OAUTH_JAAS =
  'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredValidatorPrincipalClaimName="client_id" unsecuredValidatorRequiredScope="kafka";';
const dataDir = tempDir('krill-sasl-kafkajs-');
let config: Record<string, string | number>;
let broker: RunningBroker;
let pki: Pki;

beforeAll(async () => {
  pki = makePki();
  config = saslBothConfig(pki, {
    'listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config': OAUTH_JAAS,
    'listener.name.sasl_ssl.oauthbearer.sasl.jaas.config': OAUTH_JAAS,
  });
  broker = await startBroker({ port: 0, dataDir, config });
  const admin = await plainClient(broker.port);
  const res = await admin.request(51, 0, {
    deletions: [],
    upsertions: [upsertion('scram256', 'SCRAM-SHA-256', 'pw-256'), upsertion('scram512', 'SCRAM-SHA-512', 'pw-512', 8192)],
  });
  expect(res.results).toEqual([
    { user: 'scram256', errorCode: 0, errorMessage: null },
    { user: 'scram512', errorCode: 0, errorMessage: null },
  ]);
  admin.close();
});
afterAll(async () => {
  await broker?.close();
  pki?.remove();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const kafka = (sasl: object, protocol: SaslProtocol = 'SASL_PLAINTEXT') =>
  new Kafka({
    clientId: 'krill-sasl',
    brokers: [endpointOf(broker, protocol)],
    sasl,
    ssl: protocol === 'SASL_SSL' ? { ca: [fs.readFileSync(pki.caCert, 'utf8')] } : undefined,
    logLevel: logLevel.NOTHING,
    retry: { retries: 0 },
  });

/** Produces one record and reads it back, both authenticated with `sasl`. */
async function roundTrip(sasl: object, topic: string, protocol: SaslProtocol = 'SASL_PLAINTEXT'): Promise<string> {
  const k = kafka(sasl, protocol);
  const admin = k.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
  await admin.disconnect();
  const producer = k.producer();
  await producer.connect();
  await producer.send({ topic, messages: [{ value: `over ${topic}` }] });
  await producer.disconnect();
  const consumer = k.consumer({ groupId: `g-${topic}` });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const value = await new Promise<string>((resolve) => {
    void consumer.run({ eachMessage: async ({ message }: any) => resolve(message.value.toString()) });
  });
  await consumer.disconnect();
  return value;
}

const oauthBearerProvider = async () => ({ value: tokenFor('ignored', { client_id: 'svc', scope: 'kafka' }) });
const LOGINS: [string, object][] = [
  ['PLAIN', { mechanism: 'plain', username: 'alice', password: 'alice-secret' }],
  ['SCRAM-SHA-256', { mechanism: 'scram-sha-256', username: 'scram256', password: 'pw-256' }],
  ['SCRAM-SHA-512', { mechanism: 'scram-sha-512', username: 'scram512', password: 'pw-512' }],
  ['OAUTHBEARER with an unsecured token', { mechanism: 'oauthbearer', oauthBearerProvider }],
];

for (const protocol of SASL_PROTOCOLS) {
  describe(`kafkajs over ${protocol}`, () => {
    for (const [name, sasl] of LOGINS) {
      it(name, async () => {
        const topic = `sasl-${protocol.toLowerCase()}-${name.split(' ')[0].toLowerCase()}`;
        expect(await roundTrip(sasl, topic, protocol)).toBe(`over ${topic}`);
      });
    }
  });
}

describe('kafkajs refused, and across a restart', () => {
  it('refuses a wrong PLAIN password with its message', async () => {
    const admin = kafka({ mechanism: 'plain', username: 'alice', password: 'nope' }).admin();
    await expect(admin.connect()).rejects.toThrow(/SASL PLAIN authentication failed: Authentication failed: Invalid username or password/);
  });

  it('refuses a wrong SCRAM password', async () => {
    const admin = kafka({ mechanism: 'scram-sha-256', username: 'scram256', password: 'pw-512' }).admin();
    await expect(admin.connect()).rejects.toThrow(/SASL SCRAM SHA256 authentication failed/);
  });

  it('refuses SCRAM with the other mechanism than the user has', async () => {
    const admin = kafka({ mechanism: 'scram-sha-512', username: 'scram256', password: 'pw-256' }).admin();
    await expect(admin.connect()).rejects.toThrow(/SASL SCRAM SHA512 authentication failed/);
  });

  // kafkajs takes the broker's error challenge (RFC 7628 §3.2.2) for success: its connect resolves, and the
  // broker closes the connection at the first request that is not the client's acknowledgement, as Kafka does.
  it('refuses a token without the required scope', async () => {
    const unscoped = async () => ({ value: tokenFor('ignored', { client_id: 'svc', scope: 'other' }) });
    const admin = kafka({ mechanism: 'oauthbearer', oauthBearerProvider: unscoped }).admin();
    await admin.connect();
    await expect(admin.listTopics()).rejects.toThrow(/Closed connection/);
    await admin.disconnect();
  });

  it('keeps SCRAM users across a restart', async () => {
    await broker.close();
    broker = await startBroker({ port: 0, dataDir, config });
    expect(await roundTrip({ mechanism: 'scram-sha-512', username: 'scram512', password: 'pw-512' }, 'sasl-scram-restart')).toBe('over sasl-scram-restart');
  });
});
