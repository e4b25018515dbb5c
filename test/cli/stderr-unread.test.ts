// A parent that reads krill's stdout for the ready line and never reads its stderr (a common way to start a
// broker from a test harness) must not freeze the broker once the stderr pipe is full: log records are
// dropped instead, and the broker keeps answering and still stops cleanly.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, tempDir } from '../helpers.js';
import { TestClient } from '../server/client.js';
import { API } from '../server/kafka.js';

describe.runIf(process.platform === 'linux')('a stderr pipe nobody reads', () => {
  const dir = tempDir();
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('does not block the broker: every request is answered, then SIGTERM exits 0', async () => {
    const proc = spawn(process.execPath, [CLI, '--port', '0', '--data-dir', dir, '--log-level', 'debug'], { stdio: ['ignore', 'pipe', 'pipe'] });
    proc.stderr!.pause(); // never read: the pipe fills after ~64 KiB of log records
    const exited = new Promise<number | string>((resolve) => proc.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
    const port = await new Promise<number>((resolve, reject) => {
      let out = '';
      proc.stdout!.on('data', (d) => {
        out += d;
        const m = /krill ready on [^\s]+:(\d+)/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      exited.then((code) => reject(new Error(`krill exited with ${code}`)));
    });
    const client = await TestClient.connect(port);
    try {
      // Each request logs a debug record of ~250 bytes: 2,000 of them are several times the pipe's buffer.
      for (let i = 0; i < 2000; i++) {
        const res = await client.request(API.ApiVersions, 3, { clientSoftwareName: 'unread-stderr', clientSoftwareVersion: String(i) });
        expect(res.errorCode).toBe(0);
      }
      client.close();
      proc.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      client.close();
      proc.kill('SIGKILL');
    }
  }, 60_000);
});
