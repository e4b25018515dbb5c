// One client connection: splits the byte stream into size-prefixed frames, decodes each request,
// runs its handler, and writes responses strictly in request order even when a later request
// (a Produce behind a long-polling Fetch, say) finishes first. Clients pipeline several requests.
//
// Anything malformed closes this connection only: Kafka does the same for frames it cannot parse.

import type { Socket } from 'node:net';
import type { Logger } from '../logger.js';
import { ProtocolError, Reader, Writer } from '../../protocol/primitives.js';
import { decodeMessage, decodeRequestHeaderStart, encodeMessage, isFlexible, skipTaggedFields, type Message, type RequestHeader } from '../../protocol/codec.js';
import { ErrorCode, KafkaError, errorName } from '../../protocol/errors.js';
import type { Broker } from '../broker.js';
import type { Handler } from '../handlers/registry.js';

const API_VERSIONS_KEY = 18;
/**
 * Frames of this size range that span socket reads are assembled in the connection's reusable buffer
 * (see takeFrame). The upper bound keeps what an idle producer connection holds at a few megabytes,
 * whatever socket.request.max.bytes allows.
 */
const REUSABLE_FRAME_MIN = 64 * 1024;
const REUSABLE_FRAME_MAX = 4 * 1024 * 1024;

interface Slot {
  correlationId: number;
  /** Response chunks once ready; null for "send nothing" (acks=0); undefined while pending. */
  chunks: Buffer[] | null | undefined;
  /** Set by a handler that wants the connection closed once earlier responses are out. */
  closeReason?: string;
}

export class Connection {
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** Reused for large frames of handlers that release their request bytes (see takeFrame). */
  private frameBuffer: Buffer | null = null;
  private readonly queue: Slot[] = [];
  private readonly abort = new AbortController();
  private closed = false;
  private readonly log: Logger;
  private readonly maxFrameBytes: number;

  constructor(private readonly socket: Socket, private readonly broker: Broker) {
    this.log = broker.log.child({ client: `${socket.remoteAddress}:${socket.remotePort}` });
    this.maxFrameBytes = broker.config.int('socket.request.max.bytes');
    socket.setNoDelay(true);
    socket.on('data', (chunk) => this.onData(chunk));
    socket.on('error', (err) => this.log.debug({ err: err.message }, 'socket error'));
    socket.on('close', () => this.onClose());
    socket.on('drain', () => socket.resume());
  }

  close(): void {
    this.socket.destroy();
  }

  private onClose(): void {
    this.closed = true;
    this.abort.abort();
    this.broker.connections.delete(this);
  }

  private fail(reason: string, detail?: Record<string, unknown>): void {
    if (this.closed) return;
    this.log.warn({ ...detail }, `closing connection: ${reason}`);
    this.closed = true;
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    while (!this.closed && this.buffered >= 4) {
      const head = this.chunks[0].length >= 4 ? this.chunks[0] : this.concatAll();
      const size = head.readInt32BE(0);
      const max = this.maxFrameBytes;
      if (size < 0 || size > max) {
        this.fail(`frame of ${size} bytes exceeds socket.request.max.bytes (${max})`);
        return;
      }
      if (this.buffered < 4 + size) return;
      if (this.chunks[0].length >= 4 + size) {
        // The whole frame is in the first chunk: a view, no copy.
        const first = this.chunks[0];
        const frame = first.subarray(4, 4 + size);
        if (first.length === 4 + size) this.chunks.shift();
        else this.chunks[0] = first.subarray(4 + size);
        this.buffered -= 4 + size;
        this.onFrame(frame, false);
        continue;
      }
      const reusable = size >= REUSABLE_FRAME_MIN && size <= REUSABLE_FRAME_MAX && this.releasesBytes(head);
      const frame = this.takeFrame(4 + size, reusable).subarray(4);
      this.onFrame(frame, reusable);
    }
  }

  /** Whether the frame whose first chunk is `head` is for a handler that keeps no view of its bytes. */
  private releasesBytes(head: Buffer): boolean {
    if (head.length < 6) return false;
    return this.broker.registry.get(head.readInt16BE(4))?.releasesRequestBytes === true;
  }

  /**
   * Moves the first `length` buffered bytes into one buffer: the connection's reusable one when
   * `reuse` (see Handler.releasesRequestBytes), else a new one. Large produce requests arrive as dozens
   * of socket reads; copying them into a buffer that stays allocated spares a fresh megabyte, its page
   * faults and its garbage collection per request.
   */
  private takeFrame(length: number, reuse: boolean): Buffer {
    let target: Buffer;
    if (reuse) {
      if (!this.frameBuffer || this.frameBuffer.length < length) {
        // Some headroom, so that requests of slowly growing sizes do not each need a new buffer.
        this.frameBuffer = Buffer.allocUnsafe(Math.min(REUSABLE_FRAME_MAX, Math.ceil(length * 1.25)));
      }
      target = this.frameBuffer.subarray(0, length);
    } else {
      target = Buffer.allocUnsafe(length);
    }
    let at = 0;
    while (at < length) {
      const c = this.chunks[0];
      const n = Math.min(c.length, length - at);
      c.copy(target, at, 0, n);
      at += n;
      if (n === c.length) this.chunks.shift();
      else this.chunks[0] = c.subarray(n);
    }
    this.buffered -= length;
    return target;
  }

  private concatAll(): Buffer {
    const all = Buffer.concat(this.chunks, this.buffered);
    this.chunks = [all];
    return all;
  }

  private onFrame(frame: Buffer, reusableBuffer: boolean): void {
    const r = new Reader(frame);
    let header: RequestHeader;
    try {
      header = decodeRequestHeaderStart(r);
    } catch (err) {
      this.fail('malformed request header', { err: (err as Error).message });
      return;
    }
    const handler = this.broker.registry.get(header.apiKey);
    if (!handler) {
      this.fail(`unknown API key ${header.apiKey}`, { correlationId: header.correlationId });
      return;
    }
    const version = header.apiVersion;
    if (version < handler.minVersion || version > handler.maxVersion) {
      if (header.apiKey === API_VERSIONS_KEY) {
        // KIP-511: answer at v0 with the supported list so the client can pick a version.
        const slot = this.enqueue(header.correlationId);
        this.complete(slot, handler, 0, header, {
          errorCode: ErrorCode.UNSUPPORTED_VERSION,
          apiKeys: this.broker.registry.apiVersions(),
        });
        return;
      }
      this.fail(`unsupported version ${version} of ${handler.def.name}`, { correlationId: header.correlationId });
      return;
    }
    let request: Message;
    try {
      if (isFlexible(handler.def, version)) skipTaggedFields(r);
      request = decodeMessage(handler.def, 'request', version, r);
    } catch (err) {
      // ApiVersions is special: a newer client may send a request version whose body we cannot read.
      if (header.apiKey === API_VERSIONS_KEY && err instanceof ProtocolError) {
        const slot = this.enqueue(header.correlationId);
        this.complete(slot, handler, 0, header, { errorCode: ErrorCode.INVALID_REQUEST, apiKeys: this.broker.registry.apiVersions() });
        return;
      }
      this.fail(`malformed ${handler.def.name} v${version} request`, { err: (err as Error).message });
      return;
    }
    const slot = this.enqueue(header.correlationId);
    const ctx = {
      broker: this.broker, header, apiVersion: version, log: this.log, signal: this.abort.signal,
      clientAddress: this.socket.remoteAddress ?? '',
      closeConnection: (reason: string) => {
        slot.closeReason = reason;
      },
    };
    let result: Message | null | Promise<Message | null>;
    try {
      result = handler.handle(ctx, request);
    } catch (err) {
      this.onHandlerError(slot, handler, version, header, request, err);
      return;
    }
    // A handler still running may hold views of the frame: its buffer is then its own.
    if (reusableBuffer && result instanceof Promise) this.frameBuffer = null;
    if (result instanceof Promise) {
      result.then(
        (body) => this.complete(slot, handler, version, header, body),
        (err) => this.onHandlerError(slot, handler, version, header, request, err),
      );
    } else this.complete(slot, handler, version, header, result);
  }

  private onHandlerError(slot: Slot, handler: Handler, version: number, header: RequestHeader, request: Message, err: unknown): void {
    const code = err instanceof KafkaError ? err.code : ErrorCode.UNKNOWN_SERVER_ERROR;
    if (err instanceof KafkaError) this.log.info({ api: handler.def.name, error: errorName(code) }, err.message);
    else this.log.error({ api: handler.def.name, err }, 'handler failed');
    if (handler.errorResponse) {
      try {
        this.complete(slot, handler, version, header, handler.errorResponse(request, code, version));
        return;
      } catch (e) {
        this.log.error({ err: e }, 'building the error response failed');
      }
    }
    this.fail(`${handler.def.name} could not be answered`);
  }

  private enqueue(correlationId: number): Slot {
    const slot: Slot = { correlationId, chunks: undefined };
    this.queue.push(slot);
    return slot;
  }

  private complete(slot: Slot, handler: Handler, version: number, header: RequestHeader, body: Message | null): void {
    if (this.closed) return;
    if (body === null) slot.chunks = null;
    else {
      try {
        slot.chunks = this.encodeResponse(handler, version, header, body);
      } catch (err) {
        this.log.error({ err, api: handler.def.name }, 'encoding the response failed');
        this.fail('response could not be encoded');
        return;
      }
    }
    this.flush();
  }

  private encodeResponse(handler: Handler, version: number, header: RequestHeader, body: Message): Buffer[] {
    const w = new Writer();
    const size = w.reserveInt32();
    w.int32(header.correlationId);
    // Response header v1 (tagged fields) for flexible versions, except ApiVersions which is always v0.
    if (handler.apiKey !== API_VERSIONS_KEY && isFlexible(handler.def, version)) w.uvarint(0);
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
      for (const c of slot.chunks!) ok = this.socket.write(c) && ok;
    }
    if (wrote) {
      this.socket.uncork();
      // Stop reading while the client is not reading its responses.
      if (!ok) this.socket.pause();
    }
  }
}
