// The server side of SCRAM-SHA-256 and SCRAM-SHA-512 (RFC 5802 §5, RFC 7677), as Kafka's ScramSaslServer:
// client-first (n,,n=user,r=nonce), server-first (r,s,i), client-final (c,r,p), server-final (v). The
// client proves it knows SaltedPassword; the broker checks H(proof XOR ClientSignature) against StoredKey
// and proves itself back with ServerSignature, so neither side sends anything replayable.
import { randomBytes } from 'node:crypto';
import { SaslAuthenticationError, userPrincipal, type SaslServer } from './sasl-server.js';
import type { KafkaPrincipal } from './session.js';
import { SCRAM_MECHANISMS, hash, hmac, sameBytes, xor, type ScramCredential, type ScramMechanism } from './scram.js';

/** A user's credential for a mechanism, or undefined when there is none. */
export type ScramCredentialLookup = (user: string, mechanism: ScramMechanism) => ScramCredential | undefined;

const CLIENT_FIRST = /^([ny]),(?:a=([^,]*))?,((?:m=[^,]*,)?n=([^,]*),r=([\x21-\x2b\x2d-\x7e]+)((?:,[A-Za-z]+=[^,]*)*))$/;
const CLIENT_FINAL = /^(c=([A-Za-z0-9+/=]*),r=([\x21-\x2b\x2d-\x7e]+)(?:,[A-Za-z]+=[^,]*)*),p=([A-Za-z0-9+/=]+)$/;

/** RFC 5802's saslname: ',' and '=' arrive as =2C and =3D; any other '=' is malformed. */
function decodeSaslName(name: string): string | null {
  if (/=(?!2C|3D)/.test(name)) return null;
  return name.replace(/=2C/g, ',').replace(/=3D/g, '=');
}

export class ScramSaslServer implements SaslServer {
  readonly credentialExpiresAt = null;
  complete = false;
  principal: KafkaPrincipal | null = null;
  private state: 'first' | 'final' | 'done' = 'first';
  private username = '';
  private credential: ScramCredential | undefined;
  private gs2Header = '';
  private nonce = '';
  private clientFirstBare = '';
  private serverFirst = '';

  constructor(
    readonly mechanism: ScramMechanism,
    private readonly lookup: ScramCredentialLookup,
  ) {}

  private invalid(): SaslAuthenticationError {
    this.state = 'done';
    return new SaslAuthenticationError(`Authentication failed during authentication due to invalid credentials with SASL mechanism ${this.mechanism}`);
  }

  evaluate(token: Buffer): Buffer {
    const text = token.toString('utf8');
    if (this.state === 'first') return this.clientFirst(text);
    if (this.state === 'final') return this.clientFinal(text);
    throw new SaslAuthenticationError(`${this.mechanism}: unexpected message after the exchange ended`);
  }

  private clientFirst(text: string): Buffer {
    const m = CLIENT_FIRST.exec(text);
    if (!m) {
      this.state = 'done';
      throw new SaslAuthenticationError(`${this.mechanism}: invalid client-first message`);
    }
    const [, , authzid, bare, rawName, clientNonce, extensions] = m;
    const username = decodeSaslName(rawName);
    if (username === null || username === '') throw this.invalid();
    if (/(^|,)tokenauth=/.test(extensions)) {
      this.state = 'done';
      throw new SaslAuthenticationError('Authentication failed: delegation tokens are not supported by krill');
    }
    if (authzid !== undefined && authzid !== '' && decodeSaslName(authzid) !== username) {
      this.state = 'done';
      throw new SaslAuthenticationError('Authentication failed: Client requested an authorization id that is different from username');
    }
    const credential = this.lookup(username, this.mechanism);
    if (!credential || credential.iterations < SCRAM_MECHANISMS[this.mechanism].minIterations) throw this.invalid();
    this.username = username;
    this.credential = credential;
    this.gs2Header = text.slice(0, text.length - bare.length);
    this.clientFirstBare = bare;
    this.nonce = clientNonce + randomBytes(18).toString('base64').replace(/\//g, '-').replace(/\+/g, '_');
    this.serverFirst = `r=${this.nonce},s=${credential.salt.toString('base64')},i=${credential.iterations}`;
    this.state = 'final';
    return Buffer.from(this.serverFirst, 'utf8');
  }

  private clientFinal(text: string): Buffer {
    const m = CLIENT_FINAL.exec(text);
    if (!m) {
      this.state = 'done';
      throw new SaslAuthenticationError(`${this.mechanism}: invalid client-final message`);
    }
    const [, withoutProof, channelBinding, nonce, proof] = m;
    // endsWith, as Kafka checks it: librdkafka sends its own nonce again in front of the server's.
    if (!nonce.endsWith(this.nonce)) {
      this.state = 'done';
      throw new SaslAuthenticationError(`${this.mechanism}: invalid client nonce in the final client message`);
    }
    if (Buffer.from(channelBinding, 'base64').toString('utf8') !== this.gs2Header) throw this.invalid();
    const credential = this.credential!;
    const authMessage = `${this.clientFirstBare},${this.serverFirst},${withoutProof}`;
    const clientSignature = hmac(this.mechanism, credential.storedKey, authMessage);
    const clientProof = Buffer.from(proof, 'base64');
    if (clientProof.length !== clientSignature.length) throw this.invalid();
    const clientKey = xor(clientProof, clientSignature);
    if (!sameBytes(hash(this.mechanism, clientKey), credential.storedKey)) throw this.invalid();
    const serverSignature = hmac(this.mechanism, credential.serverKey, authMessage);
    this.state = 'done';
    this.complete = true;
    this.principal = userPrincipal(this.username);
    return Buffer.from(`v=${serverSignature.toString('base64')}`, 'utf8');
  }
}
