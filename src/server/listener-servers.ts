// One server per client listener (`listeners`): each accepts connections for its listener and tells the
// connection which listener it came in on. The ports are bound together at start, so that a start refused
// on any of them (EADDRINUSE, a bad keystore) leaves none open; the ports actually bound (port 0 picks one)
// are what the advertised endpoints carry.
//
// A PLAINTEXT listener hands over the accepted socket paused, so that the connection reads straight into
// its own buffer. An SSL listener is a node:tls server: the connection is handed over once the handshake is
// done, with the principal of the client's certificate (security/ssl-principal.ts), and reads the TLS
// socket's 'data' (its handle cannot be adopted). The connection quota is checked at the TCP accept, before
// any handshake work, for both. A TLS listener reloads its keystore and truststore when their files change.

import fs from 'node:fs';
import path from 'node:path';
import net from 'node:net';
import tls from 'node:tls';
import type { Logger } from '../logger.js';
import type { ClientListener } from '../listeners.js';
import type { ListenerEndpoint } from '../cluster/cluster-view.js';
import { ANONYMOUS, type KafkaPrincipal } from '../security/session.js';
import type { ServerTls } from '../security/tls-context.js';
import { rfc2253, type SslPrincipalMapper } from '../security/ssl-principal.js';

/** What a TLS listener needs: its settings, and the rules that make a principal of a client certificate. */
export interface ListenerTls {
  tls: ServerTls;
  principals: SslPrincipalMapper;
}

export interface ListenerServerHost {
  log: Logger;
  /** Whether a new connection from `address` is within the connection quotas. */
  admits(socket: net.Socket): boolean;
  /** A connection ready to be served (PLAINTEXT: paused, nothing read yet; SSL: after the handshake). */
  accept(listener: ClientListener, socket: net.Socket, principal: KafkaPrincipal): void;
  /** The TLS settings of an SSL listener (throws ConfigError when they are wrong); not asked for others. */
  tls(listener: ClientListener): ListenerTls;
}

interface Bound {
  listener: ClientListener;
  server: net.Server;
  port: number;
}

export class ListenerServers {
  private constructor(private readonly bound: Bound[]) {}

  /** Binds every listener; on a failure, closes those already bound and throws the first error. */
  static async bind(listeners: readonly ClientListener[], host: ListenerServerHost): Promise<ListenerServers> {
    // Every TLS setting is checked before any port is bound.
    const servers = listeners.map((l) => ({ listener: l, server: makeServer(l, host) }));
    const bound: Bound[] = [];
    try {
      for (const { listener, server } of servers) bound.push(await listen(listener, server, host.log));
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

function makeServer(listener: ClientListener, host: ListenerServerHost): net.Server {
  if (listener.securityProtocol === 'PLAINTEXT' || listener.securityProtocol === 'SASL_PLAINTEXT') {
    // Paused, so that the connection can make its reads land in its own buffer (see Connection).
    return net.createServer({ pauseOnConnect: true }, (socket) => {
      if (host.admits(socket)) host.accept(listener, socket, ANONYMOUS);
      else socket.destroy();
    });
  }
  const { tls: settings, principals } = host.tls(listener);
  const server = tls.createServer(settings.options, (socket) => {
    const principal = principalOf(socket, settings.clientAuth, principals);
    if (principal) host.accept(listener, socket, principal);
    else {
      host.log.warn(
        { listener: listener.name, client: socket.remoteAddress },
        'TLS client refused: its certificate is untrusted, or no ssl.principal.mapping.rules rule maps its name',
      );
      socket.destroy();
    }
  });
  // Over a quota, closed before the handshake costs anything.
  server.on('connection', (socket: net.Socket) => {
    if (!host.admits(socket)) socket.destroy();
  });
  server.on('tlsClientError', (err, socket) => {
    host.log.debug({ listener: listener.name, client: socket.remoteAddress, err: err.message }, 'TLS handshake failed');
  });
  reloadOnChange(listener, server, settings.files, host);
  return server;
}

/**
 * Certificates renewed in place (the keystore or truststore file rewritten, or replaced by a rename, as
 * cert-manager and certbot do) are taken up by new connections without a restart; open ones keep theirs.
 * The directories are watched, not the files, so that a replaced file is still seen. Settings that no
 * longer check out (a file half written) leave the last good ones in use, with a warning.
 */
function reloadOnChange(listener: ClientListener, server: tls.Server, files: readonly string[], host: ListenerServerHost): void {
  if (files.length === 0) return;
  let pending = false;
  const reload = () => {
    pending = false;
    try {
      server.setSecureContext(host.tls(listener).tls.options);
      host.log.info({ listener: listener.name }, 'TLS keystore/truststore reloaded');
    } catch (err) {
      host.log.warn({ listener: listener.name, err: (err as Error).message }, 'TLS keystore/truststore changed but cannot be used; keeping the previous ones');
    }
  };
  const names = new Map<string, Set<string>>();
  for (const f of files) {
    const dir = path.dirname(path.resolve(f));
    if (!names.has(dir)) names.set(dir, new Set());
    names.get(dir)!.add(path.basename(f));
  }
  const watchers = [...names].map(([dir, watched]) =>
    fs.watch(dir, (_event, name) => {
      // One reload for the burst of events a single write makes.
      if (name !== null && watched.has(name.toString()) && !pending) {
        pending = true;
        setImmediate(reload);
      }
    }),
  );
  for (const w of watchers) w.on('error', (err) => host.log.warn({ listener: listener.name, err: err.message }, 'cannot watch the TLS files'));
  server.once('close', () => watchers.forEach((w) => w.close()));
}

/**
 * The client's principal: ANONYMOUS without a certificate (or when none is asked for), else the mapped
 * name of its subject. null refuses the connection: with ssl.client.auth=requested a certificate that was
 * given must still be trusted (as Java's TLS refuses it), and a name no mapping rule matches is refused (Kafka).
 */
function principalOf(socket: tls.TLSSocket, clientAuth: ServerTls['clientAuth'], principals: SslPrincipalMapper): KafkaPrincipal | null {
  if (clientAuth === 'none') return ANONYMOUS;
  const cert = socket.getPeerX509Certificate();
  if (!cert) return ANONYMOUS;
  if (!socket.authorized) return null;
  const name = principals.name(rfc2253(cert));
  return name === null ? null : { type: 'User', name };
}

function listen(listener: ClientListener, server: net.Server, log: Logger): Promise<Bound> {
  const { host, port } = listener;
  return new Promise((resolve, reject) => {
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
