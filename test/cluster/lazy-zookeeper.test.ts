// The single-broker start loads no ZooKeeper code: the built CLI (what npx krill runs) is started with a
// preloaded hook that records whether node-zookeeper-client is ever required, once without zookeeper.connect
// (it must not be) and once with it, against a real ZooKeeper (it must be: the hook does see the load).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, spawnCli, tempDir } from '../helpers.js';
import { startZooKeeper, type ZooKeeperServer } from '../../src/cluster/zookeeper-server.js';

const HOOK = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures', 'record-zookeeper-load.cjs');

let zookeeper: ZooKeeperServer;
beforeAll(async () => {
  if (!fs.existsSync(CLI)) throw new Error('the CLI is not built: run npm run build first');
  zookeeper = await startZooKeeper();
}, 90_000);
afterAll(async () => {
  await zookeeper?.stop();
}, 30_000);

/** Starts the CLI with the hook, stops it with SIGTERM, and answers whether it loaded the ZooKeeper client. */
async function loadsZooKeeperClient(extraArgs: string[]): Promise<boolean> {
  const dir = tempDir('krill-lazy-zk-');
  const record = path.join(dir, 'record.json');
  try {
    const broker = await spawnCli(['--port', '0', '--data-dir', path.join(dir, 'data'), ...extraArgs], {
      timeoutMs: 60_000,
      env: { ...process.env, NODE_OPTIONS: `--require ${HOOK}`, KRILL_ZK_LOAD_RECORD: record },
    });
    broker.proc.kill('SIGTERM');
    expect(await broker.exited).toBe(0);
    return (JSON.parse(fs.readFileSync(record, 'utf8')) as { loaded: boolean }).loaded;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('the ZooKeeper client is loaded only in cluster mode', () => {
  it('a single broker never requires node-zookeeper-client', async () => {
    expect(await loadsZooKeeperClient([])).toBe(false);
  }, 90_000);

  it('a broker with zookeeper.connect does', async () => {
    const args = ['--set', `zookeeper.connect=${zookeeper.connect}/lazy-test`, '--set', 'broker.id=7'];
    expect(await loadsZooKeeperClient(args)).toBe(true);
  }, 90_000);
});
