// One server per client listener (`listeners`): each accepts connections for its listener and tells the
// connection which listener it came in on. The ports are bound together at start, so that a start refused
// on any of them (EADDRINUSE) leaves none open; the ports actually bound (port 0 picks one) are what the
// advertised endpoints carry.

import net from 'node:net';
import type { Logger } from '../logger.js';
import type { ClientListener } from '../listeners.js';
import type { ListenerEndpoint } from '../cluster/cluster-view.js';

/** What a listener's server is given of each socket it accepts (paused, nothing read yet). */
export type AcceptSocket = (listener: ClientListener, socket: net.Socket) => void;

interface Bound {
  listener: ClientListener;
  server: net.Server;
  port: number;
}

export class ListenerServers {
  private constructor(private readonly bound: Bound[]) {}

  /** Binds every listener; on a failure, closes those already bound and throws the first error. */
  static async bind(listeners: readonly ClientListener[], accept: AcceptSocket, log: Logger): Promise<ListenerServers> {
    const bound: Bound[] = [];
    try {
      for (const listener of listeners) bound.push(await listen(listener, accept, log));
    } catch (err) {
      await Promise.all(bound.map((b) => closeServer(b.server)));
      throw err;
    }
    return new ListenerServers(bound);
  }

  /** The port `name` is bound to (its configured port, or the one picked for port 0). */
  port(name: string): number {
    const b = this.bound.find((x) => x.listener.name === name);
    if (!b) throw new Error(`no listener ${name}`);
    return b.port;
  }

  /** Every listener's advertised endpoint, its port 0 replaced by the port bound. */
  advertised(): ListenerEndpoint[] {
    return this.bound.map(({ listener, port }) => ({
      listener: listener.name,
      securityProtocol: listener.securityProtocol,
      host: listener.advertised.host,
      port: listener.advertised.port || port,
    }));
  }

  /** Stops accepting; resolves once every server has closed (their connections are closed by the caller). */
  close(): Promise<void> {
    return Promise.all(this.bound.map((b) => closeServer(b.server))).then(() => undefined);
  }
}

function listen(listener: ClientListener, accept: AcceptSocket, log: Logger): Promise<Bound> {
  const { host, port } = listener;
  return new Promise((resolve, reject) => {
    // Paused, so that the connection can make its reads land in its own buffer (see Connection).
    const server = net.createServer({ pauseOnConnect: true }, (socket) => accept(listener, socket));
    server.once('error', reject);
    server.listen({ host, port }, () => {
      server.off('error', reject);
      server.on('error', (err) => log.error({ err, listener: listener.name }, 'listener error'));
      resolve({ listener, server, port: (server.address() as net.AddressInfo).port });
    });
  });
}

function closeServer(server: net.Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
