// startZooKeeper: a real server on a free port, its data dir removed on stop, a clear error when it cannot
// start (skipped where ZooKeeper is not installed).
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startZooKeeper, zookeeperInstalled } from '../../src/cluster/zookeeper-server.js';
import { ZkClient } from '../../src/cluster/zk/zk-client.js';
import { quietLog, waitFor } from './zk-helpers.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    s.on('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });
}

describe.skipIf(!zookeeperInstalled())('startZooKeeper', () => {
  it('starts a server clients can use, keeps a given data dir, and stops it', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'krill-zk-own-'));
    try {
      const server = await startZooKeeper({ dataDir });
      expect(server.connect).toBe(`127.0.0.1:${server.port}`);
      const client = await ZkClient.connect({ connect: server.connect, sessionTimeoutMs: 6000, connectionTimeoutMs: 20_000, log: quietLog });
      await client.create('/kept', Buffer.from('x'), 'persistent');
      await client.close();
      await server.stop();
      expect(await accepts(server.port)).toBe(false);
      expect(fs.readdirSync(dataDir).length).toBeGreaterThan(0);

      // The same data dir again: the znode survived.
      const again = await startZooKeeper({ dataDir });
      const reader = await ZkClient.connect({ connect: again.connect, sessionTimeoutMs: 6000, connectionTimeoutMs: 20_000, log: quietLog });
      expect((await reader.getData('/kept'))?.data?.toString()).toBe('x');
      await reader.close();
      again.kill();
      await waitFor(async () => !(await accepts(again.port)), 'the killed server to stop answering');
      await again.stop();
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('fails with a clear error when the port it was given is taken', async () => {
    const taken = net.createServer((s) => s.destroy());
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const { port } = taken.address() as net.AddressInfo;
    try {
      await expect(startZooKeeper({ port })).rejects.toThrow(`port ${port} is in use`);
    } finally {
      await new Promise<void>((r) => taken.close(() => r()));
    }
  }, 120_000);

  it('dies with the process that started it, even one killed with SIGKILL', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'krill-zk-parent-'));
    try {
      const script = path.join(dir, 'start.ts');
      const moduleUrl = new URL('../../src/cluster/zookeeper-server.ts', import.meta.url).href;
      fs.writeFileSync(
        script,
        `import { startZooKeeper } from ${JSON.stringify(moduleUrl)};\n` +
          `const zk = await startZooKeeper({ dataDir: ${JSON.stringify(dir)} });\n` +
          'console.log(`port ${zk.port}`);\nsetInterval(() => {}, 1000);\n',
      );
      const parent = spawn(path.join(ROOT, 'node_modules', '.bin', 'vite-node'), [script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
      const port = await new Promise<number>((resolve, reject) => {
        let out = '';
        parent.stdout.on('data', (c: Buffer) => {
          out += c.toString();
          const m = /port (\d+)/.exec(out);
          if (m) resolve(Number(m[1]));
        });
        parent.on('exit', () => reject(new Error(`the parent exited early: ${out}`)));
      });
      expect(await accepts(port)).toBe(true);
      parent.kill('SIGKILL');
      await waitFor(async () => !(await accepts(port)), 'the orphaned ZooKeeper to stop');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
