// One connection's SASL state on a SASL_PLAINTEXT or SASL_SSL listener, as Kafka's SaslServerAuthenticator
// keeps it: which requests the connection may send now, the mechanism's exchange in progress, and the
// session's expiry (KIP-368). A connection on another listener has none, and pays nothing for it.
//
//   handshake      ApiVersions and SaslHandshake only
//   authenticate   after SaslHandshake v1: SaslAuthenticate only
//   raw            after SaslHandshake v0: the next frames are bare SASL tokens, without a request header
//   authenticated  every API; a SaslHandshake starts a re-authentication when the client can do one
//
// Any other request is Kafka's IllegalSaslStateException: the connection is closed without an answer.
import { API_KEYS } from '../../protocol/messages/index.js';
import { ErrorCode } from '../../protocol/errors.js';
import { SaslAuthenticationError, type SaslServer } from './sasl-server.js';
import { principalString, type Session } from './session.js';

/** What a SASL listener offers: its mechanisms, a server for each, and its session rules. */
export interface SaslListener {
  /** sasl.enabled.mechanisms of the listener, in the order configured. */
  readonly mechanisms: readonly string[];
  /** A fresh exchange for an enabled mechanism. */
  newServer(mechanism: string): SaslServer;
  /** connections.max.reauth.ms of a mechanism; 0: sessions do not expire (unless their credential does). */
  maxReauthMs(mechanism: string): number;
  /** connection.failed.authentication.delay.ms: how long a failed login waits before its answer and the close. */
  readonly failedAuthenticationDelayMs: number;
}

type State = 'handshake' | 'authenticate' | 'raw' | 'authenticated';

export interface HandshakeResult {
  errorCode: number;
  mechanisms: string[];
  /** Close the connection once answered (an unsupported mechanism, as Kafka does). */
  close: boolean;
}

export interface AuthenticateResult {
  authBytes: Buffer;
  /** KIP-368's session_lifetime_ms: 0 once the exchange is not complete or the session does not expire. */
  sessionLifetimeMs: number;
}

const API_NAMES = new Map<number, string>(Object.entries(API_KEYS).map(([name, key]) => [key, name]));

export class SaslAuthenticator {
  private state: State = 'handshake';
  private server: SaslServer | null = null;
  /** Date.now() past which the session has expired, or null when it never does. */
  private expiresAt: number | null = null;
  /** The client authenticated with SaslAuthenticate v1+, so it knows to re-authenticate (KIP-368). */
  private reauthenticates = false;
  private successes = 0;

  constructor(
    private readonly listener: SaslListener,
    private readonly session: Session,
    private readonly now: () => number = Date.now,
  ) {}

  /** Logged in, and not re-authenticating. */
  get authenticated(): boolean {
    return this.state === 'authenticated';
  }

  /** The next frame is a bare token (after SaslHandshake v0). */
  get expectsRawToken(): boolean {
    return this.state === 'raw';
  }

  /** Whether a failed login is delayed: only a connection's first, as Kafka delays it (KIP-306). */
  get failureDelayMs(): number {
    return this.successes === 0 ? this.listener.failedAuthenticationDelayMs : 0;
  }

  /** Null when a request of `apiKey` may be served now; otherwise why the connection is closed instead. */
  refusal(apiKey: number): string | null {
    switch (this.state) {
      case 'authenticated':
        if (this.expiresAt !== null && apiKey !== API_KEYS.SaslHandshake && this.now() >= this.expiresAt) {
          return `SASL session of ${principalString(this.session.principal)} expired and was not re-authenticated`;
        }
        return null;
      case 'handshake':
        return apiKey === API_KEYS.ApiVersions || apiKey === API_KEYS.SaslHandshake ? null : `unexpected ${this.apiName(apiKey)} request during SASL handshake`;
      case 'authenticate':
        return apiKey === API_KEYS.SaslAuthenticate ? null : `unexpected ${this.apiName(apiKey)} request during SASL authentication`;
      case 'raw':
        return 'unexpected Kafka request where a SASL token was due';
    }
  }

  private apiName(apiKey: number): string {
    return API_NAMES.get(apiKey) ?? `API key ${apiKey}`;
  }

  /** SaslHandshake; null when the connection is authenticated and cannot re-authenticate (the handler's ILLEGAL_SASL_STATE). */
  handshake(mechanism: string, version: number): HandshakeResult | null {
    const mechanisms = [...this.listener.mechanisms];
    if (this.state === 'authenticated') {
      if (!this.reauthenticates || version === 0) return null;
      // A re-authentication keeps its mechanism (KIP-368), and later its principal.
      if (mechanism !== this.server?.mechanism) return { errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM, mechanisms: [this.server!.mechanism], close: true };
    } else if (this.state !== 'handshake') return null;
    if (!mechanisms.includes(mechanism)) return { errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM, mechanisms, close: true };
    this.server = this.listener.newServer(mechanism);
    this.state = version === 0 ? 'raw' : 'authenticate';
    return { errorCode: ErrorCode.NONE, mechanisms, close: false };
  }

  /** SaslAuthenticate's token (or a bare token after v0); throws SaslAuthenticationError on a failed login. */
  authenticate(token: Buffer, version: number): AuthenticateResult | null {
    if (this.state !== 'authenticate' && this.state !== 'raw') return null;
    const server = this.server!;
    let challenge: Buffer;
    try {
      challenge = server.evaluate(token);
    } catch (err) {
      this.state = 'handshake';
      throw err;
    }
    if (!server.complete) return { authBytes: challenge, sessionLifetimeMs: 0 };
    const principal = server.principal!;
    if (this.successes > 0 && principalString(principal) !== principalString(this.session.principal)) {
      throw new SaslAuthenticationError(
        `Cannot change principals during re-authentication from ${principalString(this.session.principal)} to ${principalString(principal)}`,
      );
    }
    const lifetime = this.sessionLifetime(server);
    this.expiresAt = lifetime === null ? null : this.now() + lifetime;
    this.session.principal = principal;
    this.reauthenticates = this.state === 'authenticate' && version >= 1;
    this.state = 'authenticated';
    this.successes++;
    return { authBytes: challenge, sessionLifetimeMs: lifetime ?? 0 };
  }

  /** Kafka's rule: the shorter of connections.max.reauth.ms and the credential's remaining life; null: no expiry. */
  private sessionLifetime(server: SaslServer): number | null {
    const configured = this.listener.maxReauthMs(server.mechanism);
    const max = configured > 0 ? configured : null;
    const credential = server.credentialExpiresAt === null ? null : Math.max(0, server.credentialExpiresAt - this.now());
    if (max === null) return credential;
    return credential === null ? max : Math.min(max, credential);
  }
}

export { SaslAuthenticationError };
