// The Apache Kafka Java client (kafka-clients 4.x and 3.x, unmodified) over SASL_PLAINTEXT and SASL_SSL
// (a CA and broker certificate made by test/security/certs.ts) with every mechanism krill has: PLAIN (users of the listener's JAAS config), SCRAM-SHA-256 and SCRAM-SHA-512 (users
// made with Kafka's own kafka-configs tool, which sends AlterUserScramCredentials, authenticated with PLAIN),
// and OAUTHBEARER with the client's default unsecured tokens. A wrong password fails with Kafka's
// SaslAuthenticationException and the broker's message.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type RunningBroker } from '../../src/index.js';
import { tempDir } from '../../test/helpers.js';
import { endpointOf, saslBothConfig, SASL_PROTOCOLS } from '../../test/security/sasl-client.js';
import { makePki, type Pki } from '../../test/security/certs.js';
import { describeWithToolchain } from '../toolchain.js';
import { tool, toolsMissing } from '../kafka-tools/tools.js';
import { CLIENTS, java, javaMissing } from './java.js';

const TIMEOUT = 180_000;
const dir = tempDir('krill-java-sasl-');
let broker: RunningBroker;
let pki: Pki;
let seq = 0;

const jaas = (module: string, options: Record<string, string>) =>
  `org.apache.kafka.common.security.${module} required ${Object.entries(options)
    .map(([k, v]) => `${k}="${v}"`)
    .join(' ')};`;
const PLAIN = jaas('plain.PlainLoginModule', { username: 'alice', password: 'alice-secret' });
const SCRAM = jaas('scram.ScramLoginModule', { username: 'jscram', password: 'jscram-secret' });
const OAUTH = jaas('oauthbearer.OAuthBearerLoginModule', { unsecuredLoginStringClaim_sub: 'jwt-user' });

const both = () => javaMissing() ?? toolsMissing();

describeWithToolchain('Java client over SASL_PLAINTEXT and SASL_SSL', both, { timeout: TIMEOUT }, () => {
  beforeAll(async () => {
    pki = makePki();
    const config = saslBothConfig(pki, { 'group.initial.rebalance.delay.ms': 0 });
    broker = await startBroker({ port: 0, dataDir: path.join(dir, 'data'), config });
    const commandConfig = path.join(dir, 'admin.properties');
    const adminJaas = jaas('plain.PlainLoginModule', { username: 'admin', password: 'admin-secret' });
    fs.writeFileSync(commandConfig, `security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config=${adminJaas}\n`);
    await tool('kafka-configs', [
      '--bootstrap-server',
      broker.bootstrap,
      '--command-config',
      commandConfig,
      '--alter',
      '--entity-type',
      'users',
      '--entity-name',
      'jscram',
      '--add-config',
      'SCRAM-SHA-256=[iterations=8192,password=jscram-secret],SCRAM-SHA-512=[password=jscram-secret]',
    ]);
  }, TIMEOUT);
  afterAll(async () => {
    await broker?.close();
    pki?.remove();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  for (const client of CLIENTS) {
    describe(client.name, () => {
      for (const protocol of SASL_PROTOCOLS) {
        for (const [mechanism, jaasConfig] of [
          ['PLAIN', PLAIN],
          ['SCRAM-SHA-256', SCRAM],
          ['SCRAM-SHA-512', SCRAM],
          ['OAUTHBEARER', OAUTH],
        ]) {
          it(`produces and consumes with ${mechanism} over ${protocol}`, async () => {
            const topic = `java-sasl-${client.major}-${++seq}`;
            const ssl = protocol === 'SASL_SSL' ? { 'ssl.truststore.type': 'PEM', 'ssl.truststore.location': pki.caCert } : {};
            const res = await java(client, 'produce_consume', {
              bootstrap: endpointOf(broker, protocol),
              config: { 'security.protocol': protocol, 'sasl.mechanism': mechanism, 'sasl.jaas.config': jaasConfig, ...ssl },
              create: [{ name: topic, partitions: 1 }],
              runs: [{ topic, group: `${topic}-g` }],
              records: [{ partition: 0, key: 'k', value: `over ${mechanism}`, headers: [], timestamp: 1_700_000_000_000 }],
            });
            expect(res.runs[0].received.map((r: { value: string }) => r.value)).toEqual([`over ${mechanism}`]);
          });
        }
      }

      it('fails with SaslAuthenticationException on a wrong password', async () => {
        const topic = `java-sasl-wrong-${client.major}`;
        const config = {
          'security.protocol': 'SASL_PLAINTEXT',
          'sasl.mechanism': 'SCRAM-SHA-512',
          'sasl.jaas.config': SCRAM.replace('jscram-secret', 'wrong'),
        };
        await expect(
          java(client, 'produce_consume', { bootstrap: broker.bootstrap, config, create: [{ name: topic, partitions: 1 }], runs: [], records: [] }),
        ).rejects.toThrow(
          /SaslAuthenticationException: Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512/,
        );
      });
    });
  }
});
