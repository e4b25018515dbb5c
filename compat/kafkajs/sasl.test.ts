// Compatibility: kafkajs 2.2.4 over SASL_PLAINTEXT with every mechanism krill has: PLAIN (users from the
// listener's JAAS config), SCRAM-SHA-256 and SCRAM-SHA-512 (users made with AlterUserScramCredentials, kept
// across a restart), OAUTHBEARER with unsecured JWS tokens (principal claim and required scope from the
// OAuthBearerLoginModule's options); a wrong password and a rejected token fail the client's connect.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type RunningBroker } from '../../src/index.js';
import { tempDir } from '../../test/helpers.js';
import { plainClient, saslConfig, upsertion } from '../../test/security/sasl-client.js';
import { tokenFor } from '../../test/security/unsecured-jws.js';

const require = createRequire(import.meta.url);
/* eslint-disable @typescript-eslint/no-explicit-any */
const { Kafka, logLevel } = require('kafkajs');

const OAUTH_JAAS =
  'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredValidatorPrincipalClaimName="client_id" unsecuredValidatorRequiredScope="kafka";';
const dataDir = tempDir('krill-sasl-kafkajs-');
const config = saslConfig({ 'listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config': OAUTH_JAAS });
let broker: RunningBroker;

beforeAll(async () => {
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
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const kafka = (sasl: object) => new Kafka({ clientId: 'krill-sasl', brokers: [broker.bootstrap], sasl, logLevel: logLevel.NOTHING, retry: { retries: 0 } });

/** Produces one record and reads it back, both authenticated with `sasl`. */
async function roundTrip(sasl: object, topic: string): Promise<string> {
  const k = kafka(sasl);
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

describe('kafkajs over SASL_PLAINTEXT', () => {
  it('PLAIN', async () => {
    expect(await roundTrip({ mechanism: 'plain', username: 'alice', password: 'alice-secret' }, 'sasl-plain')).toBe('over sasl-plain');
  });

  it('SCRAM-SHA-256', async () => {
    expect(await roundTrip({ mechanism: 'scram-sha-256', username: 'scram256', password: 'pw-256' }, 'sasl-scram-256')).toBe('over sasl-scram-256');
  });

  it('SCRAM-SHA-512', async () => {
    expect(await roundTrip({ mechanism: 'scram-sha-512', username: 'scram512', password: 'pw-512' }, 'sasl-scram-512')).toBe('over sasl-scram-512');
  });

  it('OAUTHBEARER with an unsecured token', async () => {
    const oauthBearerProvider = async () => ({ value: tokenFor('ignored', { client_id: 'svc', scope: 'kafka' }) });
    expect(await roundTrip({ mechanism: 'oauthbearer', oauthBearerProvider }, 'sasl-oauth')).toBe('over sasl-oauth');
  });

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

  it('keeps SCRAM users across a restart', async () => {
    await broker.close();
    broker = await startBroker({ port: 0, dataDir, config });
    expect(await roundTrip({ mechanism: 'scram-sha-512', username: 'scram512', password: 'pw-512' }, 'sasl-scram-restart')).toBe('over sasl-scram-restart');
  });
});
