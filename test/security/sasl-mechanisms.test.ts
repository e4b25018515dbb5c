// The mechanisms' own rules, where no client sends the case: JAAS syntax, and OAUTHBEARER's unsecured-token
// validation (OAuthBearerUnsecuredValidatorCallbackHandler's options and OAuthBearerValidationUtils' checks).
import { describe, expect, it } from 'vitest';
import { parseJaasConfig } from '../../src/security/jaas.js';
import { OAuthBearerSaslServer, unsecuredValidatorOptions } from '../../src/security/sasl-oauthbearer.js';
import { SaslAuthenticationError } from '../../src/security/sasl-server.js';
import { unsecuredToken } from './unsecured-jws.js';
import { PLAIN_JAAS } from './sasl-client.js';

describe('JAAS config', () => {
  it("reads Kafka's PlainLoginModule line", () => {
    const m = parseJaasConfig(PLAIN_JAAS);
    expect(m.loginModule).toBe('org.apache.kafka.common.security.plain.PlainLoginModule');
    expect(m.controlFlag).toBe('required');
    expect(Object.fromEntries(m.options)).toEqual({ username: 'admin', password: 'admin-secret', user_admin: 'admin-secret', user_alice: 'alice-secret' });
  });

  it('keeps quoted escapes and bare values, and says what is wrong', () => {
    expect(Object.fromEntries(parseJaasConfig('a.B required x="q\\"uo;te" y=bare;').options)).toEqual({ x: 'q"uo;te', y: 'bare' });
    expect(() => parseJaasConfig('a.B required x="1"')).toThrow("must end with ';'");
    expect(() => parseJaasConfig('a.B always x="1";')).toThrow('control flag');
    expect(() => parseJaasConfig('a.B required; c.D required;')).toThrow('only one login module');
  });
});

describe('OAUTHBEARER unsecured tokens', () => {
  const NOW = 1_700_000_000_000;
  const options = unsecuredValidatorOptions(
    new Map([
      ['unsecuredValidatorRequiredScope', 'read write'],
      ['unsecuredValidatorAllowableClockSkewMs', '1000'],
    ]),
  );
  const initial = (token: string, authzid = '') => Buffer.from(`n,${authzid ? `a=${authzid}` : ''},\x01auth=Bearer ${token}\x01ext=one\x01\x01`);
  const server = () => new OAuthBearerSaslServer(options, () => NOW);
  const claims = (extra: Record<string, unknown> = {}) => ({ sub: 'alice', iat: NOW / 1000, exp: NOW / 1000 + 60, scope: ['read', 'write'], ...extra });

  it('authenticates the principal claim, with the token expiry as the credential expiry', () => {
    const s = server();
    expect(s.evaluate(initial(unsecuredToken(claims())))).toEqual(Buffer.alloc(0));
    expect(s.principal).toEqual({ type: 'User', name: 'alice' });
    expect(s.credentialExpiresAt).toBe(NOW + 60_000);
  });

  it.each([
    ['expired beyond the skew', claims({ exp: (NOW - 1000) / 1000 }), 'invalid_token'],
    ['issued in the future beyond the skew', claims({ iat: (NOW + 1001) / 1000 }), 'invalid_token'],
    ['without the principal claim', claims({ sub: undefined }), 'invalid_token'],
    ['lacking a required scope', claims({ scope: 'read' }), 'insufficient_scope'],
  ])('rejects a token %s with RFC 7628 JSON, then fails on the client acknowledgement', (_case, c, status) => {
    const s = server();
    const challenge = JSON.parse(s.evaluate(initial(unsecuredToken(c))).toString()) as { status: string };
    expect(challenge.status).toBe(status);
    expect(s.complete).toBe(false);
    expect(() => s.evaluate(Buffer.from('\x01'))).toThrow(SaslAuthenticationError);
  });

  it('accepts the skew allowed, and refuses a signed token or another authorization id', () => {
    expect(server().evaluate(initial(unsecuredToken(claims({ exp: (NOW - 999) / 1000, iat: (NOW - 2000) / 1000 }))))).toEqual(Buffer.alloc(0));
    const signed = unsecuredToken(claims()) + 'c2ln';
    expect(JSON.parse(server().evaluate(initial(signed)).toString())).toEqual({ status: 'invalid_token' });
    expect(() => server().evaluate(initial(unsecuredToken(claims()), 'bob'))).toThrow('authorization id');
    expect(() => server().evaluate(Buffer.from('n,,auth=Bearer x'))).toThrow('invalid client initial response');
  });
});
