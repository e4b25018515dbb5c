// The client side of SCRAM (the login brokers make on each other) against krill's own SCRAM server: the
// right password logs in, a wrong one is refused, and a peer that does not hold the credential (its
// server-final signature is wrong) is refused by the client.
import { describe, expect, it } from 'vitest';
import { ScramSaslServer } from '../../src/security/sasl-scram.js';
import { scramLogin } from '../../src/security/scram-client.js';
import { credentialFromPassword, type ScramMechanism } from '../../src/security/scram.js';

function server(mechanism: ScramMechanism, password: string): ScramSaslServer {
  const credential = credentialFromPassword(mechanism, password);
  return new ScramSaslServer(mechanism, (user, m) => (user === 'broker' && m === mechanism ? credential : undefined));
}

describe('scramLogin', () => {
  for (const mechanism of ['SCRAM-SHA-256', 'SCRAM-SHA-512'] as const) {
    it(`logs in with ${mechanism} and checks the server's signature`, async () => {
      const s = server(mechanism, 'secret');
      await scramLogin(mechanism, 'broker', 'secret', async (token) => s.evaluate(token));
      expect(s.complete).toBe(true);
      expect(s.principal?.name).toBe('broker');
    });
  }

  it('is refused with a wrong password', async () => {
    const s = server('SCRAM-SHA-512', 'secret');
    await expect(scramLogin('SCRAM-SHA-512', 'broker', 'wrong', async (token) => s.evaluate(token))).rejects.toThrow();
    expect(s.complete).toBe(false);
  });

  it('refuses a peer whose final signature is not the credential’s', async () => {
    const s = server('SCRAM-SHA-256', 'secret');
    let round = 0;
    const forged = async (token: Buffer) => (round++ === 0 ? s.evaluate(token) : Buffer.from(`v=${Buffer.alloc(32).toString('base64')}`));
    await expect(scramLogin('SCRAM-SHA-256', 'broker', 'secret', forged)).rejects.toThrow(/signature is wrong/);
  });

  it('refuses a first message whose nonce does not extend its own', async () => {
    const bad = async () => Buffer.from('r=other,s=c2FsdA==,i=4096');
    await expect(scramLogin('SCRAM-SHA-256', 'broker', 'secret', bad)).rejects.toThrow(/first message is invalid/);
  });
});
