// The client side of a SCRAM-SHA-256/512 login (RFC 5802, as Kafka's ScramSaslClient), for brokers logging
// in to each other: client-first, then the proof computed from the password and the salt and iterations the
// peer sent, then the peer's signature checked, so a broker also knows the peer holds the credential.
import { randomBytes } from 'node:crypto';
import { hash, hmac, saltedPassword, sameBytes, xor, type ScramMechanism } from './scram.js';

/** The two SASL round trips of a login: each sends a token and gets the peer's back (or throws why it refused). */
export type SaslExchange = (token: Buffer) => Promise<Buffer>;

/** RFC 5802's saslname: ',' and '=' escaped. */
const saslName = (user: string) => user.replace(/=/g, '=3D').replace(/,/g, '=2C');

function attributes(message: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of message.split(',')) if (part.length >= 2 && part[1] === '=') out.set(part[0], part.slice(2));
  return out;
}

export async function scramLogin(mechanism: ScramMechanism, username: string, password: string, exchange: SaslExchange): Promise<void> {
  const nonce = randomBytes(24).toString('base64url');
  const clientFirstBare = `n=${saslName(username)},r=${nonce}`;
  const serverFirst = (await exchange(Buffer.from(`n,,${clientFirstBare}`, 'utf8'))).toString('utf8');
  const first = attributes(serverFirst);
  if (first.has('e')) throw new Error(`SCRAM login as ${username} refused: ${first.get('e')}`);
  const serverNonce = first.get('r') ?? '';
  const salt = Buffer.from(first.get('s') ?? '', 'base64');
  const iterations = Number(first.get('i'));
  if (!serverNonce.startsWith(nonce) || serverNonce === nonce || salt.length === 0 || !Number.isSafeInteger(iterations) || iterations < 1) {
    throw new Error(`SCRAM login as ${username}: the peer's first message is invalid`);
  }
  const salted = saltedPassword(mechanism, password, salt, iterations);
  const withoutProof = `c=biws,r=${serverNonce}`;
  const authMessage = `${clientFirstBare},${serverFirst},${withoutProof}`;
  const clientKey = hmac(mechanism, salted, 'Client Key');
  const proof = xor(clientKey, hmac(mechanism, hash(mechanism, clientKey), authMessage));
  const serverFinal = attributes((await exchange(Buffer.from(`${withoutProof},p=${proof.toString('base64')}`, 'utf8'))).toString('utf8'));
  if (serverFinal.has('e')) throw new Error(`SCRAM login as ${username} refused: ${serverFinal.get('e')}`);
  const expected = hmac(mechanism, hmac(mechanism, salted, 'Server Key'), authMessage);
  if (!sameBytes(Buffer.from(serverFinal.get('v') ?? '', 'base64'), expected)) {
    throw new Error(`SCRAM login as ${username}: the peer's signature is wrong (it does not hold this user's credential)`);
  }
}
