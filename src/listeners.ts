// `listeners` and `advertised.listeners`, read as Kafka reads them: comma-separated NAME://host:port
// entries whose names map to security protocols through `listener.security.protocol.map`, and whose
// controller entries (named in `controller.listener.names`) serve the KRaft quorum, not clients.
//
// krill serves clients on every other listener, one server each (PLAINTEXT, SSL; SASL ones are refused
// until SASL is in), and is its own controller, so controller listeners are accepted and left alone (a
// stock KRaft server.properties has one). The inter-broker listener is chosen as Kafka chooses it:
// `inter.broker.listener.name`, else the listener named after `security.inter.broker.protocol`.

export interface Listener {
  host: string;
  port: number;
}

export interface NamedListener extends Listener {
  /** Upper case, as Kafka normalises listener names (PLAINTEXT when the entry names none). */
  name: string;
}

import type { SecurityProtocol } from './security/session.js';

export type { SecurityProtocol };

/** A client listener: where it binds, its protocol, and what Metadata tells clients that reach it. */
export interface ClientListener extends NamedListener {
  securityProtocol: SecurityProtocol;
  /** Port 0 means the port actually bound. */
  advertised: Listener;
}

export interface ResolvedListeners {
  /** The listeners clients connect to, in the order given; the first is "the listener" of --host/--port. */
  clients: ClientListener[];
  /** The first client listener. */
  listener: NamedListener;
  /** What Metadata tells clients of the first listener; port 0 means the port actually bound. */
  advertised: NamedListener;
  /** The listener brokers of a cluster talk to each other on. */
  interBroker: string;
  /** Controller listeners krill does not open, as written. */
  ignored: string[];
}

export const DEFAULT_PROTOCOL_MAP = 'PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL';
export const SECURITY_PROTOCOLS: readonly SecurityProtocol[] = ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'];
const ENDPOINT = /^(?:([A-Za-z0-9_-]+):\/\/)?(\[[0-9A-Fa-f:.%\w]*\]|[A-Za-z0-9._-]*):(\d+)$/;
const UNROUTABLE = new Set(['0.0.0.0', '::']);

/** Parses one endpoint list; problems are pushed, malformed entries dropped. */
function parseEndpoints(config: string, spec: string, problems: string[]): NamedListener[] {
  const out: NamedListener[] = [];
  const entries = spec
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  if (entries.length === 0) problems.push(`${config}: no listener given`);
  for (const entry of entries) {
    const m = ENDPOINT.exec(entry);
    if (!m) {
      problems.push(`${config}: '${entry}' is not of the form NAME://host:port (e.g. PLAINTEXT://127.0.0.1:9092)`);
      continue;
    }
    const port = Number(m[3]);
    if (port > 65535) {
      problems.push(`${config}: port ${m[3]} in '${entry}' is out of range (0-65535)`);
      continue;
    }
    const name = (m[1] ?? 'PLAINTEXT').toUpperCase();
    if (out.some((l) => l.name === name)) {
      problems.push(`${config}: listener name ${name} appears more than once`);
      continue;
    }
    out.push({ name, host: m[2].replace(/^\[|\]$/g, '') || '127.0.0.1', port });
  }
  return out;
}

function parseProtocolMap(spec: string, problems: string[]): Map<string, SecurityProtocol> {
  const map = new Map<string, SecurityProtocol>();
  for (const entry of spec
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '')) {
    const [name, protocol, extra] = entry.split(':').map((s) => s.trim().toUpperCase());
    if (!name || !protocol || extra !== undefined) {
      problems.push(`listener.security.protocol.map: '${entry}' is not of the form NAME:PROTOCOL`);
    } else if (!SECURITY_PROTOCOLS.includes(protocol as SecurityProtocol)) {
      problems.push(`listener.security.protocol.map: '${protocol}' is not one of ${SECURITY_PROTOCOLS.join(', ')}`);
    } else map.set(name, protocol as SecurityProtocol);
  }
  return map;
}

/**
 * Resolves the client listeners and what is advertised for each, from the config values `get` returns.
 * Returns the problems found instead when there are any.
 */
export function resolveListeners(get: (name: string) => string | null): ResolvedListeners | { problems: string[] } {
  const problems: string[] = [];
  const protocols = parseProtocolMap(get('listener.security.protocol.map') ?? DEFAULT_PROTOCOL_MAP, problems);
  const controllerNames = new Set(
    (get('controller.listener.names') ?? '')
      .split(',')
      .map((n) => n.trim().toUpperCase())
      .filter(Boolean),
  );
  const all = parseEndpoints('listeners', get('listeners') ?? '', problems);
  const clients: (NamedListener & { securityProtocol: SecurityProtocol })[] = [];
  const ignored: string[] = [];
  for (const l of all) {
    const protocol = protocols.get(l.name);
    if (protocol === undefined) {
      problems.push(`listeners: listener ${l.name} has no security protocol in listener.security.protocol.map`);
    } else if (controllerNames.has(l.name)) {
      ignored.push(`${l.name}://${l.host}:${l.port}`);
    } else clients.push({ ...l, securityProtocol: protocol });
  }
  if (all.length > 0 && clients.length === 0 && problems.length === 0) {
    problems.push('listeners: no listener for clients (every one is named in controller.listener.names)');
  }
  // As Kafka: two listeners cannot share a port (port 0 picks a free one for each).
  const ports = new Map<number, string>();
  for (const l of clients) {
    const other = ports.get(l.port);
    if (other !== undefined && l.port !== 0) problems.push(`listeners: ${other} and ${l.name} both use port ${l.port}; each listener needs its own`);
    ports.set(l.port, l.name);
  }

  const advertisedSpec = get('advertised.listeners');
  const advertised = new Map<string, NamedListener>();
  if (advertisedSpec !== null) {
    for (const a of parseEndpoints('advertised.listeners', advertisedSpec, problems)) {
      if (!all.some((l) => l.name === a.name)) {
        problems.push(`advertised.listeners: ${a.name} is not a listener named in listeners`);
      } else if (UNROUTABLE.has(a.host)) {
        problems.push(`advertised.listeners: ${a.host} in ${a.name} is not an address clients can connect to`);
      } else advertised.set(a.name, a);
    }
  }
  for (const l of clients) {
    if (advertised.has(l.name) || !UNROUTABLE.has(l.host)) continue;
    // As Kafka: advertised.listeners defaults to listeners, and clients cannot connect to a wildcard.
    problems.push(
      `advertised.listeners: not set for ${l.name}, and the listener's ${l.host} (every interface) is not an address clients can connect to: set advertised.listeners=${l.name}://<host clients reach>:${l.port}`,
    );
  }
  const interBroker = interBrokerListener(get, clients, problems);
  if (problems.length > 0) return { problems };
  const resolved = clients.map((l): ClientListener => {
    const a = advertised.get(l.name);
    return { ...l, advertised: a ? { host: a.host, port: a.port || l.port } : { host: l.host, port: l.port } };
  });
  const first = resolved[0];
  return {
    clients: resolved,
    listener: { name: first.name, host: first.host, port: first.port },
    advertised: { name: first.name, ...first.advertised },
    interBroker,
    ignored,
  };
}

/**
 * Kafka's rule: `inter.broker.listener.name` or `security.inter.broker.protocol` (default PLAINTEXT, whose
 * listener is the one named after the protocol), never both. A broker of a cluster must have that listener;
 * a single broker talks to no other broker, so a missing one is not a problem there.
 */
function interBrokerListener(get: (name: string) => string | null, clients: NamedListener[], problems: string[]): string {
  const byName = get('inter.broker.listener.name');
  const byProtocol = get('security.inter.broker.protocol');
  if (byName !== null && byProtocol !== null) {
    problems.push('inter.broker.listener.name: only one of inter.broker.listener.name and security.inter.broker.protocol may be set');
  }
  const name = (byName ?? byProtocol ?? 'PLAINTEXT').trim().toUpperCase();
  if (byProtocol !== null && !SECURITY_PROTOCOLS.includes(name as SecurityProtocol)) {
    problems.push(`security.inter.broker.protocol: '${byProtocol}' is not one of ${SECURITY_PROTOCOLS.join(', ')}`);
  } else if (get('zookeeper.connect') !== null && get('process.roles') === null && !clients.some((l) => l.name === name)) {
    const config = byName !== null ? 'inter.broker.listener.name' : 'security.inter.broker.protocol';
    problems.push(`${config}: the inter-broker listener ${name} must be one of the client listeners (${clients.map((l) => l.name).join(', ')})`);
  }
  return name;
}

/** `listeners` with the client listener's host and/or port replaced (--host, --port, startBroker's options). */
export function withAddress(spec: string, resolved: ResolvedListeners, host: string | undefined, port: number | undefined): string {
  const { name } = resolved.listener;
  const h = host ?? resolved.listener.host;
  const entry = `${name}://${h.includes(':') ? `[${h}]` : h}:${port ?? resolved.listener.port}`;
  const others = spec
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '' && (ENDPOINT.exec(e)?.[1] ?? 'PLAINTEXT').toUpperCase() !== name);
  return [entry, ...others].join(',');
}
