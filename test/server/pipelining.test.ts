// A client that pipelines requests and does not read the responses: as Kafka mutes such a channel, krill
// serves one request of a connection at a time and takes no more of them while 16 MiB of answers wait to
// be read, so the broker's memory stays bounded whatever the client queues; once the client reads, every
// answer arrives, in order and intact. One that never reads makes no progress and is closed after
// connections.max.idle.ms.
import fs from 'node:fs';
import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnCli, tempDir, type CliBroker } from '../helpers.js';
import { TestClient, decodeResponse, encodeRequest } from './client.js';
import { API, createTopic, fetchBody, produceOk, recordsOf } from './kafka.js';

const RECORD = 900_000;
const FETCHES = 150;

function rssMb(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
}

/** Four ~900 KB records in `topic`, so that a fetch of the whole partition answers ~3.6 MB. */
async function fill(port: number, topic: string): Promise<void> {
  const c = await TestClient.connect(port);
  try {
    await createTopic(c, topic);
    for (let i = 0; i < 4; i++) await produceOk(c, topic, 0, [{ key: `k${i}`, value: String.fromCharCode(97 + i).repeat(RECORD) }]);
  } finally {
    c.close();
  }
}

/** A paused socket that has sent `n` whole-partition fetches of `topic`, correlation ids 1..n. */
async function pipelineFetches(port: number, topic: string, n: number): Promise<net.Socket> {
  const sock = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => sock.once('connect', resolve).once('error', reject));
  sock.on('error', () => {});
  sock.pause();
  const body = fetchBody(11, topic, [{ partition: 0, fetchOffset: 0, partitionMaxBytes: 50_000_000 }], { maxBytes: 50_000_000 });
  sock.write(Buffer.concat(Array.from({ length: n }, (_, k) => encodeRequest(API.Fetch, 11, body, k + 1))));
  return sock;
}

/** Reads response frames from `sock` until `n` arrived or the server closed it. */
function readFrames(sock: net.Socket, n: number, onFrame: (frame: Buffer) => void): Promise<{ frames: number; closed: boolean }> {
  return new Promise((resolve) => {
    let pending = Buffer.alloc(0);
    let frames = 0;
    sock.on('data', (d: Buffer) => {
      pending = Buffer.concat([pending, d]);
      while (pending.length >= 4 && pending.length >= 4 + pending.readInt32BE(0)) {
        onFrame(pending.subarray(4, 4 + pending.readInt32BE(0)));
        pending = pending.subarray(4 + pending.readInt32BE(0));
        if (++frames === n) resolve({ frames, closed: false });
      }
    });
    sock.once('close', () => resolve({ frames, closed: true }));
    sock.resume();
  });
}

describe.runIf(process.platform === 'linux')('pipelined requests whose responses are not read', () => {
  const dirs: string[] = [];
  const brokers: CliBroker[] = [];
  afterAll(async () => {
    for (const b of brokers) {
      b.proc.kill('SIGKILL');
      await b.exited;
    }
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });
  async function start(args: string[] = []): Promise<CliBroker> {
    const dir = tempDir();
    dirs.push(dir);
    const b = await spawnCli(['--port', '0', '--data-dir', dir, '--log-level', 'warn', ...args]);
    brokers.push(b);
    return b;
  }

  it(`${FETCHES} fetches of 3.6 MB queued unread hold the broker's memory to tens of MB; read later, all arrive intact`, async () => {
    const broker = await start();
    await fill(broker.port, 'big');
    const before = rssMb(broker.proc.pid!);
    const sock = await pipelineFetches(broker.port, 'big', FETCHES);
    await new Promise((r) => setTimeout(r, 1500));
    const grew = rssMb(broker.proc.pid!) - before;
    // Served all at once they would hold 540 MB of answers (on the previous commit: 690 MB for 200).
    expect(grew).toBeLessThan(150);
    const ids: number[] = [];
    let intact = 0;
    const read = await readFrames(sock, FETCHES, (frame) => {
      const res = decodeResponse(API.Fetch, 11, frame);
      ids.push(res.correlationId);
      const values = recordsOf(res.body.responses[0].partitions[0].records).map((r) => r.value);
      if (values.length === 4 && values.every((v, i) => v === String.fromCharCode(97 + i).repeat(RECORD))) intact++;
    });
    sock.destroy();
    expect(read).toEqual({ frames: FETCHES, closed: false });
    expect(ids).toEqual(Array.from({ length: FETCHES }, (_, k) => k + 1));
    expect(intact).toBe(FETCHES);
  }, 60_000);

  it('a client that never reads is closed after connections.max.idle.ms, as Kafka closes a channel making no progress', async () => {
    const broker = await start(['--set', 'connections.max.idle.ms=500']);
    await fill(broker.port, 'big');
    const sock = await pipelineFetches(broker.port, 'big', 30);
    await new Promise((r) => setTimeout(r, 2500));
    const read = await readFrames(sock, 30, () => {});
    expect(read.closed).toBe(true);
    expect(read.frames).toBeLessThan(30);
  }, 60_000);
});
