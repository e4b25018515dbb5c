// SASL/OAUTHBEARER (RFC 7628) with Kafka's unsecured JWS tokens, for development: the rules and options of
// Kafka's OAuthBearerUnsecuredValidatorCallbackHandler. A token is base64url(header).base64url(claims).
// with alg "none" and no signature; its principal claim names the user, exp bounds the session, scope must
// hold every required scope. Every extension is accepted, as that handler accepts them.
//
// As in Kafka, a rejected token is not failed at once: the challenge is RFC 7628's JSON error, and the
// login fails when the client acknowledges it with a lone 0x01, carrying that JSON as the message.
import { SaslAuthenticationError, userPrincipal, type SaslServer } from './sasl-server.js';
import type { KafkaPrincipal } from './session.js';

export interface UnsecuredValidatorOptions {
  principalClaimName: string;
  scopeClaimName: string;
  requiredScope: readonly string[];
  allowableClockSkewMs: number;
}

/** The options of a listener's OAuthBearerLoginModule, with Kafka's defaults. */
export function unsecuredValidatorOptions(options: ReadonlyMap<string, string>): UnsecuredValidatorOptions {
  const skew = options.get('unsecuredValidatorAllowableClockSkewMs')?.trim() ?? '0';
  if (!/^\d+$/.test(skew)) throw new Error(`unsecuredValidatorAllowableClockSkewMs: '${skew}' is not a non-negative integer`);
  return {
    principalClaimName: options.get('unsecuredValidatorPrincipalClaimName')?.trim() || 'sub',
    scopeClaimName: options.get('unsecuredValidatorScopeClaimName')?.trim() || 'scope',
    requiredScope: (options.get('unsecuredValidatorRequiredScope') ?? '').split(/[\s,]+/).filter(Boolean),
    allowableClockSkewMs: Number(skew),
  };
}

const SEP = '\x01';
const EXTENSION_KEY = /^[A-Za-z]+$/;
const EXTENSION_VALUE = /^[\x21-\x7E \t\r\n]+$/;

interface ValidToken {
  principal: string;
  expiresAtMs: number;
}

class TokenRejected extends Error {
  constructor(
    readonly status: 'invalid_token' | 'insufficient_scope',
    message: string,
  ) {
    super(message);
  }
}

function decodeJsonPart(part: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    throw new TokenRejected('invalid_token', `the token's ${what} is not base64url-encoded JSON`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new TokenRejected('invalid_token', `the token's ${what} is not a JSON object`);
  return value as Record<string, unknown>;
}

/** OAuthBearerUnsecuredJws with OAuthBearerValidationUtils' checks, at time `nowMs`. */
export function validateUnsecuredToken(token: string, o: UnsecuredValidatorOptions, nowMs: number): ValidToken {
  const parts = token.split('.');
  if (parts.length !== 3) throw new TokenRejected('invalid_token', 'an unsecured JWS has three dot-separated parts');
  if (parts[2] !== '') throw new TokenRejected('invalid_token', 'an unsecured JWS has an empty signature');
  const header = decodeJsonPart(parts[0], 'header');
  if (header.alg !== 'none') throw new TokenRejected('invalid_token', 'an unsecured JWS must have alg "none"');
  const claims = decodeJsonPart(parts[1], 'claims');
  const principal = claims[o.principalClaimName];
  if (typeof principal !== 'string' || principal.trim() === '') {
    throw new TokenRejected('invalid_token', `the required claim '${o.principalClaimName}' is missing or not a non-empty string`);
  }
  const { exp, iat } = claims;
  if (typeof exp !== 'number') throw new TokenRejected('invalid_token', "the required claim 'exp' is missing or not a number");
  if (iat !== undefined && typeof iat !== 'number') throw new TokenRejected('invalid_token', "the claim 'iat' is not a number");
  const skew = o.allowableClockSkewMs;
  if (typeof iat === 'number' && iat * 1000 > nowMs + skew) {
    throw new TokenRejected('invalid_token', `the Issued At value (${iat} seconds) is after now (${nowMs} ms) plus the allowable clock skew (${skew} ms)`);
  }
  if (nowMs - skew >= exp * 1000) {
    throw new TokenRejected(
      'invalid_token',
      `now (${nowMs} ms) minus the allowable clock skew (${skew} ms) is on or after the Expiration Time (${exp} seconds)`,
    );
  }
  if (typeof iat === 'number' && exp <= iat)
    throw new TokenRejected('invalid_token', `the Expiration Time (${exp} seconds) is not after the Issued At time (${iat} seconds)`);
  const rawScope = claims[o.scopeClaimName];
  // As Kafka: a string claim is one scope, a list is several.
  const scope = new Set(typeof rawScope === 'string' ? [rawScope.trim()] : Array.isArray(rawScope) ? rawScope.filter((s) => typeof s === 'string') : []);
  const missing = o.requiredScope.filter((s) => !scope.has(s));
  if (missing.length > 0) throw new TokenRejected('insufficient_scope', `the token lacks the required scope ${missing.join(' ')}`);
  return { principal, expiresAtMs: exp * 1000 };
}

export class OAuthBearerSaslServer implements SaslServer {
  readonly mechanism = 'OAUTHBEARER';
  complete = false;
  principal: KafkaPrincipal | null = null;
  credentialExpiresAt: number | null = null;
  /** The JSON error sent as the challenge, once a token was rejected. */
  private rejected: string | null = null;

  constructor(
    private readonly options: UnsecuredValidatorOptions,
    private readonly now: () => number = Date.now,
  ) {}

  evaluate(response: Buffer): Buffer {
    const text = response.toString('utf8');
    if (this.rejected !== null) {
      if (text === SEP) throw new SaslAuthenticationError(this.rejected);
      throw new SaslAuthenticationError('OAUTHBEARER: expected the client to acknowledge the error');
    }
    const { authzid, auth, extensions } = parseInitialResponse(text);
    const m = /^Bearer ([\x21-\x7E]+)$/i.exec(auth);
    if (!m) throw new SaslAuthenticationError("OAUTHBEARER: the auth value is not 'Bearer <token>'");
    void extensions; // the unsecured validator accepts every extension, and krill has no use for them
    let token: ValidToken;
    try {
      token = validateUnsecuredToken(m[1], this.options, this.now());
    } catch (err) {
      if (!(err instanceof TokenRejected)) throw err;
      const scope = err.status === 'insufficient_scope' ? `,"scope":${JSON.stringify(this.options.requiredScope.join(' '))}` : '';
      this.rejected = `{"status":"${err.status}"${scope}}`;
      return Buffer.from(this.rejected, 'utf8');
    }
    if (authzid !== '' && authzid !== token.principal) {
      throw new SaslAuthenticationError(
        `Authentication failed: Client requested an authorization id (${authzid}) that is different from the token's principal name (${token.principal})`,
      );
    }
    this.complete = true;
    this.principal = userPrincipal(token.principal);
    this.credentialExpiresAt = token.expiresAtMs;
    return Buffer.alloc(0);
  }
}

/** RFC 7628 §3.1: gs2-header, then key=value pairs each ended by 0x01, then a final 0x01. */
function parseInitialResponse(text: string): { authzid: string; auth: string; extensions: Map<string, string> } {
  // eslint-disable-next-line no-control-regex -- RFC 7628's separator is the control character 0x01
  const m = /^([ny]),(?:a=([^,]*))?,\x01(.*)\x01$/s.exec(text);
  if (!m) throw new SaslAuthenticationError('OAUTHBEARER: invalid client initial response');
  const pairs = m[3].split(SEP);
  if (pairs.at(-1) !== '') throw new SaslAuthenticationError('OAUTHBEARER: invalid client initial response');
  let auth: string | undefined;
  const extensions = new Map<string, string>();
  for (const pair of pairs.slice(0, -1)) {
    const eq = pair.indexOf('=');
    const [key, value] = [pair.slice(0, eq), pair.slice(eq + 1)];
    if (eq <= 0 || !EXTENSION_KEY.test(key)) throw new SaslAuthenticationError(`OAUTHBEARER: invalid key/value pair '${pair.slice(0, 40)}'`);
    if (key === 'auth') auth = value;
    else if (!EXTENSION_VALUE.test(value)) throw new SaslAuthenticationError(`OAUTHBEARER: invalid value of extension ${key}`);
    else extensions.set(key, value);
  }
  if (auth === undefined) throw new SaslAuthenticationError('OAUTHBEARER: the client initial response has no auth value');
  return { authzid: m[2] ?? '', auth, extensions };
}
