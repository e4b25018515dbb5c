// AlterUserScramCredentials: v0 (KIP-554). Deletes and upserts SCRAM credentials, one result per user, with
// Kafka's checks (src/security/scram-credential-admin.ts); persisted before the answer (the data dir's
// krill-scram-credentials.json on a single broker, ZooKeeper's /config/users/<user> in a cluster).
import { defineHandler } from './registry.js';
import { alterScramCredentials } from '../security/scram-credential-admin.js';
import type { AlterUserScramCredentialsResponse } from '../../protocol/messages/51-alter-user-scram-credentials.js';

export default defineHandler({
  apiKey: 51,
  minVersion: 0,
  maxVersion: 0,
  async handle({ scramCredentials }, req): Promise<AlterUserScramCredentialsResponse> {
    return { throttleTimeMs: 0, results: await alterScramCredentials(scramCredentials, req.deletions, req.upsertions) };
  },
  // As Kafka's: a refused request (CLUSTER_AUTHORIZATION_FAILED) answers each user it names once with the code.
  errorResponse(req, code): AlterUserScramCredentialsResponse {
    const users = [...new Set([...req.deletions, ...req.upsertions].map((e) => e.name))];
    return { throttleTimeMs: 0, results: users.map((user) => ({ user, errorCode: code, errorMessage: null })) };
  },
});
