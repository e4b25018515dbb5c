// SaslHandshake (key 17): pick a SASL mechanism. After v0 raw SASL tokens follow on the socket; after v1 they
// travel in SaslAuthenticate requests. Never flexible: old clients negotiate this version badly (KAFKA-9577).
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const SaslHandshake = {
  apiKey: 17,
  name: 'SaslHandshake',
  validVersions: '0-1',
  flexibleVersions: 'none',
  request: [{ name: 'mechanism', type: 'string', versions: '0+' }],
  response: [
    { name: 'errorCode', type: 'int16', versions: '0+' },
    { name: 'mechanisms', type: '[]string', versions: '0+' },
  ],
} as const satisfies MessageDef;

export type SaslHandshakeRequest = RequestOf<typeof SaslHandshake>;
export type SaslHandshakeResponse = ResponseOf<typeof SaslHandshake>;
