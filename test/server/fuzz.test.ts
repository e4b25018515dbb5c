// Throws random, truncated and mutated frames at a live broker, then checks it still serves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import net from 'node:net';
import { withBroker } from '../helpers.js';
import { TestClient, encodeRequest } from './client.js';
import type { RunningBroker } from '../../src/index.js';

let broker: RunningBroker;
beforeAll(async () => {
  broker = await withBroker();
});
afterAll(() => broker.close());

// A small deterministic PRNG so a failure can be replayed.
function prng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function sendAndClose(port: number, data: Buffer): Promise<void> {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1', () => {
      sock.write(data);
      setTimeout(() => sock.destroy(), 20);
    });
    sock.on('error', () => {});
    sock.on('close', () => resolve());
  });
}

describe('fuzzing a live broker', () => {
  it('survives random, truncated and mutated frames and still answers Metadata', async () => {
    const rand = prng(42);
    const valid = [
      encodeRequest(18, 3, { clientSoftwareName: 'fuzz', clientSoftwareVersion: '1' }),
      encodeRequest(3, 9, { topics: [{ name: 'fuzz-topic' }], allowAutoTopicCreation: true }),
      encodeRequest(3, 1, { topics: null }),
      encodeRequest(19, 5, { topics: [{ name: 'fz', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 1000 }),
      encodeRequest(1, 12, {
        maxWaitMs: 10,
        minBytes: 1,
        maxBytes: 1000,
        topics: [{ topic: 'fz', partitions: [{ partition: 0, fetchOffset: 0, partitionMaxBytes: 1000 }] }],
      }),
      encodeRequest(2, 5, { replicaId: -1, topics: [{ name: 'fz', partitions: [{ partitionIndex: 0, timestamp: -1 }] }] }),
    ];
    const cases: Buffer[] = [];
    for (let i = 0; i < 150; i++) {
      const kind = i % 5;
      if (kind === 0) {
        // pure garbage, sometimes with a plausible size prefix
        const n = Math.floor(rand() * 200);
        const b = Buffer.alloc(4 + n);
        for (let j = 4; j < b.length; j++) b[j] = Math.floor(rand() * 256);
        b.writeInt32BE(rand() < 0.5 ? n : Math.floor(rand() * 2 ** 31), 0);
        cases.push(b);
      } else if (kind === 1) {
        // a valid request cut short, with its size prefix patched to match
        const v = valid[i % valid.length];
        const cut = 4 + Math.floor(rand() * (v.length - 4));
        const b = Buffer.from(v.subarray(0, cut));
        b.writeInt32BE(cut - 4, 0);
        cases.push(b);
      } else if (kind === 2) {
        // a valid request with bytes flipped after the size prefix
        const b = Buffer.from(valid[i % valid.length]);
        for (let k = 0; k < 3; k++) {
          const at = 4 + Math.floor(rand() * (b.length - 4));
          b[at] = Math.floor(rand() * 256);
        }
        cases.push(b);
      } else if (kind === 3) {
        // negative size and sizes beyond socket.request.max.bytes
        const b = Buffer.alloc(8);
        b.writeInt32BE(rand() < 0.5 ? -5 : 200 * 1024 * 1024, 0);
        cases.push(b);
      } else {
        // a valid header with an unknown API key or an absurd version
        const b = Buffer.from(valid[0]);
        b.writeInt16BE(rand() < 0.5 ? 9999 : 0, 4);
        b.writeInt16BE(Math.floor(rand() * 400) - 100, 6);
        cases.push(b);
      }
    }
    for (let i = 0; i < cases.length; i += 10) {
      await Promise.all(cases.slice(i, i + 10).map((c) => sendAndClose(broker.port, c)));
    }
    const client = await TestClient.connect(broker.port);
    const md = await client.request(3, 12, {
      topics: [{ topicId: Buffer.alloc(16), name: 'after-fuzz' }],
      allowAutoTopicCreation: true,
      includeTopicAuthorizedOperations: false,
    });
    client.close();
    expect(md.topics).toHaveLength(1);
    expect(md.topics[0].name).toBe('after-fuzz');
    expect(md.topics[0].errorCode).toBe(0);
    expect(md.brokers[0].port).toBe(broker.port);
  });
});
