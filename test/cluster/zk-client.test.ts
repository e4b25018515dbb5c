// ZkClient against a real Apache ZooKeeper (skipped where it is not installed).
import { describe, expect, it } from 'vitest';
import { ZkClient, ZkError } from '../../src/cluster/zk/zk-client.js';
import { zookeeperInstalled } from '../../src/cluster/zookeeper-server.js';
import { deadPort, quietLog, startCuttableProxy, useZooKeeper, waitFor } from './zk-helpers.js';

// A short tick lets a session expire quickly (sessions last 2 to 20 ticks: 0.5 s to 5 s here).
const TICK_MS = 250;

describe.skipIf(!zookeeperInstalled())('ZkClient', () => {
  const zk = useZooKeeper({ tickTimeMs: TICK_MS });

  it('creates, reads, updates and deletes znodes, with versions', async () => {
    const c = await zk.connect('/basics');
    expect(await c.create('/a', Buffer.from('one'), 'persistent')).toBe('/a');
    const read = await c.getData('/a');
    expect(read?.data?.toString()).toBe('one');
    expect(read?.version).toBe(0);
    expect(typeof read?.czxid).toBe('bigint');
    expect(read?.ephemeralOwner).toBeNull();
    await c.create('/mine', null, 'ephemeral');
    expect((await c.getData('/mine'))?.ephemeralOwner).toBe(c.sessionId());
    expect(await c.setData('/a', Buffer.from('two'), 0)).toBe(1);
    await expect(c.setData('/a', Buffer.from('three'), 0)).rejects.toMatchObject({ code: 'BAD_VERSION', path: '/a' });
    await expect(c.create('/a', null, 'persistent')).rejects.toMatchObject({ code: 'NODE_EXISTS' });
    expect(await c.getData('/missing')).toBeNull();
    expect(await c.getChildren('/missing')).toEqual([]);

    await c.createIfMissing('/deep/er/path', Buffer.from('x'));
    await c.createIfMissing('/deep/er/path');
    expect((await c.getData('/deep/er/path'))?.data?.toString()).toBe('x');
    await expect(c.delete('/deep')).rejects.toMatchObject({ code: 'NOT_EMPTY' });
    await c.deleteRecursive('/deep');
    expect(await c.getData('/deep')).toBeNull();
    await c.deleteRecursive('/deep');

    const seq = await c.create('/seq-', null, 'persistent_sequential');
    expect(seq).toMatch(/^\/seq-\d{10}$/);
    expect(c.sessionId()).toMatch(/^0x[0-9a-f]+$/);
  });

  it('connects without a chroot and with one, creating the chroot first', async () => {
    const root = await zk.connect();
    expect(await root.getData('/krill/cluster-a')).toBeNull();
    const chrooted = await zk.connect('/krill/cluster-a');
    await chrooted.create('/inside', Buffer.from('v'), 'persistent');
    expect((await root.getData('/krill/cluster-a/inside'))?.data?.toString()).toBe('v');
    // Connecting again to an existing chroot is fine.
    await zk.connect('/krill/cluster-a');
  });

  it('rejects with the connect string when no server answers within the connection timeout', async () => {
    const connect = `127.0.0.1:${await deadPort()}/somewhere`;
    const handles = (): number => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap').length;
    const before = handles();
    await expect(ZkClient.connect({ connect, sessionTimeoutMs: 6000, connectionTimeoutMs: 1500, log: quietLog })).rejects.toThrow(
      `could not connect to ZooKeeper at 127.0.0.1:`,
    );
    await expect(ZkClient.connect({ connect, sessionTimeoutMs: 6000, connectionTimeoutMs: 500, log: quietLog })).rejects.toThrow(
      /127\.0\.0\.1:\d+ within 500 ms/,
    );
    // The abandoned client stops trying: no socket of it stays open.
    await waitFor(() => handles() <= before, 'the abandoned client to close its sockets');
  });

  it('removes an ephemeral znode when its session ends, and fires the watches on it', async () => {
    const owner = await zk.connect('/ephemeral');
    const watcher = await zk.connect('/ephemeral');
    await owner.create('/e', Buffer.from('mine'), 'ephemeral');
    let dataWatchFired = 0;
    let childWatchFired = 0;
    expect((await watcher.getData('/e', () => dataWatchFired++))?.data?.toString()).toBe('mine');
    expect(await watcher.getChildren('/', () => childWatchFired++)).toContain('e');
    await owner.close();
    await waitFor(() => dataWatchFired === 1 && childWatchFired === 1, 'the watches to fire');
    expect(await watcher.getData('/e')).toBeNull();
  });

  it('fires a watch set on a missing znode when it is created', async () => {
    const c = await zk.connect('/watch-missing');
    let dataFired = 0;
    let childrenFired = 0;
    expect(await c.getData('/later', () => dataFired++)).toBeNull();
    expect(await c.getChildren('/parent', () => childrenFired++)).toEqual([]);
    await c.create('/later', Buffer.from('now'), 'persistent');
    await c.create('/parent', null, 'persistent');
    await waitFor(() => dataFired === 1 && childrenFired === 1, 'the creation watches to fire');
    // One-shot: a later change does not fire them again.
    await c.setData('/later', Buffer.from('again'));
    await c.create('/parent/child', null, 'persistent');
    await c.getData('/later');
    expect([dataFired, childrenFired]).toEqual([1, 1]);
  });

  it('applies a multi all or nothing, naming the failing operation', async () => {
    const c = await zk.connect('/multi');
    await c.create('/v', Buffer.from('0'), 'persistent');
    await c.multi([
      { op: 'check', path: '/v', version: 0 },
      { op: 'create', path: '/made', data: Buffer.from('m'), mode: 'persistent' },
      { op: 'set', path: '/v', data: Buffer.from('1'), version: 0 },
    ]);
    expect((await c.getData('/v'))?.version).toBe(1);
    const failed = await c
      .multi([
        { op: 'create', path: '/not-made', data: null, mode: 'persistent' },
        { op: 'check', path: '/v', version: 0 },
      ])
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(ZkError);
    expect(failed).toMatchObject({ code: 'BAD_VERSION', opIndex: 1, path: '/v' });
    expect(await c.getData('/not-made')).toBeNull();
    await c.multi([{ op: 'delete', path: '/made' }]);
    expect(await c.getData('/made')).toBeNull();
  });

  it("reports the session's expiry, after which the client is dead", async () => {
    // Cut the client off from ZooKeeper until the server expires its session, then let it reconnect:
    // the server tells it the session is gone.
    const proxy = await startCuttableProxy(zk.server().port);
    try {
      const doomed = await ZkClient.connect({
        connect: `127.0.0.1:${proxy.port}`,
        sessionTimeoutMs: 2 * TICK_MS,
        connectionTimeoutMs: 20_000,
        log: quietLog,
      });
      const events: string[] = [];
      doomed.on('disconnected', () => events.push('disconnected'));
      doomed.on('expired', () => events.push('expired'));
      await doomed.create('/doomed', null, 'ephemeral');
      const observer = await zk.connect();
      await proxy.cut();
      await waitFor(async () => (await observer.getData('/doomed')) === null, 'the server to expire the session');
      await proxy.restore();
      await waitFor(() => events.includes('expired'), 'the expired event');
      expect(events[0]).toBe('disconnected');
      await expect(doomed.getData('/')).rejects.toMatchObject({ code: 'SESSION_EXPIRED' });
      await doomed.close();
    } finally {
      await proxy.close();
    }
  });
});
