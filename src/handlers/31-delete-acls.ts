// DeleteAcls: v0-3. Each filter removes the ACLs it matches (an ACL two filters match is listed under
// both) and reports them; a filter with an UNKNOWN code fails alone with INVALID_REQUEST. Without an
// authorizer every filter is SECURITY_DISABLED.
import { ErrorCode, errorName } from '../../protocol/errors.js';
import { defineHandler } from './registry.js';
import { filterProblem } from '../security/acl.js';
import { NO_AUTHORIZER, filterOf } from './acl-bindings.js';
import type { DeleteAclsResponse } from '../../protocol/messages/31-delete-acls.js';

type FilterResult = DeleteAclsResponse['filterResults'][number];

const failed = (errorCode: number, errorMessage: string): FilterResult => ({ errorCode, errorMessage, matchingAcls: [] });

export default defineHandler({
  apiKey: 31,
  minVersion: 0,
  maxVersion: 3,
  async handle({ authorizer }, req): Promise<DeleteAclsResponse> {
    if (!authorizer) return this.errorResponse!(req, ErrorCode.SECURITY_DISABLED, 0);
    const filters = req.filters.map(filterOf);
    const problems = filters.map(filterProblem);
    const removed = await authorizer.delete(filters.filter((_, i) => problems[i] === null));
    let next = 0;
    return {
      throttleTimeMs: 0,
      filterResults: problems.map((p): FilterResult => {
        if (p !== null) return failed(ErrorCode.INVALID_REQUEST, p);
        return {
          errorCode: ErrorCode.NONE,
          errorMessage: null,
          matchingAcls: removed[next++].map((b) => ({ errorCode: ErrorCode.NONE, errorMessage: null, ...b })),
        };
      }),
    };
  },
  // One result per filter, as Kafka's getErrorResponse: the response names no resource to mirror.
  errorResponse(req, code): DeleteAclsResponse {
    const errorMessage = code === ErrorCode.SECURITY_DISABLED ? NO_AUTHORIZER : errorName(code);
    return { throttleTimeMs: 0, filterResults: req.filters.map(() => failed(code, errorMessage)) };
  },
});
