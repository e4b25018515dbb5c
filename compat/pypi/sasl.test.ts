// confluent-kafka 2.x from PyPI (its wheel's librdkafka 2.x) over SASL_PLAINTEXT and SASL_SSL (a CA and broker
// certificate made by test/security/certs.ts) with every mechanism krill has: PLAIN (users of the listener's
// JAAS config), SCRAM-SHA-256 and SCRAM-SHA-512 (users made with AlterUserScramCredentials), and OAUTHBEARER
// with librdkafka's unsecured JWT. Each produces through compat/python's ck_client.py and reads back; a wrong
// password reaches the client as librdkafka's authentication error with the broker's message.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBroker } from '../../src/index.js';
import { makePki, type Pki } from '../../test/security/certs.js';
import { endpointOf, SASL_PROTOCOLS, startSaslBothBroker, type SaslProtocol } from '../../test/security/sasl-client.js';
import { describeWithToolchain } from '../toolchain.js';
import { encodeRecord, unb64 } from '../python/py.js';
import { venvMissing, venvPy } from './pypi.js';

const TIMEOUT = 90_000;
let broker: RunningBroker;
let pki: Pki;

const MECHANISMS: [string, Record<string, string>][] = [
  ['PLAIN', { 'sasl.mechanism': 'PLAIN', 'sasl.username': 'alice', 'sasl.password': 'alice-secret' }],
  ['SCRAM-SHA-256', { 'sasl.mechanism': 'SCRAM-SHA-256', 'sasl.username': 'py', 'sasl.password': 'py-secret' }],
  ['SCRAM-SHA-512', { 'sasl.mechanism': 'SCRAM-SHA-512', 'sasl.username': 'py', 'sasl.password': 'py-secret' }],
  [
    'OAUTHBEARER',
    { 'sasl.mechanism': 'OAUTHBEARER', 'enable.sasl.oauthbearer.unsecure.jwt': 'true', 'sasl.oauthbearer.config': 'principal=py-jwt scope=kafka' },
  ],
];

const conf = (protocol: SaslProtocol, sasl: Record<string, string>) => ({
  'security.protocol': protocol,
  ...sasl,
  ...(protocol === 'SASL_SSL' ? { 'ssl.ca.location': pki.caCert, 'ssl.endpoint.identification.algorithm': 'https' } : {}),
});

interface Produced {
  reports: ({ error?: string } | null)[];
  client_errors: { error: string; message: string }[];
}

describeWithToolchain('confluent-kafka-python over SASL', venvMissing, { timeout: TIMEOUT }, () => {
  beforeAll(async () => {
    pki = makePki();
    broker = await startSaslBothBroker(pki, 'py', 'py-secret');
  });
  afterAll(async () => {
    await broker?.close();
    pki?.remove();
  });

  for (const protocol of SASL_PROTOCOLS) {
    describe(protocol, () => {
      for (const [mechanism, sasl] of MECHANISMS) {
        it(`produces and consumes with ${mechanism}`, async () => {
          const topic = `py-${protocol.toLowerCase()}-${mechanism.toLowerCase()}`;
          const bootstrap = endpointOf(broker, protocol);
          const records = ['a', 'b'].map((value) => encodeRecord({ key: null, value: `${value} over ${mechanism}`, headers: null, partition: 0 }));
          const produced = await venvPy<Produced>('ck_client.py', 'produce', { bootstrap, topic, records, conf: conf(protocol, sasl) });
          expect(produced.client_errors).toEqual([]);
          expect(produced.reports.every((r) => r !== null && r.error === undefined)).toBe(true);
          const consumed = await venvPy<{ messages: { value: string }[] }>('ck_client.py', 'consume', {
            bootstrap,
            topic,
            partitions: [0],
            count: 2,
            conf: conf(protocol, sasl),
          });
          expect(consumed.messages.map((m) => unb64(m.value))).toEqual([`a over ${mechanism}`, `b over ${mechanism}`]);
        });
      }

      it('reports a wrong password as an authentication error with the broker message', async () => {
        const sasl = { 'sasl.mechanism': 'SCRAM-SHA-512', 'sasl.username': 'py', 'sasl.password': 'wrong', 'message.timeout.ms': '5000' };
        const produced = await venvPy<Produced>('ck_client.py', 'produce', {
          bootstrap: endpointOf(broker, protocol),
          topic: 'py-sasl-refused',
          records: [encodeRecord({ key: null, value: 'never', headers: null, partition: 0 })],
          conf: conf(protocol, sasl),
        });
        expect(produced.client_errors[0]).toMatchObject({
          error: '_AUTHENTICATION',
          message: expect.stringMatching(/Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512/),
        });
        expect(produced.reports[0]).toMatchObject({ error: '_MSG_TIMED_OUT' });
      });
    });
  }
});
