// BrokerClient against a real krill (ApiVersions, Metadata, pipelining) and against small TCP servers that
// misbehave on purpose: one that never answers (timeouts, close, the pending bound), one that answers the
// inter-broker requests in a batch (pipelining of several requests on one socket), one that sends a size prefix
// above the limit or a body that does not decode, and a port nobody listens on.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import net from 'node:net';
import crypto from 'node:crypto';
import type { RunningBroker } from '../../src/index.js';
import { BrokerClient, BrokerRequestError, INTER_BROKER_VERSIONS, MAX_PENDING_REQUESTS, type BrokerClientOptions } from '../../src/cluster/broker-client.js';
import { decodeMessage, decodeRequestHeaderStart, encodeMessage, isFlexible, skipTaggedFields, type RequestHeader } from '../../protocol/codec.js';
import { API_KEYS, MESSAGES_BY_KEY, type ApiKey } from '../../protocol/messages/index.js';
import { Reader, Writer } from '../../protocol/primitives.js';
import { withBroker } from '../helpers.js';
import type { Message } from '../../protocol/codec.js';

/** A rejection's BrokerRequestError, for asserting its reason and message. */
async function failure(p: Promise<unknown>): Promise<BrokerRequestError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(BrokerRequestError);
  return err as BrokerRequestError;
}

const clients: BrokerClient[] = [];
function client(port: number, extra: Partial<BrokerClientOptions> = {}): BrokerClient {
  const c = new BrokerClient({ host: '127.0.0.1', port, clientId: 'krill-controller', requestTimeoutMs: 10_000, ...extra });
  clients.push(c);
  return c;
}
afterEach(() => {
  for (const c of clients.splice(0)) c.close();
});

interface Received {
  connection: number;
  header: RequestHeader;
  body: Message;
  socket: net.Socket;
}

/** A TCP server that decodes each request frame and hands it to `onRequest`; counts connections. */
async function fakeBroker(onRequest: (req: Received) => void): Promise<{ port: number; connections: () => number; close(): Promise<void> }> {
  let connections = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    const connection = ++connections;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let buf = Buffer.alloc(0);
    socket.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      while (buf.length >= 4 && buf.length >= 4 + buf.readInt32BE(0)) {
        const r = new Reader(buf.subarray(4, 4 + buf.readInt32BE(0)));
        buf = buf.subarray(4 + buf.readInt32BE(0));
        const header = decodeRequestHeaderStart(r);
        const def = MESSAGES_BY_KEY.get(header.apiKey)!;
        if (isFlexible(def, header.apiVersion)) skipTaggedFields(r);
        onRequest({ connection, header, body: decodeMessage(def, 'request', header.apiVersion, r), socket });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => connections,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A response frame as a Kafka broker writes it: response header v1 for a flexible version (not ApiVersions). */
function responseFrame(header: RequestHeader, body: Record<string, unknown>): Buffer {
  const def = MESSAGES_BY_KEY.get(header.apiKey)!;
  const w = new Writer();
  const size = w.reserveInt32();
  w.int32(header.correlationId);
  if (header.apiKey !== API_KEYS.ApiVersions && isFlexible(def, header.apiVersion)) w.uvarint(0);
  encodeMessage(def, 'response', header.apiVersion, body, w);
  size.buf.writeInt32BE(w.length - 4, size.at);
  return w.toBuffer();
}

describe('BrokerClient against a real krill', () => {
  let broker: RunningBroker;
  beforeAll(async () => {
    broker = await withBroker();
  });
  afterAll(async () => {
    await broker?.close();
  });

  it('sends ApiVersions (v0 and v3, whose response header stays v0) and decodes the answers', async () => {
    const c = client(broker.port);
    for (const v of [0, 3]) {
      const body = v >= 3 ? { clientSoftwareName: 'krill', clientSoftwareVersion: '1' } : {};
      const res = await c.send(API_KEYS.ApiVersions, v, body);
      expect(res.errorCode).toBe(0);
      expect(res.apiKeys.map((k: { apiKey: number }) => k.apiKey)).toContain(API_KEYS.Metadata);
    }
  });

  it('sends Metadata (v1 and flexible v12) and decodes brokers and cluster id', async () => {
    const c = client(broker.port);
    const v12 = await c.send(API_KEYS.Metadata, 12, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
    expect(v12.clusterId).toBe(broker.clusterId);
    expect(v12.brokers).toHaveLength(1);
    expect(v12.brokers[0].port).toBe(broker.port);
    const v1 = await c.send(API_KEYS.Metadata, 1, { topics: null });
    expect(v1.brokers[0].nodeId).toBe(v12.brokers[0].nodeId);
  });

  it('pipelines many requests on one connection and matches each response to its request', async () => {
    const c = client(broker.port);
    const sends = Array.from({ length: 50 }, (_, i) =>
      i % 2 === 0
        ? c.send(API_KEYS.ApiVersions, i % 4 === 0 ? 3 : 0, i % 4 === 0 ? { clientSoftwareName: 'k', clientSoftwareVersion: '1' } : {})
        : c.send(API_KEYS.Metadata, 12, { topics: [], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false }),
    );
    const results = await Promise.all(sends);
    results.forEach((res, i) => {
      if (i % 2 === 0) expect((res as Message).apiKeys.length).toBeGreaterThan(0);
      else expect((res as Message).clusterId).toBe(broker.clusterId);
    });
  });
});

describe('BrokerClient with the inter-broker requests', () => {
  it('pipelines LeaderAndIsr, UpdateMetadata, StopReplica and ControlledShutdown on one socket, answered together', async () => {
    const topicId = crypto.randomBytes(16);
    const got: Received[] = [];
    const fake = await fakeBroker((req) => {
      got.push(req);
      if (got.length < 4) return; // all four must be here before anything is answered
      const answers: Record<number, Record<string, unknown>> = {
        4: { errorCode: 0, topics: [{ topicId, partitionErrors: [{ partitionIndex: 0, errorCode: 0 }] }] },
        6: { errorCode: 0 },
        5: { errorCode: 0, partitionErrors: [{ topicName: 't', partitionIndex: 1, errorCode: 0 }] },
        7: { errorCode: 0, remainingPartitions: [{ topicName: 't', partitionIndex: 2 }] },
      };
      // In reverse order: the client matches by correlation id, not by position.
      for (const r of [...got].reverse()) r.socket.write(responseFrame(r.header, answers[r.header.apiKey]));
    });
    try {
      const c = client(fake.port);
      const partitionState = {
        partitionIndex: 0,
        controllerEpoch: 3,
        leader: 1,
        leaderEpoch: 5,
        isr: [1, 2],
        partitionEpoch: 9,
        replicas: [1, 2],
        addingReplicas: [],
        removingReplicas: [],
        isNew: true,
        leaderRecoveryState: 0,
      };
      const [lai, um, sr, cs] = await Promise.all([
        c.send(4, INTER_BROKER_VERSIONS.LeaderAndIsr, {
          controllerId: 1,
          controllerEpoch: 3,
          brokerEpoch: 77n,
          type: 0,
          topicStates: [{ topicName: 't', topicId, partitionStates: [partitionState] }],
          liveLeaders: [{ brokerId: 1, hostName: 'localhost', port: 9092 }],
        }),
        c.send(6, INTER_BROKER_VERSIONS.UpdateMetadata, {
          controllerId: 1,
          controllerEpoch: 3,
          brokerEpoch: 77n,
          type: 2,
          topicStates: [
            {
              topicName: 't',
              topicId,
              partitionStates: [
                { partitionIndex: 0, controllerEpoch: 3, leader: 1, leaderEpoch: 5, isr: [1], zkVersion: 9, replicas: [1], offlineReplicas: [] },
              ],
            },
          ],
          liveBrokers: [{ id: 1, endpoints: [{ port: 9092, host: 'localhost', listener: 'PLAINTEXT', securityProtocol: 0 }], rack: null }],
        }),
        c.send(5, INTER_BROKER_VERSIONS.StopReplica, {
          controllerId: 1,
          controllerEpoch: 3,
          brokerEpoch: 77n,
          topicStates: [{ topicName: 't', partitionStates: [{ partitionIndex: 1, leaderEpoch: 4, deletePartition: true }] }],
        }),
        c.send(7, INTER_BROKER_VERSIONS.ControlledShutdown, { brokerId: 2, brokerEpoch: 78n }),
      ]);
      expect(fake.connections()).toBe(1);
      expect(got.map((r) => r.header.clientId)).toEqual(Array(4).fill('krill-controller'));
      expect(new Set(got.map((r) => r.header.correlationId)).size).toBe(4);
      // What the peer decoded is what was sent.
      const [laiReq, umReq, srReq, csReq] = got.map((r) => r.body);
      expect(laiReq.brokerEpoch).toBe(77);
      expect(laiReq.topicStates[0].topicId.equals(topicId)).toBe(true);
      expect(laiReq.topicStates[0].partitionStates[0]).toMatchObject({ leader: 1, isr: [1, 2], partitionEpoch: 9, isNew: true });
      expect(umReq.type).toBe(2);
      expect(umReq.liveBrokers[0].endpoints[0]).toEqual({ port: 9092, host: 'localhost', listener: 'PLAINTEXT', securityProtocol: 0 });
      expect(srReq.topicStates[0].partitionStates[0]).toEqual({ partitionIndex: 1, leaderEpoch: 4, deletePartition: true });
      expect(csReq).toEqual({ brokerId: 2, brokerEpoch: 78 });
      // And each answer reached its own request.
      expect(lai.topics[0].topicId.equals(topicId)).toBe(true);
      expect(um).toEqual({ errorCode: 0 });
      expect(sr.partitionErrors).toEqual([{ topicName: 't', partitionIndex: 1, errorCode: 0 }]);
      expect(cs.remainingPartitions).toEqual([{ topicName: 't', partitionIndex: 2 }]);
    } finally {
      await fake.close();
    }
  });

  it('rejects an unknown API, a version the definition lacks and ControlledShutdown v0 without sending', async () => {
    const fake = await fakeBroker(() => {});
    try {
      const c = client(fake.port);
      expect((await failure(c.send(999 as ApiKey, 0, {} as never))).reason).toBe('invalid');
      expect((await failure(c.send(4, 8, {} as never))).reason).toBe('invalid');
      expect((await failure(c.send(7, 0, { brokerId: 1 }))).reason).toBe('invalid');
      expect(fake.connections()).toBe(0);
    } finally {
      await fake.close();
    }
  });
});

describe('BrokerClient failures', () => {
  it('times out against a peer that never answers, fails the others in flight, and reconnects on the next send', async () => {
    const fake = await fakeBroker((req) => {
      // The first connection is silent; later ones answer.
      if (req.connection > 1) req.socket.write(responseFrame(req.header, { errorCode: 0, apiKeys: [] }));
    });
    try {
      const c = client(fake.port, { requestTimeoutMs: 300 });
      const first = c.send(API_KEYS.ApiVersions, 0, {});
      const firstErr = await failure(first);
      expect(firstErr.reason).toBe('timeout');
      expect(firstErr.message).toMatch(/ApiVersions v0 .* timed out after 300 ms/);

      const res = await c.send(API_KEYS.ApiVersions, 0, {});
      expect(res.errorCode).toBe(0);
      expect(fake.connections()).toBe(2);
    } finally {
      await fake.close();
    }
  });

  it('a timeout resets the connection: requests in flight on it fail too', async () => {
    const fake = await fakeBroker(() => {});
    try {
      const c = client(fake.port, { requestTimeoutMs: 300 });
      const first = c.send(API_KEYS.ApiVersions, 0, {});
      // Sent after the first with the same timeout: its timer is due later, so the first one's reset fails it.
      const second = c.send(API_KEYS.ApiVersions, 0, {});
      expect((await failure(first)).reason).toBe('timeout');
      const secondErr = await failure(second);
      expect(secondErr.reason).toBe('connection');
      expect(secondErr.message).toMatch(/reset/);
    } finally {
      await fake.close();
    }
  });

  it('rejects with a clear message when the connection is refused', async () => {
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const warnings: string[] = [];
    const c = client(port, { log: { warn: (_o, m) => warnings.push(m ?? '') } });
    const err = await failure(c.send(API_KEYS.ApiVersions, 0, {}));
    expect(err.reason).toBe('connection');
    expect(err.message).toMatch(new RegExp(`connection to 127.0.0.1:${port} failed: .*ECONNREFUSED`));
    expect(warnings.some((w) => /ECONNREFUSED/.test(w))).toBe(true);
  });

  it('rejects (does not throw) for a port that cannot be connected to at all', async () => {
    const c = client(70_000);
    const err = await failure(c.send(API_KEYS.ApiVersions, 0, {}));
    expect(err.reason).toBe('connection');
    expect(err.message).toMatch(/cannot connect to 127.0.0.1:70000/);
  });

  it('rejects a response whose size is above maxResponseBytes and resets the connection', async () => {
    const fake = await fakeBroker((req) => {
      const frame = Buffer.alloc(8);
      frame.writeInt32BE(2048, 0); // more than the 1024 allowed; the rest never comes
      frame.writeInt32BE(req.header.correlationId, 4);
      req.socket.write(frame);
    });
    try {
      const c = client(fake.port, { maxResponseBytes: 1024 });
      const err = await failure(c.send(API_KEYS.ApiVersions, 0, {}));
      expect(err.reason).toBe('protocol');
      expect(err.message).toMatch(/response size 2048 .* outside 0-1024/);
    } finally {
      await fake.close();
    }
  });

  it('rejects a response that does not decode, and one with an unknown correlation id', async () => {
    const fake = await fakeBroker((req) => {
      const w = new Writer();
      const size = w.reserveInt32();
      if (req.connection === 1)
        w.int32(req.header.correlationId).int16(0).int32(5); // 5 api keys announced, none there
      else
        w.int32(req.header.correlationId + 1000)
          .int16(0)
          .int32(0);
      size.buf.writeInt32BE(w.length - 4, size.at);
      req.socket.write(w.toBuffer());
    });
    try {
      const c = client(fake.port);
      const malformed = await failure(c.send(API_KEYS.ApiVersions, 0, {}));
      expect(malformed.reason).toBe('protocol');
      expect(malformed.message).toMatch(/ApiVersions v0 response .* is malformed/);
      const unknown = await failure(c.send(API_KEYS.ApiVersions, 0, {}));
      expect(unknown.reason).toBe('protocol');
      expect(unknown.message).toMatch(/unknown correlation id/);
      expect(fake.connections()).toBe(2);
    } finally {
      await fake.close();
    }
  });

  it('close() fails the pending requests and later sends, and does not reconnect', async () => {
    const fake = await fakeBroker(() => {});
    try {
      const c = client(fake.port);
      const pending = [c.send(API_KEYS.ApiVersions, 0, {}), c.send(API_KEYS.ApiVersions, 0, {}), c.send(API_KEYS.Metadata, 1, { topics: null })];
      await expect.poll(() => fake.connections()).toBe(1);
      c.close();
      for (const p of pending) expect((await failure(p)).reason).toBe('closed');
      expect((await failure(c.send(API_KEYS.ApiVersions, 0, {}))).reason).toBe('closed');
      expect(fake.connections()).toBe(1);
    } finally {
      await fake.close();
    }
  });

  it(`bounds the requests awaiting a response at ${MAX_PENDING_REQUESTS}`, async () => {
    const fake = await fakeBroker(() => {});
    try {
      const c = client(fake.port);
      const pending = Array.from({ length: MAX_PENDING_REQUESTS }, () => c.send(API_KEYS.ApiVersions, 0, {}));
      const over = await failure(c.send(API_KEYS.ApiVersions, 0, {}));
      expect(over.reason).toBe('overloaded');
      c.close();
      const settled = await Promise.allSettled(pending);
      expect(settled.every((s) => s.status === 'rejected')).toBe(true);
    } finally {
      await fake.close();
    }
  });
});
