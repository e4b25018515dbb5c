// The opt-in HTTP listener (krill.http.listener=host:port): /metrics in Prometheus's text format, /health
// (the process answers) and /ready (the broker serves requests). The broker imports this module only when
// the config is set, so a broker without it loads neither it nor node:http.
//
// Bounded as a side door should be: a few connections at a time, GET only, no request body, small headers,
// short timeouts; anything else is answered 404, 405 or 413 and the connection closed. The one exception is
// /faults (src/faults/fault-endpoint.ts), served only with krill.http.faults=true, which takes small JSON
// bodies to set faults.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../logger.js';
import type { Listener } from '../listeners.js';
import { CONTENT_TYPE } from './exposition.js';
import { scrape, type MetricsSources } from './scrape.js';
import { serveFaults } from '../faults/fault-endpoint.js';
import type { FaultInjector } from '../faults/fault-injector.js';

export { BrokerMetrics } from './broker-metrics.js';

const MAX_CONNECTIONS = 16;
const MAX_HEADER_BYTES = 8192;
const REQUEST_TIMEOUT_MS = 10_000;

export interface HealthSources extends MetricsSources {
  /** Why the broker does not serve requests yet (or any more), or null when it does. */
  notReadyReason(): string | null;
  /** The faults /faults sets (krill.http.faults=true), or null when that endpoint is off. */
  faults: FaultInjector | null;
}

export interface HttpListener {
  /** The address bound (the real port when 0 was asked for). */
  readonly address: Listener;
  close(): Promise<void>;
}

function send(res: http.ServerResponse, status: number, contentType: string, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

const json = (res: http.ServerResponse, status: number, body: object, headers?: Record<string, string>) =>
  send(res, status, 'application/json', `${JSON.stringify(body)}\n`, headers);

function route(req: http.IncomingMessage, res: http.ServerResponse, sources: HealthSources, log: Logger): void {
  const faultsPath = (req.url ?? '/').split('?')[0];
  if (sources.faults && (faultsPath === '/faults' || faultsPath.startsWith('/faults/'))) {
    serveFaults(req, faultsPath, sources.faults).then(
      (reply) => json(res, reply.status, reply.body as object),
      (err) => {
        log.error({ err }, 'fault request failed');
        json(res, 500, { error: 'fault request failed' });
      },
    );
    return;
  }
  const hasBody = (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0') || req.headers['transfer-encoding'] !== undefined;
  if (hasBody) return json(res, 413, { error: 'request bodies are not accepted' }, { Connection: 'close' });
  const path = (req.url ?? '/').split('?')[0];
  if (path !== '/metrics' && path !== '/health' && path !== '/ready') return json(res, 404, { error: `no such endpoint: ${path}` });
  if (req.method !== 'GET') return json(res, 405, { error: `method ${req.method} not allowed` }, { Allow: 'GET' });
  if (path === '/health') return json(res, 200, { status: 'alive' });
  const reason = sources.notReadyReason();
  if (path === '/ready') return reason === null ? json(res, 200, { status: 'ready' }) : json(res, 503, { status: 'not ready', reason });
  try {
    send(res, 200, CONTENT_TYPE, scrape(sources));
  } catch (err) {
    log.error({ err }, 'metrics scrape failed');
    json(res, 500, { error: 'metrics scrape failed' });
  }
}

export function startHttpListener(address: Listener, sources: HealthSources, log: Logger): Promise<HttpListener> {
  const server = http.createServer({ maxHeaderSize: MAX_HEADER_BYTES, requestTimeout: REQUEST_TIMEOUT_MS, headersTimeout: REQUEST_TIMEOUT_MS }, (req, res) =>
    route(req, res, sources, log),
  );
  server.maxConnections = MAX_CONNECTIONS;
  server.keepAliveTimeout = 5_000;
  return new Promise((resolve, reject) => {
    // Named after the config: the CLI would otherwise report a bind failure as the Kafka listener's.
    const failed = (err: NodeJS.ErrnoException) =>
      reject(
        new Error(
          `krill.http.listener: cannot listen on ${address.host}:${address.port}: ${err.code === 'EADDRINUSE' ? 'address already in use (EADDRINUSE)' : err.message}`,
        ),
      );
    server.once('error', failed);
    server.listen({ host: address.host, port: address.port }, () => {
      server.off('error', failed);
      server.on('error', (err) => log.error({ err }, 'HTTP listener error'));
      const bound = { host: address.host, port: (server.address() as AddressInfo).port };
      log.info({ http: `${bound.host}:${bound.port}` }, 'HTTP listener started');
      resolve({
        address: bound,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
