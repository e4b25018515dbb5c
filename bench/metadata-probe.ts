// A minimal raw-socket Kafka client for the start-time benchmarks: one Metadata v1 request
// (no topics), one response. Written against the wire format directly so the measurement
// includes nothing but a TCP connect and one round trip.
//
// Request (v1, header v1):  int32 size | int16 api_key=3 | int16 api_version=1 | int32 correlation_id
//                           | string client_id | array<string> topics (empty = no topics in v1+)
// Response (v1, header v0): int32 size | int32 correlation_id | array brokers[int32 node_id, string host,
//                           int32 port, nullable string rack] | int32 controller_id | array topics

import net from 'node:net';

export interface MetadataAnswer {
  brokers: { nodeId: number; host: string; port: number }[];
  controllerId: number;
}

const CLIENT_ID = 'krill-bench';

export function encodeMetadataV1Request(correlationId: number): Buffer {
  const clientId = Buffer.from(CLIENT_ID, 'utf8');
  const size = 2 + 2 + 4 + 2 + clientId.length + 4;
  const buf = Buffer.alloc(4 + size);
  let o = buf.writeInt32BE(size, 0);
  o = buf.writeInt16BE(3, o); // api_key: Metadata
  o = buf.writeInt16BE(1, o); // api_version
  o = buf.writeInt32BE(correlationId, o);
  o = buf.writeInt16BE(clientId.length, o);
  o += clientId.copy(buf, o);
  buf.writeInt32BE(0, o); // topics: empty array
  return buf;
}

export function decodeMetadataV1Response(frame: Buffer, correlationId: number): MetadataAnswer {
  let o = 0;
  const need = (n: number) => {
    if (o + n > frame.length) throw new Error(`Metadata response truncated at byte ${o}`);
  };
  const i32 = () => {
    need(4);
    const v = frame.readInt32BE(o);
    o += 4;
    return v;
  };
  const i16 = () => {
    need(2);
    const v = frame.readInt16BE(o);
    o += 2;
    return v;
  };
  const str = () => {
    const len = i16();
    if (len < 0) return null;
    need(len);
    const s = frame.toString('utf8', o, o + len);
    o += len;
    return s;
  };
  const cid = i32();
  if (cid !== correlationId) throw new Error(`correlation id ${cid}, expected ${correlationId}`);
  const count = i32();
  if (count < 0 || count > 10_000) throw new Error(`bad broker count ${count}`);
  const brokers: MetadataAnswer['brokers'] = [];
  for (let i = 0; i < count; i++) {
    const nodeId = i32();
    const host = str() ?? '';
    const port = i32();
    str(); // rack
    brokers.push({ nodeId, host, port });
  }
  const controllerId = i32();
  return { brokers, controllerId };
}

let nextCorrelationId = 1;

/** Connects to host:port, sends one Metadata v1 request and resolves with the decoded answer. */
export function probeMetadata(host: string, port: number, timeoutMs = 5000): Promise<MetadataAnswer> {
  return new Promise((resolve, reject) => {
    const correlationId = nextCorrelationId++;
    const socket = net.connect({ host, port });
    socket.setNoDelay(true);
    let chunks: Buffer[] = [];
    let have = 0;
    let done = false;
    const finish = (err: Error | null, answer?: MetadataAnswer) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      if (err) reject(err);
      else resolve(answer!);
    };
    const timer = setTimeout(() => finish(new Error(`no Metadata answer within ${timeoutMs} ms`)), timeoutMs);
    socket.on('connect', () => socket.write(encodeMetadataV1Request(correlationId)));
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      have += chunk.length;
      if (have < 4) return;
      const all = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      chunks = [all];
      const size = all.readInt32BE(0);
      if (size < 0 || size > 64 * 1024 * 1024) return finish(new Error(`bad response size ${size}`));
      if (all.length < 4 + size) return;
      try {
        finish(null, decodeMetadataV1Response(all.subarray(4, 4 + size), correlationId));
      } catch (err) {
        finish(err as Error);
      }
    });
    socket.on('error', (err) => finish(err));
    socket.on('close', () => finish(new Error('connection closed before a Metadata answer')));
  });
}

/**
 * Retries probeMetadata every `intervalMs` until one succeeds (resolves with the time it succeeded,
 * performance.now() clock) or `deadline` (performance.now() clock) passes.
 * `alive` is checked between attempts so a dead server fails fast.
 */
export async function waitForMetadata(
  host: string,
  port: number,
  deadline: number,
  alive: () => string | null = () => null,
  intervalMs = 1,
): Promise<{ at: number; answer: MetadataAnswer; attempts: number }> {
  let attempts = 0;
  let lastError = 'no attempt made';
  for (;;) {
    attempts++;
    try {
      const answer = await probeMetadata(host, port, Math.max(1, Math.min(5000, deadline - performance.now())));
      return { at: performance.now(), answer, attempts };
    } catch (err) {
      lastError = (err as Error).message;
    }
    const dead = alive();
    if (dead) throw new Error(dead);
    if (performance.now() > deadline) throw new Error(`no Metadata answer before the deadline (last error: ${lastError})`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
