// Compatibility: exactly-once consume-transform-produce with kafkajs (transactions + sendOffsets) when the
// worker is killed with SIGKILL mid-stream. A new worker with the same transactional.id fences the dead one
// (its open transaction is aborted, its pending offsets dropped) and resumes from the committed offsets:
// a read_committed reader of the output then sees every input exactly once.
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type RunningBroker } from '../../src/index.js';

const require = createRequire(import.meta.url);
/* eslint-disable @typescript-eslint/no-explicit-any */
const { Kafka, logLevel, Partitioners } = require('kafkajs');
const WORKER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'eos-worker.cjs');
const INPUTS = 300;

let broker: RunningBroker;
beforeAll(async () => {
  broker = await startBroker({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await broker?.close();
});

function startWorker(args: string[]): { proc: ChildProcess; processed: () => number; exited: Promise<number | string | null> } {
  const proc = spawn(process.execPath, [WORKER, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let processed = 0;
  proc.stdout!.on('data', (d: Buffer) => {
    const m = String(d).match(/processed (\d+)/g);
    if (m) processed = Number(m[m.length - 1].split(' ')[1]);
  });
  const exited = new Promise<number | string | null>((resolve) => proc.on('exit', (code, signal) => resolve(signal ?? code)));
  return { proc, processed: () => processed, exited };
}

async function until(cond: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('kafkajs exactly-once consume-transform-produce', () => {
  it('outputs every input exactly once although the worker is killed with SIGKILL mid-stream', async () => {
    const kafka = new Kafka({ clientId: 'krill-eos-test', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
    const tag = `${process.pid}-${Date.now()}`;
    const [input, output, group, txnId] = [`eos-in-${tag}`, `eos-out-${tag}`, `eos-g-${tag}`, `eos-tx-${tag}`];
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({
      topics: [
        { topic: input, numPartitions: 2 },
        { topic: output, numPartitions: 2 },
      ],
    });
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    await producer.send({ topic: input, messages: Array.from({ length: INPUTS }, (_, i) => ({ key: `k${i}`, value: `v${i}` })) });
    await producer.disconnect();

    const args = [broker.bootstrap, input, output, group, txnId];
    const first = startWorker(args);
    await until(() => first.processed() >= INPUTS / 4, 60_000, 'the first worker to get a quarter through');
    first.proc.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    expect(first.processed()).toBeLessThan(INPUTS);

    const second = startWorker(args);
    try {
      // Done when the group's committed offsets cover every input.
      await until(
        async () => {
          const committed = await admin.fetchOffsets({ groupId: group, topics: [input] });
          const total = committed[0].partitions.reduce((n: number, p: any) => n + Math.max(0, Number(p.offset)), 0);
          return total >= INPUTS;
        },
        90_000,
        'the second worker to commit every input',
      );
    } finally {
      second.proc.kill('SIGKILL');
      await second.exited;
    }

    // Read the output as a read_committed consumer: each input value, upper-cased, exactly once.
    const consumer = kafka.consumer({ groupId: `${group}-reader`, readUncommitted: false });
    await consumer.connect();
    await consumer.subscribe({ topic: output, fromBeginning: true });
    const seen: string[] = [];
    await consumer.run({
      eachMessage: async ({ message }: any) => {
        seen.push(String(message.value));
      },
    });
    await until(() => seen.length >= INPUTS, 30_000, 'the reader to see every output');
    await new Promise((r) => setTimeout(r, 1000)); // nothing more (no duplicates) arrives
    await consumer.disconnect();
    await admin.disconnect();
    expect(seen.length).toBe(INPUTS);
    expect(new Set(seen).size).toBe(INPUTS);
    expect([...seen].sort()).toEqual(Array.from({ length: INPUTS }, (_, i) => `V${i}`).sort());
  }, 180_000);
});
