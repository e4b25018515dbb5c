// ApiVersions: v0-4. The list comes from the handler registry, so krill advertises exactly what it serves.
// An unsupported request version is answered at v0 with UNSUPPORTED_VERSION (KIP-511): see connection.ts.
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from './registry.js';
import type { ApiVersionsResponse } from '../../protocol/messages/18-api-versions.js';

export default defineHandler({
  apiKey: 18,
  minVersion: 0,
  maxVersion: 4,
  handle({ apiVersions }): ApiVersionsResponse {
    return { errorCode: ErrorCode.NONE, apiKeys: apiVersions(), throttleTimeMs: 0 };
  },
});
