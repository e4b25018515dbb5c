// SaslHandshake: v0-1. Picks the mechanism of a SASL listener's connection (src/security/sasl-authenticator.ts).
// Behaviour: the enabled mechanisms are returned; one not enabled is UNSUPPORTED_SASL_MECHANISM and the
// connection is closed, as Kafka closes it. After v0 the client sends bare SASL tokens (no request header),
// after v1 SaslAuthenticate requests. On an authenticated connection it starts a re-authentication (KIP-368)
// when the client authenticated with SaslAuthenticate v1+; otherwise, and on PLAINTEXT and SSL listeners,
// it is ILLEGAL_SASL_STATE, as Kafka's KafkaApis answers it.
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from './registry.js';
import type { SaslHandshakeResponse } from '../../protocol/messages/17-sasl-handshake.js';

export default defineHandler({
  apiKey: 17,
  minVersion: 0,
  maxVersion: 1,
  handle({ sasl, apiVersion, closeAfterResponse }, req): SaslHandshakeResponse {
    const result = sasl?.handshake(req.mechanism, apiVersion) ?? null;
    if (result === null) return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms: [] };
    if (result.close) closeAfterResponse(`SASL mechanism '${req.mechanism}' is not enabled on this listener`);
    return { errorCode: result.errorCode, mechanisms: result.mechanisms };
  },
});
