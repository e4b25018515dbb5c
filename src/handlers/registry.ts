// The handler registry: one handler per API key, each checked against its message definition.
// It also builds the ApiVersions answer, so what krill advertises is exactly what it registered.

import type { Message } from '../../protocol/codec.js';
import type { MessageDef } from '../../protocol/schema.js';
import { parseVersions } from '../../protocol/schema.js';
import { MESSAGES_BY_KEY } from '../../protocol/messages/index.js';
import type { RequestContext } from '../server/request-context.js';

export interface Handler {
  apiKey: number;
  /** Lowest version advertised. May sit below the definition's range only where `belowRange` explains how. */
  minVersion: number;
  maxVersion: number;
  def: MessageDef;
  /**
   * Returns the response body, or null when no response is sent (Produce with acks=0).
   * A thrown KafkaError becomes errorResponse(code) when the handler provides one; otherwise the
   * connection is closed after logging, as Kafka does for requests it cannot answer.
   */
  handle(ctx: RequestContext, request: Message): Message | null | Promise<Message | null>;
  errorResponse?(request: Message, code: number, version: number): Message;
  /**
   * The handler keeps no view of the request's bytes once handle() has returned synchronously (it copies
   * what it keeps), so the connection may hand it the frame in place, in the buffer the next reads reuse.
   */
  releasesRequestBytes?: boolean;
}

export interface HandlerSpec extends Omit<Handler, 'def'> {
  /** Versions below the definition's range that are advertised but answered with an error (Produce v0-2). */
  advertisedBelowRange?: boolean;
}

export function defineHandler(spec: HandlerSpec): Handler {
  const def = MESSAGES_BY_KEY.get(spec.apiKey);
  if (!def) throw new Error(`no message definition for API key ${spec.apiKey}`);
  const range = parseVersions(def.validVersions);
  if (spec.maxVersion > range.max || (spec.minVersion < range.min && !spec.advertisedBelowRange)) {
    throw new Error(`${def.name} handler versions ${spec.minVersion}-${spec.maxVersion} outside definition ${def.validVersions}`);
  }
  return { ...spec, def };
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
    return [...this.byKey.values()]
      .sort((a, b) => a.apiKey - b.apiKey)
      .map((h) => ({ apiKey: h.apiKey, minVersion: h.minVersion, maxVersion: h.maxVersion }));
  }
}
