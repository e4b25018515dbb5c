// AlterUserScramCredentials and DescribeUserScramCredentials with Kafka's checks and codes, and a SCRAM
// login with a credential made by them (over the SCRAM exchange of sasl-scram.ts, driven by kafkajs in
// compat/kafkajs/sasl.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withBroker } from '../helpers.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { RunningBroker } from '../../src/index.js';
import type { TestClient } from '../server/client.js';
import { plainClient, saslConfig, upsertion } from './sasl-client.js';

describe('SCRAM credentials', () => {
  let broker: RunningBroker;
  let admin: TestClient;
  beforeAll(async () => {
    broker = await withBroker({ storage: 'memory', config: saslConfig() });
    admin = await plainClient(broker.port);
  });
  afterAll(async () => {
    admin?.close();
    await broker?.close();
  });
  const alter = (deletions: object[], upsertions: object[]) => admin.request(51, 0, { deletions, upsertions });
  const describeUsers = (users: string[] | null) => admin.request(50, 0, { users: users === null ? null : users.map((name) => ({ name })) });

  it('are upserted, described by mechanism and iterations, and deleted', async () => {
    expect((await alter([], [upsertion('bob', 'SCRAM-SHA-256', 'x'), upsertion('carol', 'SCRAM-SHA-512', 'y', 10000)])).results).toEqual([
      { user: 'bob', errorCode: 0, errorMessage: null },
      { user: 'carol', errorCode: 0, errorMessage: null },
    ]);
    expect((await describeUsers(null)).results).toEqual([
      { user: 'bob', errorCode: 0, errorMessage: null, credentialInfos: [{ mechanism: 1, iterations: 4096 }] },
      { user: 'carol', errorCode: 0, errorMessage: null, credentialInfos: [{ mechanism: 2, iterations: 10000 }] },
    ]);
    expect((await alter([{ name: 'bob', mechanism: 1 }], [])).results).toEqual([{ user: 'bob', errorCode: 0, errorMessage: null }]);
    expect((await describeUsers(['bob'])).results).toEqual([
      { user: 'bob', errorCode: ErrorCode.RESOURCE_NOT_FOUND, errorMessage: 'Attempt to describe a user credential that does not exist', credentialInfos: [] },
    ]);
  });

  it('refuses what Kafka refuses, each with its code, and applies the rest', async () => {
    const results = (
      await alter(
        [{ name: 'nobody', mechanism: 1 }],
        [
          upsertion('', 'SCRAM-SHA-256', 'x'),
          upsertion('few', 'SCRAM-SHA-256', 'x', 4095),
          upsertion('many', 'SCRAM-SHA-512', 'x', 16385),
          { ...upsertion('unknown', 'SCRAM-SHA-256', 'x'), mechanism: 3 },
          upsertion('twice', 'SCRAM-SHA-256', 'x'),
          upsertion('twice', 'SCRAM-SHA-256', 'x'),
          upsertion('both', 'SCRAM-SHA-256', 'x'),
          upsertion('both', 'SCRAM-SHA-512', 'x'),
          upsertion('half', 'SCRAM-SHA-256', 'x'),
          upsertion('half', 'SCRAM-SHA-512', 'x', 100),
          upsertion('fine', 'SCRAM-SHA-256', 'x', 16384),
        ],
      )
    ).results as { user: string; errorCode: number; errorMessage: string }[];
    expect(results.map((r) => [r.user, r.errorCode, r.errorMessage])).toEqual([
      ['nobody', ErrorCode.RESOURCE_NOT_FOUND, 'Attempt to delete a user credential that does not exist'],
      ['', ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Username must not be empty'],
      ['few', ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Too few iterations'],
      ['many', ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Too many iterations'],
      ['unknown', ErrorCode.UNSUPPORTED_SASL_MECHANISM, 'Unknown SCRAM mechanism'],
      ['twice', ErrorCode.DUPLICATE_RESOURCE, 'A user credential cannot be altered twice in the same request'],
      ['both', 0, null],
      ['half', ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Too few iterations'],
      ['fine', 0, null],
    ]);
    const described = (await describeUsers(['fine', 'twice', 'fine', 'half', 'both'])).results as {
      user: string;
      errorCode: number;
      credentialInfos: unknown[];
    }[];
    expect(described.map((r) => [r.user, r.errorCode, r.credentialInfos.length])).toEqual([
      ['fine', ErrorCode.DUPLICATE_RESOURCE, 0],
      ['twice', ErrorCode.RESOURCE_NOT_FOUND, 0],
      ['half', ErrorCode.RESOURCE_NOT_FOUND, 0],
      ['both', 0, 2],
    ]);
  });
});
