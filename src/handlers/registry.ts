// The handler registry: one handler per API key, each checked against its message definition.
// It also builds the ApiVersions answer, so what krill advertises is exactly what it registered.

import type { Message } from '../../protocol/codec.js';
import type { MessageDef, RequestOf, ResponseOf } from '../../protocol/schema.js';
import { parseVersions } from '../../protocol/schema.js';
import { MESSAGES_BY_KEY, type ApiKey, type MessageFor } from '../../protocol/messages/index.js';
import type { RequestContext } from '../server/request-context.js';

/** A handler as the connection calls it: any request of its API, as decoded, in; a response body out. */
export interface Handler {
  apiKey: number;
  /** Lowest version advertised. May sit below the definition's range only where `advertisedBelowRange` says so. */
  minVersion: number;
  maxVersion: number;
  def: MessageDef;
  /**
   * Returns the response body, or null when no response is sent (Produce with acks=0).
   * A thrown error becomes errorResponse(code) when the handler provides one, else the response built from
   * the definition (error-response.ts), as Kafka's getErrorResponse answers any request.
   */
  handle(ctx: RequestContext, request: Message): Message | null | Promise<Message | null>;
  errorResponse?(request: Message, code: number, version: number): Message;
  /**
   * The handler keeps no view of the request's bytes once handle() has returned synchronously (it copies
   * what it keeps), so the connection may hand it the frame in place, in the buffer the next reads reuse.
   */
  releasesRequestBytes?: boolean;
}

/**
 * A handler as written: the API key picks the definition, which types the request and the response
 * (protocol/schema.ts), so a misspelt field on either side does not compile. Handlers declare the response
 * type they return (`handle(ctx, req): FetchResponse`): TypeScript checks a returned object literal for
 * unknown names only against a declared return type, not against the one it infers from this spec.
 */
export interface HandlerSpec<K extends ApiKey> {
  apiKey: K;
  minVersion: number;
  maxVersion: number;
  /** Versions below the definition's range that are advertised but answered with an error (Produce v0-2). */
  advertisedBelowRange?: boolean;
  releasesRequestBytes?: boolean;
  handle(ctx: RequestContext, request: RequestOf<MessageFor<K>>): Reply<K> | null | Promise<Reply<K> | null>;
  errorResponse?(request: RequestOf<MessageFor<K>>, code: number, version: number): Reply<K>;
}

type Reply<K extends ApiKey> = ResponseOf<MessageFor<K>>;

export function defineHandler<K extends ApiKey>(spec: HandlerSpec<K>): Handler {
  const def = MESSAGES_BY_KEY.get(spec.apiKey);
  if (!def) throw new Error(`no message definition for API key ${spec.apiKey}`);
  const range = parseVersions(def.validVersions);
  if (spec.maxVersion > range.max || (spec.minVersion < range.min && !spec.advertisedBelowRange)) {
    throw new Error(`${def.name} handler versions ${spec.minVersion}-${spec.maxVersion} outside definition ${def.validVersions}`);
  }
  // The connection decodes with `def`, so the request it passes is the one the spec's types describe.
  return { ...spec, def } as Handler;
}

export class HandlerRegistry {
  private readonly byKey = new Map<number, Handler>();

  constructor(handlers: readonly Handler[]) {
    for (const h of handlers) {
      if (this.byKey.has(h.apiKey)) throw new Error(`duplicate handler for API key ${h.apiKey}`);
      this.byKey.set(h.apiKey, h);
    }
  }

  get(apiKey: number): Handler | undefined {
    return this.byKey.get(apiKey);
  }

  apiVersions(): { apiKey: number; minVersion: number; maxVersion: number }[] {
    return [...this.byKey.values()].sort((a, b) => a.apiKey - b.apiKey).map((h) => ({ apiKey: h.apiKey, minVersion: h.minVersion, maxVersion: h.maxVersion }));
  }
}
