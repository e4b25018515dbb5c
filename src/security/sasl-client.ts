// The client side of a SASL login, for broker-to-broker connections (sasl.mechanism.inter.broker.protocol
// with the inter-broker listener's JAAS username and password): SaslHandshake v1, then the mechanism's
// tokens in SaslAuthenticate, as Kafka's SaslClientAuthenticator. PLAIN, or SCRAM (scram-client.ts): a
// cluster's SCRAM credentials are in ZooKeeper, so every broker can check another's login.
import { ErrorCode, errorName } from '../../protocol/errors.js';
import type { ScramMechanism } from './scram.js';
import { scramLogin } from './scram-client.js';

export interface SaslClientLogin {
  mechanism: 'PLAIN' | ScramMechanism;
  username: string;
  password: string;
}

/** The two requests a login sends, on the connection being opened (ahead of anything queued on it). */
export interface SaslRequests {
  handshake(mechanism: string): Promise<{ errorCode: number; mechanisms: string[] }>;
  authenticate(token: Buffer): Promise<{ errorCode: number; errorMessage: string | null; authBytes: Buffer }>;
}

/** Logs in; rejects with an Error saying why the peer refused. */
export async function saslLogin(login: SaslClientLogin, send: SaslRequests): Promise<void> {
  const hs = await send.handshake(login.mechanism);
  if (hs.errorCode !== ErrorCode.NONE) {
    throw new Error(`SASL mechanism ${login.mechanism} refused (${errorName(hs.errorCode)}); the peer offers ${hs.mechanisms.join(', ')}`);
  }
  const exchange = async (token: Buffer): Promise<Buffer> => {
    const auth = await send.authenticate(token);
    if (auth.errorCode !== ErrorCode.NONE) throw new Error(`SASL login as ${login.username} failed: ${auth.errorMessage ?? errorName(auth.errorCode)}`);
    return auth.authBytes;
  };
  if (login.mechanism === 'PLAIN') await exchange(Buffer.from(`\0${login.username}\0${login.password}`, 'utf8'));
  else await scramLogin(login.mechanism, login.username, login.password, exchange);
}
