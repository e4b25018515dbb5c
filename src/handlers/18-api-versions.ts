// ApiVersions: v0-4. The list comes from the handler registry, so krill advertises exactly what it serves.
// An unsupported request version is answered at v0 with UNSUPPORTED_VERSION (KIP-511): see connection.ts.
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from './registry.js';
import type { ApiVersionsResponse } from '../../protocol/messages/18-api-versions.js';

/** What KIP-511 allows as a client's software name and version; Kafka refuses others with INVALID_REQUEST. */
const SOFTWARE_NAME = /^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$/;

export default defineHandler({
  apiKey: 18,
  minVersion: 0,
  maxVersion: 4,
  handle({ apiVersions, apiVersion }, req): ApiVersionsResponse {
    if (apiVersion >= 3 && !(SOFTWARE_NAME.test(req.clientSoftwareName) && SOFTWARE_NAME.test(req.clientSoftwareVersion))) {
      return { errorCode: ErrorCode.INVALID_REQUEST, apiKeys: [], throttleTimeMs: 0 };
    }
    return { errorCode: ErrorCode.NONE, apiKeys: apiVersions(), throttleTimeMs: 0 };
  },
});
