// Shared by the ZooKeeper tests: one real ZooKeeper per test file, sessions closed after the file, waiting
// for a condition with a bound, and a TCP proxy that can cut a client off from the server for a while.
import net from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { ZkClient } from '../../src/cluster/zk/zk-client.js';
import { startZooKeeper, type StartZooKeeperOptions, type ZooKeeperServer } from '../../src/cluster/zookeeper-server.js';

export const quietLog = { info: () => {}, warn: () => {} };

/** A ZooKeeper for the whole file (hooks registered here), and a connect() whose sessions end with it. */
export function useZooKeeper(opts: StartZooKeeperOptions = {}): {
  server: () => ZooKeeperServer;
  connect: (chroot?: string, sessionTimeoutMs?: number) => Promise<ZkClient>;
} {
  let server: ZooKeeperServer | undefined;
  const clients: ZkClient[] = [];
  beforeAll(async () => {
    server = await startZooKeeper(opts);
  }, 90_000);
  afterAll(async () => {
    for (const c of clients) await c.close();
    await server?.stop();
  }, 30_000);
  return {
    server: () => server!,
    connect: async (chroot = '', sessionTimeoutMs = 10_000) => {
      const client = await ZkClient.connect({
        connect: `${server!.connect}${chroot}`,
        sessionTimeoutMs,
        connectionTimeoutMs: 20_000,
        log: quietLog,
      });
      clients.push(client);
      return client;
    },
  };
}

/** Resolves once `check` holds, polling; fails after `bound` ms (a bound against hanging, not a timing). */
export async function waitFor(check: () => boolean | Promise<boolean>, what: string, bound = 20_000): Promise<void> {
  const deadline = Date.now() + bound;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A loopback port with nothing listening on it. */
export async function deadPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/**
 * Forwards a loopback port to the target. cut() drops every connection and refuses new ones, as a network
 * partition between the client and ZooKeeper would; restore() listens again on the same port.
 */
export async function startCuttableProxy(targetPort: number): Promise<{
  port: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((inbound) => {
    const outbound = net.connect({ host: '127.0.0.1', port: targetPort });
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
    }
    inbound.pipe(outbound).pipe(inbound);
    inbound.on('close', () => outbound.destroy());
    outbound.on('close', () => inbound.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  const stopListening = async (): Promise<void> => {
    for (const s of sockets) s.destroy();
    if (server.listening) await new Promise<void>((r) => server.close(() => r()));
  };
  return {
    port,
    cut: stopListening,
    restore: () => new Promise<void>((r) => server.listen(port, '127.0.0.1', r)),
    close: stopListening,
  };
}
