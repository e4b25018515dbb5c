// A minimal test client built on krill's own codec: encodes one request, reads one response.
import net from 'node:net';
import { Reader } from '../../protocol/primitives.js';
import { decodeMessage, encodeRequestFrame, isFlexible, skipTaggedFields, type Message } from '../../protocol/codec.js';
import { MESSAGES_BY_KEY } from '../../protocol/messages/index.js';

export function encodeRequest(apiKey: number, version: number, body: Message, correlationId = 1, clientId: string | null = 'krill-test'): Buffer {
  return encodeRequestFrame(MESSAGES_BY_KEY.get(apiKey)!, { apiKey, apiVersion: version, correlationId, clientId }, body);
}

export function decodeResponse(apiKey: number, version: number, frame: Buffer): { correlationId: number; body: Message } {
  const def = MESSAGES_BY_KEY.get(apiKey)!;
  const r = new Reader(frame);
  const correlationId = r.int32();
  if (apiKey !== 18 && isFlexible(def, version)) skipTaggedFields(r);
  return { correlationId, body: decodeMessage(def, 'response', version, r) };
}

/** A persistent connection that sends requests and collects responses in order. */
export class TestClient {
  private sock: net.Socket;
  private buf = Buffer.alloc(0);
  private waiting: ((frame: Buffer | null) => void)[] = [];
  private nextId = 1;
  closed = false;

  private constructor(sock: net.Socket) {
    this.sock = sock;
    sock.on('data', (d) => {
      this.buf = Buffer.concat([this.buf, d]);
      while (this.buf.length >= 4 && this.buf.length >= 4 + this.buf.readInt32BE(0)) {
        const n = this.buf.readInt32BE(0);
        const frame = this.buf.subarray(4, 4 + n);
        this.buf = this.buf.subarray(4 + n);
        this.waiting.shift()?.(frame);
      }
    });
    sock.on('error', () => {});
    sock.on('close', () => {
      this.closed = true;
      for (const w of this.waiting.splice(0)) w(null);
    });
  }

  /** `localAddress`: the loopback address to connect from (any of 127/8), for tests of host ACLs. */
  static connect(port: number, localAddress?: string): Promise<TestClient> {
    return new Promise((resolve, reject) => {
      const sock = net.connect({ port, host: '127.0.0.1', localAddress }, () => resolve(new TestClient(sock)));
      sock.once('error', reject);
    });
  }

  sendRaw(frame: Buffer): Promise<Buffer | null> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.sock.write(frame);
    });
  }

  async request(apiKey: number, version: number, body: Message): Promise<Message> {
    const id = this.nextId++;
    const frame = await this.sendRaw(encodeRequest(apiKey, version, body, id));
    if (!frame) throw new Error('connection closed');
    const res = decodeResponse(apiKey, version, frame);
    if (res.correlationId !== id) throw new Error(`correlation id ${res.correlationId}, expected ${id}`);
    return res.body;
  }

  /** Sends without waiting for a response (acks=0 produce). */
  fireAndForget(apiKey: number, version: number, body: Message): void {
    this.sock.write(encodeRequest(apiKey, version, body, this.nextId++));
  }

  close(): void {
    this.sock.destroy();
  }
}
