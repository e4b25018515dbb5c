// How a krill broker calls another one: the controller sends LeaderAndIsr, UpdateMetadata and StopReplica to
// the brokers, a broker sends ControlledShutdown to the controller. One TCP connection per peer, opened on first
// use and again after any failure; requests are pipelined on it and matched to their responses by correlation
// id, as Kafka's NetworkClient does (a broker answers a connection's requests in order).
//
// Frames are the Kafka wire format: int32 size, then the request header (v1, or v2 with tagged fields for a
// flexible version) and body; a response is int32 size, int32 correlation id, for a flexible version an empty
// tagged-field section (response header v1; ApiVersions always answers with v0), then the body.
//
// Failure handling is Kafka's too: a request that times out resets the connection (its response might still
// come and would then answer the wrong request), failing every other request in flight; so does a response
// that cannot be read, one larger than maxResponseBytes, or one with an unknown correlation id. Callers retry.

import net from 'node:net';
import tls from 'node:tls';
import { saslLogin, type SaslClientLogin } from '../security/sasl-client.js';
import { decodeMessage, encodeRequestFrame, isFlexible, skipTaggedFields } from '../../protocol/codec.js';
import { API_KEYS, MESSAGES_BY_KEY, type ApiKey, type MessageFor } from '../../protocol/messages/index.js';
import { Reader } from '../../protocol/primitives.js';
import { inRange, type DecodedResponseOf, type MessageDef, type RequestInputOf } from '../../protocol/schema.js';
import { ReceiveBuffer } from '../server/receive-buffer.js';
import type { Message } from '../../protocol/codec.js';

/**
 * The version of each request one krill broker sends another: the one table of them.
 *
 * The controller's (LeaderAndIsr, StopReplica, UpdateMetadata) and ControlledShutdown are the newest that
 * Kafka 3.x's ZooKeeper-mode controller sent (at inter.broker.protocol.version 3.4+, ControllerChannelManager).
 * All carry the broker epoch, so a request meant for an earlier incarnation of a broker is refused
 * (LeaderAndIsr v2+, UpdateMetadata v5+, StopReplica v1+, ControlledShutdown v2+), and topic ids (LeaderAndIsr
 * v5+, UpdateMetadata v7+); StopReplica v3+ carries each partition's leader epoch and delete flag. The last
 * versions only add isKRaftController (false here) and, for UpdateMetadata, a tagged type field (KIP-866's
 * migration).
 *
 * The replica fetcher's: Fetch v12 (the last by topic name, with diverging epochs, KIP-320/595),
 * ListOffsets v7 and OffsetForLeaderEpoch v4 (what Kafka 3.x followers send by name). AlterPartition v1 (by
 * topic name; v2 moved to topic ids) and WriteTxnMarkers v1 (flexible).
 */
export const INTER_BROKER_VERSIONS = {
  LeaderAndIsr: 7,
  StopReplica: 4,
  UpdateMetadata: 8,
  ControlledShutdown: 3,
  Fetch: 12,
  ListOffsets: 7,
  OffsetForLeaderEpoch: 4,
  AlterPartition: 1,
  WriteTxnMarkers: 1,
} as const;

export interface BrokerClientOptions {
  host: string;
  port: number;
  clientId: string;
  requestTimeoutMs: number;
  /** Largest response accepted; a larger size prefix resets the connection. Default 100 MiB. */
  maxResponseBytes?: number;
  log?: { warn(o: object, m?: string): void };
  /** TLS settings when the peer's listener is SSL (security/tls-context.ts clientTls); absent: plain TCP. */
  tls?: tls.ConnectionOptions;
  /** The login each new connection makes first when the peer's listener is SASL (security/sasl-client.ts). */
  sasl?: SaslClientLogin;
}

/** Why a request failed: the caller may retry after any of them but 'invalid'. */
export type BrokerRequestFailure = 'timeout' | 'connection' | 'protocol' | 'closed' | 'overloaded' | 'invalid';

export class BrokerRequestError extends Error {
  constructor(
    readonly reason: BrokerRequestFailure,
    message: string,
  ) {
    super(message);
    this.name = 'BrokerRequestError';
  }
}

const DEFAULT_MAX_RESPONSE_BYTES = 100 * 1024 * 1024;
/** Requests awaiting a response, per client: beyond this send() rejects, so a stalled peer cannot grow memory. */
export const MAX_PENDING_REQUESTS = 1000;

interface Pending {
  def: MessageDef;
  apiVersion: number;
  timer: NodeJS.Timeout;
  resolve(body: Message): void;
  reject(err: Error): void;
}

export class BrokerClient {
  private readonly opts: BrokerClientOptions;
  private readonly maxResponseBytes: number;
  private readonly pending = new Map<number, Pending>();
  private socket: net.Socket | null = null;
  private nextCorrelationId = 1;
  private closed = false;
  /** The SASL login of the current connection, which every other request waits for. */
  private login: Promise<void> | null = null;

  constructor(opts: BrokerClientOptions) {
    this.opts = opts;
    this.maxResponseBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  }

  private get peer(): string {
    return `${this.opts.host}:${this.opts.port}`;
  }

  /**
   * Sends one request and resolves with the decoded response body. Connects on first use and again after any
   * failure; rejects (never throws) with a BrokerRequestError on timeout, connection failure, a malformed or
   * oversized response, an unknown API or version, too many requests in flight, or after close().
   */
  send<K extends ApiKey>(apiKey: K, apiVersion: number, body: RequestInputOf<MessageFor<K>>): Promise<DecodedResponseOf<MessageFor<K>>> {
    return new Promise((resolve, reject) => {
      if (this.closed) return reject(new BrokerRequestError('closed', `client for ${this.peer} is closed`));
      if (this.pending.size >= MAX_PENDING_REQUESTS) {
        return reject(new BrokerRequestError('overloaded', `${MAX_PENDING_REQUESTS} requests already awaiting ${this.peer}`));
      }
      const def = MESSAGES_BY_KEY.get(apiKey);
      if (!def || !inRange(def.validVersions, apiVersion)) {
        return reject(new BrokerRequestError('invalid', `no definition for API key ${apiKey} version ${apiVersion}`));
      }
      if (apiKey === API_KEYS.ControlledShutdown && apiVersion === 0) {
        // v0 goes with request header v0 (no client id), which encodeRequestFrame does not write.
        return reject(new BrokerRequestError('invalid', 'ControlledShutdown v0 is not sent (request header v0)'));
      }
      const correlationId = this.takeCorrelationId();
      let frame: Buffer;
      try {
        frame = encodeRequestFrame(def, { apiKey, apiVersion, correlationId, clientId: this.opts.clientId }, body);
      } catch (err) {
        return reject(new BrokerRequestError('invalid', `${def.name} v${apiVersion} could not be encoded: ${(err as Error).message}`));
      }
      let socket: net.Socket;
      try {
        socket = this.connection();
      } catch (err) {
        // net.connect throws for a port outside 0-65535 or a bad host option, rather than emitting 'error'.
        return reject(new BrokerRequestError('connection', `cannot connect to ${this.peer}: ${(err as Error).message}`));
      }
      const timer = setTimeout(() => this.timedOut(correlationId), this.opts.requestTimeoutMs);
      this.pending.set(correlationId, { def, apiVersion, timer, resolve: resolve as (body: Message) => void, reject });
      // A socket still connecting queues the write until it is connected; a SASL login in progress, until it is done.
      if (this.login === null || apiKey === API_KEYS.SaslHandshake || apiKey === API_KEYS.SaslAuthenticate) socket.write(frame);
      else
        this.login.then(
          () => this.socket === socket && socket.write(frame),
          () => undefined, // the login's failure reset the connection and failed this request
        );
    });
  }

  /** Fails every pending request; the client does not connect again. */
  close(): void {
    this.closed = true;
    this.reset(new BrokerRequestError('closed', `client for ${this.peer} closed`));
  }

  private takeCorrelationId(): number {
    const id = this.nextCorrelationId;
    this.nextCorrelationId = id === 0x7fffffff ? 1 : id + 1;
    return id;
  }

  private connection(): net.Socket {
    if (this.socket) return this.socket;
    const { host, port } = this.opts;
    // Over TLS, writes made before the handshake is done are queued by the socket, as a connecting one's are.
    const socket = this.opts.tls
      ? tls.connect({ ...this.opts.tls, host, port, servername: net.isIP(host) === 0 ? host : undefined })
      : net.connect({ host, port });
    const rx = new ReceiveBuffer(this.maxResponseBytes);
    socket.setNoDelay(true);
    let failure: Error | undefined;
    socket.on('data', (chunk: Buffer) => {
      if (this.socket === socket) this.received(rx, chunk);
    });
    socket.on('error', (err) => (failure = err));
    socket.on('close', () => {
      if (this.socket !== socket) return; // already reset: its requests were failed then
      const why = failure ? `connection to ${this.peer} failed: ${failure.message}` : `connection to ${this.peer} closed by the peer`;
      this.opts.log?.warn({ peer: this.peer, inFlight: this.pending.size }, why);
      this.reset(new BrokerRequestError('connection', why));
    });
    this.socket = socket;
    this.login = null;
    if (this.opts.sasl) {
      this.login = saslLogin(this.opts.sasl, {
        handshake: (mechanism) => this.send(API_KEYS.SaslHandshake, 1, { mechanism }),
        authenticate: (authBytes) => this.send(API_KEYS.SaslAuthenticate, 2, { authBytes }),
      });
      this.login.catch((err: Error) => {
        if (this.socket !== socket) return;
        this.opts.log?.warn({ peer: this.peer }, err.message);
        this.reset(new BrokerRequestError('connection', `${this.peer}: ${err.message}`));
      });
    }
    return socket;
  }

  private received(rx: ReceiveBuffer, chunk: Buffer): void {
    rx.append(chunk);
    for (;;) {
      const head = rx.peekSize();
      if (head && 'invalid' in head) {
        this.protocolFailure(`response size ${head.invalid} from ${this.peer} is outside 0-${this.maxResponseBytes}`);
        return;
      }
      const frame = rx.takeFrame();
      if (!frame) break;
      // Decoded bytes and uuid fields are views of the frame: give them memory the next reads do not reuse.
      if (!this.answer(Buffer.from(frame))) return;
    }
    rx.settle();
  }

  /** Settles the request a response frame answers; false when the frame made the connection unusable. */
  private answer(frame: Buffer): boolean {
    if (frame.length < 4) return this.protocolFailure(`response of ${frame.length} bytes from ${this.peer} has no header`);
    const correlationId = frame.readInt32BE(0);
    const p = this.pending.get(correlationId);
    if (!p) return this.protocolFailure(`response from ${this.peer} with unknown correlation id ${correlationId}`);
    this.pending.delete(correlationId);
    clearTimeout(p.timer);
    let body: Message;
    try {
      const r = new Reader(frame, 4);
      // ApiVersions responses keep header v0 in every version (KIP-511), so a client can read any of them.
      if (p.def.apiKey !== API_KEYS.ApiVersions && isFlexible(p.def, p.apiVersion)) skipTaggedFields(r);
      body = decodeMessage(p.def, 'response', p.apiVersion, r);
      if (r.remaining !== 0) throw new Error(`${r.remaining} bytes left over`);
    } catch (err) {
      const why = `${p.def.name} v${p.apiVersion} response from ${this.peer} is malformed: ${(err as Error).message}`;
      p.reject(new BrokerRequestError('protocol', why));
      return this.protocolFailure(why);
    }
    p.resolve(body);
    return true;
  }

  private protocolFailure(why: string): false {
    this.opts.log?.warn({ peer: this.peer, inFlight: this.pending.size }, why);
    this.reset(new BrokerRequestError('protocol', why));
    return false;
  }

  private timedOut(correlationId: number): void {
    const p = this.pending.get(correlationId);
    if (!p) return;
    this.pending.delete(correlationId);
    const why = `${p.def.name} v${p.apiVersion} to ${this.peer} timed out after ${this.opts.requestTimeoutMs} ms`;
    p.reject(new BrokerRequestError('timeout', why));
    this.opts.log?.warn({ peer: this.peer, inFlight: this.pending.size }, `${why}; resetting the connection`);
    this.reset(new BrokerRequestError('connection', `connection to ${this.peer} reset: ${why}`));
  }

  /** Drops the connection and fails every request in flight on it with `err`. */
  private reset(err: BrokerRequestError): void {
    const socket = this.socket;
    this.socket = null;
    socket?.destroy();
    const failed = [...this.pending.values()];
    this.pending.clear();
    for (const p of failed) {
      clearTimeout(p.timer);
      p.reject(err);
    }
  }
}
