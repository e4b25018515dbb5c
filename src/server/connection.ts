// One client connection: splits the byte stream into size-prefixed frames, decodes each request,
// runs its handler, and writes responses strictly in request order. Clients pipeline several requests:
// those answered at once (Produce) are taken back to back, but as in Kafka a request whose handler is
// still running (a long-polling Fetch, a JoinGroup) holds back the ones behind it (see onReceived).
//
// Anything malformed closes this connection only: Kafka does the same for frames it cannot parse.
//
// At log level debug every connection opened and closed, and every request answered (api, version,
// client id, correlation id, duration), is logged, as Kafka's request logger does; whether to is decided
// once per connection, so other levels pay nothing per request. With krill.http.listener set, every request
// answered is counted and timed for /metrics (BrokerMetrics); without it the broker has no metrics object.

import { checkCoordinator } from '../cluster/coordinator-guard.js';
import net, { type Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import { ReceiveBuffer } from './receive-buffer.js';
import { normaliseAddress, type TrackedConnection } from './connection-registry.js';
import type { Logger } from '../logger.js';
import { ProtocolError, Reader, Writer } from '../../protocol/primitives.js';
import {
  decodeMessage,
  decodeRequestHeaderStart,
  encodeMessage,
  isFlexible,
  skipTaggedFields,
  type Message,
  type RequestHeader,
} from '../../protocol/codec.js';
import { ErrorCode, KafkaError, errorName } from '../../protocol/errors.js';
import { API_KEYS } from '../../protocol/messages/index.js';
import type { Handler, HandlerRegistry } from '../handlers/registry.js';
import type { BrokerServices, RequestContext } from './request-context.js';
import { errorResponseFromDefinition } from '../handlers/error-response.js';
import type { FaultAction, FaultInjector } from '../faults/fault-injector.js';
import { ANONYMOUS, principalString, type KafkaPrincipal, type ListenerIdentity, type Session } from '../security/session.js';
import { serveAuthorized } from '../security/request-authorization.js';
import type { ClientQuotas } from '../security/quotas/client-quotas.js';
import { ThrottleMute } from './throttle-mute.js';
import { chargeBeforeResponse, chargeFetchResponse, chargeOf, throttledFetch, withThrottle, type QuotaCharge } from '../security/quotas/request-charge.js';
import { SaslAuthenticator, type SaslListener } from '../security/sasl-authenticator.js';
import { SaslAuthenticationError } from '../security/sasl-server.js';

/**
 * The largest frame a SASL connection may send before it has authenticated: Kafka's default
 * sasl.server.max.receive.size, so that an unauthenticated peer cannot make the broker buffer up to
 * socket.request.max.bytes.
 */
const SASL_MAX_RECEIVE_BYTES = 524_288;

/** Responses queued on the socket beyond which no further request of the connection is taken. */
const MAX_PENDING_OUTPUT_BYTES = 16 * 1024 * 1024;

interface Slot {
  correlationId: number;
  /** Response chunks once ready; null for "send nothing" (acks=0); undefined while pending. */
  chunks: Buffer[] | null | undefined;
  /** Set by a handler that wants the connection closed once earlier responses are out. */
  closeReason?: string;
  /** With closeReason: this slot's own response goes out before the close (a failed SASL login's answer). */
  answerBeforeClose?: boolean;
  /** performance.now() when the request arrived, for the request log and the metrics (0 when both are off). */
  startedAt: number;
  /** The injected fault that answered it, for the request log. */
  fault?: string;
  /** The request's metric name (BrokerMetrics.requestName), when metrics are kept. */
  metricName?: string;
  /** What it costs against the client quotas, when a quota is set (request-charge.ts). */
  charge?: QuotaCharge | null;
}

/**
 * A socket for the connection `accepted` (accepted paused, nothing read yet) whose reads land in
 * `rx`'s tail through Node's `onread` option, or null where the accepted socket's handle is out of
 * reach (it is not public API); the connection then copies 'data' chunks into `rx` instead.
 */
function adoptReadingInto(accepted: Socket, rx: ReceiveBuffer, onRead: () => void): Socket | null {
  // A TLS socket's handle is the TLS layer's: its bytes are decrypted only through the socket's own reads.
  if (accepted instanceof TLSSocket) return null;
  const husk = accepted as unknown as { _handle?: object | null };
  const handle = husk._handle;
  if (!handle) return null;
  husk._handle = null; // the accepted socket lets go of the descriptor, which `handle` keeps open
  accepted.destroy();
  const options = {
    handle,
    readable: true,
    writable: true,
    onread: {
      buffer: () => rx.tail(),
      callback: (n: number) => {
        rx.filled(n);
        onRead();
      },
    },
  };
  return new net.Socket(options as net.SocketConstructorOpts);
}

/** What a connection needs of the broker that accepted it. */
export interface ConnectionHost {
  readonly registry: HandlerRegistry;
  /** Handed to every handler, in its RequestContext. */
  readonly services: BrokerServices;
  /** Told when the connection closes. */
  readonly connections: { delete(connection: Connection): void };
  readonly log: Logger;
  /** socket.request.max.bytes. */
  readonly maxRequestBytes: number;
  /** Buffers lent to responses (log reads) that go back to their owner once the socket has sent them. */
  readonly lentBuffers?: LentBuffers;
  /** The faults tests set (src/faults/), asked about every request. */
  readonly faults?: FaultInjector;
  /** The listener the connection was accepted on. */
  readonly listener: ListenerIdentity;
  /** The client quotas' rates and throttles; inactive (and skipped) while no quota is set. */
  readonly quotas?: ClientQuotas;
  /** The listener's SASL mechanisms, on a SASL_PLAINTEXT or SASL_SSL listener only. */
  readonly sasl?: SaslListener;
}

/** A pool whose buffers a response may carry: told when a chunk is about to be written and when it was. */
export interface LentBuffers {
  /** Whether `chunk` is one of the pool's; if so, sent(chunk) must follow once it has been written. */
  willSend(chunk: Buffer): boolean;
  sent(chunk: Buffer): void;
}

/**
 * Runs a request's handler, once the coordinator it needs is known to be this broker, and, with an
 * authorizer, on what of the request the principal may have served (the one check point:
 * src/security/request-authorization.ts).
 */
function serve(handler: Handler, ctx: RequestContext, request: Message): Message | null | Promise<Message | null> {
  const run = (allowed: Message) => {
    checkCoordinator(ctx.header.apiKey, allowed, ctx.coordinators);
    return handler.handle(ctx, allowed);
  };
  return ctx.authorizer ? serveAuthorized(ctx.authorizer, ctx, handler.def, request, run) : run(request);
}

export class Connection implements TrackedConnection {
  readonly address: string;
  /** Read or written since the idle sweep last looked (see ConnectionRegistry). */
  active = true;
  private readonly socket: Socket;
  private readonly rx: ReceiveBuffer;
  private readonly queue: Slot[] = [];
  /** An asynchronous handler is serving a request of this connection (see onReceived). */
  private serving = false;
  private readonly abort = new AbortController();
  private closed = false;
  private readonly log: Logger;
  /** Whether requests are logged (level debug). */
  private readonly requestLog: boolean;
  /** Who the peer is; every request's context carries it. */
  readonly session: Session;
  /** Muted for a client quota's throttle time: nothing is read meanwhile. */
  private readonly throttle = new ThrottleMute();
  /** The SASL exchange and session of a SASL listener's connection; null elsewhere, where the gate costs one test. */
  private readonly sasl: SaslAuthenticator | null;

  /**
   * `accepted`: a socket the server accepted with pauseOnConnect (or a TLS socket after its handshake);
   * `address`: its peer, normalised; `principal`: who the TLS handshake showed the peer is.
   */
  constructor(
    accepted: Socket,
    private readonly host: ConnectionHost,
    address?: string,
    principal: KafkaPrincipal = ANONYMOUS,
  ) {
    this.rx = new ReceiveBuffer(host.maxRequestBytes);
    const socket = adoptReadingInto(accepted, this.rx, () => this.onReceived());
    if (socket) this.socket = socket;
    else {
      this.socket = accepted;
      accepted.on('data', (chunk: Buffer) => {
        this.rx.append(chunk);
        this.onReceived();
      });
      accepted.resume();
    }
    this.address = address ?? normaliseAddress(this.socket.remoteAddress);
    this.session = { listener: host.listener, clientAddress: this.socket.remoteAddress ?? '', principal };
    this.sasl = host.sasl ? new SaslAuthenticator(host.sasl, this.session) : null;
    this.log = host.log.child({ client: `${this.socket.remoteAddress}:${this.socket.remotePort}` });
    this.requestLog = this.log.isLevelEnabled('debug');
    if (this.requestLog) this.log.debug({ listener: host.listener.name, principal: principalString(principal) }, 'connection opened');
    this.socket.setNoDelay(true);
    this.socket.on('error', (err) => this.log.debug({ err: err.message }, 'socket error'));
    this.socket.on('close', () => this.onClose());
    this.socket.on('drain', () => {
      this.active = true;
      this.socket.resume();
      this.onReceived(false); // frames held back while the output was full
    });
  }

  /**
   * A request is being served (a long-poll Fetch, a JoinGroup): not idle. Responses the client does not
   * read are no reason to keep a connection: as in Kafka, one that makes no progress for
   * connections.max.idle.ms is closed (a drain counts as progress).
   */
  get busy(): boolean {
    return this.serving;
  }

  close(): void {
    this.socket.destroy();
  }

  private onClose(): void {
    if (this.requestLog) this.log.debug('connection closed');
    this.closed = true;
    this.throttle.cancel();
    this.abort.abort();
    this.host.connections.delete(this);
  }

  private fail(reason: string, detail?: Record<string, unknown>): void {
    if (this.closed) return;
    this.log.warn({ ...detail }, `closing connection: ${reason}`);
    this.closed = true;
    this.socket.destroy();
  }

  /**
   * Runs every complete frame received. Frames are views of the receive buffer. A handler that keeps no
   * view of its request once it returns (Handler.releasesRequestBytes: Produce, whose records are the
   * bulk of what clients send) reads its frame in place; any other gets a copy, as it may keep views of
   * it in its response or its state. The buffer is given away when such a handler is still running.
   *
   * `fromRead`: called for bytes just received. Otherwise (frames held back, taken once the client has read
   * its responses or the request in progress is answered) the buffer's layout must not change: Node has
   * already been handed the tail for the next read. So every frame is copied, and the buffer is neither
   * given away nor reset.
   */
  private onReceived(fromRead = true): void {
    this.active = true;
    while (!this.closed) {
      if (this.serving || this.throttle.muted || this.socket.writableLength >= MAX_PENDING_OUTPUT_BYTES) {
        // As Kafka mutes a channel while it serves a request (or throttles its client, throttle-mute.ts): the
        // next request waits in the receive buffer, and the socket stops reading, until the one in progress
        // is answered and the client has read what is queued for it. Without this, pipelined Fetch requests
        // would each hold a response in memory (200 of them took a broker from 56 to 745 MB), without bound.
        this.socket.pause();
        break;
      }
      const head = this.rx.peekSize();
      if (head && 'invalid' in head) {
        this.fail(`frame of ${head.invalid} bytes exceeds socket.request.max.bytes (${this.rx.maxFrameBytes})`);
        return;
      }
      if (this.sasl !== null && head && head.size > SASL_MAX_RECEIVE_BYTES && !this.sasl.authenticated) {
        this.fail(`frame of ${head.size} bytes before SASL authentication exceeds ${SASL_MAX_RECEIVE_BYTES} (Kafka's sasl.server.max.receive.size)`);
        return;
      }
      const frame = this.rx.takeFrame();
      if (!frame) break;
      const inPlace = fromRead && frame.length >= 2 && this.host.registry.get(frame.readInt16BE(0))?.releasesRequestBytes === true;
      const stillRunning = this.onFrame(inPlace ? frame : Buffer.from(frame));
      if (inPlace && stillRunning) this.rx.detach();
      if (stillRunning) this.serving = true;
    }
    if (fromRead) this.rx.settle();
  }

  /** After an asynchronous handler answered: take the requests that waited for it. */
  private served(): void {
    this.serving = false;
    if (this.closed) return;
    this.socket.resume();
    this.onReceived(false);
  }

  /** Decodes and runs one request; true when its handler is still running (it returned a promise). */
  private onFrame(frame: Buffer): boolean {
    if (this.sasl !== null && frame.length >= 2) {
      if (this.sasl.expectsRawToken) return this.onRawSaslToken(this.sasl, frame);
      const refusal = this.sasl.refusal(frame.readInt16BE(0));
      if (refusal !== null) {
        this.fail(refusal);
        return false;
      }
    }
    const r = new Reader(frame);
    let header: RequestHeader;
    try {
      header = decodeRequestHeaderStart(r);
    } catch (err) {
      this.fail('malformed request header', { err: (err as Error).message });
      return false;
    }
    const handler = this.host.registry.get(header.apiKey);
    if (!handler) {
      this.fail(`unknown API key ${header.apiKey}`, { correlationId: header.correlationId });
      return false;
    }
    const version = header.apiVersion;
    if (version < handler.minVersion || version > handler.maxVersion) {
      if (header.apiKey === API_KEYS.ApiVersions) {
        // KIP-511: answer at v0 with ApiVersions' own range (all Kafka lists) so the client can retry at a
        // version it shares, and learn the rest from that answer.
        const slot = this.enqueue(header.correlationId);
        this.complete(slot, handler, 0, header, {
          errorCode: ErrorCode.UNSUPPORTED_VERSION,
          apiKeys: this.host.registry.apiVersions().filter((k) => k.apiKey === API_KEYS.ApiVersions),
        });
        return false;
      }
      this.fail(`unsupported version ${version} of ${handler.def.name}`, { correlationId: header.correlationId });
      return false;
    }
    let request: Message;
    try {
      if (isFlexible(handler.def, version)) skipTaggedFields(r);
      request = decodeMessage(handler.def, 'request', version, r);
    } catch (err) {
      // ApiVersions is special: a newer client may send a request version whose body we cannot read.
      if (header.apiKey === API_KEYS.ApiVersions && err instanceof ProtocolError) {
        const slot = this.enqueue(header.correlationId);
        this.complete(slot, handler, 0, header, { errorCode: ErrorCode.INVALID_REQUEST, apiKeys: [] });
        return false;
      }
      this.fail(`malformed ${handler.def.name} v${version} request`, { err: (err as Error).message });
      return false;
    }
    const slot = this.enqueue(header.correlationId);
    const services = this.host.services;
    if (services.metrics) slot.metricName = services.metrics.requestName(handler.def.name, version, request);
    const ctx: RequestContext = {
      ...services,
      header,
      apiVersion: version,
      log: this.log,
      signal: this.abort.signal,
      clientAddress: this.session.clientAddress,
      session: this.session,
      ...(this.sasl !== null && { sasl: this.sasl }),
      closeConnection: (reason: string) => {
        slot.closeReason = reason;
      },
      closeAfterResponse: (reason: string) => {
        slot.closeReason = reason;
        slot.answerBeforeClose = true;
      },
    };
    const fault = this.host.faults?.match(header, handler.def, request, services.topics) ?? null;
    if (this.host.quotas?.active) slot.charge = chargeOf(header.apiKey, request, frame.length, this.session.principal, header.clientId);
    const handlerStart = slot.charge ? performance.now() : 0;
    let result: Message | null | Promise<Message | null>;
    try {
      if (fault === null) result = serve(handler, ctx, request);
      else {
        slot.fault = fault.label;
        result = this.withFault(fault, () => serve(handler, ctx, request), handler, header, request);
      }
    } catch (err) {
      this.onHandlerError(slot, handler, version, header, request, err);
      return false;
    }
    if (slot.charge) slot.charge.handlerMs = performance.now() - handlerStart;
    if (result instanceof Promise) {
      result
        .then(
          (body) => this.complete(slot, handler, version, header, body),
          (err) => this.onHandlerError(slot, handler, version, header, request, err),
        )
        .finally(() => this.served());
      return true;
    }
    this.complete(slot, handler, version, header, result);
    return false;
  }

  /**
   * A bare SASL token, after SaslHandshake v0 (clients before SaslAuthenticate): the answer is a bare
   * size-prefixed token too. v0 has no way to say why a login failed, so a failure closes the connection,
   * after connection.failed.authentication.delay.ms; true while that delay runs, so no frame is taken.
   */
  private onRawSaslToken(sasl: SaslAuthenticator, frame: Buffer): boolean {
    const slot = this.enqueue(0);
    try {
      const { authBytes } = sasl.authenticate(frame, 0)!;
      const size = Buffer.alloc(4);
      size.writeInt32BE(authBytes.length);
      slot.chunks = [size, authBytes];
      this.flush();
      return false;
    } catch (err) {
      if (!(err instanceof SaslAuthenticationError)) throw err;
      this.log.info({ reason: err.message }, 'SASL authentication failed');
      const timer = setTimeout(() => {
        this.fail(`SASL authentication failed: ${err.message}`);
        this.served();
      }, sasl.failureDelayMs);
      timer.unref();
      return true;
    }
  }

  /**
   * Serves a request a fault caught. Its delay and hold come first (both end early if the connection closes,
   * and then nothing more is done), then the fault's error response, the connection dropped, or the request
   * served. With `after`, the request is served first and the fault acts on its response.
   */
  private withFault(
    fault: FaultAction,
    serve: () => Message | null | Promise<Message | null>,
    handler: Handler,
    header: RequestHeader,
    request: Message,
  ): Message | null | Promise<Message | null> {
    const act = (served: Message | null | undefined): Message | null | Promise<Message | null> => {
      if (this.closed) return null;
      // As Kafka answers a failed acks=0 produce, which expects no response: by closing the connection.
      const unanswered = handler.apiKey === API_KEYS.Produce && request.acks === 0;
      if (fault.drop || (fault.errorCode !== null && unanswered)) {
        if (this.requestLog)
          this.log.debug({ api: handler.def.name, clientId: header.clientId, correlationId: header.correlationId, fault: fault.label }, 'request dropped');
        this.closed = true;
        this.socket.destroy();
        return null;
      }
      if (served === null) return null; // nothing was to be sent (acks=0)
      if (fault.errorCode !== null)
        return errorResponseFromDefinition(handler.def, request, header.apiVersion, fault.errorCode, `${fault.label} (krill fault injection)`);
      return served ?? serve();
    };
    const waits = fault.delayMs > 0 || fault.held !== null;
    if (fault.after) {
      return Promise.resolve(serve()).then(async (served) => {
        if (waits) await this.faultWait(fault);
        return act(served);
      });
    }
    return waits ? this.faultWait(fault).then(() => act(undefined)) : act(undefined);
  }

  private faultWait(fault: FaultAction): Promise<void> {
    const signal = this.abort.signal;
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(() => (fault.held ? void fault.held.then(done) : done()), fault.delayMs);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  private onHandlerError(slot: Slot, handler: Handler, version: number, header: RequestHeader, request: Message, err: unknown): void {
    const code = err instanceof KafkaError ? err.code : ErrorCode.UNKNOWN_SERVER_ERROR;
    if (err instanceof KafkaError) this.log.info({ api: handler.def.name, error: errorName(code) }, err.message);
    else this.log.error({ api: handler.def.name, err }, 'handler failed');
    try {
      // As Kafka's getErrorResponse: a handler without its own answers with the request's entries mirrored.
      const body = handler.errorResponse
        ? handler.errorResponse(request, code, version)
        : errorResponseFromDefinition(handler.def, request, version, code, errorName(code));
      this.complete(slot, handler, version, header, body);
    } catch (e) {
      this.log.error({ err: e }, 'building the error response failed');
      this.fail(`${handler.def.name} could not be answered`);
    }
  }

  private enqueue(correlationId: number): Slot {
    const slot: Slot = { correlationId, chunks: undefined, startedAt: this.requestLog || this.host.services.metrics ? performance.now() : 0 };
    this.queue.push(slot);
    return slot;
  }

  private complete(slot: Slot, handler: Handler, version: number, header: RequestHeader, body: Message | null): void {
    if (this.closed) return;
    if (slot.metricName) this.host.services.metrics!.answered(slot.metricName, version, performance.now() - slot.startedAt);
    if (this.requestLog) {
      this.log.debug(
        {
          api: handler.def.name,
          apiVersion: version,
          clientId: header.clientId,
          correlationId: header.correlationId,
          principal: principalString(this.session.principal),
          durationMs: Math.round((performance.now() - slot.startedAt) * 1000) / 1000,
          ...(slot.fault && { fault: slot.fault }),
        },
        'request',
      );
    }
    const charge = slot.charge;
    let throttleMs = charge ? chargeBeforeResponse(this.host.quotas!, charge, Date.now()) : 0;
    if (body === null) slot.chunks = null;
    else {
      try {
        const throttled = throttleMs > 0 && !charge!.fetch; // a fetch's throttle is known once it is encoded
        slot.chunks = this.encodeResponse(handler, version, header, throttled ? withThrottle(handler.def, version, body, throttleMs) : body);
      } catch (err) {
        this.log.error({ err, api: handler.def.name }, 'encoding the response failed');
        this.fail('response could not be encoded');
        return;
      }
      if (charge?.fetch) {
        const bytes = slot.chunks.reduce((n, c) => n + c.length, -4); // without the size field, as Kafka's sizeOf
        throttleMs = chargeFetchResponse(this.host.quotas!, charge, bytes, throttleMs, Date.now());
        if (throttleMs > 0) slot.chunks = this.encodeResponse(handler, version, header, throttledFetch(throttleMs));
      }
    }
    this.flush();
    // KIP-219: the response goes at once, then the connection is muted for the throttle time.
    if (throttleMs > 0 && !this.closed) {
      this.socket.pause();
      this.throttle.mute(throttleMs, () => {
        if (this.closed) return;
        this.socket.resume();
        this.onReceived(false);
      });
    }
  }

  private encodeResponse(handler: Handler, version: number, header: RequestHeader, body: Message): Buffer[] {
    const w = new Writer();
    const size = w.reserveInt32();
    w.int32(header.correlationId);
    // Response header v1 (tagged fields) for flexible versions, except ApiVersions which is always v0.
    if (handler.apiKey !== API_KEYS.ApiVersions && isFlexible(handler.def, version)) w.uvarint(0);
    encodeMessage(handler.def, 'response', version, body, w);
    size.buf.writeInt32BE(w.length - 4, size.at);
    return w.finish();
  }

  private flush(): void {
    let wrote = false;
    let ok = true;
    while (this.queue.length && this.queue[0].chunks !== undefined) {
      const slot = this.queue.shift()!;
      if (slot.closeReason !== undefined) {
        if (slot.answerBeforeClose && slot.chunks) for (const c of slot.chunks) this.socket.write(c);
        if (wrote) this.socket.uncork();
        this.log.warn(`closing connection: ${slot.closeReason}`);
        this.closed = true;
        this.socket.destroySoon(); // after the earlier responses are written
        return;
      }
      if (slot.chunks === null) continue;
      if (!wrote) {
        this.socket.cork();
        wrote = true;
      }
      const lent = this.host.lentBuffers;
      for (const c of slot.chunks!) {
        // Log bytes read for this response go back to their pool once the socket is done with them.
        if (lent?.willSend(c)) {
          ok =
            this.socket.write(c, (err) => {
              if (!err) lent.sent(c);
            }) && ok;
        } else ok = this.socket.write(c) && ok;
      }
    }
    if (wrote) {
      this.active = true;
      this.socket.uncork();
      // Stop reading while the client is not reading its responses.
      if (!ok) this.socket.pause();
    }
  }
}
