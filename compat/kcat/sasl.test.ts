// kcat (librdkafka) over SASL_PLAINTEXT and SASL_SSL (a CA and broker certificate made by test/security/certs.ts,
// verified with hostname checking): PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 (users made with
// AlterUserScramCredentials), and OAUTHBEARER with librdkafka's unsecured JWT (enable.sasl.oauthbearer.unsecure.jwt);
// each produces a record and reads it back. A wrong password is refused, and kcat says so.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBroker } from '../../src/index.js';
import { describeRun, run } from '../util.js';
import { makePki, type Pki } from '../../test/security/certs.js';
import { endpointOf, SASL_PROTOCOLS, startSaslBothBroker, type SaslProtocol } from '../../test/security/sasl-client.js';

let broker: RunningBroker;
let pki: Pki;
beforeAll(async () => {
  pki = makePki();
  broker = await startSaslBothBroker(pki, 'rd', 'rd-secret');
});
afterAll(async () => {
  await broker?.close();
  pki?.remove();
});

const kcat = (protocol: SaslProtocol, sasl: string[], args: string[], input?: string) => {
  const settings = [`security.protocol=${protocol}`, ...sasl, 'broker.address.family=v4'];
  if (protocol === 'SASL_SSL') settings.push(`ssl.ca.location=${pki.caCert}`, 'ssl.endpoint.identification.algorithm=https');
  return run('kcat', [...args, '-b', endpointOf(broker, protocol), ...settings.flatMap((s) => ['-X', s])], { input, timeoutMs: 30_000 });
};

const MECHANISMS: [string, string[]][] = [
  ['PLAIN', ['sasl.mechanisms=PLAIN', 'sasl.username=alice', 'sasl.password=alice-secret']],
  ['SCRAM-SHA-256', ['sasl.mechanisms=SCRAM-SHA-256', 'sasl.username=rd', 'sasl.password=rd-secret']],
  ['SCRAM-SHA-512', ['sasl.mechanisms=SCRAM-SHA-512', 'sasl.username=rd', 'sasl.password=rd-secret']],
  ['OAUTHBEARER', ['sasl.mechanisms=OAUTHBEARER', 'enable.sasl.oauthbearer.unsecure.jwt=true', 'sasl.oauthbearer.config=principal=rd-jwt scope=kafka']],
];

for (const protocol of SASL_PROTOCOLS) {
  describe(`kcat over ${protocol}`, () => {
    for (const [name, sasl] of MECHANISMS) {
      it(`produces and consumes with ${name}`, async () => {
        const topic = `kcat-${protocol.toLowerCase()}-${name.toLowerCase()}`;
        const produced = await kcat(protocol, sasl, ['-P', '-t', topic], `over ${name}\n`);
        expect(produced.code, describeRun(produced)).toBe(0);
        const consumed = await kcat(protocol, sasl, ['-C', '-t', topic, '-o', 'beginning', '-e', '-q']);
        expect(consumed.code, describeRun(consumed)).toBe(0);
        expect(consumed.stdout.trim()).toBe(`over ${name}`);
      });
    }

    it('is refused with a wrong password', async () => {
      const r = await kcat(protocol, ['sasl.mechanisms=SCRAM-SHA-256', 'sasl.username=rd', 'sasl.password=nope'], ['-P', '-t', 'kcat-sasl-refused'], 'never\n');
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256/);
    });
  });
}
