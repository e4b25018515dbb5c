// TLS settings checked at start, naming the listener and the config; Kafka's ssl.principal.mapping.rules.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, ConfigError } from '../../src/index.js';
import { SslPrincipalMapper } from '../../src/security/ssl-principal.js';
import { describeBrokerConfigs } from '../../src/config-admin/describe.js';
import { BrokerConfig } from '../../src/config.js';
import { makePki, type Pki } from './certs.js';

describe('ssl.principal.mapping.rules', () => {
  it("maps as Kafka's SslPrincipalMapper: first matching rule, $n groups, L/U, DEFAULT", () => {
    const m = SslPrincipalMapper.parse(
      'RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/,RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/L,RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/U, DEFAULT',
    );
    expect(m.name('CN=kafka-admin,OU=ServiceUsers,O=Org')).toBe('kafka-admin');
    expect(m.name('CN=Duke,OU=JavaSoft,O=Sun Microsystems,L=Santa Clara,ST=CA,C=US')).toBe('duke@javasoft');
    expect(m.name('OU=x,cn=broker1.example,O=y')).toBe('BROKER1.EXAMPLE');
    expect(m.name('O=nobody')).toBe('O=nobody');
    expect(SslPrincipalMapper.parse('RULE:^CN=(.*)$/$1/').name('O=x')).toBeNull();
    expect(SslPrincipalMapper.parse('RULE:^CN=(.*)$/a\\/b-$1/').name('CN=x')).toBe('a/b-x');
  });

  it('names the rule it cannot read', () => {
    expect(() => SslPrincipalMapper.parse('RULE:^CN=(.*)$/$1/X')).toThrow(ConfigError);
    expect(() => SslPrincipalMapper.parse('NOPE')).toThrow(/invalid rule 'NOPE'/);
  });
});

describe('TLS settings at start', () => {
  let pki: Pki;
  beforeAll(() => {
    pki = makePki();
  });
  afterAll(() => pki?.remove());

  const start = (config: Record<string, string>) =>
    startBroker({ port: 0, storage: 'memory', logLevel: 'silent', config: { listeners: 'PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0', ...config } });
  const problems = (config: Record<string, string>) =>
    start(config).then(
      async (b) => {
        await b.close();
        return [];
      },
      (err: unknown) => (err instanceof ConfigError ? err.problems : [String(err)]),
    );

  it('refuses what it cannot use, naming the listener and the config', async () => {
    expect(await problems({})).toEqual([expect.stringMatching(/^listener SSL: ssl\.keystore\.location: not set/)]);
    expect(await problems({ 'ssl.keystore.location': pki.brokerPem })).toEqual([
      expect.stringMatching(/^listener SSL: ssl\.keystore\.type: JKS is a Java keystore krill cannot read/),
    ]);
    expect(await problems({ 'ssl.keystore.type': 'PEM', 'ssl.keystore.location': path.join(pki.dir, 'absent.pem') })).toEqual([
      `listener SSL: ssl.keystore.location: cannot read '${path.join(pki.dir, 'absent.pem')}': ENOENT`,
    ]);
    expect(await problems({ 'ssl.keystore.type': 'PEM', 'ssl.keystore.location': pki.caCert })).toEqual([
      expect.stringMatching(/^listener SSL: ssl\.keystore: /),
    ]);
    expect(await problems({ 'ssl.keystore.type': 'PKCS12', 'ssl.keystore.location': pki.brokerP12('right'), 'ssl.keystore.password': 'wrong' })).toEqual([
      expect.stringMatching(/^listener SSL: ssl\.keystore\.location: .*(mac verify failure|password)/i),
    ]);
    expect(await problems({ 'ssl.keystore.type': 'PEM', 'ssl.keystore.location': pki.brokerPem, 'ssl.truststore.location': pki.caCert })).toEqual([
      expect.stringMatching(/^listener SSL: ssl\.truststore\.type: JKS truststores cannot be read by krill/),
    ]);
    expect(await problems({ 'ssl.keystore.type': 'PEM', 'ssl.keystore.location': pki.brokerPem, 'ssl.principal.mapping.rules': 'RULE:oops' })).toEqual([
      expect.stringMatching(/^listener SSL: ssl\.principal\.mapping\.rules: invalid rule/),
    ]);
  });

  it('takes PKCS12 keystores, inline PEM, and listener.name.<l>.ssl.* over the plain configs', async () => {
    expect(await problems({ 'ssl.keystore.type': 'PKCS12', 'ssl.keystore.location': pki.brokerP12('secret'), 'ssl.keystore.password': 'secret' })).toEqual([]);
    const inline = { 'ssl.keystore.certificate.chain': fs.readFileSync(pki.brokerCert, 'utf8'), 'ssl.keystore.key': fs.readFileSync(pki.brokerKey, 'utf8') };
    expect(await problems({ 'ssl.keystore.type': 'PEM', ...inline })).toEqual([]);
    // The plain keystore is broken; the SSL listener's own is not.
    expect(
      await problems({
        'ssl.keystore.location': '/nonexistent',
        'listener.name.ssl.ssl.keystore.type': 'PEM',
        'listener.name.ssl.ssl.keystore.location': pki.brokerPem,
      }),
    ).toEqual([]);
  });

  it('never shows passwords or keys in DescribeConfigs', () => {
    const config = new BrokerConfig({ 'ssl.keystore.password': 'secret', 'ssl.keystore.type': 'PKCS12' });
    const described = describeBrokerConfigs(config, 'broker', { includeSynonyms: true });
    const password = described.find((e) => e.name === 'ssl.keystore.password')!;
    expect(password).toMatchObject({ value: null, isSensitive: true });
    expect(password.synonyms.every((s) => s.value === null)).toBe(true);
    expect(described.find((e) => e.name === 'ssl.keystore.type')).toMatchObject({ value: 'PKCS12', isSensitive: false });
  });
});
