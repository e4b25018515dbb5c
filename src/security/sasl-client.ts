// The client side of a SASL login, for broker-to-broker connections (sasl.mechanism.inter.broker.protocol
// with the inter-broker listener's JAAS username and password): SaslHandshake v1, then the mechanism's
// tokens in SaslAuthenticate, as Kafka's SaslClientAuthenticator. PLAIN only: SCRAM credentials are not
// shared between brokers by krill yet, so a broker could not check another's SCRAM login.
import { ErrorCode, errorName } from '../../protocol/errors.js';

export interface SaslClientLogin {
  mechanism: 'PLAIN';
  username: string;
  password: string;
}

/** The two requests a login sends, on the connection being opened (ahead of anything queued on it). */
export interface SaslRequests {
  handshake(mechanism: string): Promise<{ errorCode: number; mechanisms: string[] }>;
  authenticate(token: Buffer): Promise<{ errorCode: number; errorMessage: string | null }>;
}

/** Logs in; rejects with an Error saying why the peer refused. */
export async function saslLogin(login: SaslClientLogin, send: SaslRequests): Promise<void> {
  const hs = await send.handshake(login.mechanism);
  if (hs.errorCode !== ErrorCode.NONE) {
    throw new Error(`SASL mechanism ${login.mechanism} refused (${errorName(hs.errorCode)}); the peer offers ${hs.mechanisms.join(', ')}`);
  }
  const auth = await send.authenticate(Buffer.from(`\0${login.username}\0${login.password}`, 'utf8'));
  if (auth.errorCode !== ErrorCode.NONE) throw new Error(`SASL login as ${login.username} failed: ${auth.errorMessage ?? errorName(auth.errorCode)}`);
}
