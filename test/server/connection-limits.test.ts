// Kafka's connection limits on a live broker: connections.max.idle.ms closes idle connections (not one
// waiting on its own request), max.connections.per.ip (and its overrides) and max.connections close a
// connection over the limit while those already open keep working.
import { describe, expect, it } from 'vitest';
import net from 'node:net';
import { withBroker } from '../helpers.js';
import { TestClient, encodeRequest } from './client.js';
import { API, createTopic, fetchBody, uniqueTopic } from './kafka.js';
import type { RunningBroker } from '../../src/index.js';

const API_VERSIONS = { clientSoftwareName: 'x', clientSoftwareVersion: '1' };

interface Peer {
  sock: net.Socket;
  /** Resolves when the server closes the socket (the test never closes it before). */
  closedByServer: Promise<void>;
}

function connect(port: number, localAddress = '127.0.0.1'): Promise<Peer> {
  return new Promise((resolve, reject) => {
    const sock = net.connect({ port, host: '127.0.0.1', localAddress }, () => resolve({ sock, closedByServer }));
    const closedByServer = new Promise<void>((r) => sock.once('close', () => r()));
    sock.on('error', () => {});
    sock.once('connect', () => sock.off('error', reject));
    sock.once('error', reject);
  });
}

/** One ApiVersions request and its response frame, or null when the server closed the connection instead. */
function apiVersions(peer: Peer, correlationId = 1): Promise<Buffer | null> {
  return new Promise((resolve) => {
    let buf = Buffer.alloc(0);
    const onData = (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      if (buf.length >= 4 && buf.length >= 4 + buf.readInt32BE(0)) {
        peer.sock.off('data', onData);
        resolve(buf.subarray(4, 4 + buf.readInt32BE(0)));
      }
    };
    peer.sock.on('data', onData);
    peer.closedByServer.then(() => resolve(null));
    if (!peer.sock.destroyed) peer.sock.write(encodeRequest(API.ApiVersions, 3, API_VERSIONS, correlationId));
  });
}

async function answers(peer: Peer, correlationId = 1): Promise<boolean> {
  const frame = await apiVersions(peer, correlationId);
  return frame !== null && frame.readInt32BE(0) === correlationId;
}

/** Whether the server has closed `peer` once the broker's accept and any close have run. */
async function refused(peer: Peer): Promise<boolean> {
  return (await apiVersions(peer)) === null;
}

async function withLimits(config: Record<string, string | number>, body: (b: RunningBroker) => Promise<void>): Promise<void> {
  const b = await withBroker({ config });
  try {
    await body(b);
  } finally {
    await b.close();
  }
}

describe('connections.max.idle.ms', () => {
  it('closes a connection idle for that long, from the server side', async () => {
    await withLimits({ 'connections.max.idle.ms': 300 }, async (b) => {
      const peer = await connect(b.port);
      expect(await answers(peer)).toBe(true);
      await peer.closedByServer; // the test would time out if the server never closed it
      expect(peer.sock.destroyed).toBe(true);
      // A later connection is served as usual.
      const next = await connect(b.port);
      expect(await answers(next)).toBe(true);
      next.sock.destroy();
    });
  });

  it('does not close a connection waiting on its own long-poll Fetch, which gets its answer', async () => {
    await withLimits({ 'connections.max.idle.ms': 300 }, async (b) => {
      const topic = uniqueTopic('idle');
      const admin = await TestClient.connect(b.port);
      await createTopic(admin, topic);
      admin.close();
      const c = await TestClient.connect(b.port);
      // Waits 1500 ms for a byte that never comes: five idle timeouts with a request in progress.
      const res = await c.request(API.Fetch, 11, fetchBody(11, topic, [{ partition: 0, fetchOffset: 0 }], { maxWaitMs: 1500, minBytes: 1 }));
      expect(res.responses[0].partitions[0]).toMatchObject({ errorCode: 0, highWatermark: 0 });
      expect(c.closed).toBe(false);
      c.close();
    });
  });
});

describe('connection quotas', () => {
  it('max.connections.per.ip closes the connection over the limit; the others keep working and a freed slot is reused', async () => {
    await withLimits({ 'max.connections.per.ip': 2 }, async (b) => {
      const [one, two] = [await connect(b.port), await connect(b.port)];
      expect(await answers(one)).toBe(true);
      expect(await answers(two)).toBe(true);
      const three = await connect(b.port);
      expect(await refused(three)).toBe(true);
      expect(await answers(one, 2)).toBe(true);
      expect(await answers(two, 2)).toBe(true);
      one.sock.destroy();
      await one.closedByServer;
      // The broker sees the close asynchronously: a new connection gets the slot once it has.
      let four: Peer | null = null;
      for (let i = 0; i < 50 && !four; i++) {
        const p = await connect(b.port);
        if (await answers(p)) four = p;
        else await new Promise((r) => setTimeout(r, 20));
      }
      expect(four).not.toBeNull();
      two.sock.destroy();
      four!.sock.destroy();
    });
  });

  it('max.connections.per.ip.overrides sets the limit of one address (Linux routes all of 127/8 to loopback)', async () => {
    await withLimits({ 'max.connections.per.ip': 1, 'max.connections.per.ip.overrides': '127.0.0.2:3' }, async (b) => {
      const fromTwo = [await connect(b.port, '127.0.0.2'), await connect(b.port, '127.0.0.2'), await connect(b.port, '127.0.0.2')];
      for (const p of fromTwo) expect(await answers(p)).toBe(true);
      expect(await refused(await connect(b.port, '127.0.0.2'))).toBe(true);
      const fromOne = await connect(b.port, '127.0.0.1');
      expect(await answers(fromOne)).toBe(true);
      expect(await refused(await connect(b.port, '127.0.0.1'))).toBe(true);
      for (const p of [...fromTwo, fromOne]) p.sock.destroy();
    });
  });

  it('max.connections.per.ip=0 with overrides admits only the addresses named', async () => {
    await withLimits({ 'max.connections.per.ip': 0, 'max.connections.per.ip.overrides': '127.0.0.2:1' }, async (b) => {
      expect(await refused(await connect(b.port, '127.0.0.1'))).toBe(true);
      const p = await connect(b.port, '127.0.0.2');
      expect(await answers(p)).toBe(true);
      p.sock.destroy();
    });
  });

  it('max.connections closes a connection over the broker-wide limit, whatever its address', async () => {
    await withLimits({ 'max.connections': 2 }, async (b) => {
      const one = await connect(b.port, '127.0.0.1');
      const two = await connect(b.port, '127.0.0.2');
      expect(await answers(one)).toBe(true);
      expect(await answers(two)).toBe(true);
      expect(await refused(await connect(b.port, '127.0.0.3'))).toBe(true);
      expect(await answers(one, 2)).toBe(true);
      expect(await answers(two, 2)).toBe(true);
      one.sock.destroy();
      two.sock.destroy();
    });
  });
});
