// SaslAuthenticate (key 36): carry SASL tokens inside Kafka frames after SaslHandshake v1.
// v1 returns the session lifetime (KIP-368), v2 goes flexible.
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const SaslAuthenticate = {
  apiKey: 36,
  name: 'SaslAuthenticate',
  validVersions: '0-2',
  flexibleVersions: '2+',
  request: [{ name: 'authBytes', type: 'bytes', versions: '0+' }],
  response: [
    { name: 'errorCode', type: 'int16', versions: '0+' },
    { name: 'errorMessage', type: 'string', versions: '0+', nullableVersions: '0+' },
    { name: 'authBytes', type: 'bytes', versions: '0+' },
    { name: 'sessionLifetimeMs', type: 'int64', versions: '1+', default: 0 },
  ],
} as const satisfies MessageDef;

export type SaslAuthenticateRequest = RequestOf<typeof SaslAuthenticate>;
export type SaslAuthenticateResponse = ResponseOf<typeof SaslAuthenticate>;
