// AlterUserScramCredentials (key 51): delete and upsert users' SCRAM credentials (KIP-554). The client
// sends the salt and SaltedPassword, never the password; the broker keeps StoredKey and ServerKey.
import type { MessageDef, RequestOf, ResponseOf } from '../schema.js';

export const AlterUserScramCredentials = {
  apiKey: 51,
  name: 'AlterUserScramCredentials',
  validVersions: '0',
  flexibleVersions: '0+',
  request: [
    {
      name: 'deletions',
      type: '[]ScramCredentialDeletion',
      versions: '0+',
      fields: [
        { name: 'name', type: 'string', versions: '0+' },
        { name: 'mechanism', type: 'int8', versions: '0+' },
      ],
    },
    {
      name: 'upsertions',
      type: '[]ScramCredentialUpsertion',
      versions: '0+',
      fields: [
        { name: 'name', type: 'string', versions: '0+' },
        { name: 'mechanism', type: 'int8', versions: '0+' },
        { name: 'iterations', type: 'int32', versions: '0+' },
        { name: 'salt', type: 'bytes', versions: '0+' },
        { name: 'saltedPassword', type: 'bytes', versions: '0+' },
      ],
    },
  ],
  response: [
    { name: 'throttleTimeMs', type: 'int32', versions: '0+' },
    {
      name: 'results',
      type: '[]AlterUserScramCredentialsResult',
      versions: '0+',
      fields: [
        { name: 'user', type: 'string', versions: '0+' },
        { name: 'errorCode', type: 'int16', versions: '0+' },
        { name: 'errorMessage', type: 'string', versions: '0+', nullableVersions: '0+' },
      ],
    },
  ],
} as const satisfies MessageDef;

export type AlterUserScramCredentialsRequest = RequestOf<typeof AlterUserScramCredentials>;
export type AlterUserScramCredentialsResponse = ResponseOf<typeof AlterUserScramCredentials>;
