// What each request costs against the client quotas, and how its throttle reaches the client (KIP-219):
// the response goes at once, carrying throttle_time_ms, and the connection then reads nothing more for
// that long (the connection's mute). As in Kafka's KafkaApis: a Produce is charged its request's size
// (even with acks=0, which gets no response but is muted all the same), a consumer's Fetch the size of
// its response, and every request the time it kept the broker busy. Followers' fetches and the
// inter-broker APIs are exempt (Kafka: replication quotas, and the ClusterAction exemption), and so are
// the SASL exchanges, which come before the client is known.

import type { Message } from '../../../protocol/codec.js';
import { inRange, type MessageDef } from '../../../protocol/schema.js';
import { API_KEYS } from '../../../protocol/messages/index.js';
import type { ClientQuotas } from './client-quotas.js';
import type { KafkaPrincipal } from '../session.js';

const EXEMPT: ReadonlySet<number> = new Set([
  API_KEYS.SaslHandshake,
  API_KEYS.SaslAuthenticate,
  API_KEYS.LeaderAndIsr,
  API_KEYS.StopReplica,
  API_KEYS.UpdateMetadata,
  API_KEYS.ControlledShutdown,
  API_KEYS.AlterPartition,
]);

/** A request's charge, decided when it arrives. */
export interface QuotaCharge {
  readonly principal: KafkaPrincipal;
  readonly clientId: string;
  /** The request's bytes, for a Produce; 0 otherwise. */
  readonly produceBytes: number;
  /** A consumer's Fetch: its response's bytes are charged. */
  readonly fetch: boolean;
  /** Time spent handling it (its synchronous part), in ms. */
  handlerMs: number;
}

function isFollowerFetch(request: Message): boolean {
  const state = request.replicaState as { replicaId?: number } | undefined;
  return ((request.replicaId as number | undefined) ?? state?.replicaId ?? -1) >= 0;
}

/** The charge of a request, or null for an exempt one. */
export function chargeOf(apiKey: number, request: Message, frameBytes: number, principal: KafkaPrincipal, clientId: string | null): QuotaCharge | null {
  if (EXEMPT.has(apiKey)) return null;
  if (apiKey === API_KEYS.Fetch && isFollowerFetch(request)) return null;
  return {
    principal,
    clientId: clientId ?? '',
    produceBytes: apiKey === API_KEYS.Produce ? frameBytes : 0,
    fetch: apiKey === API_KEYS.Fetch,
    handlerMs: 0,
  };
}

/** Records what is known before the response is encoded (produce bytes, handler time); the throttle in ms. */
export function chargeBeforeResponse(quotas: ClientQuotas, c: QuotaCharge, nowMs: number): number {
  const user = c.principal.name;
  const produce = c.produceBytes > 0 ? quotas.recordBytes('produce', user, c.clientId, c.produceBytes, nowMs) : 0;
  return Math.max(produce, quotas.recordRequestTime(user, c.clientId, c.handlerMs, nowMs));
}

/**
 * Records a consumer's fetch response bytes and returns the fetch's throttle in ms, at least `throttleMs`
 * (the request quota's). A throttled fetch is answered empty (throttledFetch), as Kafka's KafkaApis answers
 * it, and its bytes are taken back: they were not sent.
 */
export function chargeFetchResponse(quotas: ClientQuotas, c: QuotaCharge, responseBytes: number, throttleMs: number, nowMs: number): number {
  const user = c.principal.name;
  const ms = Math.max(throttleMs, quotas.recordBytes('fetch', user, c.clientId, responseBytes, nowMs));
  if (ms > 0) quotas.unrecordFetch(user, c.clientId, responseBytes, nowMs);
  return ms;
}

/** The answer to a throttled fetch: no data, the throttle time (Kafka's FetchContext.getThrottledResponse). */
export function throttledFetch(ms: number): Message {
  return { throttleTimeMs: ms, errorCode: 0, sessionId: 0, responses: [] };
}

/** `body` with throttleTimeMs raised to `ms` where the response has the field. */
export function withThrottle(def: MessageDef, version: number, body: Message, ms: number): Message {
  const field = def.response.find((f) => f.name === 'throttleTimeMs');
  if (!field || !inRange(field.versions, version)) return body;
  return { ...body, throttleTimeMs: Math.max((body.throttleTimeMs as number | undefined) ?? 0, ms) };
}
