// DescribeAcls: v0-3. The ACLs matching the filter, grouped by resource pattern. A filter with an UNKNOWN
// code is INVALID_REQUEST; without an authorizer, SECURITY_DISABLED, as Kafka answers. Who may ask (DESCRIBE
// on the cluster) is checked before the handler, in src/security/request-authorization.ts.
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from './registry.js';
import { filterProblem } from '../security/acl.js';
import { NO_AUTHORIZER, byResource, filterOf } from './acl-bindings.js';
import type { DescribeAclsResponse } from '../../protocol/messages/29-describe-acls.js';

const refused = (errorCode: number, errorMessage: string): DescribeAclsResponse => ({ throttleTimeMs: 0, errorCode, errorMessage, resources: [] });

export default defineHandler({
  apiKey: 29,
  minVersion: 0,
  maxVersion: 3,
  handle({ authorizer }, req): DescribeAclsResponse {
    if (!authorizer) return refused(ErrorCode.SECURITY_DISABLED, NO_AUTHORIZER);
    const filter = filterOf(req);
    const problem = filterProblem(filter);
    if (problem) return refused(ErrorCode.INVALID_REQUEST, problem);
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, resources: byResource(authorizer.describe(filter)) };
  },
});
