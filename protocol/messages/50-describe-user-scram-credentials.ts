// DescribeUserScramCredentials (key 50): which SCRAM mechanisms each user has a credential for, and their
// iteration counts (never the credential itself). Null or empty users: every user (KIP-554).
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const DescribeUserScramCredentials = {
  apiKey: 50,
  name: 'DescribeUserScramCredentials',
  validVersions: '0',
  flexibleVersions: '0+',
  request: [
    {
      name: 'users',
      type: '[]UserName',
      versions: '0+',
      nullableVersions: '0+',
      fields: [{ name: 'name', type: 'string', versions: '0+' }],
    },
  ],
  response: [
    { name: 'throttleTimeMs', type: 'int32', versions: '0+' },
    { name: 'errorCode', type: 'int16', versions: '0+' },
    { name: 'errorMessage', type: 'string', versions: '0+', nullableVersions: '0+' },
    {
      name: 'results',
      type: '[]DescribeUserScramCredentialsResult',
      versions: '0+',
      fields: [
        { name: 'user', type: 'string', versions: '0+' },
        { name: 'errorCode', type: 'int16', versions: '0+' },
        { name: 'errorMessage', type: 'string', versions: '0+', nullableVersions: '0+' },
        {
          name: 'credentialInfos',
          type: '[]CredentialInfo',
          versions: '0+',
          fields: [
            { name: 'mechanism', type: 'int8', versions: '0+' },
            { name: 'iterations', type: 'int32', versions: '0+' },
          ],
        },
      ],
    },
  ],
} as const satisfies MessageDef;

export type DescribeUserScramCredentialsRequest = RequestOf<typeof DescribeUserScramCredentials>;
export type DescribeUserScramCredentialsResponse = ResponseOf<typeof DescribeUserScramCredentials>;
