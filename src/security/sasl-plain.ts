// SASL/PLAIN (RFC 4616) against the users a listener's PlainLoginModule lists as user_<name>="<password>",
// as Kafka's PlainSaslServer with its default PlainServerCallbackHandler.
import { timingSafeEqual, createHash } from 'node:crypto';
import { SaslAuthenticationError, userPrincipal, type SaslServer } from './sasl-server.js';
import type { KafkaPrincipal } from './session.js';

/** Compared through a digest so that neither a password's length nor its bytes leak through timing. */
function samePassword(given: string, expected: string): boolean {
  const d = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(d(given), d(expected));
}

export class PlainSaslServer implements SaslServer {
  readonly mechanism = 'PLAIN';
  readonly credentialExpiresAt = null;
  complete = false;
  principal: KafkaPrincipal | null = null;

  constructor(private readonly users: ReadonlyMap<string, string>) {}

  evaluate(token: Buffer): Buffer {
    // message = [authzid] NUL authcid NUL passwd
    const parts = token.toString('utf8').split('\0');
    if (parts.length !== 3) throw new SaslAuthenticationError('Invalid SASL/PLAIN response: expected 3 tokens');
    const [authzid, username, password] = parts;
    if (username === '') throw new SaslAuthenticationError('Authentication failed: username not specified');
    if (password === '') throw new SaslAuthenticationError('Authentication failed: password not specified');
    const expected = this.users.get(username);
    if (expected === undefined || !samePassword(password, expected)) throw new SaslAuthenticationError('Authentication failed: Invalid username or password');
    if (authzid !== '' && authzid !== username) {
      throw new SaslAuthenticationError('Authentication failed: Client requested an authorization id that is different from username');
    }
    this.complete = true;
    this.principal = userPrincipal(username);
    return Buffer.alloc(0);
  }
}
