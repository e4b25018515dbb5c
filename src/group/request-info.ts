// What the coordinator records about a client: its client id and host (Kafka shows "/<address>").
import type { RequestContext } from '../server/request-context.js';

export function clientHost(ctx: RequestContext): string {
  // The connection's logger carries "address:port" of the peer; the context has no other way to it.
  const bound = (ctx.log as { bindings?: () => Record<string, unknown> }).bindings?.().client;
  if (typeof bound !== 'string') return '';
  const i = bound.lastIndexOf(':');
  return '/' + (i > 0 ? bound.slice(0, i) : bound);
}

export function clientId(ctx: RequestContext): string {
  return ctx.header.clientId ?? '';
}
