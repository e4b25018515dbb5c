// SaslAuthenticate: v0-2. Carries one SASL token of the exchange SaslHandshake v1 began; v1+ returns
// session_lifetime_ms (KIP-368: the client re-authenticates before it, or the connection is closed).
// Behaviour: a failed login is SASL_AUTHENTICATION_FAILED with the mechanism's message, answered after
// connection.failed.authentication.delay.ms (a connection's first login only, as Kafka's KIP-306) and the
// connection then closed. Out of turn (PLAINTEXT and SSL listeners, an authenticated connection) it is
// ILLEGAL_SASL_STATE, as Kafka's KafkaApis answers it.
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from './registry.js';
import { SaslAuthenticationError } from '../security/sasl-server.js';
import type { SaslAuthenticateResponse } from '../../protocol/messages/36-sasl-authenticate.js';
import type { RequestContext } from '../server/request-context.js';

function afterDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (ms <= 0 || signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

async function failedLogin(ctx: RequestContext, err: SaslAuthenticationError, delayMs: number): Promise<SaslAuthenticateResponse> {
  ctx.log.info({ reason: err.message, client: ctx.clientAddress }, 'SASL authentication failed');
  await afterDelay(delayMs, ctx.signal);
  ctx.closeAfterResponse(`SASL authentication failed: ${err.message}`);
  return { errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED, errorMessage: err.message, authBytes: Buffer.alloc(0), sessionLifetimeMs: 0n };
}

export default defineHandler({
  apiKey: 36,
  minVersion: 0,
  maxVersion: 2,
  handle(ctx, req): SaslAuthenticateResponse | Promise<SaslAuthenticateResponse> {
    const { sasl } = ctx;
    try {
      const result = sasl?.authenticate(req.authBytes, ctx.apiVersion) ?? null;
      if (result === null) {
        return {
          errorCode: ErrorCode.ILLEGAL_SASL_STATE,
          errorMessage: 'SaslAuthenticate request received after successful authentication',
          authBytes: Buffer.alloc(0),
          sessionLifetimeMs: 0n,
        };
      }
      return { errorCode: ErrorCode.NONE, errorMessage: null, authBytes: result.authBytes, sessionLifetimeMs: BigInt(result.sessionLifetimeMs) };
    } catch (err) {
      if (!(err instanceof SaslAuthenticationError)) throw err;
      return failedLogin(ctx, err, sasl!.failureDelayMs);
    }
  },
});
