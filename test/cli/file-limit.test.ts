// The built CLI under a small open-file limit (`ulimit -n`): thousands of partitions restart, after a clean
// stop and after kill -9, because segment files are opened on use and at most krill.log.max.open.files of
// them stay open; and when the process is out of descriptors anyway, the request needing a file fails
// with an error naming the limit while the broker goes on.
import { afterAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawnCli, type CliBroker } from '../helpers.js';
import { TestClient, encodeRequest } from '../server/client.js';
import { API, createTopic, fetchOne, produce, produceOk, recordsOf, values } from '../server/kafka.js';
import { buildBatch } from '../../protocol/record-batch.js';
import { ErrorCode } from '../../protocol/errors.js';

const dirs: string[] = [];
const brokers: CliBroker[] = [];
afterAll(() => {
  for (const b of brokers) b.kill('SIGKILL');
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** A data directory; on tmpfs where there is one: 3,000 partitions are 12,000 files, and disk speed is not the subject. */
function dataDir(): string {
  const base = fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
  const d = fs.mkdtempSync(path.join(base, 'krill-fds-'));
  dirs.push(d);
  return d;
}

async function start(dir: string, limit: number, extra: string[] = []): Promise<{ b: CliBroker; c: TestClient }> {
  const b = await spawnCli(['--port', '0', '--data-dir', dir, ...extra], { openFileLimit: limit, timeoutMs: 60_000, npx: true });
  brokers.push(b);
  return { b, c: await TestClient.connect(b.port) };
}

async function stop(b: CliBroker, c: TestClient, signal: NodeJS.Signals): Promise<void> {
  c.close();
  b.kill(signal);
  expect(await b.exited).toBe(signal === 'SIGKILL' ? 'SIGKILL' : 0);
}

async function valuesAt(c: TestClient, topic: string, partition: number): Promise<(string | null)[]> {
  const p = await fetchOne(c, topic, partition, 0);
  expect(p.errorCode).toBe(ErrorCode.NONE);
  return recordsOf(p.records).map((r) => r.value);
}

/** Whether the broker answers an ApiVersions request on this connection (false: closed, or no answer within 5 s). */
function answersApiVersions(sock: net.Socket): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (answered: boolean) => {
      clearTimeout(timer);
      resolve(answered);
    };
    const timer = setTimeout(() => done(false), 5000);
    sock.on('error', () => done(false));
    sock.on('close', () => done(false));
    sock.once('data', () => done(true));
    sock.write(encodeRequest(API.ApiVersions, 3, { clientSoftwareName: 'hog', clientSoftwareVersion: '1' }));
  });
}

/** Open descriptors of a process, as the kernel counts them. */
const descriptorsOf = (pid: number) => fs.readdirSync(`/proc/${pid}/fd`).length;

describe.skipIf(process.platform === 'win32')('krill under a small open-file limit', () => {
  it('restarts 3,000 partitions under ulimit -n 1024, cleanly stopped and killed, with every record readable', async () => {
    const dir = dataDir();
    const sample = [0, 1, 1234, 2998, 2999];
    let { b, c } = await start(dir, 1024);
    await createTopic(c, 'many', 3000);
    for (const p of sample) expect(await produceOk(c, 'many', p, values(2, `p${p}-`))).toBe(0);
    // 3 files per partition would be 9,000 descriptors; the default bound keeps 512.
    if (fs.existsSync('/proc')) expect(descriptorsOf(b.pid)).toBeLessThan(1024 - 300);
    await stop(b, c, 'SIGTERM');

    ({ b, c } = await start(dir, 1024));
    for (const p of sample) expect(await valuesAt(c, 'many', p)).toEqual([`p${p}-0`, `p${p}-1`]);
    expect(await produceOk(c, 'many', 1500, values(1, 'again-'))).toBe(0);
    await stop(b, c, 'SIGKILL');

    // After kill -9 every active segment is scanned in full: still within the limit.
    ({ b, c } = await start(dir, 1024));
    for (const p of sample) expect(await valuesAt(c, 'many', p)).toEqual([`p${p}-0`, `p${p}-1`]);
    expect(await valuesAt(c, 'many', 1500)).toEqual(['again-0']);
    expect(b.stderr()).not.toMatch(/EMFILE/);
    await stop(b, c, 'SIGKILL');
  }, 120_000);

  it('fails a request that needs a file when the process is out of descriptors, names the limit, and goes on', async () => {
    // Bound 1: only the last segment used keeps its files, so deleting topic `gone` leaves none open.
    const { b, c } = await start(dataDir(), 64, ['--set', 'krill.log.max.open.files=1']);
    await createTopic(c, 't', 1);
    expect(await produceOk(c, 't', 0, values(1, 'before-'))).toBe(0);
    await createTopic(c, 'gone', 1);
    const del = await c.request(API.DeleteTopics, 6, { topics: [{ name: 'gone', topicId: Buffer.alloc(16) }], timeoutMs: 5000 });
    expect(del.responses[0].errorCode).toBe(ErrorCode.NONE);

    // Connections take the broker's remaining descriptors, until it accepts and drops them (libuv's EMFILE answer).
    const hogs: net.Socket[] = [];
    for (let answered = true; answered && hogs.length < 200;) {
      const hog = net.connect(b.port, '127.0.0.1');
      hogs.push(hog);
      answered = await answersApiVersions(hog);
    }
    expect(hogs.length).toBeLessThan(200);

    const failed = await produce(c, 't', 0, buildBatch(values(1, 'during-')));
    expect(failed.errorCode).toBe(ErrorCode.KAFKA_STORAGE_ERROR);
    expect(failed.errorMessage).toMatch(/limit of open files \(ulimit -n, RLIMIT_NOFILE\) \(EMFILE\); krill keeps at most krill\.log\.max\.open\.files=1 /);
    const fetched = await fetchOne(c, 't', 0, 0);
    expect(fetched.errorCode).toBe(ErrorCode.KAFKA_STORAGE_ERROR);

    for (const s of hogs) s.destroy();
    // The broker notices the closed connections on its own schedule: retry until a descriptor is free.
    let after = failed;
    for (let i = 0; i < 100 && after.errorCode !== ErrorCode.NONE; i++) {
      await new Promise((r) => setTimeout(r, 20));
      after = await produce(c, 't', 0, buildBatch(values(1, 'after-')));
    }
    expect(after.errorCode).toBe(ErrorCode.NONE);
    expect(after.baseOffset).toBe(1);
    expect(await valuesAt(c, 't', 0)).toEqual(['before-0', 'after-0']);
    expect(b.proc.exitCode).toBeNull();
    await stop(b, c, 'SIGTERM');
    // The broker's log says it once, at warn level, with the file.
    expect(b.stderr()).toMatch(/"level":40,.*"msg":"cannot open [^"]*00000000000000000000\.log: the process is at its limit of open files/);
  }, 60_000);
});
