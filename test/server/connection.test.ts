// The connection layer on a live broker: acks=0, pipelining and response order, framing, and what closes
// a connection (only that one).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import net from 'node:net';
import { Duplex } from 'node:stream';
import { tempDir, useBrokerAndClient, withBroker } from '../helpers.js';
import { TestClient, decodeResponse, encodeRequest } from './client.js';
import { API, createTopic, fetchBody, fetchOne, metadataBody, produceBody, produceOk, recordsOf, uniqueTopic, values } from './kafka.js';
import { buildBatch } from '../../protocol/record-batch.js';
import type { RunningBroker } from '../../src/index.js';
import { Broker } from '../../src/broker.js';
import { BrokerConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { Connection } from '../../src/server/connection.js';
import type { Message } from '../../protocol/codec.js';

const live = useBrokerAndClient({ config: { 'socket.request.max.bytes': '1000' } });

/** Resolves when the socket closes, or with 'open' after ms. */
function closedWithin(sock: net.Socket, ms: number): Promise<'closed' | 'open'> {
  return new Promise((resolve) => {
    if (sock.destroyed) return resolve('closed');
    const t = setTimeout(() => resolve('open'), ms);
    sock.once('close', () => {
      clearTimeout(t);
      resolve('closed');
    });
  });
}

function connectRaw(): Promise<{ sock: net.Socket; frames: Buffer[] }> {
  return new Promise((resolve, reject) => {
    const frames: Buffer[] = [];
    let buf = Buffer.alloc(0);
    const sock = net.connect(live.broker.port, '127.0.0.1', () => resolve({ sock, frames }));
    sock.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      while (buf.length >= 4 && buf.length >= 4 + buf.readInt32BE(0)) {
        frames.push(buf.subarray(4, 4 + buf.readInt32BE(0)));
        buf = buf.subarray(4 + buf.readInt32BE(0));
      }
    });
    sock.once('error', reject);
  });
}

/** The values of partition 0 of `topic` from offset 0, fetched until `count` are read or nothing more comes. */
async function readBack(c: TestClient, topic: string, count: number): Promise<string[]> {
  const all: string[] = [];
  let offset = 0;
  while (all.length < count) {
    const p = await fetchOne(c, topic, 0, offset, 11, { maxBytes: 64 << 20, partitionMaxBytes: 64 << 20 });
    const recs = recordsOf(p.records).filter((r) => r.offset >= offset);
    if (recs.length === 0) break;
    all.push(...recs.map((r) => r.value!));
    offset = recs[recs.length - 1].offset + 1;
  }
  return all;
}

async function stillServes(): Promise<void> {
  const c = await TestClient.connect(live.broker.port);
  const res = await c.request(API.ApiVersions, 3, { clientSoftwareName: 'x', clientSoftwareVersion: '1' });
  c.close();
  expect(res.errorCode).toBe(0);
}

describe('acks=0', () => {
  it('gets no response, the data is there, and the next request gets its own response', async () => {
    const topic = uniqueTopic('acks0');
    await createTopic(live.client, topic);
    const c = await TestClient.connect(live.broker.port);
    try {
      c.fireAndForget(API.Produce, 9, produceBody(topic, 0, buildBatch(values(2, 'zero-')), 0));
      c.fireAndForget(API.Produce, 3, produceBody(topic, 0, buildBatch(values(1, 'three-')), 0));
      // request() checks that the response carries this request's correlation id, not the produce's
      const md = await c.request(API.Metadata, 9, metadataBody([topic], false));
      expect(md.topics[0].errorCode).toBe(0);
      const p = await fetchOne(c, topic, 0, 0);
      expect(p.highWatermark).toBe(3);
      expect(recordsOf(p.records).map((r) => r.value)).toEqual(['zero-0', 'zero-1', 'three-0']);
    } finally {
      c.close();
    }
  });

  // Kafka closes the connection when an acks=0 produce fails, so that the producer notices and refreshes
  // its metadata (KafkaApis.handleProduceRequest).
  it('an acks=0 produce that fails closes the connection, as Kafka does', async () => {
    const c = await TestClient.connect(live.broker.port);
    try {
      c.fireAndForget(API.Produce, 9, produceBody(uniqueTopic('never-created'), 0, buildBatch(values(1)), 0));
      // no response may be sent for the produce; the connection is closed instead
      expect(await c.sendRaw(encodeRequest(API.ApiVersions, 0, {}, 99))).toBeNull();
    } finally {
      c.close();
    }
  });
});

describe('pipelining', () => {
  it('answers five pipelined requests in request order, a long-polling Fetch first', async () => {
    const idle = uniqueTopic('idle');
    const target = uniqueTopic('target');
    await createTopic(live.client, idle);
    await createTopic(live.client, target);
    const c = await TestClient.connect(live.broker.port);
    try {
      const frames = [
        encodeRequest(API.Fetch, 12, fetchBody(12, idle, [{ partition: 0, fetchOffset: 0 }], { maxWaitMs: 500, minBytes: 1 }), 101),
        encodeRequest(API.Metadata, 12, metadataBody([target], false), 102),
        encodeRequest(API.Produce, 9, produceBody(target, 0, buildBatch(values(2))), 103),
        encodeRequest(API.Metadata, 1, { topics: null }, 104),
        encodeRequest(API.Produce, 11, produceBody(target, 0, buildBatch(values(3))), 105),
      ];
      // all written before any response is read; responses resolve in arrival order
      const pending = frames.map((f) => c.sendRaw(f));
      const got = await Promise.all(pending);
      expect(got.map((f) => f!.readInt32BE(0))).toEqual([101, 102, 103, 104, 105]);
      const fetch = decodeResponse(API.Fetch, 12, got[0]!).body;
      expect(fetch.responses[0].partitions[0].errorCode).toBe(0);
      expect(recordsOf(fetch.responses[0].partitions[0].records)).toEqual([]);
      expect(decodeResponse(API.Metadata, 12, got[1]!).body.topics[0].name).toBe(target);
      expect(decodeResponse(API.Produce, 9, got[2]!).body.responses[0].partitionResponses[0]).toMatchObject({ errorCode: 0, baseOffset: 0 });
      expect(decodeResponse(API.Metadata, 1, got[3]!).body.topics.map((t: Message) => t.name)).toContain(target);
      expect(decodeResponse(API.Produce, 11, got[4]!).body.responses[0].partitionResponses[0]).toMatchObject({ errorCode: 0, baseOffset: 2 });
    } finally {
      c.close();
    }
  }, 8000);

  it('handles frames split byte by byte and several frames in one write', async () => {
    const { sock, frames } = await connectRaw();
    try {
      const a = encodeRequest(API.ApiVersions, 3, { clientSoftwareName: 'a', clientSoftwareVersion: '1' }, 11);
      for (const byte of a) {
        sock.write(Buffer.from([byte]));
        await new Promise((r) => setImmediate(r));
      }
      sock.write(
        Buffer.concat([
          encodeRequest(API.ApiVersions, 0, {}, 12),
          encodeRequest(API.Metadata, 1, { topics: null }, 13),
          encodeRequest(API.DescribeCluster, 0, { includeClusterAuthorizedOperations: false }, 14),
        ]),
      );
      for (let i = 0; i < 100 && frames.length < 4; i++) await new Promise((r) => setTimeout(r, 10));
      expect(frames.map((f) => f.readInt32BE(0))).toEqual([11, 12, 13, 14]);
    } finally {
      sock.destroy();
    }
  });
});

describe('what closes a connection', () => {
  it('a frame over socket.request.max.bytes closes that connection only', async () => {
    const other = await TestClient.connect(live.broker.port);
    const { sock } = await connectRaw();
    try {
      const big = encodeRequest(API.Metadata, 9, metadataBody(Array.from({ length: 40 }, (_, i) => `topic-with-a-long-name-${i}`)), 1);
      expect(big.length - 4).toBeGreaterThan(1000);
      const closed = closedWithin(sock, 3000);
      sock.write(big.subarray(0, 8)); // the size prefix alone is enough
      expect(await closed).toBe('closed');
      const res = await other.request(API.Metadata, 1, { topics: null });
      expect(Array.isArray(res.topics)).toBe(true);
      // a request just under the limit is served
      const ok = await other.request(
        API.Metadata,
        9,
        metadataBody(
          Array.from({ length: 10 }, (_, i) => `ok-${i}`),
          false,
        ),
      );
      expect(ok.topics).toHaveLength(10);
    } finally {
      other.close();
      sock.destroy();
    }
  });

  it('a negative frame size closes the connection', async () => {
    const { sock } = await connectRaw();
    const closed = closedWithin(sock, 3000);
    const b = Buffer.alloc(8);
    b.writeInt32BE(-1, 0);
    sock.write(b);
    expect(await closed).toBe('closed');
    await stillServes();
  });

  it('garbage closes the connection; the broker keeps serving others', async () => {
    const { sock } = await connectRaw();
    const closed = closedWithin(sock, 3000);
    const g = Buffer.alloc(54, 0xff);
    g.writeInt32BE(50, 0);
    sock.write(g);
    expect(await closed).toBe('closed');
    await stillServes();
  });

  it('an unknown API key closes the connection without a response', async () => {
    const { sock, frames } = await connectRaw();
    const closed = closedWithin(sock, 3000);
    const f = encodeRequest(API.ApiVersions, 0, {}, 9);
    f.writeInt16BE(9999, 4);
    sock.write(f);
    expect(await closed).toBe('closed');
    expect(frames).toEqual([]);
    await stillServes();
  });

  it('an unsupported version of an API other than ApiVersions closes the connection', async () => {
    const c = await TestClient.connect(live.broker.port);
    const frame = encodeRequest(API.Metadata, 12, metadataBody(null), 5);
    frame.writeInt16BE(13, 6);
    expect(await c.sendRaw(frame)).toBeNull();
    const c2 = await TestClient.connect(live.broker.port);
    const fetch3 = encodeRequest(API.Fetch, 4, fetchBody(4, 'x', [{ partition: 0, fetchOffset: 0 }]), 6);
    fetch3.writeInt16BE(3, 6);
    expect(await c2.sendRaw(fetch3)).toBeNull();
    await stillServes();
  });

  it('a truncated request body closes the connection', async () => {
    const c = await TestClient.connect(live.broker.port);
    const full = encodeRequest(API.Metadata, 9, metadataBody(['abc', 'def']), 5);
    const cut = Buffer.from(full.subarray(0, full.length - 6));
    cut.writeInt32BE(cut.length - 4, 0);
    expect(await c.sendRaw(cut)).toBeNull();
    await stillServes();
  });

  it('a client closing mid long-poll does not disturb the broker', async () => {
    const topic = uniqueTopic('abandon');
    await createTopic(live.client, topic);
    const c = await TestClient.connect(live.broker.port);
    c.fireAndForget(API.Fetch, 12, fetchBody(12, topic, [{ partition: 0, fetchOffset: 0 }], { maxWaitMs: 30_000, minBytes: 1 }));
    await new Promise((r) => setTimeout(r, 20));
    c.close();
    const res = await live.client.request(API.Produce, 9, produceBody(topic, 0, buildBatch(values(1))));
    expect(res.responses[0].partitionResponses[0].errorCode).toBe(0);
    await stillServes();
  });
});

// Large produce frames arrive in many socket reads and are assembled in a buffer the connection reuses
// (Handler.releasesRequestBytes). Each request must still be stored exactly as sent, whatever arrives
// around it in the same stream.
describe('large pipelined requests', () => {
  let big: RunningBroker;
  beforeAll(async () => {
    big = await withBroker();
  });
  afterAll(async () => {
    await big.close();
  });

  it('stores each large produce exactly, amid small requests, failures, acks=0 and a long poll', async () => {
    const topic = uniqueTopic('large');
    const c = await TestClient.connect(big.port);
    try {
      await createTopic(c, topic);
      const valueOf = (i: number, r: number) => String.fromCharCode(97 + ((i * 3 + r) % 26)).repeat(90_000 + i * 1000 + r);
      const batchFor = (i: number) => buildBatch([0, 1, 2].map((r) => ({ key: `req${i}-${r}`, value: valueOf(i, r) })));
      const frames: Buffer[] = [];
      const expected: string[] = [];
      let id = 500;
      // a long-polling Fetch at the end of the log: as in Kafka, a connection's requests are served one at a
      // time, so the produces behind it wait for it, and it is answered empty when its wait is over
      frames.push(encodeRequest(API.Fetch, 12, fetchBody(12, topic, [{ partition: 0, fetchOffset: 0 }], { maxWaitMs: 300, minBytes: 1 }), id++));
      for (let i = 0; i < 6; i++) {
        frames.push(encodeRequest(API.Produce, 9, produceBody(topic, 0, batchFor(i)), id++));
        expected.push(...[0, 1, 2].map((r) => valueOf(i, r)));
        if (i === 1) frames.push(encodeRequest(API.Metadata, 12, metadataBody([topic], false), id++));
        // a large produce that fails (no such topic) between two that succeed
        if (i === 2) frames.push(encodeRequest(API.Produce, 9, produceBody(uniqueTopic('absent'), 0, batchFor(99)), id++));
      }
      expected.push(...[0, 1, 2].map((r) => valueOf(7, r)));
      const last = encodeRequest(API.Produce, 9, produceBody(topic, 0, batchFor(8)), id++);
      expected.push(...[0, 1, 2].map((r) => valueOf(8, r)));
      // All written before any response is read: the broker sees one stream of ~2 MB.
      const responses = frames.map((f) => c.sendRaw(f));
      c.fireAndForget(API.Produce, 9, produceBody(topic, 0, batchFor(7), 0)); // acks=0: no response
      responses.push(c.sendRaw(last));
      const got = await Promise.all(responses);
      expect(got.map((f) => f!.readInt32BE(0))).toEqual(Array.from({ length: id - 500 }, (_, k) => 500 + k));
      const fetched = decodeResponse(API.Fetch, 12, got[0]!).body.responses[0].partitions[0];
      expect(fetched.errorCode).toBe(0);
      expect(recordsOf(fetched.records)).toEqual([]);
      // Produce responses in order: the one for the absent topic failed, every other one succeeded.
      const produceCodes = frames
        .map((f, k) => ({ apiKey: f.readInt16BE(4), frame: got[k]! }))
        .concat([{ apiKey: API.Produce, frame: got[got.length - 1]! }])
        .filter((x) => x.apiKey === API.Produce)
        .map((x) => decodeResponse(API.Produce, 9, x.frame).body.responses[0].partitionResponses[0].errorCode);
      expect(produceCodes).toEqual([0, 0, 0, 3, 0, 0, 0, 0]); // 3 = UNKNOWN_TOPIC_OR_PARTITION
      // Read everything back: every value exactly as sent, in order.
      const all = await readBack(c, topic, expected.length);
      expect(all.length).toBe(expected.length);
      for (let k = 0; k < expected.length; k++) expect(all[k] === expected[k], `record ${k}`).toBe(true);
    } finally {
      c.close();
    }
  }, 20_000);

  it('log bytes queued for a client that is not reading stay intact while other fetches reuse read buffers', async () => {
    const slowTopic = uniqueTopic('slow');
    const busyTopic = uniqueTopic('busy');
    const c = await TestClient.connect(big.port);
    const slow = net.connect(big.port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => slow.once('connect', resolve).once('error', reject));
    slow.pause();
    try {
      await createTopic(c, slowTopic);
      await createTopic(c, busyTopic);
      const valueOf = (topic: string, i: number) => (topic === slowTopic ? 'abcdefgh' : 'STUVWXYZ')[i % 8].repeat(900_000);
      for (const topic of [slowTopic, busyTopic]) {
        for (let i = 0; i < 8; i++) expect(await produceOk(c, topic, 0, [{ key: `k${i}`, value: valueOf(topic, i) }])).toBe(i);
      }
      // 24 one-megabyte answers to a client that reads nothing: more than the kernel's socket buffers
      // take, so the rest waits in the broker, in buffers from the read pool.
      const wanted = Array.from({ length: 24 }, (_, k) => k % 8);
      for (const [k, offset] of wanted.entries()) {
        slow.write(encodeRequest(API.Fetch, 11, fetchBody(11, slowTopic, [{ partition: 0, fetchOffset: offset }]), 900 + k));
      }
      await new Promise((r) => setTimeout(r, 300));
      // Meanwhile another client's fetches take read buffers again and again.
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < 8; i++) {
          const p = await fetchOne(c, busyTopic, 0, i);
          expect(recordsOf(p.records)[0].value === valueOf(busyTopic, i)).toBe(true);
        }
      }
      // Now the slow client reads: every answer holds exactly its own records.
      const frames: Buffer[] = [];
      let pending = Buffer.alloc(0);
      await new Promise<void>((resolve, reject) => {
        slow.on('data', (d: Buffer) => {
          pending = Buffer.concat([pending, d]);
          while (pending.length >= 4 && pending.length >= 4 + pending.readInt32BE(0)) {
            frames.push(pending.subarray(4, 4 + pending.readInt32BE(0)));
            pending = pending.subarray(4 + pending.readInt32BE(0));
          }
          if (frames.length === wanted.length) resolve();
        });
        slow.once('error', reject);
        slow.resume();
      });
      for (const [k, frame] of frames.entries()) {
        const res = decodeResponse(API.Fetch, 11, frame);
        expect(res.correlationId).toBe(900 + k);
        const recs = recordsOf(res.body.responses[0].partitions[0].records);
        expect(recs[0].offset).toBe(wanted[k]);
        expect(recs[0].value === valueOf(slowTopic, wanted[k]), `answer ${k}`).toBe(true);
      }
    } finally {
      slow.destroy();
      c.close();
    }
  }, 30_000);

  it('a frame above the reusable size is read whole too (here: a batch over message.max.bytes)', async () => {
    const topic = uniqueTopic('huge');
    const c = await TestClient.connect(big.port);
    try {
      await createTopic(c, topic);
      const huge = buildBatch([{ key: 'k', value: Buffer.alloc(5 * 1024 * 1024, 7) }]);
      const normal = buildBatch([{ key: 'k', value: 'x'.repeat(200_000) }]);
      const [r1, r2] = await Promise.all([c.request(API.Produce, 9, produceBody(topic, 0, huge)), c.request(API.Produce, 9, produceBody(topic, 0, normal))]);
      expect(r1.responses[0].partitionResponses[0].errorCode).toBe(10); // MESSAGE_TOO_LARGE
      expect(r2.responses[0].partitionResponses[0]).toMatchObject({ errorCode: 0, baseOffset: 0 });
      const p = await fetchOne(c, topic, 0, 0, 11, { maxBytes: 1 << 20, partitionMaxBytes: 1 << 20 });
      expect(recordsOf(p.records).map((r) => r.value)).toEqual(['x'.repeat(200_000)]);
    } finally {
      c.close();
    }
  }, 20_000);
});

describe('the receive buffer behind a connection', () => {
  /** A live.broker object of our own (not the embedded API's wrapper), for what a socket cannot cause. */
  async function startInstance(): Promise<{ broker: Broker; close: () => Promise<void> }> {
    const dir = tempDir();
    const config = new BrokerConfig({ listeners: 'PLAINTEXT://127.0.0.1:0', 'log.dirs': dir });
    const instance = await Broker.start(config, createLogger('warn'));
    return {
      broker: instance,
      close: async () => {
        await instance.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  }

  it('a Produce still running when later frames arrive keeps its bytes (the buffer is given away)', async () => {
    const { broker: b, close } = await startInstance();
    // Fault injection: Produce normally completes before the next read, so the delay is made here. The
    // records are then read 30 ms after their frame, while later frames fill the connection's buffer.
    const produceHandler = b.registry.get(API.Produce)!;
    const delayed = {
      ...produceHandler,
      handle: (ctx: never, req: never) => new Promise((r) => setTimeout(r, 30)).then(() => produceHandler.handle(ctx, req)),
    };
    (b.registry as unknown as { byKey: Map<number, unknown> }).byKey.set(API.Produce, delayed);
    const c = await TestClient.connect(b.listener.port);
    try {
      const topic = uniqueTopic('held');
      await createTopic(c, topic);
      const valueOf = (i: number) => String.fromCharCode(97 + (i % 26)).repeat(150_000 + i);
      const pending = Array.from({ length: 8 }, (_, i) =>
        c.sendRaw(encodeRequest(API.Produce, 9, produceBody(topic, 0, buildBatch([{ key: `k${i}`, value: valueOf(i) }])), 700 + i)),
      );
      const codes = (await Promise.all(pending)).map((f) => decodeResponse(API.Produce, 9, f!).body.responses[0].partitionResponses[0].errorCode);
      expect(codes).toEqual(Array(8).fill(0));
      const stored = await readBack(c, topic, 8);
      expect(stored.length).toBe(8);
      for (let i = 0; i < 8; i++) expect(stored[i] === valueOf(i), `record ${i}`).toBe(true);
    } finally {
      c.close();
      await close();
    }
  }, 20_000);

  it('a socket without a reachable handle is read through its data events, with the same framing', async () => {
    const { broker: b, close } = await startInstance();
    // A duplex stream standing in for a socket (as a TLS socket would): what it writes are the responses.
    class StreamSocket extends Duplex {
      readonly remoteAddress = '127.0.0.1';
      readonly remotePort = 1;
      out = Buffer.alloc(0);
      setNoDelay() {
        return this;
      }
      destroySoon() {
        this.destroy();
      }
      override _read() {}
      override _write(chunk: Buffer, _enc: string, done: () => void) {
        this.out = Buffer.concat([this.out, chunk]);
        done();
      }
    }
    const sock = new StreamSocket();
    b.connections.add(new Connection(sock as unknown as net.Socket, b.connectionHost));
    const topic = uniqueTopic('stream');
    const c = await TestClient.connect(b.listener.port);
    try {
      await createTopic(c, topic);
      const value = 'z'.repeat(100_000);
      const stream = Buffer.concat([
        encodeRequest(API.ApiVersions, 3, { clientSoftwareName: 'x', clientSoftwareVersion: '1' }, 1),
        encodeRequest(API.Produce, 9, produceBody(topic, 0, buildBatch([{ key: 'k', value }])), 2),
        encodeRequest(API.Metadata, 12, metadataBody([topic], false), 3),
      ]);
      // Chunks of 1, 2, 3, ... bytes: every frame and size prefix is split somewhere.
      for (let at = 0, n = 1; at < stream.length; at += n, n = (n % 4096) + 1) sock.push(stream.subarray(at, at + n));
      const frames: Buffer[] = [];
      for (let waited = 0; frames.length < 3 && waited < 5000; waited += 10) {
        await new Promise((r) => setTimeout(r, 10));
        frames.length = 0;
        for (let at = 0; at + 4 <= sock.out.length && at + 4 + sock.out.readInt32BE(at) <= sock.out.length; at += 4 + sock.out.readInt32BE(at)) {
          frames.push(sock.out.subarray(at + 4, at + 4 + sock.out.readInt32BE(at)));
        }
      }
      expect(frames.map((f) => f.readInt32BE(0))).toEqual([1, 2, 3]);
      expect(decodeResponse(API.Produce, 9, frames[1]).body.responses[0].partitionResponses[0]).toMatchObject({ errorCode: 0, baseOffset: 0 });
      expect(await readBack(c, topic, 1)).toEqual([value]);
    } finally {
      c.close();
      sock.destroy();
      await close();
    }
  }, 20_000);
});
