// CreateAcls: v0-3. Each creation is checked as Kafka checks it (known codes, LITERAL or PREFIXED, a
// principal of the form type:name, a CLUSTER resource named kafka-cluster, no empty name) and fails alone
// with INVALID_REQUEST; ACLs on delegation tokens and users, which krill has none of, are refused the same
// way. The sound ones are stored together. Without an authorizer every creation is SECURITY_DISABLED.
import { ErrorCode, errorName } from '../../protocol/errors.js';
import { defineHandler } from './registry.js';
import { bindingProblem, type AclBinding } from '../security/acl.js';
import { NO_AUTHORIZER } from './acl-bindings.js';
import type { CreateAclsResponse } from '../../protocol/messages/30-create-acls.js';

export default defineHandler({
  apiKey: 30,
  minVersion: 0,
  maxVersion: 3,
  async handle({ authorizer }, req): Promise<CreateAclsResponse> {
    if (!authorizer) return this.errorResponse!(req, ErrorCode.SECURITY_DISABLED, 0);
    const bindings = req.creations.map((c): AclBinding => ({
      resourceType: c.resourceType,
      resourceName: c.resourceName,
      patternType: c.resourcePatternType,
      principal: c.principal,
      host: c.host,
      operation: c.operation,
      permissionType: c.permissionType,
    }));
    const problems = bindings.map(bindingProblem);
    await authorizer.create(bindings.filter((_, i) => problems[i] === null));
    return {
      throttleTimeMs: 0,
      results: problems.map((p) =>
        p === null ? { errorCode: ErrorCode.NONE, errorMessage: null } : { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: p },
      ),
    };
  },
  // One result per creation, as Kafka's getErrorResponse: the response names no resource to mirror.
  errorResponse(req, code): CreateAclsResponse {
    const errorMessage = code === ErrorCode.SECURITY_DISABLED ? NO_AUTHORIZER : errorName(code);
    return { throttleTimeMs: 0, results: req.creations.map(() => ({ errorCode: code, errorMessage })) };
  },
});
