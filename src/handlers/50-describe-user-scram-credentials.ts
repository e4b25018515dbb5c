// DescribeUserScramCredentials: v0 (KIP-554). The mechanisms and iteration counts of the named users, or
// of every user when none is named; per-user errors as Kafka's (src/security/scram-credential-admin.ts).
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from './registry.js';
import { describeScramCredentials } from '../security/scram-credential-admin.js';
import type { DescribeUserScramCredentialsResponse } from '../../protocol/messages/50-describe-user-scram-credentials.js';

export default defineHandler({
  apiKey: 50,
  minVersion: 0,
  maxVersion: 0,
  handle({ scramCredentials }, req): DescribeUserScramCredentialsResponse {
    const users = req.users === null ? null : req.users.map((u) => u.name);
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, results: describeScramCredentials(scramCredentials, users) };
  },
});
