// The server side of one SASL mechanism's exchange, as javax.security.sasl.SaslServer is to Kafka: it is
// given the client's tokens one at a time and answers each with a challenge until it is complete.
import type { KafkaPrincipal } from './session.js';

export interface SaslServer {
  readonly mechanism: string;
  /** The next challenge for the client's `token`; throws SaslAuthenticationError when the login fails. */
  evaluate(token: Buffer): Buffer;
  /** The exchange is over and the client authenticated. */
  readonly complete: boolean;
  /** The authenticated principal, once complete. */
  readonly principal: KafkaPrincipal | null;
  /**
   * When the credential itself stops being valid (an OAuth token's exp), in ms since the epoch, or null;
   * the session lifetime is the shorter of this and connections.max.reauth.ms (KIP-368).
   */
  readonly credentialExpiresAt: number | null;
}

/** A failed login: its message goes back to the client in SaslAuthenticate's error_message. */
export class SaslAuthenticationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SaslAuthenticationError';
  }
}

export const userPrincipal = (name: string): KafkaPrincipal => Object.freeze({ type: 'User', name });
