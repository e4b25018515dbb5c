// What the coordinator records about a client: its client id and host (Kafka shows "/<address>").
import type { RequestContext } from '../server/request-context.js';

export function clientHost(ctx: RequestContext): string {
  return ctx.clientAddress ? '/' + ctx.clientAddress : '';
}

export function clientId(ctx: RequestContext): string {
  return ctx.header.clientId ?? '';
}
