// JoinGroup: v0-9.
// Behaviour: long-polling — the answer comes when the rebalance completes (every known member rejoined,
// or the rebalance timeout passed). The leader (first member) gets every member's metadata for the chosen
// protocol; followers get an empty list. See src/group/rebalance-protocol.ts for the state machine.
// Version notes: v0 has no rebalance timeout (the session timeout is used); v4+ makes a new dynamic member
// rejoin with a generated id (MEMBER_ID_REQUIRED, KIP-394); v5+ static membership (KIP-345); v7+ returns
// the protocol type; v8 a reason (KIP-800, only logged); v9 skipAssignment, always false here.
import { defineHandler } from './registry.js';
import type { JoinGroupResponse } from '../../protocol/messages/11-join-group.js';
import { clientHost, clientId } from '../group/request-info.js';

export default defineHandler({
  apiKey: 11,
  minVersion: 0,
  maxVersion: 9,
  async handle(ctx, req): Promise<JoinGroupResponse> {
    const { groups, apiVersion } = ctx;
    const rebalanceTimeoutMs = apiVersion >= 1 && req.rebalanceTimeoutMs >= 0 ? req.rebalanceTimeoutMs : req.sessionTimeoutMs;
    const r = await groups.joinGroup({
      groupId: req.groupId,
      memberId: req.memberId,
      groupInstanceId: req.groupInstanceId ?? null,
      protocolType: req.protocolType,
      protocols: req.protocols.map((p) => ({ name: p.name, metadata: Buffer.from(p.metadata) })),
      sessionTimeoutMs: req.sessionTimeoutMs,
      rebalanceTimeoutMs,
      clientId: clientId(ctx.header.clientId),
      clientHost: clientHost(ctx.clientAddress),
      requireKnownMemberId: apiVersion >= 4,
    });
    return {
      throttleTimeMs: 0,
      errorCode: r.errorCode,
      generationId: r.generationId,
      protocolType: r.protocolType,
      protocolName: apiVersion >= 7 ? r.protocolName : (r.protocolName ?? ''),
      leader: r.leader,
      skipAssignment: false,
      memberId: r.memberId,
      members: r.members,
    };
  },
  errorResponse(req, code, version): JoinGroupResponse {
    return {
      throttleTimeMs: 0,
      errorCode: code,
      generationId: -1,
      protocolType: null,
      protocolName: version >= 7 ? null : '',
      leader: '',
      skipAssignment: false,
      memberId: req.memberId ?? '',
      members: [],
    };
  },
});
